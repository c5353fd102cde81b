"""Response types: how a reply becomes an answer, and what a valid answer is.

One registry, scale name -> type. The study's ``[question] type``, the store's record of a study,
the table's optional ``scale`` column and the local backend all look types up here, so a new type
is one ResponseType subclass (survey/responses/base.py) plus one ``register`` line below.

    response_type("binary").parse("**Yes**")   -> 1
    response_type("text").scored               -> False
    response_type("likert5").values            -> {1, 2, 3, 4, 5}

Rating scales are families named by their points (survey.kinds.ordinal.parsing): ``likert5``,
``likert0-4``, ``rating0-10``; they are built from the name on first use, not registered one by one,
as are semantic-similarity scales (``ssr5``: free text rated on 5 points, survey.kinds.ssr.parsing) and
pick one of k (``pick3``: three messages shown together, survey.kinds.pick.parsing) and best-worst scaling
(``maxdiff3``: subsets of three, survey.kinds.maxdiff.parsing).
"""

from __future__ import annotations

from survey.common.kinds import kinds
from survey.common.names import NAME_RE
from survey.common.registry import Registry
from survey.errors import SurveyError
from survey.kinds.binary.parsing import Binary
from survey.kinds.choice.parsing import Choice
from survey.kinds.maxdiff.parsing import BestWorst
from survey.kinds.ordinal.parsing import OrdinalScale, likert, rating
from survey.kinds.pick.parsing import PickOne
from survey.kinds.ssr.parsing import SemanticScale
from survey.responses.base import ResponseType
from survey.responses.text import FreeText

DEFAULT_SCALE = "binary"  # the paper's question; also what a table row or old store without a scale is


def _check_type(scale: str, rtype: ResponseType) -> None:
    """A response type's scale is its name; its template holds its slots; its labels are distinct words."""
    if scale != getattr(rtype, "scale", None) or not isinstance(scale, str) or not NAME_RE.match(scale):
        raise SurveyError(f"response type {type(rtype).__name__}: scale must be a name of letters, digits, "
                          f"'_', '-' or '.'; got {getattr(rtype, 'scale', None)!r}")
    slots = getattr(rtype, "slots", ("perturbation",))
    if not all("{" + slot + "}" in getattr(rtype, "template", "") for slot in slots):
        raise SurveyError(f"response type '{scale}': its template must contain "
                          + " and ".join("{" + slot + "}" for slot in slots))
    if not isinstance(getattr(rtype, "max_tokens", None), int) or rtype.max_tokens < 1:
        raise SurveyError(f"response type '{scale}': max_tokens must be a whole number >= 1")
    words = [label.casefold() for label in rtype.labels.values()]
    if not all(isinstance(v, int) for v in rtype.labels) or len(set(words)) != len(words):
        raise SurveyError(f"response type '{scale}': labels must map whole-number scores to distinct words")


RESPONSE_TYPES = Registry("response type", base=ResponseType, check=_check_type)


def register(rtype: ResponseType) -> ResponseType:
    """Add a response type under its scale name; refuses a second type under a taken name."""
    scale = getattr(rtype, "scale", None)
    if not isinstance(scale, str) or not NAME_RE.match(scale):
        _check_type(str(scale), rtype)
    if scale in RESPONSE_TYPES:
        raise SurveyError(f"a response type '{scale}' is already registered ({type(RESPONSE_TYPES[scale]).__name__})")
    return RESPONSE_TYPES.register(scale, rtype)


def response_type(scale: str) -> ResponseType:
    """The registered type of a scale name, or the one a kind builds from it (its manifest's ``parsing``,
    survey.common.kinds: "likert5", "pick3"); a SurveyError names the known ones."""
    if scale in RESPONSE_TYPES:
        return RESPONSE_TYPES[scale]
    if scale not in _FAMILY_CACHE:
        family = next((rtype for manifest in kinds() if isinstance(scale, str)
                       for rtype in (manifest.part("parsing")(scale),) if rtype is not None), None)
        if family is None:
            raise SurveyError(f"unknown response type '{scale}'; choose one of {known_scales()}")
        _FAMILY_CACHE[scale] = family
    return _FAMILY_CACHE[scale]


def is_scale(scale) -> bool:
    """True when ``scale`` names a response type (registered or a rating-scale family member)."""
    try:
        response_type(scale)
    except SurveyError:
        return False
    return True


def known_scales() -> str:
    """For messages: the registered names and how each kind's scale names look."""
    return ", ".join([*RESPONSE_TYPES, *(name for manifest in kinds() for name in manifest.scale_names)])


_FAMILY_CACHE: dict[str, ResponseType] = {}


BINARY = register(Binary())
register(FreeText())
CHOICE = register(Choice())

__all__ = ["BINARY", "CHOICE", "BestWorst", "DEFAULT_SCALE", "RESPONSE_TYPES", "OrdinalScale", "PickOne", "ResponseType", "SemanticScale",
           "is_scale",
           "known_scales", "likert", "rating", "register", "response_type"]
