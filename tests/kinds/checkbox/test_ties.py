"""The sign-flip engine's randomised tie-breaking (ties="random"), which the checkbox kind's per-option tests use:
its p-values against a brute-force enumeration in plain Python with the same U (exact and Monte Carlo, single and
batched, every alternative), its exact uniformity under H0 on a lattice full of ties (the probability over signs
and U that p <= alpha is alpha), and the default counting of ties left exactly as it was (pinned numbers)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import kstest

import survey
from survey.errors import SurveyError
from survey.stats.permutation import sign_flip_pvalues, sign_flip_test

D = np.array([2, 1, 1, 0, -1, 3, 1, -2, 0, 1]) / 16  # shares' differences in steps of 1/16: many tied sums


def brute_randomised(d, u: float, alternative: str, sums=None) -> float:
    """(#{T* beyond T} + u #{T* tied with T}) / 2^m over every sign vector, or, given the Monte Carlo ``sums``,
    (#{beyond} + u (1 + #{tied})) / (B + 1): plain Python, T on the side the alternative names."""
    d = [float(x) for x in d]
    tol = 1e-9 * sum(abs(x) for x in d)

    def side(t):
        return abs(t) if alternative == "two-sided" else (t if alternative == "greater" else -t)

    obs = side(sum(d))
    null = sums if sums is not None else [sum(s * x for s, x in zip(signs, d, strict=True))
                                          for signs in itertools.product((1, -1), repeat=len(d))]
    beyond = sum(side(t) > obs + tol for t in null)
    tied = sum(abs(side(t) - obs) <= tol for t in null)
    if sums is not None:
        return (beyond + u * (1 + tied)) / (len(null) + 1)
    return (beyond + u * tied) / len(null)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("d", [D, -D, np.zeros(6), np.array([1, -1, 1, -1, 2, -2]) / 8])
def test_the_exact_randomised_p_is_the_brute_force_one(d, alternative):
    for seed in (0, 1, 2):
        u = np.random.default_rng(seed).random()  # m <= 16: the U is the generator's first draw
        p = sign_flip_test(d, alternative, seed=seed, ties="random")
        assert p.pvalue == pytest.approx(brute_randomised(d, u, alternative), abs=1e-12)
        assert p.pvalue <= sign_flip_test(d, alternative).pvalue + 1e-12  # never above the counting p
        assert p.to_dict()["ties"].startswith("ties broken at random") and "ties" not in sign_flip_test(d).to_dict()


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_the_monte_carlo_randomised_p_is_the_brute_force_one(alternative):
    B, seed = 499, 3
    rng = np.random.default_rng(seed)  # the flips, then the U, as the engine draws them
    signs = rng.integers(0, 2, size=(B, len(D)), dtype=np.int8) * 2 - 1
    sums, u = list(signs @ D), rng.random()
    p = sign_flip_test(D, alternative, method="monte-carlo", n_resamples=B, seed=seed, ties="random")
    assert p.pvalue == pytest.approx(brute_randomised(D, u, alternative, sums), abs=1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_the_batched_randomised_p_is_the_brute_force_one(alternative):
    rows = np.stack([D, -D, D[::-1] * 2, np.zeros(len(D)), np.r_[D[:5], -D[5:]]])
    u = np.random.default_rng(5).random(len(rows))  # exact: one U per row, the generator's first draws
    exact = sign_flip_pvalues(rows, alternative, exact_max_m=12, seed=5, ties="random")
    assert exact == pytest.approx([brute_randomised(r, ui, alternative) for r, ui in zip(rows, u, strict=True)],
                                  abs=1e-12)
    B = 299
    rng = np.random.default_rng(6)
    signs = (rng.integers(0, 2, size=(B, len(D))) * 2 - 1).astype(float)
    u = rng.random(len(rows))
    mc = sign_flip_pvalues(rows, alternative, n_resamples=B, exact_max_m=8, seed=6, ties="random")
    assert mc == pytest.approx([brute_randomised(r, ui, alternative, list(signs @ r))
                                for r, ui in zip(rows, u, strict=True)], abs=1e-12)


def test_under_h0_the_randomised_p_is_uniform():
    """Given |d|, H0 makes every sign vector equally likely; p is a + U b (a, b read off two known U's), so
    P(p <= alpha) = mean over the 2^m signs of clip((alpha - a) / b, 0, 1), which must be alpha exactly, while
    counting ties stays below alpha on this lattice."""
    d = np.array([1, 1, 1, 2, 2, 1, 3, 1]) / 8
    rows = np.array(list(itertools.product((1, -1), repeat=len(d)))) * d
    u0, u1 = np.random.default_rng(0).random(len(rows)), np.random.default_rng(1).random(len(rows))
    p0 = sign_flip_pvalues(rows, seed=0, ties="random")
    p1 = sign_flip_pvalues(rows, seed=1, ties="random")
    b = (p1 - p0) / (u1 - u0)
    a = p0 - u0 * b
    counting = sign_flip_pvalues(rows)
    assert counting == pytest.approx(a + b)  # U = 1 is the counting p
    for alpha in (0.01, 0.05, 0.1, 0.25, 0.5, 0.9):
        assert np.mean(np.clip((alpha - a) / b, 0, 1)) == pytest.approx(alpha, abs=1e-12)
        assert np.mean(counting <= alpha) <= alpha  # counting ties: valid, and below alpha on this lattice
    assert np.mean(counting <= 0.1) == 0.046875 and np.mean(counting <= 0.25) == 0.140625
    # and the same seen by drawing: many U per sign vector, a KS test against Uniform(0, 1)
    many = sign_flip_pvalues(np.tile(rows, (40, 1)), seed=9, ties="random")
    assert kstest(many, "uniform").pvalue > 0.01


def test_the_same_seed_gives_the_same_p_and_a_tie_can_move_with_another():
    same = [sign_flip_test(D, seed=4, ties="random").pvalue for _ in range(2)]
    others = {round(sign_flip_test(D, seed=s, ties="random").pvalue, 12) for s in range(5)}
    assert same[0] == same[1] and len(others) == 5
    with pytest.raises(SurveyError, match="ties must be one of count, random; got 'drop'"):
        sign_flip_test(D, ties="drop")


def test_the_default_counting_of_ties_is_unchanged():
    """Numbers computed before the randomised treatment existed: every kind but checkbox keeps them."""
    d = np.array([0.5, 0.25, 0.25, -0.125, 0.5, 0.0, 0.25, 0.375, -0.25, 0.125])
    assert sign_flip_test(d).pvalue == 0.06640625
    assert sign_flip_test(d, "greater").pvalue == 0.033203125
    assert sign_flip_test(d, method="monte-carlo", n_resamples=999, seed=5).pvalue == 0.056
    assert sign_flip_pvalues(np.stack([d, -d, d[::-1] * 0.5]), n_resamples=99, exact_max_m=8,
                             seed=2).tolist() == [0.05, 0.05, 0.06]
    assert sign_flip_pvalues(np.stack([d, -d]), exact_max_m=12).tolist() == [0.06640625, 0.06640625]
    yes_no = survey.simulate(12, 10, 2, scale="binary", seed=3, messages=("A", "B"), model="sim")
    r = survey.analyze(yes_no, "A", "B")["sim"]
    assert r.tests["sign_flip"].pvalue == 0.09375 and "ties" not in r.tests["sign_flip"].to_dict()
