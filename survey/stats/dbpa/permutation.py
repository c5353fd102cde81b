"""Distribution-based perturbation analysis, DBPA (Rauba, Wei & van der Schaar, "Statistical Hypothesis
Testing for Auditing Robustness in Language Models"). Pure functions, no I/O.

Given embeddings of outputs y_1..y_k of S(x) (the set X) and y'_1..y'_k' of S(x') (the set Y):
P0 = {s(y_i, y_j): i < j} (within X), P1 = {s(y_i, y'_j): all i, j} (across), s = cosine similarity,
and the effect size is T = omega(P0, P1). The permutation test relabels OUTPUTS (never scores):
each resample draws which outputs form X, recomputes P0 and P1 from the similarity matrix computed
once, and recomputes T; p = (1 + #{T_perm >= T}) / (1 + B).

Discrepancies ``omega`` (all oriented so that larger = more change; one-sided test):
- ``js``: Jensen-Shannon DIVERGENCE (natural log, in [0, ln 2]) of the P0 and P1 histograms;
  ``js-distance``: its square root, what scipy.spatial.distance.jensenshannon (and so the authors'
  code) returns. Same p-value (a monotone transform). Histograms: ``bins`` equal-width bins (30)
  over ``hist_range``: "pooled" = [min, max] of P0 and P1 together, recomputed for every
  relabeling (the authors' choice, the default); "all-pairs" = [min, max] of all pairs of the pooled
  outputs (fixed, faster); or a fixed (lo, hi), values outside it are left out.
- ``energy-cosine`` / ``energy-l1`` / ``energy-l2``: energy distance between the two sets of
  embeddings, 2/(nm) sum d(x, y) - 1/n^2 sum d(x, x') - 1/m^2 sum d(y, y') (the authors' V-statistic;
  cosine distance = 1 - s).
- ``wasserstein``: 1-Wasserstein distance between P0 and P1 (= scipy.stats.wasserstein_distance).
- ``ks``: Kolmogorov-Smirnov statistic sup |F0 - F1| (= scipy.stats.ks_2samp's statistic).
- ``mean-diff``: mean(P0) - mean(P1).

Units (beyond the paper): when outputs share a perturbation they are correlated, and relabeling
single outputs is not a valid null. ``dbpa_units`` relabels whole units (all outputs of one
perturbation keep their label together): ``scheme="relabel"`` draws which units form X among all
units (the unpaired permutation test); ``scheme="swap"`` swaps the two units of each pair (A_j, B_j)
with probability 1/2 (the DBPA analogue of the sign-flip test). When all relabelings number at most
``n_resamples`` they are enumerated and the p-value is exact.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from survey.errors import SurveyError
from survey.stats.dbpa.omega import OMEGAS, OmegaEngine, hist_edges

SCHEMES = ("subset", "relabel", "swap")
_MAX_OUTPUTS = 6000  # the N x N similarity matrix (and its pair lists) must fit in memory
_ROW_CELLS = 25_000_000  # relabelings x units x bins evaluated at once (float32: 100 MB)


@dataclass
class DBPAResult:
    omega: str
    statistic: float  # T = omega(P0, P1) on the observed labels
    pvalue: float
    null_distribution: np.ndarray = field(repr=False)  # omega under the B relabelings
    n_resamples: int
    exact: bool  # all relabelings enumerated
    unit: str  # "output" or "perturbation" (what the permutation moves)
    scheme: str  # "subset" (outputs), "relabel" or "swap" (units)
    n_x: int
    n_y: int
    units_x: int
    units_y: int
    bins: int
    hist_range: str | tuple
    js_distance: float | None = None  # for omega = "js": sqrt of the divergence, for comparison
    p0: np.ndarray = field(default=None, repr=False)  # observed similarity sets, for plots
    p1: np.ndarray = field(default=None, repr=False)

    def to_dict(self) -> dict:
        null = np.asarray(self.null_distribution, dtype=float)
        d = {"omega": self.omega, "statistic": self.statistic, "pvalue": self.pvalue,
             "n_resamples": self.n_resamples, "exact": self.exact, "unit": self.unit,
             "scheme": self.scheme, "n_x": self.n_x, "n_y": self.n_y, "units_x": self.units_x,
             "units_y": self.units_y,
             "null": {"mean": float(null.mean()), "sd": float(null.std(ddof=1)) if len(null) > 1 else 0.0,
                      "q95": float(np.quantile(null, 0.95))}}
        if self.omega in ("js", "js-distance"):
            d["bins"] = self.bins
            d["hist_range"] = list(self.hist_range) if isinstance(self.hist_range, tuple) else self.hist_range
        if self.js_distance is not None:
            d["js_distance"] = self.js_distance
        if self.p0 is not None:
            d["mean_p0"] = float(np.mean(self.p0))
            d["mean_p1"] = float(np.mean(self.p1))
        return d


# --- building blocks -----------------------------------------------------------------------------

def _check_embeddings(emb, name: str) -> np.ndarray:
    arr = np.asarray(emb, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[0] == 0:
        raise SurveyError(f"{name}: expected a 2-d array of embeddings (outputs x dimensions), got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise SurveyError(f"{name}: embeddings contain NaN or infinite values")
    return arr


def cosine_similarity_matrix(emb) -> np.ndarray:
    """S[i, j] = cosine similarity of rows i and j (float64)."""
    emb = _check_embeddings(emb, "embeddings")
    norms = np.linalg.norm(emb, axis=1)
    if (norms == 0).any():
        raise SurveyError(f"output {int(np.argmin(norms))} has an all-zero embedding; cosine similarity is undefined")
    unit = emb / norms[:, None]
    return unit @ unit.T


def similarity_sets(S: np.ndarray, in_x) -> tuple[np.ndarray, np.ndarray]:
    """(P0, P1): similarities of the pairs i < j inside X, and of all pairs across X and Y."""
    in_x = np.asarray(in_x, dtype=bool)
    sx = S[np.ix_(in_x, in_x)]
    return sx[np.triu_indices(len(sx), k=1)], S[np.ix_(in_x, ~in_x)].ravel()


def histograms(p0, p1, bins: int = 30, hist_range="pooled") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(P0 counts, P1 counts, edges) on common bins; "pooled" uses [min, max] of both sets."""
    if isinstance(hist_range, str):
        both = np.concatenate([p0, p1])
        lo, hi = both.min(), both.max()
    else:
        lo, hi = hist_range
    edges = hist_edges(lo, hi, bins)
    return (np.histogram(p0, bins=edges)[0], np.histogram(p1, bins=edges)[0], edges)


