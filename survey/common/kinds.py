"""The question kinds: one manifest per kind names every part of it, and one registry holds the manifests.

A kind (Yes/No, rating scales, forced choice, pick one of k, best-worst scaling, ranking, semantic-similarity
rating, or your own) lives in one folder (survey/kinds/<name>/ for the built-in ones) whose ``MANIFEST`` names its parts as
"module:object" strings, imported on first use:

    parsing    scale name -> its ResponseType, or None for another kind's name (survey.responses asks each kind)
    analysis   the Kind: compare, fit, simulate (survey.stats.kinds.base)
    power      the power model's parameters class (survey.stats.planning.plan takes an instance)
    view       the report's ReportView (survey.reporting.views.base)
    text       the command line's KindText: printers of a result, an estimate, a summary line (survey.cli.kind_output)
    knobs      the study file's [question] knobs: QuestionKnobs (survey.study.knobs)
    segments   the segment simulator (survey.stats.segments.simulation), or Missing(why)
    humans     how its answers are compared with people's (`survey fidelity`, survey.fidelity, `analyze --humans`,
               the report): a function (source, humans, a, b, *, by, confidence, n_boot, seed, flips, prior) ->
               a result with to_dict() and display_parts() (survey.common.display); by default the per-message
               comparison, survey.stats.humans.compare.human_fidelity (levels, effects, dispersion, PPI). A kind's
               own function may refuse an option it does not support (e.g. ``by``) in one line.

A part a kind does not have is ``Missing("why")``, so that every manifest answers for every part (a test checks
it) and the code that needs the part says why it is absent. The code below a kind finds its parts only here:
nothing in survey/responses, stats, reporting or cli names a kind's module.

A third-party kind registers the same way: ``register_kind(MANIFEST)`` (or a "module:MANIFEST" string), or an
entry point in the group ``survey.kinds`` whose value is "module:MANIFEST", loaded on first lookup.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from survey.common.registry import Registry, is_target, load_target
from survey.errors import SurveyError

PARTS = ("parsing", "analysis", "power", "view", "text", "knobs", "segments", "humans")
PER_MESSAGE_HUMANS = "survey.stats.humans.compare:human_fidelity"  # the comparison with people a kind has by default
ENTRY_POINT_GROUP = "survey.kinds"


@dataclass(frozen=True)
class Missing:
    """A part a kind does not have, and why (the message the code that needs it shows)."""

    why: str


@dataclass(frozen=True)
class KindManifest:
    """Every part of one kind, as "module:object" strings (or the objects); see the module's docstring.
    ``name``: the AnalysisView.kind its response types declare; ``scale_names``: how its scale names look, for
    messages ("pickK (e.g. pick3)")."""

    name: str
    parsing: Any
    analysis: Any
    power: Any
    view: Any
    text: Any
    knobs: Any
    segments: Any
    scale_names: tuple[str, ...] = ()
    humans: Any = PER_MESSAGE_HUMANS
    _resolved: dict = field(default_factory=dict, compare=False, repr=False)

    def part(self, name: str, base: type | tuple[type, ...] | None = None) -> Any:
        """The part ``name``, imported on first use and checked against ``base``; a Missing part is returned as
        it is (``has`` says whether the kind has it)."""
        if name not in PARTS:
            raise SurveyError(f"a kind has no part '{name}'; its parts are {', '.join(PARTS)}")
        if name not in self._resolved:
            entry = getattr(self, name)
            obj = load_target(entry) if is_target(entry) else entry
            if base is not None and not isinstance(obj, Missing) and not (
                    isinstance(obj, base) or (isinstance(obj, type) and issubclass(obj, base))):
                raise SurveyError(f"kind '{self.name}': its {name} must be a "
                                  f"{getattr(base, '__name__', base)}; got {type(obj).__name__}")
            self._resolved[name] = obj
        return self._resolved[name]

    def has(self, name: str) -> bool:
        return not isinstance(getattr(self, name), Missing)


KINDS = Registry("question kind", base=KindManifest, entries={
    "binary": "survey.kinds.binary:MANIFEST",
    "ordinal": "survey.kinds.ordinal:MANIFEST",
    "choice": "survey.kinds.choice:MANIFEST",
    "ssr": "survey.kinds.ssr:MANIFEST",
    "pick": "survey.kinds.pick:MANIFEST",
    "maxdiff": "survey.kinds.maxdiff:MANIFEST",
    "rank": "survey.kinds.rank:MANIFEST",
    "numeric": "survey.kinds.numeric:MANIFEST",
    "checkbox": "survey.kinds.checkbox:MANIFEST",
})
_entry_points_loaded = False


def register_kind(manifest: KindManifest | str, *, replace: bool = False) -> KindManifest | str:
    """Add a kind: its KindManifest, or a "module:MANIFEST" string (imported on first use). A taken name is
    refused unless ``replace``."""
    if is_target(manifest):
        name = load_target(manifest).name
    elif isinstance(manifest, KindManifest):
        name = manifest.name
    else:
        raise SurveyError(f"register_kind takes a KindManifest or a 'module:MANIFEST' string; got {manifest!r}")
    return KINDS.register(name, manifest, replace=replace)


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name not in KINDS:
            KINDS.register(ep.name, ep.value)


def kinds() -> list[KindManifest]:
    """Every registered kind's manifest, built-in ones first."""
    _load_entry_points()
    return [KINDS[name] for name in KINDS]


def manifest(kind: str) -> KindManifest | None:
    """The manifest of kind ``kind``, or None when no kind of that name is registered."""
    _load_entry_points()
    return KINDS[kind] if kind in KINDS else None


def kind_part(kind: str, part: str, base: type | tuple[type, ...] | None = None, default: Any = None) -> Any:
    """Part ``part`` of kind ``kind``, or ``default`` when the kind is not registered or says it is Missing."""
    found = manifest(kind)
    if found is None:
        return default
    obj = found.part(part, base)
    return default if isinstance(obj, Missing) else obj


def missing_why(kind: str, part: str) -> str | None:
    """Why kind ``kind`` has no part ``part`` (None when it has it or is not registered)."""
    found = manifest(kind)
    entry = getattr(found, part, None) if found else None
    return entry.why if isinstance(entry, Missing) else None


__all__ = ["ENTRY_POINT_GROUP", "KINDS", "PARTS", "PER_MESSAGE_HUMANS", "KindManifest", "Missing", "kind_part", "kinds",
           "manifest", "missing_why", "register_kind"]
