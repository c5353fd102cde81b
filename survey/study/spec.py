"""The study file: a TOML document parsed into pydantic models (the design of Helm & Priebe 2026).

A study names the personas, the messages with their perturbation sets, the question, the models
and the replicates; `survey run` turns it into stored responses. Relative paths in a study (the
store, persona/perturbation files) resolve against the folder of the study file, so a study
runs the same from any working directory.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from survey.common.limits import Seed
from survey.errors import SurveyError, pydantic_message
from survey.registry.files import NAME_RE as _ID  # one id rule for studies and registry sets
from survey.registry.files import study_base_dir, study_sets_dir
from survey.responses import DEFAULT_SCALE, ResponseType, likert, rating, response_type
from survey.study.sequential import SequentialSpec


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _check_id(value: str, what: str) -> str:
    if not _ID.match(value):
        raise ValueError(f"{what} '{value}' must be letters, digits, '_', '-' or '.', starting with a "
                         "letter or digit (it becomes a key in the store and the table)")
    return value


class PersonaSpec(_Strict):
    """`[personas]`: which persona set, how many, and an optional system prompt template."""

    set: str = Field(description="persona set name (personas/NAME.*) or a path to a persona file")
    count: int | None = Field(None, ge=1, description="how many personas; all of the set when absent")
    sample_seed: Seed | None = Field(
        None, description="draw `count` personas at random with this seed instead of taking the first")
    template: str | None = Field(
        None, description="system prompt template overriding the set's, e.g. for free-text answers")


class MessageSpec(_Strict):
    """One `[[messages]]` entry: a message given as its set of perturbations (paraphrases)."""

    id: str | None = Field(None, description="the message's id in the table; default: the set's message id")
    perturbations: str = Field(description="perturbation set name (perturbations/NAME.*) or a path")
    count: int | None = Field(None, ge=1, description="use the first `count` perturbations; all when absent")

    @field_validator("id")
    @classmethod
    def _valid_id(cls, v: str | None) -> str | None:
        return v if v is None else _check_id(v, "message id")


class QuestionSpec(_Strict):
    """The question after the persona prompt: its response type (survey.responses), template and
    reply length; the template and length default to the type's.

    ``type = "likert"`` takes ``points`` (default 5), optional ``labels`` (the words a model answers
    with; default the scores' digits) and ``scores`` (consecutive whole numbers; default 1..K);
    ``type = "rating"`` takes ``low`` and ``high`` (default 0 and 10). ``type`` may also be a scale's
    full name ("likert5", "rating0-10"); after validation it always is.
    """

    type: str = Field(
        DEFAULT_SCALE, validation_alias=AliasChoices("type", "mode"),
        description="response type (survey.responses): 'binary' (Yes/No parsed into 1/0), 'likert' (K labelled "
                    "points), 'rating' (a numeric range such as 0-10), 'choice' (forced choice between the two "
                    "messages, asked in both orders) or 'text' (free text for DBPA, answer empty). `mode` is "
                    "accepted as the older name of this key")
    template: str | None = Field(
        None, description="question shown after the persona prompt; must contain {perturbation} "
                          "({first} and {second} for choice)")
    max_tokens: int | None = Field(
        None, ge=1, description="reply length; default: the response type's (binary 1, scales 3, text 80)")
    points: int | None = Field(None, ge=2, le=101, description="likert: number of points K (default 5)")
    labels: list[str] | None = Field(None, min_length=2, description="likert: the K answer words, lowest first "
                                     "(default: the scores' digits, which exact mode reads as single tokens)")
    scores: list[int] | None = Field(None, min_length=2, description="likert: consecutive whole-number scores, "
                                     "lowest first (default 1..K)")
    low: int | None = Field(None, description="rating: the lowest point (default 0)")
    high: int | None = Field(None, description="rating: the highest point (default 10)")
    _response: ResponseType | None = PrivateAttr(None)

    @model_validator(mode="before")
    @classmethod
    def _one_type_key(cls, data: Any) -> Any:
        if isinstance(data, dict) and "type" in data and "mode" in data:
            raise ValueError("give the response type once: `type` (or its older name `mode`), not both")
        return data

    @field_validator("type")
    @classmethod
    def _known_type(cls, v: str) -> str:
        if v in ("likert", "rating"):  # built with their knobs below
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
        slots = () if kind in ("likert", "rating") else getattr(response_type(kind), "slots", ())
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
        kind = self.type
        knobs = {"likert": ("points", "labels", "scores"), "rating": ("low", "high")}
        given = [k for k in ("points", "labels", "scores", "low", "high") if getattr(self, k) is not None]
        wrong = [k for k in given if k not in knobs.get(kind, ())]
        family = next((f for f in knobs if kind.startswith(f) and kind != f), None)
        if wrong and family:  # "likert5" with points = 7: the name already fixes the points
            fixed = response_type(kind)
            raise ValueError(f"type = '{kind}' already fixes its points ({fixed.low} to {fixed.high}), so "
                             f"{', '.join(wrong)} cannot change them: write type = '{family}' with "
                             f"{', '.join(f'{k} = ...' for k in wrong)}, or another full name "
                             f"(e.g. '{dict(likert='likert7', rating='rating1-7')[family]}')")
        if wrong:
            allowed = {k: ", ".join(v) for k, v in knobs.items()}
            raise ValueError(f"{', '.join(wrong)} only apply to type = 'likert' ({allowed['likert']}) or "
                             f"'rating' ({allowed['rating']}), not to type = '{kind}'")
        try:
            if kind == "likert":
                points = self.points or (len(self.labels) if self.labels else len(self.scores or ()) or 5)
                for what, seq in (("labels", self.labels), ("scores", self.scores)):
                    if seq is not None and len(seq) != points:
                        raise SurveyError(f"{what} has {len(seq)} entries for {points} points; give one per point")
                rtype = likert(points, self.labels, self.scores, max_tokens=self.max_tokens)
            elif kind == "rating":
                rtype = rating(0 if self.low is None else self.low, 10 if self.high is None else self.high)
            else:
                rtype = response_type(kind)
        except SurveyError as exc:  # pydantic names the field only for a ValueError
            raise ValueError(str(exc)) from exc
        self.type = rtype.scale
        self._response = rtype
        return self

    @property
    def response(self) -> ResponseType:
        return self._response or response_type(self.type)

    @property
    def mode(self) -> str:
        """The older name of ``type``, still read by study files and scripts."""
        return self.type

    @property
    def resolved_template(self) -> str:
        return self.template or self.response.template

    @property
    def default_max_tokens(self) -> int:
        return self.max_tokens or self.response.max_tokens


class ModelSpec(_Strict):
    """One `[[models]]` entry: the backend and model id, sampling settings, limits and prices."""

    name: str = Field(description="the model's name in the store and the table, e.g. 'ministral-8b'")
    backend: str = Field(description="simulated, local, mistral or dashscope")
    model_id: str = Field("", description="the provider's model id, e.g. 'ministral-8b-2512'")
    temperature: float = Field(1.0, ge=0, le=2)
    max_tokens: int | None = Field(None, ge=1, description="default 1 (binary) or the question's max_tokens (text)")
    seed: int | None = None
    logprobs: bool = False
    top_logprobs: int = Field(0, ge=0, le=20)
    params: dict[str, Any] = Field(default_factory=dict,
                                   description="extra provider parameters, e.g. enable_thinking = false")
    options: dict[str, Any] = Field(default_factory=dict,
                                    description="backend options, e.g. api_key_env, server_url, mode")
    batch: bool = Field(False, description="use the provider's batch API (backends that have one)")
    concurrency: int = Field(8, ge=1, le=1024)
    rpm: float | None = Field(None, gt=0, description="requests per minute limit")
    tpm: float | None = Field(None, gt=0, description="tokens per minute limit (prompt + max_tokens)")
    price_input: float | None = Field(None, ge=0, description="USD per 1M input tokens (overrides the backend's list price)")
    price_output: float | None = Field(None, ge=0, description="USD per 1M output tokens (overrides the backend's list price)")

    @field_validator("name")
    @classmethod
    def _valid_name(cls, v: str) -> str:
        return _check_id(v, "model name")

    @field_validator("backend")
    @classmethod
    def _known_backend(cls, v: str) -> str:
        from survey.backends import BACKENDS

        if v not in BACKENDS:
            raise ValueError(f"unknown backend '{v}'; choose one of {', '.join(BACKENDS)}")
        return v

    @model_validator(mode="after")
    def _needs_model_id(self) -> ModelSpec:
        from survey.backends import backend_capabilities

        try:
            needs_model_id = backend_capabilities(self.backend).needs_model_id
        except SurveyError as exc:  # a registered backend whose module does not import
            raise ValueError(str(exc)) from exc
        if needs_model_id and not self.model_id:
            raise ValueError(f"model '{self.name}': set model_id to the provider's id "
                             f"(backend '{self.backend}' needs one)")
        if self.top_logprobs and not self.logprobs:
            self.logprobs = True  # asking for top-k implies asking for logprobs
        return self

    @property
    def paid(self) -> bool:
        """Queries cost money (the backend says so): runs ask before sending and estimate a price."""
        from survey.backends import backend_capabilities

        return backend_capabilities(self.backend, self.options).paid


class BudgetSpec(_Strict):
    """`[budget]`: caps a run refuses to exceed, counted over the whole study (stored + to send)."""

    max_queries: int | None = Field(None, ge=1, description="refuse a run whose total queries exceed this")
    max_cost: float | None = Field(None, gt=0, description="refuse a run whose estimated USD cost exceeds this")


class StudySpec(_Strict):
    """A whole study file: name, store, replicates, personas, messages, question, models, budget.

    Build it in code with ``StudySpec(name=..., personas=PersonaSpec(...), ...)`` or from a dict with
    ``StudySpec.model_validate(...)``; `survey.Study` plans and runs it.
    """

    name: str = Field(description="study name: a key in the store, so a store can hold several studies")
    store: str = Field(description="SQLite store path; relative paths resolve against the study file's folder")
    replicates: int = Field(1, ge=1, description="r: independent queries per (persona, perturbation)")
    personas: PersonaSpec
    messages: list[MessageSpec] = Field(min_length=1)
    question: QuestionSpec = Field(default_factory=QuestionSpec)
    models: list[ModelSpec] = Field(min_length=1)
    budget: BudgetSpec = Field(default_factory=BudgetSpec)
    sequential: SequentialSpec | None = Field(
        None, description="buy the pairs of two messages in rounds and stop when the sequential test decides")
    # The folder relative paths resolve against: the study file's folder (load_study), else the cwd.
    _base_dir: Path | None = PrivateAttr(None)
    # The folder set names resolve against, when it differs from _base_dir (a shipped study run in place
    # writes its store under the cwd but reads its sets from its own folder).
    _sets_dir: Path | None = PrivateAttr(None)

    @field_validator("name")
    @classmethod
    def _valid_name(cls, v: str) -> str:
        return _check_id(v, "study name")

    @model_validator(mode="after")
    def _sequential_fits_the_question(self) -> StudySpec:
        # refused here, so that a dry run refuses it too: a run once bought the first round, then stopped
        view = self.question.response.view
        if self.sequential is not None and not (view.points and view.per_message):
            what = ("free-text replies have no score to test" if not view.points else
                    "a forced-choice reply already compares both messages; `survey analyze` tests it")
            raise ValueError(f"[sequential] buys paraphrase pairs of two separately asked messages in rounds; "
                             f"question type '{self.question.type}' cannot be bought that way ({what}): remove "
                             "[sequential]")
        return self

    @model_validator(mode="after")
    def _unique(self) -> StudySpec:
        for what, ids in (("messages", [m.id for m in self.messages if m.id]), ("models", [m.name for m in self.models])):
            dup = sorted({x for x in ids if ids.count(x) > 1})
            if dup:
                raise ValueError(f"{what}: duplicate name(s) {', '.join(dup)}; each must be unique")
        return self

    def resolve(self, path: str) -> Path:
        """A path from the study file, relative to the study's folder unless absolute."""
        p = Path(path).expanduser()
        return p if p.is_absolute() else (self._base_dir or Path.cwd()) / p

    @property
    def store_path(self) -> Path:
        return self.resolve(self.store)

    @property
    def sets_dir(self) -> Path:
        """The folder whose personas/ and perturbations/ are searched first for the sets this study names."""
        return self._sets_dir or self.resolve(".")

    def registry_ref(self, ref: str) -> str:
        """A set name stays a name; something that looks like a path resolves against the study folder."""
        if "/" in ref or "\\" in ref or Path(ref).suffix:
            p = Path(ref).expanduser()
            return str(p if p.is_absolute() else self.sets_dir / p)
        return ref

    def model(self, name: str) -> ModelSpec:
        for m in self.models:
            if m.name == name:
                return m
        raise SurveyError(f"study '{self.name}' has no model '{name}'; it has "
                          f"{', '.join(m.name for m in self.models)}")


def parse_study(data: dict, source: str = "study", base_dir: Path | None = None,
                sets_dir: Path | None = None) -> StudySpec:
    try:
        study = StudySpec.model_validate(data)
    except ValidationError as exc:
        raise SurveyError(pydantic_message(exc, source, StudySpec)) from exc
    if base_dir is not None:
        study._base_dir = base_dir
    if sets_dir is not None and sets_dir != base_dir:
        study._sets_dir = sets_dir
    return study


def load_study(path: str | Path) -> StudySpec:
    """Read and validate a study TOML file; errors name the file, the field and the fix."""
    path = Path(path)
    if not path.exists():
        raise SurveyError(f"{path}: no such study file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SurveyError(f"{path}: not valid TOML ({exc})") from exc
    except UnicodeDecodeError as exc:
        raise SurveyError(f"{path}: not UTF-8 text ({exc})") from exc
    return parse_study(data, str(path), base_dir=study_base_dir(path), sets_dir=study_sets_dir(path))
