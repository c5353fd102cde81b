"""Raking says nothing it should not: no dependency output on stdout, no margins out of reach accepted
(checked against a linear program that decides which margins any weighting of the personas can meet), and a
population effect resting on a handful of effective personas carries a warning."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import linprog

import survey
from survey.errors import SurveyError
from survey.stats.segments import rake, segment_by
from survey.stats.segments.simulation import SimSegment, segment_table, simulate_segment_cells
from survey.stats.segments.weights import MARGIN_TOLERANCE, UnreachableTargetError

# women all young, men all old: the margins of gender and age are tied together
TIED = pd.DataFrame({"gender": ["f"] * 5 + ["m"] * 5, "age": ["young"] * 5 + ["old"] * 5},
                    index=[f"p{i}" for i in range(10)])


def test_raking_two_attributes_prints_nothing(capsys):
    free = TIED.assign(age=["young", "old"] * 5)
    w = rake(free, {"gender": {"f": 0.5, "m": 0.5}, "age": {"young": 0.2, "old": 0.8}})
    assert w.after["age"] == pytest.approx({"young": 0.2, "old": 0.8}, abs=1e-8)
    assert capsys.readouterr() == ("", "")
    with pytest.raises(UnreachableTargetError):
        rake(TIED, {"gender": {"f": 0.5, "m": 0.5}, "age": {"young": 0.2, "old": 0.8}})
    assert capsys.readouterr() == ("", "")


def test_tied_attributes_cannot_meet_untied_margins():
    with pytest.raises(UnreachableTargetError) as exc:
        rake(TIED, {"gender": {"f": 0.5, "m": 0.5}, "age": {"young": 0.2, "old": 0.8}})
    text = str(exc.value)
    assert isinstance(exc.value, SurveyError) and "\n" not in text
    assert "gender = f reached 0.2 (target 0.5)" in text
    assert "the personas with gender = f (5) are exactly those with age = young" in text
    # margins that respect the tie are met
    w = rake(TIED, {"gender": {"f": 0.2, "m": 0.8}, "age": {"young": 0.2, "old": 0.8}})
    assert w.after["gender"] == pytest.approx({"f": 0.2, "m": 0.8}, abs=1e-9)


def test_a_zero_share_that_leaves_no_persona_is_refused_not_nan():
    # women are all young and the target has no young: no weight is left for the women's share
    with pytest.raises(UnreachableTargetError, match="the target gives age = young a share of 0"):
        rake(TIED, {"gender": {"f": 0.5, "m": 0.5}, "age": {"young": 0.0, "old": 1.0}})
    with pytest.raises(UnreachableTargetError, match="cannot meet the target margins"):  # every weight 0
        rake(TIED, {"gender": {"f": 1.0, "m": 0.0}, "age": {"young": 0.0, "old": 1.0}})
    w = rake(TIED.assign(age=["young", "old"] * 5), {"gender": {"f": 0.5, "m": 0.5}, "age": {"young": 0, "old": 1}})
    assert np.isfinite(w.weights).all() and w.after["age"]["young"] == 0


def _reach(cells: np.ndarray, levels: list[int], margins: list[np.ndarray]) -> tuple[float, float]:
    """(smallest L1 distance of any weighting's margins from the target, largest smallest cell share of a
    weighting that meets the target exactly (-1 when none does)): linear programs over the cell shares."""
    a_eq = np.array([[float(c[j] == lvl) for c in cells] for j, k in enumerate(levels) for lvl in range(k)])
    b_eq = np.concatenate(margins)
    rows, n = a_eq.shape
    # min sum(s+ + s-) subject to A x + s+ - s- = b, x, s >= 0
    gap = linprog(np.r_[np.zeros(n), np.ones(2 * rows)], A_eq=np.hstack([a_eq, np.eye(rows), -np.eye(rows)]),
                  b_eq=b_eq, bounds=(0, None), method="highs").fun
    # max t subject to A x = b, x >= t
    inner = linprog(np.r_[np.zeros(n), -1.0], A_eq=np.hstack([a_eq, np.zeros((rows, 1))]), b_eq=b_eq,
                    A_ub=np.hstack([-np.eye(n), np.ones((n, 1))]), b_ub=np.zeros(n),
                    bounds=[(0, None)] * n + [(None, None)], method="highs")
    return float(gap), (float(-inner.fun) if inner.status == 0 else -1.0)


def test_random_tables_reachable_margins_are_met_unreachable_ones_refused():
    rng = np.random.default_rng(2026)
    met = refused = 0
    for trial in range(60):
        levels = list(rng.integers(2, 4, size=rng.integers(2, 4)))
        full = np.array(list(itertools.product(*[range(k) for k in levels])))
        while True:  # a random set of occupied cells that holds every level of every attribute
            occupied = full[rng.random(len(full)) < rng.uniform(0.3, 0.8)]
            if len(occupied) and all(len(set(occupied[:, j])) == k for j, k in enumerate(levels)):
                break
        counts = rng.integers(1, 4, size=len(occupied))
        attrs = pd.DataFrame(np.repeat(occupied, counts, axis=0), columns=[f"a{j}" for j in range(len(levels))])
        attrs = attrs.map(lambda v: f"l{v}")
        attrs.index = [f"p{i}" for i in range(len(attrs))]
        if trial % 2:  # margins of some positive weighting of the occupied cells: reachable by construction
            share = rng.dirichlet(np.ones(len(occupied)))
            margins = [np.array([share[occupied[:, j] == lvl].sum() for lvl in range(k)]) for j, k in enumerate(levels)]
        else:
            margins = [rng.dirichlet(np.ones(k)) for k in levels]
        target = {f"a{j}": {f"l{lvl}": float(m[lvl]) for lvl in range(k)}
                  for j, (k, m) in enumerate(zip(levels, margins, strict=True))}
        gap, inner = _reach(occupied, levels, margins)
        if inner > 1e-3:
            w = rake(attrs, target)
            for attr, shares in target.items():
                assert w.after[attr] == pytest.approx(shares, abs=1e-6)
            met += 1
        elif gap > 2 * MARGIN_TOLERANCE * sum(levels):
            with pytest.raises(UnreachableTargetError):
                rake(attrs, target)
            refused += 1
    assert met >= 30 and refused >= 10, (met, refused)


def test_a_target_effect_on_few_effective_personas_is_warned_about():
    cells = simulate_segment_cells([SimSegment("many", 28), SimSegment("few", 2, level=1.0)], 8, 2, seed=3)
    df = segment_table(cells)  # its persona attribute "segment" is many or few
    seg = survey.analyze(df, "A", "B", weights={"segment": {"few": 0.96, "many": 0.04}}, flips=999).results[0].segments
    effective = seg.population.weights.effective_personas
    assert effective < 3
    assert any(f"rests on {effective:.1f} effective personas (fewer than 10" in w for w in seg.warnings)
    even = survey.analyze(df, "A", "B", weights={"segment": {"few": 0.1, "many": 0.9}}, flips=999).results[0].segments
    assert not any("effective personas" in w for w in even.warnings)


@pytest.mark.parametrize("by", ["age:", "age: ", "age:,"])
def test_bins_left_empty_are_refused_not_read_as_one_segment_per_value(by):
    attrs = pd.DataFrame({"age": [20, 30, 40]}, index=["a", "b", "c"])
    with pytest.raises(SurveyError, match="name at least one bin after the colon .* or drop the colon"):
        segment_by(attrs, by)
    assert segment_by(attrs, "age").sizes == {"20": 1, "30": 1, "40": 1}
