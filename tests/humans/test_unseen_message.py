"""Which statistics about people read a rendered respondent's prediction for the message they did not see
(between subjects): the PPI estimate and the pilot behind the mixed-subjects planner do not; the persona-side
comparisons (levels, the persona effect, dispersion) pool the rendered respondents with the panel and do.
Asking each rendered respondent only the message they saw would therefore change those numbers."""

from __future__ import annotations

import sys
from pathlib import Path

from survey.data.sources import Source
from survey.stats.humans import human_fidelity
from survey.stats.humans.pilot import pilot_measures

sys.path.insert(0, str(Path(__file__).parent))
from synthetic import synthetic  # noqa: E402

FAST = dict(n_boot=200, flips=999, seed=1)


def _both_and_seen():
    table, humans = synthetic("between", seed=3)
    saw = dict(zip("human-" + humans.table["respondent"].astype(str), humans.table["message"], strict=True))
    seen = table[~table["persona"].isin(saw) | (table["persona"].map(saw) == table["message"])]
    assert 0 < len(seen) < len(table)  # the seen rows are a subset
    return table, seen, humans


def test_between_ppi_and_the_pilot_never_read_the_unseen_message():
    both, seen, humans = _both_and_seen()
    full, part = human_fidelity(Source.of(both), humans, **FAST), human_fidelity(Source.of(seen), humans, **FAST)
    assert full.ppi["toy"].to_dict() == part.ppi["toy"].to_dict()
    p_full, p_part = pilot_measures(Source.of(both), humans)["toy"], pilot_measures(Source.of(seen), humans)["toy"]
    assert p_full.to_dict() == p_part.to_dict()


def test_levels_persona_effect_and_dispersion_do_read_it():
    both, seen, humans = _both_and_seen()
    full, part = human_fidelity(Source.of(both), humans, **FAST), human_fidelity(Source.of(seen), humans, **FAST)
    assert full.effects[0]["persona_ci"] != part.effects[0]["persona_ci"]
    assert full.levels[0]["fidelity"].to_dict() != part.levels[0]["fidelity"].to_dict()
    assert full.dispersion[0]["ratio"].to_dict() != part.dispersion[0]["ratio"].to_dict()
