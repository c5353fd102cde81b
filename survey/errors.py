"""User-facing errors: the CLI prints these as one line and exits non-zero, without a traceback."""

from __future__ import annotations


class SurveyError(Exception):
    """A mistake in the user's input (a file, a flag, a study spec) that they can fix."""


class TableError(SurveyError):
    """The long response table breaks the contract (missing column, bad answer, duplicate key...)."""


def pydantic_message(exc, source: str = "") -> str:
    """Turn a pydantic ValidationError into one readable line that names each bad field and its fix."""
    parts = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err.get("loc", ())) or "(root)"
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    prefix = f"{source}: " if source else ""
    return prefix + "; ".join(parts)