def energy_distance(emb_x, emb_y, metric: str = "cosine") -> float:
    """2/(nm) sum d(x, y) - 1/n^2 sum d(x, x') - 1/m^2 sum d(y, y'), d = cosine, l1 or l2."""
    from scipy.spatial.distance import cdist

    name = {"cosine": "cosine", "l1": "cityblock", "l2": "euclidean"}[metric]
    x, y = np.asarray(emb_x, float), np.asarray(emb_y, float)
    return float(2 * cdist(x, y, name).mean() - cdist(x, x, name).mean() - cdist(y, y, name).mean())


def _check_options(omegas, n_resamples: int, bins: int, hist_range) -> list[str]:
    omegas = [omegas] if isinstance(omegas, str) else list(omegas)
    bad = [o for o in omegas if o not in OMEGAS]
    if bad or not omegas:
        raise SurveyError(f"unknown omega {', '.join(bad) or '(none)'}; choose from {', '.join(OMEGAS)}")
    if int(n_resamples) < 1:
        raise SurveyError("n_resamples (permutations) must be >= 1")
    if int(bins) < 2:
        raise SurveyError("bins must be >= 2")
    if isinstance(hist_range, str):
        if hist_range not in ("pooled", "all-pairs"):
            raise SurveyError(f"hist_range must be 'pooled', 'all-pairs' or (lo, hi); got '{hist_range}'")
    else:
        lo, hi = (float(v) for v in hist_range)
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise SurveyError(f"hist_range (lo, hi) needs finite lo < hi; got {hist_range}")
    return list(dict.fromkeys(omegas))


# --- relabelings ---------------------------------------------------------------------------------

def _subset_rows(n_units: int, n_x: int, B: int, rng) -> tuple[np.ndarray, bool]:
    """Indicator rows of size-n_x subsets; all of them when there are at most B."""
    total = math.comb(n_units, n_x)
    if total <= B:
        rows = np.zeros((total, n_units))
        for r, combo in enumerate(itertools.combinations(range(n_units), n_x)):
            rows[r, list(combo)] = 1.0
        return rows, True
    idx = np.argsort(rng.random((B, n_units)), axis=1)[:, :n_x]
    rows = np.zeros((B, n_units))
    np.put_along_axis(rows, idx, 1.0, axis=1)
    return rows, False


