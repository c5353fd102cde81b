"""Validity and power on collected data by sub-sampling (Helm & Priebe 2026, sections 4.2–4.3,
Table 5, appendix B).

Null condition: one message's perturbations are split into two random halves, "A" and "B", and
every test compares half against half; any rejection is a Type-I error. The split is drawn afresh
for every sub-sample (ours), so the rate averages over splits instead of hinging on one.
Alternative condition: message A against message B; the rejection rate is the power.

For a configuration (n, m, r) each draw takes n personas, m perturbations per side and r replicate
ids at random without replacement, and runs every test of survey.stats.ab_tests (the sign-flip and
unpaired permutation tests, the sign and Wilcoxon tests) on that sub-table, with the same pairing,
empty-cell and NaN rules as survey.stats.comparison. Replicate ids are drawn once per draw for all
cells: replicates are exchangeable within a cell, so this is the same law as a per-cell choice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from survey.common.limits import check_simulation_work
from survey.common.threads import one_blas_thread
from survey.data.pairing import perturbation_order
from survey.data.table import first_appearance
from survey.errors import SurveyError, TableError
from survey.stats import ab_tests
from survey.stats.ab_tests import DECISION_TEST, ByTest, batched_pvalues, with_aliases
from survey.stats.comparison import nanmean
from survey.stats.permutation import cannot_reject_note

# The paper's six configurations: two persona counts, and m/r of 5/5, 5/20 and 20/5.
DEFAULT_CONFIGS = ((10, 5, 5), (10, 5, 20), (10, 20, 5), (50, 5, 5), (50, 5, 20), (50, 20, 5))
DEFAULT_DRAWS = 200
# The sign-flip test's verdict when its smallest p-value (2/2^m two-sided) exceeds alpha: a rate of 0
# then says nothing about its size, so "conservative" would mislead.
CANNOT_REJECT = "cannot reject at this m"


def __getattr__(name: str):
    if name == "VALIDITY_TESTS":  # every registered test, read from the registry when asked
        return ab_tests.names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass
class Responses:
    """One message's answers as a dense (persona, perturbation, replicate) array: the score (1/0 for Yes/No,
    the point of a rating scale) or NaN; a cell's theta is its mean score."""

    message: str
    personas: list[str]
    perturbations: list[str]
    replicates: list[int]
    y: np.ndarray


def responses(df: pd.DataFrame, model: str, message: str, personas: list[str] | None = None,
              replicates: list[int] | None = None) -> Responses:
    """Dense answers of one (model, message); absent queries and invalid answers are NaN."""
    sub = df[(df["model"] == model) & (df["message"] == message)]
    if sub.empty:
        known = sorted(df.loc[df["model"] == model, "message"].unique())
        raise TableError(f"no rows for message '{message}' of model '{model}'; messages are {known}")
    pers = personas if personas is not None else first_appearance(sub["persona"])
    perts = perturbation_order(sub)  # independent of the order of rows, like the comparison's pairing
    reps = replicates if replicates is not None else sorted(sub["replicate"].unique())
    i = pd.Index(pers).get_indexer(sub["persona"])
    j = pd.Index(perts).get_indexer(sub["perturbation"])
    k = pd.Index(reps).get_indexer(sub["replicate"])
    y = np.full((len(pers), len(perts), len(reps)), np.nan)
    y[i, j, k] = sub["answer"].astype("float64").to_numpy()  # <NA> becomes NaN
    return Responses(message, list(pers), perts, list(reps), y)


@dataclass
class TestRate:
    rejections: int
    draws: int
    rate: float
    ci: tuple[float, float]  # Clopper-Pearson
    verdict: str  # null: "oversized", "conservative", "ok" or CANNOT_REJECT (sign-flip, small m); alternative: "power"

    def to_dict(self) -> dict:
        return {"rate": self.rate, "ci": list(self.ci), "rejections": self.rejections,
                "draws": self.draws, "verdict": self.verdict}


