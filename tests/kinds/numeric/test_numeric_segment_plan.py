"""A numeric question planned by segment (survey/kinds/numeric/segments.py on the numeric power model's draws):
the study's scale and segments through `survey plan` (text, --json) and from Python, the simulator's null inside
the binomial band of alpha, power rising with the segments' effect and their difference, mistakes in one line."""

from __future__ import annotations

from kind_segment_plan import (
    BAND,
    from_study,
    grows,
    in_band,
    null_cells,
    plan_from_the_command_line,
    power_table,
    refusals,
)

import survey
from survey import NumericPlan
from survey.stats.permutation import sign_flip_pvalues

QUESTION = 'type = "numeric"\nmin = 0\nmax = 300\nunit = "US dollars"'


def test_plan_by_segment_from_the_study_file(tmp_path, capsys):
    scale, persona_set, by = from_study(tmp_path, QUESTION)
    assert scale == "numeric0to300"
    doc = plan_from_the_command_line(capsys, tmp_path / "study.toml", scale, persona_set, by)
    assert "noise=0.5" in doc["model"] and doc["per_segment"]["queries"] == 2 * doc["segments"] * \
        doc["per_segment"]["n"] * 10
    res = survey.plan_segments(NumericPlan(1.5, scale=scale), {"male": 20, "female": 20}, pairs=10, replicates=1,
                               interaction_delta=2.0, simulations=60, flips=199)
    assert [c["segment"] for c in res.current] == ["male", "female"] and res.per_segment["n"] is not None
    assert res.to_dict()["interaction"]["effects"] == [2.5, 0.5]


def test_the_null_and_the_log_summary_hold_their_size():
    for scale in ("numeric0to300", "numeric0to300_log", "numeric0to300_trimmed"):
        cells = null_cells(scale, {"tau": 1.0, "noise": 0.5})
        p = cells.segment_pvalues(flips=999, seed=1)
        assert in_band(float((p[:, 0] <= 0.05).mean())), (scale, (p[:, 0] <= 0.05).mean(), BAND)
        d = cells.interaction_differences()
        inter = sign_flip_pvalues(d[:, 0] - d[:, 1], n_resamples=999, seed=1)
        assert in_band(float((inter <= 0.05).mean())), (scale, (inter <= 0.05).mean(), BAND)


def test_power_grows_with_the_segment_difference():
    table = power_table(NumericPlan(0.0, scale="numeric0to300"))
    assert grows(table["segment"]) and grows(table["interaction"]), table
    assert table["segment"][0.0] <= BAND[1] and table["interaction"][0.0] <= BAND[1] + 0.03


def test_mistakes_are_one_line(tmp_path, capsys):
    from_study(tmp_path, QUESTION)
    refusals(capsys, tmp_path / "study.toml", "numeric0to300")
