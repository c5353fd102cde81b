"""Options objects: frozen dataclasses that check their fields once, when built (``__post_init__``), as scipy's
are. A function with many settings takes one such object; its keyword form builds the object where the
caller hands the settings over (``options_from``), so ``f(x, alpha=0.01)`` and ``f(x, options=Opts(alpha=0.01))``
are the same call.
"""

from __future__ import annotations

import dataclasses


def options_from(cls, options=None, keywords: dict | None = None, *, where: str = "this function"):
    """``cls(**keywords)``, or ``options`` (an instance of ``cls``) with the keywords given set on it; a keyword
    that is not a field of ``cls`` is a TypeError, as Python says for any function."""
    keywords = keywords or {}
    fields = {f.name for f in dataclasses.fields(cls) if f.init}
    unknown = sorted(set(keywords) - fields)
    if unknown:
        raise TypeError(f"{where}() got an unexpected keyword argument '{unknown[0]}'")
    if options is None:
        return cls(**keywords)
    if not isinstance(options, cls):
        raise TypeError(f"{where}(): options must be a {cls.__name__}; got {type(options).__name__}")
    return dataclasses.replace(options, **keywords) if keywords else options


def split_keywords(keywords: dict, cls) -> dict:
    """The keywords that are fields of ``cls``, taken out of ``keywords``."""
    fields = {f.name for f in dataclasses.fields(cls) if f.init}
    return {k: keywords.pop(k) for k in list(keywords) if k in fields}


__all__ = ["options_from", "split_keywords"]
