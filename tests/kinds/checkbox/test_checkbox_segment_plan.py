"""A checkbox question planned by segment (survey/kinds/checkbox/segments.py on the checkbox power model's draws,
each segment's p-values from CheckboxPlan.option_pvalues): the study's scale and segments through `survey plan`
(text, --json) and from Python, the simulator's null (each option's test, ties broken at random, inside the
binomial band of alpha; the deciding smallest Holm p at most alpha), power rising with the segments' effect and their difference,
mistakes in one line."""

from __future__ import annotations

import numpy as np
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
from survey import CheckboxPlan
from survey.kinds.checkbox.segments import option_pvalues
from survey.stats.segments.simulation import segment_table
from survey.stats.segments.validity import sign_flip_size

QUESTION = 'type = "checkbox"\noptions = ["comfortable", "stylish", "good value", "durable"]\nmax_choices = 3'


def test_plan_by_segment_from_the_study_file(tmp_path, capsys):
    scale, persona_set, by = from_study(tmp_path, QUESTION)
    assert scale == "checkbox4-1-3"
    plan_from_the_command_line(capsys, tmp_path / "study.toml", scale, persona_set, by)
    res = survey.plan_segments(CheckboxPlan(1.5, scale=scale), {"male": 20, "female": 20}, pairs=10, replicates=1,
                               interaction_delta=2.0, simulations=60, flips=199)
    assert [c["segment"] for c in res.current] == ["male", "female"] and res.per_segment["n"] is not None


def test_each_segments_shares_are_the_checkbox_analysis_on_its_personas():
    # one simulated survey as a long table: analyze by segment reads the simulator's per-pair option differences
    cells = null_cells("checkbox4", {"tau": 1.0})
    d = cells.pair_differences()  # (S, K, m, options)
    table = segment_table(cells, survey=3)
    for k, name in enumerate(cells.names):
        res = survey.analyze(table[table["segment"] == name], "A", "B", flips=999)["simulated"]
        for o, comparison in enumerate(res.comparisons):
            assert np.allclose(comparison.d_perturbation, d[3, k, :, o], atol=1e-12)


def test_the_null_holds_the_size():
    cells = null_cells("checkbox4", {"tau": 1.0})
    raw = option_pvalues(cells, flips=999, seed=1)
    d = cells.pair_differences()  # (S, K, m, options)
    for o in range(d.shape[-1]):  # each option's sign-flip test, its ties broken at random: alpha
        rate = float((raw[:, 0, o] <= 0.05).mean())
        assert in_band(rate) and rate > sign_flip_size(d[:, 0, :, o]) - 0.01, (o, rate, BAND)
    deciding = float((cells.segment_pvalues(flips=999, seed=1)[:, 0] <= 0.05).mean())
    assert deciding <= BAND[1]  # Holm over the options holds the family-wise error


def test_power_grows_with_the_segment_difference():
    table = power_table(CheckboxPlan(0.0, scale="checkbox4"), segment_deltas=(0.0, 1.0, 2.0, 3.0),
                        interaction_deltas=(0.0, 2.0, 4.0), n=16)
    assert grows(table["segment"]) and grows(table["interaction"]), table
    assert table["segment"][0.0] <= BAND[1]


def test_mistakes_are_one_line(tmp_path, capsys):
    from_study(tmp_path, QUESTION)
    refusals(capsys, tmp_path / "study.toml", "checkbox4")
