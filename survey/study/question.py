"""The study file's ``[question]``: its response type (survey.responses), template, reply length, and the
knobs of rating scales (points, labels, scores, range, a balanced scale's order) and of semantic-similarity
rating (anchors, embedder). Parsed with the rest of the study by survey.study.spec.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from survey.common.names import DEFAULT_QUESTION, NAME_RE
from survey.errors import SurveyError
from survey.responses import DEFAULT_SCALE, ResponseType, response_type
from survey.responses.stated import StatedDistribution, stated
from survey.study.knobs import (
    POINT_KNOBS,
    declared_keys,
    every_knobs,
    family_knobs,
    kind_keys,
    kind_knobs,
    owner_knobs,
)

# a kind's own keys (its knobs' KindKeys), validated by the kind before the spec is built (QuestionSpec._take_kind_keys)
_KIND_KEYS: ContextVar = ContextVar("kind keys", default=None)

__all__ = ["DEFAULT_QUESTION", "QuestionSpec", "direction_of"]


def direction_of(replicate: int, order: str) -> str:
    """The direction replicate ``replicate`` is asked in: with ``order = "both"`` odd replicates are reversed."""
    return "reversed" if order == "both" and int(replicate) % 2 == 1 else "forward"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class QuestionSpec(_Strict):
    """The question after the persona prompt: its response type (survey.responses), template and
    reply length; the template and length default to the type's.

    ``type = "likert"`` takes ``points`` (default 5), optional ``labels`` (the words a model answers
    with; default the scores' digits) and ``scores`` (consecutive whole numbers; default 1..K);
    ``type = "rating"`` takes ``low`` and ``high`` (default 0 and 10); ``type = "ssr"`` (a free-text reply
    rated by semantic similarity, survey.kinds.ssr.parsing) takes ``points`` (default 5), ``anchors``,
    ``embedder``, ``similarity_temperature``, ``epsilon`` and ``relevance_floor``; ``type = "pick"`` (one of
    the k messages shown together, survey.kinds.pick.parsing) takes k from the study's messages; ``type = "maxdiff"`` (best and worst of
    subsets, survey.kinds.maxdiff.parsing) takes ``subset`` (default 3). ``type`` may also be a scale's full name
    ("likert5", "rating0-10", "ssr5"); after validation it always is.
    """

    id: str = Field(DEFAULT_QUESTION, description="the question's id: its key in the store and the table's "
                    "`question` column (required in [[questions]]; a single [question] defaults to 'q')")
    type: str = Field(
        DEFAULT_SCALE, validation_alias=AliasChoices("type", "mode"),
        description="response type (survey.responses): 'binary' (Yes/No parsed into 1/0), 'likert' (K labelled "
                    "points), 'rating' (a numeric range such as 0-10), 'choice' (forced choice between the two "
                    "messages, asked in both orders), 'pick' (one of the k messages shown together, positions "
                    "rotated by a Latin square), 'maxdiff' (best and worst of subsets of the messages) or 'text' "
                    "(free text for DBPA, answer empty). `mode` is "
                    "accepted as the older name of this key")
    template: str | None = Field(
        None, description="question shown after the persona prompt; must contain {perturbation} "
                          "({first} and {second} for choice, {options} for pick and maxdiff)")
    max_tokens: int | None = Field(
        None, ge=1, description="reply length; default: the response type's (binary 1, scales 3, text 80)")
    points: int | None = Field(None, ge=2, le=101, description="likert: number of points K (default 5)")
    labels: list[str] | None = Field(None, min_length=2, description="likert: the K answer words, lowest first "
                                     "(default: the scores' digits, which exact mode reads as single tokens)")
    scores: list[int] | None = Field(None, min_length=2, description="likert: consecutive whole-number scores, "
                                     "lowest first (default 1..K)")
    low: int | None = Field(None, description="rating: the lowest point (default 0)")
    high: int | None = Field(None, description="rating: the highest point (default 10)")
    order: Literal["forward", "both"] = Field(
        "forward", description="likert/rating: 'both' asks odd replicates with the scale reversed (points listed "
                               "K..1, answers mapped back) so that the analysis can measure and average out the "
                               "direction effect; needs an even number of replicates")
    reversed_template: str | None = Field(
        None, description="order = 'both' with your own template: the question with the scale's ends swapped "
                          "(must contain {perturbation})")
    anchors: str | None = Field(None, description="ssr: the anchor set, one statement per point (anchors/NAME.yaml "
                                "or a path; default 'purchase_intent')")
    embedder: str | None = Field(None, description="ssr: the embedder rating replies (survey.embed: 'minilm', "
                                 "'mistral-embed', 'dashscope'; default 'minilm', local)")
    similarity_temperature: float | None = Field(None, ge=0, description="ssr: temperature of the similarity "
                                                 "distribution (default 1: as computed)")
    epsilon: float | None = Field(None, ge=0, description="ssr: mass added at the least similar point (default 0)")
    relevance_floor: float | None = Field(None, ge=-1, le=1, description="ssr: a reply whose best cosine similarity "
                                          "to any anchor statement is below it is unrated (irrelevant), not a middle "
                                          "answer (default: the embedder's, 0.2 for minilm; -1 turns it off)")
    elicit: Literal["answer", "distribution"] = Field(
        "answer", description="'distribution' asks Yes/No, rating-scale and forced-choice questions for a "
                              "probability per answer option as JSON (survey.responses.stated): a stand-in for "
                              "exact mode where a model gives no log-probabilities")
    _response: ResponseType | None = PrivateAttr(None)
    _reversed: ResponseType | None = PrivateAttr(None)
    # the type is named in full ("likert5", "pick3"), or completed once the study's messages are known
    _named: bool = PrivateAttr(False)
    _keys: Any = PrivateAttr(None)

    @classmethod
    def more_keys(cls) -> list[str]:
        """The keys the kinds declare (survey.study.knobs), for an unknown key's "did you mean"."""
        return list(declared_keys())

    @property
    def kind_keys(self) -> Any:
        """The kind's own keys as validated by its knobs (a KindKeys model), or None."""
        return self._keys

    @model_validator(mode="before")
    @classmethod
    def _one_type_key(cls, data: Any) -> Any:
        if isinstance(data, dict) and "type" in data and "mode" in data:
            raise ValueError("give the response type once: `type` (or its older name `mode`), not both")
        return data

    @field_validator("id")
    @classmethod
    def _valid_id(cls, v: str) -> str:
        if not NAME_RE.match(v):
            raise ValueError(f"question id '{v}' must be letters, digits, '_', '-' or '.', starting with a letter or "
                             "digit (it becomes a key in the store and the table)")
        return v

    @field_validator("type")
    @classmethod
    def _known_type(cls, v: str) -> str:
        if family_knobs(v) is not None:  # a kind's family, built with its knobs below (pick: k from the messages)
            return v
        try:
            return response_type(v).scale
        except SurveyError as exc:  # pydantic names the field only for a ValueError
            raise ValueError(str(exc)) from exc

    @field_validator("template")
    @classmethod
    def _has_slots(cls, v: str | None, info: ValidationInfo) -> str | None:
        if v is None or "type" not in info.data:
            return v
        kind = info.data["type"]
        knobs = family_knobs(kind)
        slots = knobs.slots if knobs is not None else getattr(response_type(kind), "slots", ())
        slots = slots or ("perturbation",)
        missing = [s for s in slots if "{" + s + "}" not in v]
        if missing:
            where = " and ".join("{" + s + "}" for s in slots)
            raise ValueError(f"the template must contain {where} where the paraphrase"
                             f"{'s go' if len(slots) > 1 else ' goes'}")
        try:
            v.format(**dict.fromkeys(slots, "x"))
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(f"the template has a placeholder other than "
                             f"{', '.join('{' + s + '}' for s in slots)} ({exc}); "
                             "write literal braces as {{ and }}") from exc
        return v

    @model_validator(mode="after")
    def _build_type(self) -> QuestionSpec:
        self._keys = _KIND_KEYS.get()
        kind = self.type
        knobs = family_knobs(kind)
        given = [k for k in POINT_KNOBS if getattr(self, k) is not None]
        wrong = [k for k in given if k not in (knobs.families[kind] if knobs else ())]
        owner = owner_knobs(kind)
        family = next((f for f in (owner.families if owner else ()) if owner.families[f] and kind.startswith(f)
                       and kind != f), None)
        if wrong and family:  # "likert5" with points = 7: the name already fixes the points
            fixed = response_type(kind)
            raise ValueError(f"type = '{kind}' already fixes its points ({fixed.low} to {fixed.high}), so "
                             f"{', '.join(wrong)} cannot change them: write type = '{family}' with "
                             f"{', '.join(f'{k} = ...' for k in wrong)}, or another full name "
                             f"(e.g. '{owner.examples.get(family, family)}')")
        if wrong:
            allowed = [f"'{f}' ({', '.join(keys)})" for k in every_knobs() for f, keys in k.families.items() if keys]
            raise ValueError(f"{', '.join(wrong)} only apply to type = {', '.join(allowed[:-1])} or {allowed[-1]}, "
                             f"not to type = '{kind}'")
        for other in every_knobs():
            own = [k for k in other.own_keys if getattr(self, k) is not None]
            if own and not other.owns(kind):
                raise ValueError(other.misplaced(own, kind))
        try:
            rtype = knobs.build(kind, self) if knobs else response_type(kind)
        except SurveyError as exc:  # pydantic names the field only for a ValueError
            raise ValueError(str(exc)) from exc
        self._named = knobs is None
        self.type = rtype.scale
        self._response = rtype
        self._build_reversed(rtype)
        self._build_elicit(kind)
        return self

    def _build_elicit(self, kind: str) -> None:
        """elicit = "distribution": the type (and its reversed direction) asked for a stated distribution."""
        self._response = stated(self._response, self.elicit, kind)
        if self._reversed is not None and self.elicit == "distribution":
            self._reversed = StatedDistribution(self._reversed)

    @model_validator(mode="wrap")
    @classmethod
    def _take_kind_keys(cls, data: Any, handler):
        """Keys a kind declares in its knobs (survey.study.knobs: QuestionKnobs.keys, e.g. numeric's min and max)
        are taken out and validated by the kind the type names; the rest is this model's. Defined after the
        other validators so that it wraps them all (the built type reads the keys)."""
        if not isinstance(data, dict):
            return handler(data)
        declared = declared_keys()
        own = {k: v for k, v in data.items() if k in declared and k not in cls.model_fields}
        if not own:
            return handler(data)
        rest = {k: v for k, v in data.items() if k not in own}
        named = rest.get("type", rest.get("mode", DEFAULT_SCALE))
        if owner_knobs(str(named)) is None:  # an unknown type says so first; a known one without these keys below
            handler(rest)
        token = _KIND_KEYS.set(kind_keys(str(named), own))
        try:
            return handler(rest)
        finally:
            _KIND_KEYS.reset(token)

    @property
    def named(self) -> bool:
        """Whether the type is fixed by its full name ("pick3"), not still to be completed from the study."""
        return self._named

    def complete_response(self, rtype: ResponseType) -> None:
        """The response type completed once the study's messages are known (pick: k; survey.study.knobs)."""
        self._response = rtype
        self.type = rtype.scale
        self._named = True

    def show_messages(self, k: int) -> None:
        """The response type checked, or completed, for the study's k messages (its kind's knobs): pick one of k
        takes k from them, best-worst scaling's subsets must fit in them."""
        kind_knobs(self.response.view.kind).show_messages(self, k)

    def _build_reversed(self, rtype: ResponseType) -> None:
        """order = "both": the reversed scale (survey.kinds.ordinal.balanced), built once here so that a dry run
        refuses what a run would."""
        if self.order == "forward":
            if self.reversed_template is not None:
                raise ValueError("reversed_template only applies with order = 'both'")
            return
        knobs = kind_knobs(rtype.view.kind)
        if not knobs.reversible(rtype):
            raise ValueError(f"order = 'both' reverses a likert or rating scale; type = '{self.type}' has no scale "
                             "to reverse: remove order")
        if self.template is not None and self.reversed_template is None:
            raise ValueError("order = 'both' with your own template needs reversed_template: the same question "
                             "with the scale's ends swapped (e.g. 'from 1 (definitely would buy) to 5 (definitely "
                             "would not buy)')")
        if self.reversed_template is not None and "{perturbation}" not in self.reversed_template:
            raise ValueError("reversed_template must contain {perturbation} where the paraphrase goes")
        self._reversed = knobs.reverse(rtype, self.reversed_template)

    def response_for(self, replicate: int) -> ResponseType:
        """The response type replicate ``replicate`` is asked with: reversed for odd replicates when order = 'both'."""
        if direction_of(replicate, self.order) == "reversed" and self._reversed is not None:
            return self._reversed
        return self.response

    def template_for(self, replicate: int) -> str:
        """The question replicate ``replicate`` is asked with (see response_for)."""
        rtype = self.response_for(replicate)
        if rtype is self.response:
            return self.resolved_template
        return rtype.question(rtype.template)

    @property
    def response(self) -> ResponseType:
        return self._response or response_type(self.type)

    @property
    def rating(self) -> dict:
        """ssr: how replies are rated (survey.collect.similarity_rating), defaults filled in."""
        return {"anchors": self.anchors or "purchase_intent", "embedder": self.embedder or "minilm",
                "temperature": 1.0 if self.similarity_temperature is None else self.similarity_temperature,
                "epsilon": self.epsilon or 0.0, "relevance_floor": self.relevance_floor}

    @property
    def mode(self) -> str:
        """The older name of ``type``, still read by study files and scripts."""
        return self.type

    @property
    def resolved_template(self) -> str:
        return self.response.question(self.template or self.response.template)

    @property
    def default_max_tokens(self) -> int:
        return self.max_tokens or self.response.max_tokens
