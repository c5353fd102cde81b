"""One registry class for every extension point: backends, response types, analysis kinds, report views, A/B
tests and the kinds' manifests (survey.common.kinds).

An entry is an object or a "module:object" string, imported on first use, so that a missing optional SDK or a
kind's heavy statistics only matter when used, and so that the code below a kind never imports it by name. A
resolved entry is checked against the registry's base class. One duplicate policy everywhere: a second
registration of a taken name is refused unless the caller says ``replace=True`` (``registry[name] = entry`` is
that explicit replacement, which is what ``monkeypatch.setitem`` uses in tests).

    BACKENDS = Registry("backend", entries={"simulated": "survey.backends.simulated:SimulatedBackend"})
    BACKENDS.register("mine", "my_package.backend:MyBackend")
    BACKENDS.get_object("simulated")   -> the class, imported now

Modelled on lm-evaluation-harness's ``lm_eval/api/registry.py``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

from survey.errors import SurveyError


def is_target(entry: Any) -> bool:
    """Whether ``entry`` is a "module:object" string (resolved on first use) rather than the object itself."""
    return isinstance(entry, str) and ":" in entry


def load_target(target: str) -> Any:
    """The object a "module:object" (or "module:object.attribute") string names; ImportError and
    AttributeError pass through for the caller to word."""
    module, _, attr = target.partition(":")
    value = importlib.import_module(module)
    for part in attr.split("."):
        value = getattr(value, part)
    return value


class Registry(MutableMapping):
    """name -> entry, entries resolved lazily. ``what`` names the registry in messages ("backend", "kind");
    ``base``: the class (or classes) a resolved entry must be an instance or subclass of; ``check``: a further
    check run on every registered object (raise SurveyError to refuse it); ``entries``: the first registrations."""

    def __init__(self, what: str, base: type | tuple[type, ...] | None = None,
                 check: Callable[[str, Any], None] | None = None, entries: dict[str, Any] | None = None):
        self.what = what
        self.base = base
        self.check = check
        self._entries: dict[str, Any] = {}
        self._resolved: dict[str, Any] = {}
        for name, entry in (entries or {}).items():
            self.register(name, entry)

    # -- registration: one policy ------------------------------------------------------------------------------
    def register(self, name: str, entry: Any, *, replace: bool = False) -> Any:
        """Add ``entry`` (an object or a "module:object" string) under ``name``; a taken name is refused unless
        ``replace``. Returns the entry, so that ``X = registry.register("x", X())`` reads as a declaration."""
        if not isinstance(name, str) or not name:
            raise SurveyError(f"a {self.what} needs a name; got {name!r}")
        if name in self._entries and not replace and self._entries[name] is not entry:
            raise SurveyError(f"a {self.what} '{name}' is already registered; pass replace=True to replace it")
        if not is_target(entry):
            self._check(name, entry)
        self._entries[name] = entry
        self._resolved.pop(name, None)
        return entry

    def __setitem__(self, name: str, entry: Any) -> None:  # an explicit replacement
        self.register(name, entry, replace=True)

    def __delitem__(self, name: str) -> None:
        del self._entries[name]
        self._resolved.pop(name, None)

    # -- lookup ----------------------------------------------------------------------------------------------------
    def __getitem__(self, name: str) -> Any:
        """The registered object, imported on first use (a KeyError for an unknown name, as a dict's)."""
        entry = self._entries[name]
        if not is_target(entry):
            return entry
        if name not in self._resolved:
            obj = load_target(entry)
            self._check(name, obj)
            self._resolved[name] = obj
        return self._resolved[name]

    def get_object(self, name: str) -> Any:
        """Like ``registry[name]``, with a SurveyError naming the known entries for an unknown name."""
        if name not in self._entries:
            raise SurveyError(f"unknown {self.what} '{name}'; choose one of {', '.join(self._entries)}")
        return self[name]

    def target(self, name: str) -> Any:
        """The entry as registered: a "module:object" string, or the object itself."""
        return self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def copy(self) -> Registry:
        """A registry with the same entries, for a test to change without touching this one."""
        out = Registry(self.what, self.base, self.check)
        out._entries, out._resolved = dict(self._entries), dict(self._resolved)
        return out

    def _check(self, name: str, obj: Any) -> None:
        base = self.base
        if base is not None and not (isinstance(obj, base) or (isinstance(obj, type) and issubclass(obj, base))):
            names = " or ".join(b.__name__ for b in (base if isinstance(base, tuple) else (base,)))
            raise SurveyError(f"{self.what} '{name}': expected a {names}, got {type(obj).__name__}")
        if self.check is not None:
            self.check(name, obj)

    def __repr__(self) -> str:
        return f"<registry of {self.what}s: {', '.join(self._entries)}>"


__all__ = ["Registry", "is_target", "load_target"]
