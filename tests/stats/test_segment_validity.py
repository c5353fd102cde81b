"""The segment tests on simulated surveys with known truth (survey.stats.segments.validity): the size of every
per-segment sign-flip test and of the interaction test inside the 99% binomial band around the attainable size
at rho = 0, 0.3, 0.6 (2 000 null surveys a cell), the per-segment sign and Wilcoxon tests oversized once a
paraphrase shifts every persona, the interaction's power and each segment's sign under opposite effects, and
the coverage of the weighted population effect. bench/segments.py prints the full tables."""

from __future__ import annotations

import numpy as np
import pytest

from survey.stats.segments.simulation import SimSegment, simulate_segment_cells
from survey.stats.segments.validity import (
    attainable_size,
    binomial_band,
    population_coverage,
    rejection_rates,
)

M, R, SURVEYS = 10, 5, 2000
# unequal base rates: the segments differ in level, not in effect (the null: A and B exchangeable in each)
NULL = [SimSegment("a", 20, level=1.0), SimSegment("b", 20, level=-0.5), SimSegment("c", 10)]


@pytest.mark.parametrize("scale, rho", [("binary", 0.0), ("binary", 0.3), ("binary", 0.6),
                                        ("likert5", 0.3), ("choice", 0.6)])
def test_size_of_segment_and_interaction_tests(scale, rho):
    cells = simulate_segment_cells(NULL, M, R, scale=scale, rho=rho, surveys=SURVEYS, seed=2026)
    rates = rejection_rates(cells)
    continuous = attainable_size(M, 0.05)
    for name, r in rates["segments"].items():
        # the exact size on these surveys, given ties (cell means are fractions of r): at most the attainable
        # size of continuous data, and the rejection rate inside its 99% binomial band
        assert r["sign_flip_size"] <= continuous + 1e-12
        band = binomial_band(r["sign_flip_size"], SURVEYS)
        assert band[0] <= r["sign_flip"] <= band[1], (name, r)
        if rho >= 0.3:  # a shared paraphrase shift: the persona-level tests reject far too often
            assert r["sign"] > band[1] and r["wilcoxon"] > band[1], (name, r)
    band = binomial_band(rates["interaction_size"], SURVEYS)
    assert band[0] <= rates["interaction"] <= band[1], rates


def test_opposite_effects_the_interaction_finds_them_and_each_segment_gets_its_sign():
    segs = [SimSegment("men", 20, delta=-1.0, level=0.3), SimSegment("women", 20, delta=1.0)]
    cells = simulate_segment_cells(segs, M, R, rho=0.3, surveys=1000, seed=5)
    d = cells.pair_differences()
    rates = rejection_rates(cells)
    assert rates["interaction"] > 0.9
    pooled = d.mean(axis=1)  # both segments the same size: the pooled pair means
    assert abs(pooled.mean()) < 0.02  # the pooled effect is near 0: the question "for whom?" is what matters
    assert np.mean(d[:, 0].mean(axis=1) > 0) > 0.95 and np.mean(d[:, 1].mean(axis=1) < 0) > 0.95
    assert rates["segments"]["men"]["sign_flip"] > 0.5 and rates["segments"]["women"]["sign_flip"] > 0.5


@pytest.mark.parametrize("rho", [0.0, 0.6])
def test_population_effect_interval_covers_the_target_populations_effect(rho):
    segs = [SimSegment("a", 30, delta=-0.6, level=0.8), SimSegment("b", 10, delta=0.6)]
    res = population_coverage(segs, [0.4, 0.6], M, 3, rho=rho, surveys=1000, seed=3)
    # at 1 000 surveys the Monte Carlo s.e. of a 0.95 coverage is 0.007: 0.93 is 3 s.e. below it
    assert res["coverage"] >= 0.93, res
    assert abs(res["mean_effect"] - res["truth"]) < 0.01, res