def _swap_rows(a_obs: np.ndarray, pairs: np.ndarray, B: int, rng) -> tuple[np.ndarray, bool]:
    """Rows where each pair (u_x, u_y) keeps or swaps its labels; unpaired units keep theirs."""
    P = len(pairs)
    if 2 ** P <= B:
        flips = np.array(list(itertools.product((0, 1), repeat=P)), dtype=bool).reshape(-1, P)
        exact = True
    else:
        flips = rng.integers(0, 2, size=(B, P)).astype(bool)
        exact = False
    rows = np.tile(a_obs, (len(flips), 1))
    ux, uy = pairs[:, 0], pairs[:, 1]
    rows[:, ux] = np.where(flips, 0.0, 1.0)
    rows[:, uy] = np.where(flips, 1.0, 0.0)
    return rows, exact


def _pvalue(stat: float, null: np.ndarray, exact: bool) -> float:
    # A relative tolerance makes relabelings that reproduce T (e.g. the identity, or GEMM rounding
    # of the same labels) count as ties rather than depend on the last bit.
    # An omega undefined on a relabeling (NaN: a fixed histogram range left a set empty) counts as
    # exceeding T: conservative, never anti-conservative.
    count = int(np.count_nonzero((null >= stat - 1e-9 * max(1.0, abs(stat))) | np.isnan(null)))
    return count / len(null) if exact else (1 + count) / (1 + len(null))


