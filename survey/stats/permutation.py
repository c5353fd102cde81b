"""Permutation tests at the level of perturbations (Helm & Priebe 2026, "When prompt perturbations break
your A/B test: A valid statistical test for generative surveying").

The sign-flip test works on the paired perturbation-level differences d_j = mean_i(theta_ij^A - theta_ij^B).
Under H0 their joint law is invariant to flipping any sign, whatever the shared perturbation
variance rho, which is why it stays valid where the sign and Wilcoxon tests do not.

Exactness: for m <= 22 all 2^m subset sums are enumerated; up to ``EXACT_MAX_M`` (40) the two
halves are enumerated and combined by sorting and binary search (meet in the middle), which
costs O(2^(m/2) log 2^(m/2)) instead of O(2^m). Beyond that we draw random sign vectors.

The engine is public: the other tests (classic, batched, choice, the effect interval, segments, the group
sequential test) reuse ``check_alternative``, ``tie_tolerance``, ``count_ge`` and ``all_signs``.

Ties: by default a null sum tied with the observed one counts as at least as extreme, which keeps the test
valid but conservative when the d_j sit on a coarse lattice (shares k/(n r)). ``ties="random"`` breaks ties
with one U ~ Uniform(0, 1) from the test's seeded generator, the randomised test whose size is exactly alpha
(Lehmann & Romano, "Testing Statistical Hypotheses", randomisation tests; Hemerik & Goeman 2018, "Exact
testing with random permutations"); see survey.stats.tie_breaking.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

from survey.errors import SurveyError
from survey.stats.tie_breaking import TIE_WORDS, check_ties, randomised_pvalue, tail_split

EXACT_MAX_M = 40
_ENUMERATE_MAX_M = 22
ALTERNATIVES = ("two-sided", "greater", "less")


@dataclass
class PermutationResult:
    statistic: float  # the mean difference T
    pvalue: float
    exact: bool
    method: str  # "enumeration", "meet-in-the-middle", "monte-carlo"
    n_resamples: int  # sign vectors or relabelings counted (2^m when exact)
    alternative: str
    null_distribution: np.ndarray | None = None  # of T, for plots; a sample when m is large
    ties: str = "count"  # "count": ties count as extreme (conservative); "random": broken by a seeded U

    def to_dict(self) -> dict:
        out = {"statistic": self.statistic, "pvalue": self.pvalue, "exact": self.exact,
               "method": self.method, "n_resamples": self.n_resamples,
               "alternative": self.alternative}
        return {**out, "ties": TIE_WORDS} if self.ties == "random" else out  # the default's keys stay as they were


def check_alternative(alternative: str) -> None:
    """A SurveyError naming the alternatives unless ``alternative`` is one of them."""
    if alternative not in ALTERNATIVES:
        raise SurveyError(f"alternative must be one of {', '.join(ALTERNATIVES)}; got '{alternative}'")


def subset_sums(d: np.ndarray) -> np.ndarray:
    """All 2^k values of sum_j eps_j d_j, built by doubling (2^(k+1) additions in total)."""
    s = np.zeros(1)
    for x in d:
        s = np.concatenate((s + x, s - x))
    return s


def tie_tolerance(d: np.ndarray) -> float:
    """How far apart two sign-flip sums of ``d`` may be and still count as tied."""
    # Sums of the same numbers in another order differ in the last bits; a relative tolerance
    # makes exact ties (common: theta-hat are fractions of r) count as ties.
    return 1e-9 * float(np.abs(d).sum())


def count_ge(d: np.ndarray, c: float, enumerate_max_m: int = _ENUMERATE_MAX_M) -> int:
    """#{eps in {+-1}^m : sum eps_j d_j >= c}, exactly (meet in the middle above enumerate_max_m)."""
    return counts_ge(d, [c], enumerate_max_m)[0]


def counts_ge(d: np.ndarray, thresholds, enumerate_max_m: int = _ENUMERATE_MAX_M) -> list[int]:
    """count_ge for several thresholds from one enumeration."""
    m = len(d)
    if m <= enumerate_max_m:
        sums = subset_sums(d)
        return [int(np.count_nonzero(sums >= c)) for c in thresholds]
    h = m // 2
    left = subset_sums(d[:h])
    right = np.sort(subset_sums(d[h:]))
    return [int(len(right) * len(left) - np.searchsorted(right, c - left, side="left").sum()) for c in thresholds]


