"""Response types: how a reply becomes an answer, and what a valid answer is.

One registry, scale name -> type. The study's ``[question] type``, the store's record of a study,
the table's optional ``scale`` column and the local backend all look types up here, so a new type
is one ResponseType subclass (survey/responses/base.py) plus one ``register`` line below.

    response_type("binary").parse("**Yes**")   -> 1
    response_type("text").scored               -> False
"""

from __future__ import annotations

from survey.errors import SurveyError
from survey.registry.files import NAME_RE
from survey.responses.base import ResponseType
from survey.responses.binary import Binary
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
    if "{perturbation}" not in getattr(rtype, "template", ""):
        raise SurveyError(f"response type '{scale}': its template must contain {{perturbation}}")
    if not isinstance(getattr(rtype, "max_tokens", None), int) or rtype.max_tokens < 1:
        raise SurveyError(f"response type '{scale}': max_tokens must be a whole number >= 1")
    words = [label.casefold() for label in rtype.labels.values()]
    if not all(isinstance(v, int) for v in rtype.labels) or len(set(words)) != len(words):
        raise SurveyError(f"response type '{scale}': labels must map whole-number scores to distinct words")
    RESPONSE_TYPES[scale] = rtype
    return rtype


def response_type(scale: str) -> ResponseType:
    """The registered type of a scale name; a SurveyError names the known ones."""
    try:
        return RESPONSE_TYPES[scale]
    except KeyError:
        raise SurveyError(f"unknown response type '{scale}'; choose one of {', '.join(RESPONSE_TYPES)}") from None


BINARY = register(Binary())
register(FreeText())

__all__ = ["BINARY", "DEFAULT_SCALE", "RESPONSE_TYPES", "ResponseType", "register", "response_type"]
