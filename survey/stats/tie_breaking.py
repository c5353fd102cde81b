"""Randomised tie-breaking for permutation p-values (used by survey.stats.permutation's sign-flip tests).

When the statistic takes few values (shares k/(n r) of a checkbox option), many null sums tie with the observed
one. Counting every tie as "at least as extreme" gives a valid p-value whose size is below alpha, often well
below. The classic remedy is the randomised test (Lehmann & Romano, "Testing Statistical Hypotheses",
randomisation tests): with U ~ Uniform(0, 1) independent of the data,

    exact (all N sign vectors):  p = (#{T* beyond T} + U * #{T* tied with T}) / N
    Monte Carlo (B draws):       p = (#{T* beyond T} + U * (1 + #{T* tied with T})) / (B + 1)

(the 1 is the observed statistic itself, Hemerik & Goeman 2018, "Exact testing with random permutations").
Under H0 either p is exactly Uniform(0, 1), so P(p <= alpha) = alpha at every alpha. U comes from the test's
seeded generator: the same seed gives the same p; another seed can move a p-value whose statistic ties, within
[#{beyond}/N, #{at least as extreme}/N].

Where U comes from. The guarantee is over U: a test whose U is the same in every study is a fixed tie fraction u,
whose size is P(#{beyond} + u #{tied} <= alpha N), anywhere between the tie-counting test's (u = 1, below alpha)
and the one counting no tie (u = 0, above alpha). A fixed analysis seed (the default 0) with U drawn from it alone
would give every study the same u per option (0.039 for the eighth option at seed 0: size 0.06-0.075 at 20
personas x 8-10 pairs x r = 2). ``data_seed`` therefore seeds U with the analysis' seed, the test's index and a
digest of the test's own data: the same data and seed give the same p, while over studies U varies as a uniform
draw unrelated to the statistic's ties would.

One change: p is never below the smallest p-value the counting test can give (2/N two-sided, 1/N one-sided,
1/(B + 1) by Monte Carlo). Without it a coin would decide where the data cannot (with one paraphrase pair p
would be U itself); with it P(p <= alpha) = alpha still holds at every alpha at or above that floor, and a design
the counting test cannot reject with (survey.stats.permutation.cannot_reject_note) still cannot reject.
"""

from __future__ import annotations

import hashlib

import numpy as np

from survey.errors import SurveyError

TIES = ("count", "random")
TIE_WORDS = "ties broken at random (seeded), which makes the test's size exactly alpha"


def check_ties(ties: str) -> None:
    """A SurveyError naming the tie treatments unless ``ties`` is one of them."""
    if ties not in TIES:
        raise SurveyError(f"ties must be one of {', '.join(TIES)}; got '{ties}'")


def tail_split(null, obs, gamma, alternative: str, axis=None):
    """(#{T* beyond T by more than gamma}, #{T* at least T less gamma}) among the ``null`` sums (along
    ``axis``): on T for "greater", on -T for "less", on |T| for "two-sided". The difference is the ties."""
    if alternative == "greater":
        beyond, at_least = null > obs + gamma, null >= obs - gamma
    elif alternative == "less":
        beyond, at_least = null < obs - gamma, null <= obs + gamma
    else:
        a, absn = np.abs(obs), np.abs(null)
        beyond, at_least = absn > a + gamma, absn >= a - gamma
    return np.count_nonzero(beyond, axis=axis), np.count_nonzero(at_least, axis=axis)


def randomised_pvalue(beyond, tied, n, u, monte_carlo: bool, alternative: str):
    """The randomised p-value from the counts over ``n`` sign vectors (all of them, or B random ones when
    ``monte_carlo``; then the observed statistic is one more tie) and U = ``u``, at least the counting test's
    smallest p-value."""
    if monte_carlo:
        return np.maximum(beyond + u * (1 + tied), 1) / (n + 1)
    return np.maximum(beyond + u * tied, 2 if alternative == "two-sided" else 1) / n  # T and -T tie two-sided


def index_seed(seed, index: int):
    """The generator seed of the ``index``-th test of a family (a checkbox option's): ``seed`` followed by the
    index, so each test draws its own stream and the same seed gives the same draws (None: fresh entropy)."""
    return None if seed is None else [*np.ravel(seed).astype(int).tolist(), int(index)]


def data_seed(seed, index: int, data):
    """The generator seed of a randomised test: ``seed`` (the analysis'; None: fresh entropy), the test's ``index``
    (a checkbox option's) and a digest of its ``data`` (rounded to 12 decimals, so sums in another order agree), so
    that U changes from study to study as the theory needs, and stays put for the same data and seed."""
    if seed is None:
        return None
    values = np.round(np.asarray(data, dtype=float), 12) + 0.0  # + 0.0: -0.0 and 0.0 alike
    digest = int.from_bytes(hashlib.sha256(values.tobytes()).digest()[:8], "little")
    return [*index_seed(seed, index), digest]