def _exact_split(d: np.ndarray, s_obs: float, gamma: float, alternative: str) -> tuple[int, int]:
    """(#{eps: T* beyond T by more than gamma}, #{eps: T* at least T less gamma}) over all 2^m sign vectors,
    on T for one-sided, on |T| for two-sided alternatives; their difference is the ties."""
    if alternative != "two-sided":
        s = s_obs if alternative == "greater" else -s_obs  # "less" by symmetry of the null
        gt, ge = counts_ge(d, [np.nextafter(s + gamma, np.inf), s - gamma])
        return gt, ge
    a = abs(s_obs)
    gt, ge = counts_ge(d, [np.nextafter(a + gamma, np.inf), a - gamma])
    # Above 0 the events T* >= c and T* <= -c are disjoint and equally likely: |T*| >= c counts twice.
    return 2 * gt, (2 ** len(d) if a <= gamma else min(2 * ge, 2 ** len(d)))


def _flip_sample(d: np.ndarray, n: int, rng: np.random.Generator, chunk: int = 1 << 16) -> np.ndarray:
    out = np.empty(n)
    for start in range(0, n, chunk):
        k = min(chunk, n - start)
        signs = rng.integers(0, 2, size=(k, len(d)), dtype=np.int8) * 2 - 1
        out[start:start + k] = signs @ d
    return out


def sign_flip_test(d, alternative: str = "two-sided", method: str = "auto",
                   n_resamples: int = 9999, seed=None, ties: str = "count") -> PermutationResult:
    """Sign-flip permutation test of H0: the d_j are symmetric about 0.

    ``method``: "auto" (exact up to m = 40, else Monte Carlo), "exact", or "monte-carlo".
    Two-sided p = #{eps: |sum eps d| >= |sum d|} / 2^m, the paper's definition; this equals scipy's
    2*min(one-sided) because the null distribution of the sum is symmetric.
    Monte Carlo p = (1 + count) / (1 + B), which is itself a valid p-value.
    ``ties="random"``: p = (#{beyond} + U #{tied}) / 2^m exactly, (#{beyond} + U (1 + #{tied})) / (B + 1) by
    Monte Carlo, U drawn from the seeded generator after the flips, never below the counting test's smallest p
    (survey.stats.tie_breaking).
    """
    check_alternative(alternative)
    check_ties(ties)
    d = np.asarray(d, dtype=float)
    d = d[~np.isnan(d)]
    m = len(d)
    if m == 0:
        raise SurveyError("the sign-flip test needs at least one paired perturbation")
    if method not in ("auto", "exact", "monte-carlo"):
        raise SurveyError(f"method must be auto, exact or monte-carlo; got '{method}'")
    s_obs = float(d.sum())
    gamma = tie_tolerance(d)
    exact = method == "exact" or (method == "auto" and m <= EXACT_MAX_M)
    if exact and m > 50:  # halves of 2^(m/2) sums: about 1 GB and 10 s at m = 50, 32 times that at 60
        raise SurveyError(f"an exact test with m = {m} perturbations would need too much memory; use monte-carlo")
    rng = np.random.default_rng(seed)
    if exact:
        total = 2.0 ** m
        if ties == "random":
            beyond, at_least = _exact_split(d, s_obs, gamma, alternative)
        elif alternative == "greater":
            count = count_ge(d, s_obs - gamma)
        elif alternative == "less":
            count = count_ge(d, -s_obs - gamma)  # by symmetry of the null
        elif abs(s_obs) <= gamma:
            count = 2 ** m
        else:
            count = min(2 * count_ge(d, abs(s_obs) - gamma), 2 ** m)
        null = subset_sums(d) / m if m <= 16 else _flip_sample(d, 9999, rng) / m
        pvalue = (randomised_pvalue(beyond, at_least - beyond, 2 ** m, rng.random(), False, alternative)
                  if ties == "random" else count / total)
        name = "enumeration" if m <= _ENUMERATE_MAX_M else "meet-in-the-middle"
        return PermutationResult(round(s_obs / m, 12), float(pvalue), True, name, 2 ** m, alternative, null, ties)
    sums = _flip_sample(d, int(n_resamples), rng)
    if ties == "random":
        beyond, at_least = tail_split(sums, s_obs, gamma, alternative)
        pvalue = randomised_pvalue(beyond, at_least - beyond, int(n_resamples), rng.random(), True, alternative)
    else:
        pvalue = (1 + _tail_count(sums, s_obs, gamma, alternative)) / (1 + n_resamples)
    return PermutationResult(round(s_obs / m, 12), float(pvalue), False, "monte-carlo", int(n_resamples),
                             alternative, sums / m, ties)