def _run(S, emb, unit_of, a_obs, rows, exact, omegas, bins, hist_range, unit, scheme):
    engine = OmegaEngine(S, unit_of, len(a_obs), emb, bins=bins, hist_range=hist_range)
    sizes = engine.sizes
    nx_rows = rows @ sizes
    if nx_rows.min() < 2 or (engine.N - nx_rows).min() < 1:
        raise SurveyError("every relabeling needs at least 2 outputs in X and 1 in Y; add outputs or units")
    all_rows = np.vstack([a_obs[None, :], rows])
    # Chunks bound the largest temporary (rows x units x bins) whatever B is; results do not depend on
    # the chunking. Each chunk regroups its rows by histogram range, so chunks are kept large.
    step = max(64, _ROW_CELLS // (engine.M * max(int(bins), 1)))
    parts = [engine.evaluate(all_rows[s:s + step], omegas) for s in range(0, len(all_rows), step)]
    values = {o: np.concatenate([p[o] for p in parts]) for o in omegas}
    bad = [o for o in omegas if not np.isfinite(values[o][0])]
    if bad:
        raise SurveyError(f"omega {', '.join(bad)} is undefined on these outputs: no similarity of P0 or P1 "
                          f"falls inside the histogram range {hist_range}; widen it")
    in_x = a_obs[unit_of] > 0
    p0, p1 = similarity_sets(S, in_x)
    results = {}
    for o in omegas:
        stat, null = float(values[o][0]), values[o][1:]
        results[o] = DBPAResult(
            omega=o, statistic=stat, pvalue=_pvalue(stat, null, exact), null_distribution=null,
            n_resamples=len(null), exact=exact, unit=unit, scheme=scheme,
            n_x=int(in_x.sum()), n_y=int((~in_x).sum()), units_x=int(a_obs.sum()),
            units_y=int(len(a_obs) - a_obs.sum()), bins=int(bins), hist_range=hist_range,
            js_distance=float(np.sqrt(stat)) if o == "js" else None, p0=p0, p1=p1)
    return results


def _normalise_range(hist_range):
    return hist_range if isinstance(hist_range, str) else (float(hist_range[0]), float(hist_range[1]))


def dbpa_test(emb_x, emb_y, omega="js", n_resamples: int = 1000, seed=None, bins: int = 30,
              hist_range="pooled"):
    """DBPA of the outputs X = S(x) vs Y = S(x'), relabeling single outputs (the DBPA paper's test).

    ``omega`` is one name or a list; a list returns {name: DBPAResult}, all from the same
    relabelings. Valid when the outputs are exchangeable under H0 (independent draws).
    """
    omegas = _check_options(omega, n_resamples, bins, hist_range)
    ex, ey = _check_embeddings(emb_x, "X"), _check_embeddings(emb_y, "Y")
    if ex.shape[1] != ey.shape[1]:
        raise SurveyError(f"X and Y embeddings differ in dimension ({ex.shape[1]} vs {ey.shape[1]}); use one embedder")
    if len(ex) < 2:
        raise SurveyError("X needs at least 2 outputs (P0 is made of pairs inside X)")
    emb = np.vstack([ex, ey])
    _check_size(len(emb))
    S = cosine_similarity_matrix(emb)
    N, k = len(emb), len(ex)
    a_obs = np.zeros(N)
    a_obs[:k] = 1.0
    rows, exact = _subset_rows(N, k, int(n_resamples), np.random.default_rng(seed))
    return _pick(_run(S, emb, np.arange(N), a_obs, rows, exact, omegas, bins, _normalise_range(hist_range),
                      "output", "subset"), omega, omegas)


def _check_size(n: int) -> None:
    if n > _MAX_OUTPUTS:
        raise SurveyError(f"{n} outputs is more than DBPA handles in memory ({_MAX_OUTPUTS}); "
                          "subsample outputs (e.g. fewer replicates per perturbation)")


def dbpa_units(emb, in_x, units, omega="js", scheme: str = "relabel", n_resamples: int = 1000,
               seed=None, bins: int = 30, hist_range="pooled", pairs=None):
    """DBPA of X vs Y where the permutation moves whole units (e.g. perturbations).

    ``in_x``: bool per output (True = X); ``units``: a unit label per output; every unit must lie
    entirely in X or in Y. ``scheme``: "relabel" (any m_x of the m units form X), "swap" (``pairs``:
    a list of (unit in X, unit in Y) that may swap labels; unpaired units keep theirs), or
    "subset" (single outputs, ignoring units: valid only for independent outputs; for comparison).
    """
    omegas = _check_options(omega, n_resamples, bins, hist_range)
    if scheme not in SCHEMES:
        raise SurveyError(f"scheme must be one of {', '.join(SCHEMES)}; got '{scheme}'")
    emb = _check_embeddings(emb, "embeddings")
    in_x = np.asarray(in_x, dtype=bool)
    labels = np.asarray(units)
    if len(in_x) != len(emb) or len(labels) != len(emb):
        raise SurveyError("in_x and units need one entry per output (row of the embeddings)")
    _check_size(len(emb))
    names, unit_of = np.unique(labels, return_inverse=True)
    unit_of = unit_of.ravel()
    unit_x = np.zeros(len(names))
    np.maximum.at(unit_x, unit_of, in_x.astype(float))
    mixed = unit_x[unit_of] != in_x
    if mixed.any():
        raise SurveyError(f"unit '{labels[np.argmax(mixed)]}' has outputs on both sides; a unit must lie in X or in Y")
    S = cosine_similarity_matrix(emb)
    rng = np.random.default_rng(seed)
    B = int(n_resamples)
    range_ = _normalise_range(hist_range)
    if scheme == "subset":
        a_obs = in_x.astype(float)
        rows, exact = _subset_rows(len(emb), int(in_x.sum()), B, rng)
        return _pick(_run(S, emb, np.arange(len(emb)), a_obs, rows, exact, omegas, bins, range_,
                          "output", scheme), omega, omegas)
    if scheme == "relabel":
        rows, exact = _subset_rows(len(names), int(unit_x.sum()), B, rng)
    else:
        if pairs is None or len(pairs) == 0:
            raise SurveyError("scheme 'swap' needs pairs of units (unit in X, unit in Y)")
        index = {n: i for i, n in enumerate(names.tolist())}
        try:
            pair_idx = np.array([[index[a], index[b]] for a, b in pairs], dtype=np.intp)
        except KeyError as exc:
            raise SurveyError(f"pair names unit {exc} that has no outputs") from exc
        if not (unit_x[pair_idx[:, 0]] == 1).all() or (unit_x[pair_idx[:, 1]] == 1).any():
            raise SurveyError("each pair must be (a unit in X, a unit in Y)")
        if len(np.unique(pair_idx)) != pair_idx.size:
            raise SurveyError("a unit appears in more than one pair")
        rows, exact = _swap_rows(unit_x, pair_idx, B, rng)
    return _pick(_run(S, emb, unit_of, unit_x, rows, exact, omegas, bins, range_, "perturbation", scheme),
                 omega, omegas)


def _pick(res: dict, omega, omegas):
    """One result when ``omega`` named one discrepancy, else {name: result}."""
    return res[omegas[0]] if isinstance(omega, str) else res
