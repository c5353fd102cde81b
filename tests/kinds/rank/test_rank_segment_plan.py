"""A ranking planned by segment (survey/kinds/rank/segments.py on the ranking power model's Plackett–Luce draws,
each segment's p-values from RankPlan.pair_pvalues): the study's scale and segments through `survey plan` (text,
--json) and from Python, the simulator's null (the A vs B test and the interaction inside the binomial band of
alpha, the Holm-adjusted deciding test at most alpha), power rising with the segments' effect and their
difference, mistakes in one line."""

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
from survey import RankPlan
from survey.kinds.pick.statistics import holm_pair_pvalues, pair_pvalues
from survey.kinds.rank.segments import _segment_shares
from survey.stats.permutation import sign_flip_pvalues


def test_plan_by_segment_from_the_study_file(tmp_path, capsys):
    scale, persona_set, by = from_study(tmp_path, 'type = "rank"')
    assert scale == "rank3"
    doc = plan_from_the_command_line(capsys, tmp_path / "study.toml", scale, persona_set, by, delta="-1.5")
    assert "utilities=(-1.5, 0, 0)" in doc["model"] and "delta=1.5" in doc["model"]  # B over A: 0 - (-1.5)
    assert doc["per_segment"]["queries"] == 3 * doc["segments"] * doc["per_segment"]["n"] * 10  # 3 arrangements
    assert doc["flips"] >= 20 * 3 / (0.05 / doc["segments"]) - 1  # Holm over 3 pairs within each segment
    res = survey.plan_segments(RankPlan((0.0, 1.5, 0.0), scale=scale), {"male": 20, "female": 20}, pairs=10,
                               replicates=1, interaction_delta=2.0, simulations=60, flips=199)
    assert [c["segment"] for c in res.current] == ["male", "female"] and res.per_segment["n"] is not None


def test_each_segments_test_is_rank_plans_holm_test_on_its_personas():
    model, _ = RankPlan(0.0, scale="rank4").segment_model(None)
    cells = null_cells("rank4", model)
    p = cells.segment_pvalues(flips=999, seed=1)
    for k, shares in enumerate(_segment_shares(cells)):
        assert np.array_equal(p[:, k], holm_pair_pvalues(shares, 0, 1, n_resamples=999, seed=1))
    assert np.allclose(cells.interaction_differences()[:, 0], cells.pair_differences()[:, 0], atol=1e-12)


def test_the_null_holds_the_size():
    for scale in ("rank3", "rank4"):
        model, _ = RankPlan(0.0, scale=scale).segment_model(None)
        cells = null_cells(scale, model)
        shares = _segment_shares(cells)[0]
        raw = float((pair_pvalues(shares, 0, 1, n_resamples=999, seed=1) <= 0.05).mean())
        deciding = float((cells.segment_pvalues(flips=999, seed=1)[:, 0] <= 0.05).mean())
        d = cells.interaction_differences()
        inter = float((sign_flip_pvalues(d[:, 0] - d[:, 1], n_resamples=999, seed=1) <= 0.05).mean())
        assert in_band(raw) and in_band(inter) and deciding <= BAND[1], (scale, raw, inter, deciding)


def test_power_grows_with_the_segment_difference():
    table = power_table(RankPlan(0.0, scale="rank3"), segment_deltas=(0.0, 0.5, 1.0, 1.5))
    assert grows(table["segment"]) and grows(table["interaction"]), table
    assert table["segment"][0.0] <= BAND[1] and table["interaction"][0.0] <= BAND[1] + 0.03


def test_mistakes_are_one_line(tmp_path, capsys):
    from_study(tmp_path, 'type = "rank"')
    refusals(capsys, tmp_path / "study.toml", "rank3")