def smallest_pvalue(m: int, alternative: str = "two-sided") -> float:
    """The smallest p-value the exact sign-flip test can give with m pairs: 1/2^m one-sided, 2/2^m
    two-sided (all signs of one direction). Below alpha the test can never reject, whatever the data."""
    check_alternative(alternative)
    return min(1.0, (2.0 if alternative == "two-sided" else 1.0) * 2.0 ** -m)  # 2.0 ** m overflows past m = 1023


def pairs_needed(alpha: float, alternative: str = "two-sided") -> int:
    """The fewest pairs m at which the sign-flip test can reject at ``alpha`` (6 two-sided at 0.05)."""
    m = 1
    while smallest_pvalue(m, alternative) > alpha:
        m += 1
    return m


def cannot_reject_note(m: int, alpha: float, alternative: str = "two-sided") -> str | None:
    """A sentence saying the sign-flip test cannot reject at this m and alpha, or None when it can."""
    p = smallest_pvalue(m, alternative)
    if p <= alpha:
        return None
    side = "two-sided" if alternative == "two-sided" else "one-sided"
    return (f"with m = {m} paraphrase pairs the sign-flip test cannot reject at alpha = {alpha:g}: its smallest "
            f"{side} p-value is {'2' if side == 'two-sided' else '1'}/2^{m} = {p:.3g}; it needs "
            f"m >= {pairs_needed(alpha, alternative)}")


def _tail_count(null_sums, s_obs, gamma, alternative) -> int:
    if alternative == "greater":
        return int(np.count_nonzero(null_sums >= s_obs - gamma))
    if alternative == "less":
        return int(np.count_nonzero(null_sums <= s_obs + gamma))
    return int(np.count_nonzero(np.abs(null_sums) >= abs(s_obs) - gamma))


def sign_flip_pvalues(D, alternative: str = "two-sided", n_resamples: int = 1000,
                      exact_max_m: int = 12, seed=None, chunk: int = 256, ties: str = "count") -> np.ndarray:
    """Sign-flip p-values for a batch of surveys at once: row s of D is (d_1..d_m) of survey s.

    Exact (all 2^m sign vectors) when m <= exact_max_m; otherwise the same B random sign vectors
    serve every row, which keeps each row's p = (1+count)/(1+B) valid (the flips are independent
    of the data) and turns the whole batch into one matrix product. ``ties="random"`` breaks each row's
    ties with its own U, drawn from the seeded generator after the flips (as sign_flip_test does).
    """
    check_alternative(alternative)
    check_ties(ties)
    D = np.atleast_2d(np.asarray(D, dtype=float))
    S, m = D.shape
    mult, rng = 1, np.random.default_rng(seed)  # a Generator passed as seed is used as is
    if m <= exact_max_m:
        signs = all_signs(m)
        denom, plus = float(len(signs)), 0
        if alternative == "two-sided" and m > 0:
            # The second half of the enumeration is the first half negated and |T| is the same for
            # eps and -eps: counting the first half twice gives the same p for half the work.
            signs, mult = signs[: len(signs) // 2], 2
    else:
        signs = (rng.integers(0, 2, size=(int(n_resamples), m)) * 2 - 1).astype(float)
        denom, plus = float(n_resamples + 1), 1
    u = rng.random(S) if ties == "random" else None  # after the flips: the flips stay those of the default
    out = np.empty(S)
    gamma = 1e-9 * np.abs(D).sum(axis=1)
    for start in range(0, S, chunk):
        block = D[start:start + chunk]
        null = block @ signs.T  # (chunk, B)
        obs = block.sum(axis=1)[:, None]
        g = gamma[start:start + chunk, None]
        if u is not None:
            beyond, at_least = tail_split(null, obs, g, alternative, axis=1)
            out[start:start + chunk] = randomised_pvalue(mult * beyond, mult * (at_least - beyond), denom - plus,
                                                         u[start:start + chunk], bool(plus), alternative)
            continue
        if alternative == "greater":
            cnt = (null >= obs - g).sum(axis=1)
        elif alternative == "less":
            cnt = (null <= obs + g).sum(axis=1)
        else:
            cnt = (np.abs(null) >= np.abs(obs) - g).sum(axis=1)
        out[start:start + chunk] = (mult * cnt + plus) / denom
    return np.minimum(out, 1.0)


@functools.cache
def all_signs(m: int) -> np.ndarray:
    """All 2^m sign vectors, +1 first in every position (so row i and row 2^m-1-i are opposite)."""
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=m))).reshape(2 ** m, m)
    signs.flags.writeable = False  # cached and shared between calls
    return signs


