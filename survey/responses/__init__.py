"""Response types: how a reply becomes an answer, and what a valid answer is.

One registry, scale name -> type. The study's ``[question] type``, the store's record of a study,
the table's optional ``scale`` column and the local backend all look types up here, so a new type
is one ResponseType subclass (survey/responses/base.py) plus one ``register`` line below.

    response_type("binary").parse("**Yes**")   -> 1
    response_type("text").scored               -> False
    response_type("likert5").values            -> {1, 2, 3, 4, 5}

Rating scales are families named by their points (survey.responses.scales): ``likert5``,
``likert0-4``, ``rating0-10``; they are built from the name on first use, not registered one by one,
as are semantic-similarity scales (``ssr5``: free text rated on 5 points, survey.responses.ssr) and
pick one of k (``pick3``: three messages shown together, survey.responses.pick) and best-worst scaling
(``maxdiff3``: subsets of three, survey.responses.maxdiff).
"""

from __future__ import annotations

from survey.common.names import NAME_RE
from survey.errors import SurveyError
from survey.responses.base import ResponseType
from survey.responses.binary import Binary
from survey.responses.choice import Choice
from survey.responses.maxdiff import BestWorst, maxdiff_from_name
from survey.responses.pick import PickOne, pick_from_name
from survey.responses.scales import OrdinalScale, from_name, likert, rating
from survey.responses.ssr import SemanticScale, ssr_from_name
from survey.responses.text import FreeText

RESPONSE_TYPES: dict[str, ResponseType] = {}
DEFAULT_SCALE = "binary"  # the paper's question; also what a table row or old store without a scale is


def register(rtype: ResponseType) -> ResponseType:
    """Add a response type under its scale name; refuses a second type under a taken name."""
    scale = getattr(rtype, "scale", None)
    if not isinstance(scale, str) or not NAME_RE.match(scale):
        raise SurveyError(f"response type {type(rtype).__name__}: scale must be a name of letters, digits, "
                          f"'_', '-' or '.'; got {scale!r}")
    if scale in RESPONSE_TYPES:
        raise SurveyError(f"a response type '{scale}' is already registered ({type(RESPONSE_TYPES[scale]).__name__})")
    slots = getattr(rtype, "slots", ("perturbation",))
    if not all("{" + slot + "}" in getattr(rtype, "template", "") for slot in slots):
        raise SurveyError(f"response type '{scale}': its template must contain "
                          + " and ".join("{" + slot + "}" for slot in slots))
    if not isinstance(getattr(rtype, "max_tokens", None), int) or rtype.max_tokens < 1:
        raise SurveyError(f"response type '{scale}': max_tokens must be a whole number >= 1")
    words = [label.casefold() for label in rtype.labels.values()]
    if not all(isinstance(v, int) for v in rtype.labels) or len(set(words)) != len(words):
        raise SurveyError(f"response type '{scale}': labels must map whole-number scores to distinct words")
    RESPONSE_TYPES[scale] = rtype
    return rtype


def response_type(scale: str) -> ResponseType:
    """The registered type of a scale name; a SurveyError names the known ones."""
    if scale in RESPONSE_TYPES:
        return RESPONSE_TYPES[scale]
    if scale not in _FAMILY_CACHE:
        family = (from_name(scale) or ssr_from_name(scale) or pick_from_name(scale)
                  or maxdiff_from_name(scale)) if isinstance(scale, str) else None
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
    """For messages: the registered names and the rating families."""
    return ", ".join([*RESPONSE_TYPES, "likertK (e.g. likert5)", "likertLO-HI (e.g. likert0-4)",
                      "ratingLO-HI (e.g. rating0-10)", "ssrK (e.g. ssr5)",
                      "pickK (e.g. pick3)", "maxdiffS (e.g. maxdiff3)"])


_FAMILY_CACHE: dict[str, ResponseType] = {}


BINARY = register(Binary())
register(FreeText())
CHOICE = register(Choice())

__all__ = ["BINARY", "CHOICE", "BestWorst", "DEFAULT_SCALE", "RESPONSE_TYPES", "OrdinalScale", "PickOne", "ResponseType", "SemanticScale",
           "is_scale",
           "known_scales", "likert", "rating", "register", "response_type"]
