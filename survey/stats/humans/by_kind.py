"""Which comparison with people a study gets: its kind's (the manifest's ``humans`` part, survey.common.kinds),
by default the per-message one (survey.stats.humans.compare.human_fidelity). `survey fidelity`, survey.fidelity,
`survey analyze --humans` and the report all come through here, so a kind with its own comparison (a ranking)
is shown wherever people are, and a kind without one says why in one line."""

from __future__ import annotations

from survey.common.kinds import Missing, manifest
from survey.data.sources import Source
from survey.errors import SurveyError
from survey.responses import response_type
from survey.stats.humans.compare import human_fidelity


def people_comparison(source: Source):
    """The function comparing ``source``'s kind with people: (source, humans, a, b, *, by, confidence, n_boot,
    seed, flips, prior) -> a result with ``to_dict()`` and ``display_parts()``."""
    table = source.table
    rtype = response_type(str(table["scale"].iloc[0]) if "scale" in table.columns else "binary")
    found = manifest(rtype.view.kind)
    if found is None:  # a response type whose kind is not registered: the per-message comparison
        return human_fidelity
    part = found.part("humans")
    if isinstance(part, Missing):
        raise SurveyError(f"{rtype.scale}: {part.why}")
    return part


def per_message(source: Source) -> bool:
    """Whether ``source``'s kind is compared with people per message (levels, effects, PPI)."""
    return people_comparison(source) is human_fidelity


def compare_with_people(source: Source, humans, a: str | None = None, b: str | None = None, **options):
    """``source``'s kind's comparison with ``humans`` (people_comparison), called with ``options`` (by,
    confidence, n_boot, seed, flips, prior)."""
    return people_comparison(source)(source, humans, a, b, **options)