def unpaired_permutation_test(x, y, alternative: str = "two-sided", n_resamples: int = 9999,
                              exact_limit: int = 200_000, seed=None) -> PermutationResult:
    """Permutation test of mean(x) - mean(y) exchanging message labels across perturbations (ours).

    x, y are the perturbation-level means theta-bar_j of message A and B; it uses every
    perturbation even when m_A != m_B. Exact when C(m_A + m_B, m_A) <= exact_limit.
    Two-sided counts |T_perm| >= |T_obs|.
    """
    check_alternative(alternative)
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    x, y = x[~np.isnan(x)], y[~np.isnan(y)]
    if len(x) < 1 or len(y) < 1:
        raise SurveyError("the unpaired test needs at least one perturbation per message")
    pooled = np.concatenate([x, y])
    na, nb, total = len(x), len(y), pooled.sum()
    t_obs = x.mean() - y.mean()
    gamma = 1e-9 * float(np.abs(pooled).sum())
    n_comb = math.comb(na + nb, na)
    if n_comb <= exact_limit:
        idx = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(na + nb), na)),
                          dtype=np.int64, count=n_comb * na).reshape(n_comb, na)
        sum_a = pooled[idx].sum(axis=1)
        null = sum_a / na - (total - sum_a) / nb
        count = _tail_count(null, t_obs, gamma, alternative)
        return PermutationResult(float(t_obs), count / n_comb, True, "enumeration", n_comb,
                                 alternative, null)
    rng = np.random.default_rng(seed)
    null = np.empty(int(n_resamples))
    for b in range(0, int(n_resamples), 4096):
        k = min(4096, int(n_resamples) - b)
        keys = rng.random((k, na + nb))
        sel = np.argpartition(keys, na - 1, axis=1)[:, :na]
        sum_a = pooled[sel].sum(axis=1)
        null[b:b + k] = sum_a / na - (total - sum_a) / nb
    count = _tail_count(null, t_obs, gamma, alternative)
    return PermutationResult(float(t_obs), (1 + count) / (1 + n_resamples), False, "monte-carlo",
                             int(n_resamples), alternative, null)


def unpaired_permutation_pvalues(X, Y, alternative: str = "two-sided", n_resamples: int = 1000,
                                 exact_limit: int = 20_000, seed=None) -> np.ndarray:
    """unpaired_permutation_test row by row: row s of X and Y are message A's and B's theta-bar_j
    of survey s (NaN where a perturbation has no valid answer). A row where one side has no valid
    value carries no evidence: p = 1. The default exact_limit is lower than the single test's, since
    each row pays for its enumeration."""
    X, Y = np.atleast_2d(np.asarray(X, dtype=float)), np.atleast_2d(np.asarray(Y, dtype=float))
    rng = np.random.default_rng(seed)
    out = np.ones(len(X))
    for s in np.flatnonzero(~np.isnan(X).all(axis=1) & ~np.isnan(Y).all(axis=1)):
        out[s] = unpaired_permutation_test(X[s], Y[s], alternative, n_resamples=n_resamples,
                                           exact_limit=exact_limit, seed=rng.integers(2**63)).pvalue
    return out
