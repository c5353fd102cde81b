"""A kind's knobs in the study file's ``[question]``: the ``type`` names it builds from them (``type = "likert"``
with ``points``), the knobs each takes, its template's slots, and what it checks once the study's messages are
known. Each kind's QuestionKnobs is a part of its manifest (survey.common.kinds: ``knobs``); survey.study.question
asks the kinds rather than naming them.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from survey.common.kinds import kind_part, kinds
from survey.errors import error_text
from survey.responses.base import ResponseType

POINT_KNOBS = ("points", "labels", "scores", "low", "high")  # the knobs that set a rating scale's points


class QuestionKnobs:
    """The knobs of a kind without any (Yes/No, forced choice): its types are named in full."""

    families: dict[str, tuple[str, ...]] = {}  # type name built from knobs -> the point knobs it takes
    own_keys: tuple[str, ...] = ()  # knobs that belong to this kind whatever its type is named
    slots: tuple[str, ...] = ()  # the template's slots for a family name; () : "{perturbation}"
    examples: dict[str, str] = {}  # family -> a full name to suggest
    # the kind's own study-file keys, declared here rather than in QuestionSpec: a KindKeys model (extra keys
    # forbidden); QuestionSpec hands them to the kind (``declared_keys``, ``kind_keys``)
    keys: type[BaseModel] | None = None

    def owns(self, type_name: str) -> bool:
        """Whether ``type_name`` (a family or a full name such as "likert5") is this kind's."""
        return any(type_name == f or type_name.startswith(f) for f in self.families)

    def build(self, family: str, spec: Any) -> ResponseType:
        """The response type of ``type = family`` with the spec's knobs."""
        raise NotImplementedError

    def misplaced(self, keys: list[str], type_name: str) -> str:
        """The message for this kind's own ``keys`` given to another kind's type."""
        return f"{', '.join(keys)} only apply to this kind's types, not to type = '{type_name}'"

    def show_messages(self, spec: Any, k: int) -> None:
        """Check, or complete, the response type once the study's k messages are known."""

    def reversible(self, rtype: ResponseType) -> bool:
        """Whether order = 'both' can reverse the scale of ``rtype``."""
        return False

    def reverse(self, rtype: ResponseType, template: str | None) -> ResponseType:
        raise NotImplementedError


class KindKeys(BaseModel):
    """Base of a kind's own study-file keys (QuestionKnobs.keys): unknown keys are refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)


NO_KNOBS = QuestionKnobs()


def kind_knobs(kind: str) -> QuestionKnobs:
    """The knobs of kind ``kind`` (NO_KNOBS for a kind without any, or not registered)."""
    return kind_part(kind, "knobs", QuestionKnobs) or NO_KNOBS


def every_knobs() -> list[QuestionKnobs]:
    return [kind_knobs(m.name) for m in kinds()]


def family_knobs(type_name: str) -> QuestionKnobs | None:
    """The knobs of the kind whose family ``type_name`` is ("likert", "pick"), or None."""
    return next((k for k in every_knobs() if type_name in k.families), None)


def owner_knobs(type_name: str) -> QuestionKnobs | None:
    """The knobs of the kind a family or full name belongs to ("likert5" -> the rating scales'), or None."""
    return next((k for k in every_knobs() if k.owns(type_name)), None)


def declared_keys() -> dict[str, QuestionKnobs]:
    """Every study-file key a kind declares in its ``keys`` model -> that kind's knobs."""
    return {key: k for k in every_knobs() if k.keys is not None for key in k.keys.model_fields}


def kind_keys(type_name: str, given: dict[str, Any]) -> BaseModel | None:
    """The keys ``given`` (declared by some kind) validated by the kind of ``type_name``: its KindKeys instance
    (None when it declares none). A key of another kind's gets that kind's one-line ``misplaced`` message, a bad
    value one line naming the key; both as ValueError, for pydantic to place under [question]."""
    declared = declared_keys()
    owner = owner_knobs(type_name)
    for other in {id(declared[k]): declared[k] for k in given}.values():
        wrong = [k for k in given if declared[k] is other]
        if other is not owner:
            raise ValueError(other.misplaced(wrong, type_name))
    if owner is None or owner.keys is None:
        return None
    if type_name not in owner.families:  # "numeric0to100": the full name already fixes what the keys would set
        family = next(f for f in owner.families if type_name.startswith(f))
        raise ValueError(f"type = '{type_name}' is a full scale name; to set {', '.join(given)} write "
                         f"type = '{family}' with them")
    try:
        return owner.keys(**given)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err.get("loc", ()))
        raise ValueError(f"{where}: {error_text(err)}" if where else error_text(err)) from None


__all__ = ["KindKeys", "declared_keys", "kind_keys", "NO_KNOBS", "POINT_KNOBS", "QuestionKnobs", "every_knobs", "family_knobs", "kind_knobs", "owner_knobs"]