@dataclass
class ValidityResult:
    model: str
    condition: str  # "null" or "alternative"
    a: str
    b: str
    config: tuple[int, int, int]
    alpha: float
    rates: ByTest  # test -> TestRate
    pvalues: ByTest = field(repr=False, default_factory=ByTest)  # test -> (draws,) p-values
    requested: tuple[int, int, int] | None = None  # a default configuration before clipping

    def to_dict(self) -> dict:
        n, m, r = self.config
        return {"model": self.model, "condition": self.condition, "a": self.a, "b": self.b,
                "n": n, "m": m, "r": r, "requested": list(self.requested or self.config),
                "alpha": self.alpha,
                "tests": with_aliases({t: x.to_dict() for t, x in self.rates.items()}),
                "ecdf": with_aliases({t: ecdf_at(p, ECDF_POINTS) for t, p in self.pvalues.items()})}


ECDF_POINTS = (0.01, 0.05, 0.1, 0.25, 0.5)


def ecdf_at(pvalues: np.ndarray, points: Iterable[float]) -> dict:
    """Share of p-values <= x at each x; a valid test has ecdf(x) <= x (up to MC error)."""
    p = np.asarray(pvalues)
    return {f"{x:g}": float(np.mean(p <= x)) for x in points}


def rejection_rate(pvalues: np.ndarray, alpha: float, confidence: float = 0.95,
                   null: bool = True) -> TestRate:
    k, n = int(np.sum(pvalues <= alpha)), len(pvalues)
    ci = stats.binomtest(k, n).proportion_ci(confidence, method="exact")
    lo, hi = float(ci.low), float(ci.high)
    verdict = "power" if not null else "oversized" if lo > alpha else "conservative" if hi < alpha else "ok"
    return TestRate(k, n, k / n, (lo, hi), verdict)


def limits(resp_a: Responses, resp_b: Responses | None) -> tuple[int, int, int]:
    """The largest (n, m, r) a table supports: for the null, m is at most half the perturbations."""
    if resp_b is None:
        return resp_a.y.shape[0], resp_a.y.shape[1] // 2, resp_a.y.shape[2]
    return (resp_a.y.shape[0], min(resp_a.y.shape[1], resp_b.y.shape[1]),
            min(resp_a.y.shape[2], resp_b.y.shape[2]))


def fit_configs(configs: Iterable[tuple[int, int, int]], lim: tuple[int, int, int],
                clip: bool) -> list[tuple[tuple[int, int, int], tuple[int, int, int]]]:
    """(asked, used) configurations checked against the table; ``clip`` (for the defaults) shrinks
    them to fit instead of failing, and drops those that become duplicates."""
    out = []
    for asked in configs:
        n, m, r = cfg = tuple(asked)
        if n < 2 or m < 2 or r < 1:
            raise SurveyError(f"configuration {cfg}: needs n >= 2, m >= 2, r >= 1")
        if clip:
            cfg = tuple(min(c, x) for c, x in zip(cfg, lim, strict=True))
        elif any(c > x for c, x in zip(cfg, lim, strict=True)):
            raise SurveyError(f"configuration n={n}, m={m}, r={r} does not fit the table: it has at most "
                              f"n={lim[0]} personas, m={lim[1]} perturbations per side and r={lim[2]} "
                              "replicates (the null split halves the perturbations)")
        if min(cfg[:2]) < 2:
            raise SurveyError(f"the table is too small for sub-sampling: it supports n={lim[0]}, "
                              f"m={lim[1]}, r={lim[2]}; it needs n >= 2 and m >= 2")
        if cfg not in [used for _, used in out]:
            out.append((tuple(asked), cfg))
    return out


def _draw_thetas(ya: np.ndarray, yb: np.ndarray, config, draws: int, rng, null: bool):
    """theta-hat (draws, n, m) of both sides for ``draws`` random sub-samples."""
    n, m, r = config
    P, M, R = ya.shape
    ii = np.argsort(rng.random((draws, P)), axis=1)[:, :n]
    kk = np.argsort(rng.random((draws, R)), axis=1)[:, :r]
    if null:  # a random split of the one message: the first m and the next m of a permutation
        perm = np.argsort(rng.random((draws, M)), axis=1)
        ja, jb = perm[:, :m], perm[:, m:2 * m]
    else:
        ja = np.argsort(rng.random((draws, M)), axis=1)[:, :m]
        jb = np.argsort(rng.random((draws, yb.shape[1])), axis=1)[:, :m]

    def theta(y, jj):
        sub = y[ii[:, :, None, None], jj[:, None, :, None], kk[:, None, None, :]]
        valid = np.sum(~np.isnan(sub), axis=3)
        total = np.nansum(sub, axis=3)  # score sum: the Yes count for Yes/No
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(valid > 0, total / np.maximum(valid, 1), np.nan)

    return theta(ya, ja), theta(yb, jb)


