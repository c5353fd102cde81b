"""Humans who all give the same answer: the PPI interval then has no room for their sampling error (a Yes-rate of
0.07 and 30 humans who all said No give the interval [0, 0]); the result says so instead of presenting it bare."""

from __future__ import annotations

import numpy as np

from survey.stats.ppi import PPIArm, ppi_between_effect, ppi_mean, ppi_paired_effect


def _predictions(seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(0.02, 0.15, 30), rng.uniform(0.02, 0.15, 300)


def test_all_humans_alike_is_said():
    f, fu = _predictions()
    r = ppi_mean(np.zeros(30), f, fu)
    assert r.ci == (0.0, 0.0)  # what the user would otherwise see without a word
    assert "All 30 humans have the same value (0)" in r.caution
    assert r.to_dict()["caution"] == r.caution and r.caution in r.note


def test_paired_and_between_say_which():
    f, fu = _predictions(1)
    assert "All 30 humans have the same value" in ppi_paired_effect(np.ones(30), np.ones(30), f, f / 2, fu, fu / 2).caution
    rng = np.random.default_rng(2)
    y_b = (rng.uniform(size=30) < 0.5).astype(float)
    r = ppi_between_effect(PPIArm(np.zeros(30), f, fu), PPIArm(y_b, f, fu))
    assert "(message A)" in r.caution and "(message B)" not in r.caution


def test_humans_who_vary_get_no_such_caution():
    f, fu = _predictions(3)
    y = np.r_[np.zeros(29), 1.0]
    assert ppi_mean(y, f, fu).caution == ""


def test_a_one_sided_result_on_fewer_than_100_humans_is_cautioned():
    """One-sided bounds of the paired effect covered 0.907-0.945 from 30 to 100 humans: the result says so."""
    rng = np.random.default_rng(3)
    for n, warned in ((50, True), (99, True), (100, False)):
        y_a, y_b = rng.integers(0, 2, n).astype(float), rng.integers(0, 2, n).astype(float)
        f_a, f_b = np.clip(y_a * 0.6 + 0.2, 0, 1), np.clip(y_b * 0.6 + 0.2, 0, 1)
        fu = rng.uniform(0.2, 0.8, 400)
        for alternative in ("greater", "less"):
            r = ppi_paired_effect(y_a, y_b, f_a, f_b, fu, fu[::-1], alternative=alternative)
            assert ("One-sided on" in r.caution) is warned, (n, alternative, r.caution)
        assert "One-sided" not in ppi_paired_effect(y_a, y_b, f_a, f_b, fu, fu[::-1]).caution
