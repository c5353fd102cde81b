"""User-facing errors: the CLI prints these as one line and exits non-zero, without a traceback."""

from __future__ import annotations

import difflib
import math
import typing
from pathlib import Path


class SurveyError(Exception):
    """A mistake in the user's input (a file, a flag, a study spec) that they can fix."""


class TableError(SurveyError):
    """The long response table breaks the contract (missing column, bad answer, duplicate key...)."""


def path_error_message(exc: OSError) -> str:
    """One line for a path that cannot be written; when a folder on the way is a file, say which."""
    if isinstance(exc, (FileExistsError, NotADirectoryError)) and exc.filename:
        path = Path(exc.filename)
        blocker = next((p for p in [path, *path.parents] if p.is_file()), None)
        if blocker == path:
            return f"{path}: this is a file, but a folder is needed here; choose another path or move the file"
        if blocker is not None:
            return f"{path}: cannot create it: '{blocker}' is a file, not a folder; choose another path or move it"
    where = f"{exc.filename}: " if exc.filename else ""
    return f"{where}{exc.strerror or exc}"


# pydantic's own words in front of a validator's message: the user wrote none of it
_PYDANTIC_PREFIXES = ("Value error, ", "Assertion failed, ")


def error_text(err: dict) -> str:
    """One pydantic error's message in the user's terms: without pydantic's own words in front ("Value error, "),
    and a NaN or an infinity named as such (pydantic checks a bound first: nan "should be less than 1").
    Every place that turns pydantic's errors into a line goes through here."""
    value = err.get("input")
    if isinstance(value, float) and not math.isfinite(value):
        return f"must be a finite number; got {value}"
    msg = err.get("msg", "invalid")
    for prefix in _PYDANTIC_PREFIXES:
        msg = msg.removeprefix(prefix)
    return msg


def pydantic_message(exc, source: str = "", model=None) -> str:
    """Turn a pydantic ValidationError into one readable line that names each bad field and its fix.

    An unknown key reads "unknown key" with the closest allowed name ("did you mean ...?") when
    ``model``, the pydantic class validated, is given; pydantic's "Value error, " and the "(root)"
    of a whole-object check are left out."""
    parts = []
    for err in exc.errors():
        loc = tuple(err.get("loc", ()))
        msg = error_text(err)
        if err.get("type") == "extra_forbidden" and loc:
            msg = "unknown key" + _suggestion(str(loc[-1]), allowed_keys(model, loc[:-1]) if model else [])
        where = ".".join(str(x) for x in loc)
        parts.append(f"{where}: {msg}" if where else msg)
    prefix = f"{source}: " if source else ""
    return prefix + "; ".join(parts)


def validated(cls, source: str = "options", /, **values):
    """``cls(**values)``, a pydantic model; a bad value is a SurveyError naming the field (pydantic_message).

    ``cls`` and ``source`` are positional-only, so a user value named "cls" or "source" is validated like any other.
    """
    from pydantic import ValidationError

    try:
        return cls(**values)
    except ValidationError as exc:
        raise SurveyError(pydantic_message(exc, source, cls)) from exc


def did_you_mean(key: str, allowed: list[str]) -> str | None:
    """The allowed name closest to a misspelt ``key``, if any is close."""
    close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
    return close[0] if close else None


def _suggestion(key: str, allowed: list[str]) -> str:
    close = did_you_mean(key, allowed)
    if close:
        return f" (did you mean '{close}'?)"
    return f" (allowed: {', '.join(allowed)})" if allowed else ""


def allowed_keys(model, path: tuple) -> list[str]:
    """The field names (and aliases) of the pydantic model found at ``path`` inside ``model``."""
    tp = model
    for key in path:
        tp = _step(tp, key)
        if tp is None:
            return []
    found = _models_in(tp)
    if not found:
        return []
    names: list[str] = []
    for name, f in found[0].model_fields.items():
        names += [name] + ([f.alias] if f.alias and f.alias != name else [])
    more = getattr(found[0], "more_keys", None)  # keys a model hands on (QuestionSpec: the kinds' own keys)
    return names + [k for k in more() if k not in names] if callable(more) else names


def _models_in(tp) -> list:
    """The pydantic model classes a type annotation may hold directly (through Optional/Union/Annotated)."""
    if isinstance(tp, type) and hasattr(tp, "model_fields"):
        return [tp]
    if typing.get_origin(tp) in (typing.Union, typing.Annotated) or type(tp).__name__ == "UnionType":
        return [m for arg in typing.get_args(tp)[: None if typing.get_origin(tp) is not typing.Annotated else 1]
                for m in _models_in(arg)]
    return []


def _step(tp, key):
    """The type one location step below ``tp``: a model's field, a list's item, a dict's value."""
    for m in _models_in(tp):
        fields = {f.alias or n: f for n, f in m.model_fields.items()} | m.model_fields
        if key in fields:
            return fields[key].annotation
        if key == m.__name__:  # a tagged union names the member it tried
            return m
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Union or type(tp).__name__ == "UnionType":
        for arg in args:
            nxt = _step(arg, key)
            if nxt is not None:
                return nxt
    if origin in (list, tuple, set, frozenset) and args and isinstance(key, int):
        return args[0]
    if origin is dict and len(args) == 2:
        return args[1]
    if origin is typing.Annotated:
        return _step(args[0], key)
    return None