def subsample_pvalues(ya: np.ndarray, yb: np.ndarray | None, config, draws: int = DEFAULT_DRAWS,
                      seed=0, alternative: str = "two-sided", flips: int = 1000,
                      exact_max_m: int = 12) -> ByTest:
    """p-values of every registered test on ``draws`` sub-samples; ``yb`` None means the null split
    of ``ya``. A draw where a side has no valid answer at all carries no evidence: p = 1."""
    rng = np.random.default_rng(seed)
    null = yb is None
    ta, tb = _draw_thetas(ya, ya if null else yb, config, draws, rng, null)
    # paired D-bar_j and D-hat_i, rounded like comparison.paired_differences so exact ties stay ties
    samples = {"pairs": (np.round(nanmean(ta - tb, axis=1), 12),),
               "personas": (np.round(nanmean(ta, axis=2) - nanmean(tb, axis=2), 12),),
               "means": (nanmean(ta, axis=1), nanmean(tb, axis=1))}
    pv = batched_pvalues(samples, ab_tests.names(), alternative, flips, exact_max_m, int(rng.integers(2**63)))
    empty = np.isnan(ta).all(axis=(1, 2)) | np.isnan(tb).all(axis=(1, 2))
    for p in pv.values():
        p[empty] = 1.0
    return pv


def validity_study(df: pd.DataFrame, model: str, a: str, b: str | None = None,
                   configs: Iterable[tuple[int, int, int]] | None = None, draws: int = DEFAULT_DRAWS,
                   alpha: float = 0.05, seed: int = 0, alternative: str = "two-sided",
                   flips: int = 1000, confidence: float = 0.95,
                   progress: Callable[[int], None] | None = None) -> list[ValidityResult]:
    """Rejection rates of every test per configuration: null split of ``a`` when ``b`` is None,
    else the alternative a vs b (power by sub-sampling)."""
    if draws < 1:
        raise SurveyError("draws must be >= 1")
    null = b is None
    if null:
        ra, rb = responses(df, model, a), None
    else:
        sub = df[df["model"] == model]
        pers = first_appearance(sub.loc[sub["message"].isin([a, b]), "persona"])
        reps = sorted(sub.loc[sub["message"].isin([a, b]), "replicate"].unique())
        ra, rb = responses(df, model, a, pers, reps), responses(df, model, b, pers, reps)
    lim = limits(ra, rb)
    cfgs = fit_configs(DEFAULT_CONFIGS if configs is None else configs, lim, clip=configs is None)
    check_simulation_work(draws * sum(n * m * r + (flips * m if m > 12 else 0) for _, (n, m, r) in cfgs),
                          f"{draws} draws x {len(cfgs)} configurations x (answers + flips x m)",
                          "lower `draws=` or `flips=`")
    out = []
    for asked, cfg in cfgs:
        with one_blas_thread():  # small products: a second BLAS thread only waits on shared cores
            pv = subsample_pvalues(ra.y, None if null else rb.y, cfg, draws, [seed, *cfg], alternative, flips)
        rates = ByTest({t: rejection_rate(p, alpha, confidence, null) for t, p in pv.items()})
        if null and DECISION_TEST in rates and cannot_reject_note(cfg[1], alpha, alternative):
            rates[DECISION_TEST].verdict = CANNOT_REJECT
        out.append(ValidityResult(model, "null" if null else "alternative", a if not null else f"{a}/1",
                                  b if not null else f"{a}/2", cfg, alpha, rates, pv, asked))
        if progress:
            progress(1)
    return out
