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
from survey.stats.permutation import sign_flip_pvalues, sign_flip_test, smallest_pvalue

D = np.array([2, 1, 1, 0, -1, 3, 1, -2, 0, 1]) / 16  # shares' differences in steps of 1/16: many tied sums


def brute_counts(d, alternative: str, sums=None) -> tuple[int, int]:
    """(#{T* beyond T}, #{T* tied with T}) over every sign vector (or the Monte Carlo ``sums``): plain Python, T
    on the side the alternative names."""
    d = [float(x) for x in d]
    tol = 1e-9 * sum(abs(x) for x in d)

    def side(t):
        return abs(t) if alternative == "two-sided" else (t if alternative == "greater" else -t)

    obs = side(sum(d))
    null = sums if sums is not None else [sum(s * x for s, x in zip(signs, d, strict=True))
                                          for signs in itertools.product((1, -1), repeat=len(d))]
    return sum(side(t) > obs + tol for t in null), sum(abs(side(t) - obs) <= tol for t in null)


def brute_randomised(d, u: float, alternative: str, sums=None) -> float:
    """(#{beyond} + u #{tied}) / 2^m, or (#{beyond} + u (1 + #{tied})) / (B + 1) given the Monte Carlo ``sums``;
    never below the counting test's smallest p (2/2^m two-sided, 1/2^m one-sided, 1/(B + 1))."""
    beyond, tied = brute_counts(d, alternative, sums)
    if sums is not None:
        return max(beyond + u * (1 + tied), 1) / (len(sums) + 1)
    return max(beyond + u * tied, 2 if alternative == "two-sided" else 1) / 2 ** len(d)


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
    """Given |d|, H0 makes every one of the 2^m sign vectors equally likely; with a sign vector's counts (beyond,
    tied) p = max(beyond + U tied, 2) / 2^m, so P(p <= alpha) = mean over the signs of clip((alpha 2^m - beyond)
    / tied, 0, 1), which must be alpha exactly at every alpha >= 2/2^m, while counting ties stays below alpha."""
    d = np.array([1, 1, 1, 2, 2, 1, 3, 1]) / 8
    rows = np.array(list(itertools.product((1, -1), repeat=len(d)))) * d
    counts = np.array([brute_counts(r, "two-sided") for r in rows])
    beyond, tied, n = counts[:, 0], counts[:, 1], len(rows)
    for seed in (0, 1):  # the engine's p is that formula with its U's
        u = np.random.default_rng(seed).random(n)
        assert sign_flip_pvalues(rows, seed=seed, ties="random") == pytest.approx(
            np.maximum(beyond + u * tied, 2) / n, abs=1e-12)
    counting = sign_flip_pvalues(rows)
    assert counting == pytest.approx((beyond + tied) / n)  # U = 1 is the counting p
    for alpha in (2 / n, 0.01, 0.05, 0.1, 0.25, 0.5, 0.9):
        assert np.mean(np.clip((alpha * n - beyond) / tied, 0, 1)) == pytest.approx(alpha, abs=1e-12)
        assert np.mean(counting <= alpha) <= alpha  # counting ties: valid, and below alpha on this lattice
    assert np.mean(counting <= 0.1) == 0.046875 and np.mean(counting <= 0.25) == 0.140625
    # and the same seen by drawing: many U per sign vector, a KS test against Uniform(0, 1)
    many = sign_flip_pvalues(np.tile(rows, (40, 1)), seed=9, ties="random")
    assert kstest(many, "uniform").pvalue > 0.01


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_a_design_the_counting_test_cannot_reject_with_stays_so(alternative):
    """No coin decides where the data cannot: with m pairs p is at least the counting test's smallest p-value."""
    for m in (1, 2, 3, 5):
        rows = np.array(list(itertools.product((1, -1), repeat=m)), dtype=float)
        p = sign_flip_pvalues(rows, alternative, seed=m, ties="random")
        assert p.min() >= smallest_pvalue(m, alternative) - 1e-15
        assert sign_flip_test(np.ones(m), alternative, seed=m, ties="random").pvalue >= smallest_pvalue(m, alternative)
    assert sign_flip_test([0.25], seed=0, ties="random").pvalue == 1.0  # one pair: T and -T always tie


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


def test_over_studies_at_one_seed_each_options_u_varies_and_its_size_is_alpha():
    """The guarantee is over U. Given the simulated null studies, the rate at which an option's test rejects at
    alpha must be, up to the U's own binomial noise, the mean over the studies of P_U(p <= alpha) =
    clip((alpha 2^m - beyond) / tied, 0, 1). A U from the seed and option alone (the default seed 0) would be the
    same tie fraction in every study: 0.039 for the eighth option, whose test then rejected far more often."""
    from survey.kinds.checkbox.power import CheckboxPlan
    from survey.kinds.checkbox.statistics import option_test
    from survey.stats.comparison import Resampling
    from survey.stats.permutation import all_signs
    from survey.stats.tie_breaking import tail_split

    S, m = 1000, 8
    d = np.round(CheckboxPlan(0.0, "checkbox8", rho=0.3).pair_shares(20, m, 2, S, np.random.default_rng(8)), 12)
    how = Resampling("two-sided", 9999, 0, 0.95)  # the analysis' default seed
    signs = all_signs(m)
    for i in range(d.shape[-1]):
        D = d[..., i]
        beyond, at_least = tail_split(D @ signs.T, D.sum(axis=1)[:, None], 1e-9 * np.abs(D).sum(axis=1)[:, None],
                                      "two-sided", axis=1)
        tied = at_least - beyond
        p_reject = np.where(tied == 0, beyond <= 0.05 * 2 ** m,
                            np.clip((0.05 * 2 ** m - beyond) / np.maximum(tied, 1), 0, 1))
        expected, noise = p_reject.mean(), np.sqrt((p_reject * (1 - p_reject)).sum()) / S
        rate = np.mean([option_test(D[s], i, how).pvalue <= 0.05 for s in range(S)])
        assert abs(rate - expected) <= 4 * noise + 1e-12, (i, rate, expected, noise)
        if i == 7:  # the seed and the option alone: one u in every study
            u = np.random.default_rng([0, i]).random()
            fixed = np.mean(np.maximum(beyond + u * tied, 2) / 2 ** m <= 0.05)
            assert fixed - expected > 8 * noise, (fixed, expected, noise)
