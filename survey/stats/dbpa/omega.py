"""Vectorised DBPA discrepancies for many relabelings at once (the engine behind survey.stats.dbpa.permutation).

A relabeling is a 0/1 row ``a`` over *units* (a unit is one output, or all outputs of one
perturbation): a_u = 1 puts unit u's outputs in the "original" set X. P0 are the similarities of
pairs inside X, P1 those of pairs across X and its complement Y (as in DBPA). The similarity matrix S
is computed once; every relabeling only re-indexes it, reduced to unit blocks:

- means and energy distance are quadratic forms a' M a of unit-block sums (one GEMM for all rows);
- histogram discrepancies (JS) need per-row bin counts. With the bins fixed, the P0 counts are
  c0[b] = 1/2 a' H_b a, where H_b[u, v] counts the pairs of units u, v whose similarity falls in
  bin b, and the P1 counts follow from the per-unit totals. With few units (perturbations) H is
  counted per unit block by exact searches on (unit pair, similarity rank) keys; with single
  outputs as units H, stacked over bins, is sparse (one bin per pair: N^2 nonzeros) and one sparse
  product serves all rows at O(R N^2). The
  authors' pooled [min, max] range changes with the relabeling, but it is set by the extreme
  similarity of the units in X, which takes only a few distinct values; rows are grouped by their
  range and each group gets its own H;
- Wasserstein and KS need the full empirical CDFs: pairs are sorted once by similarity and each
  row's CDFs are cumulative sums of its pair labels (O(N^2) per row, chunked to bound memory).

Every histogram is bit-for-bit the one np.histogram(values, bins, range=(lo, hi)) gives
(v in bin i iff edge_i <= v < edge_(i+1), the last bin closed; tests/test_dbpa.py checks it).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.special import rel_entr

HIST_OMEGAS = ("js", "js-distance")
CDF_OMEGAS = ("wasserstein", "ks")
ENERGY_OMEGAS = ("energy-cosine", "energy-l1", "energy-l2")
OMEGAS = (*HIST_OMEGAS, *ENERGY_OMEGAS, "wasserstein", "ks", "mean-diff")
_CHUNK_ELEMENTS = 4_000_000  # pair-label matrix cells per chunk (~50 MB of temporaries)


def block_sums(M: np.ndarray, unit_of: np.ndarray, n_units: int) -> np.ndarray:
    """B[u, v] = sum of M[i, j] over i in unit u, j in unit v."""
    one_hot = np.zeros((len(unit_of), n_units))
    one_hot[np.arange(len(unit_of)), unit_of] = 1.0
    return one_hot.T @ M @ one_hot


def hist_edges(lo: float, hi: float, bins: int) -> np.ndarray:
    """np.histogram's edges for range=(lo, hi), including its widening of an empty range."""
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return np.linspace(lo, hi, bins + 1)


def js_from_counts(c0: np.ndarray, c1: np.ndarray) -> np.ndarray:
    """JS divergence (natural log) row-wise, with scipy.spatial.distance.jensenshannon's arithmetic.

    jensenshannon returns sqrt(divergence), the JS *distance*; we return the divergence.
    """
    with np.errstate(invalid="ignore", divide="ignore"):  # an empty histogram gives NaN, handled by the caller
        p = c0 / c0.sum(axis=-1, keepdims=True)
        q = c1 / c1.sum(axis=-1, keepdims=True)
        m = (p + q) / 2.0
        return (rel_entr(p, m).sum(axis=-1) + rel_entr(q, m).sum(axis=-1)) / 2.0


class OmegaEngine:
    """Precomputed unit-block structure of one pooled set of N outputs in M units."""

    def __init__(self, S: np.ndarray, unit_of: np.ndarray, n_units: int, embeddings: np.ndarray | None,
                 bins: int = 30, hist_range="pooled"):
        self.S = S
        self.N = len(S)
        self.unit_of = np.asarray(unit_of, dtype=np.intp)
        self.M = int(n_units)
        self.sizes = np.bincount(self.unit_of, minlength=self.M).astype(float)
        self.emb = embeddings
        self.bins = int(bins)
        self.hist_range = hist_range
        self._cache: dict = {}

    # --- quadratic forms ---------------------------------------------------------------------
    def _split_sums(self, A: np.ndarray, Bsum: np.ndarray):
        """(sum over X x X, X x Y, Y x Y) of a unit-block-summed matrix, per row of A."""
        AB = A @ Bsum
        xx = np.einsum("rm,rm->r", AB, A)
        x_all = AB.sum(axis=1)
        total = Bsum.sum()
        xy = x_all - xx
        yy = total - 2 * x_all + xx
        return xx, xy, yy

    def mean_diff(self, A: np.ndarray) -> np.ndarray:
        """mean(P0) - mean(P1): positive when cross pairs are less similar than pairs inside X."""
        if "Ssum" not in self._cache:
            self._cache["Ssum"] = block_sums(self.S, self.unit_of, self.M)
            self._cache["Sdiag"] = np.bincount(self.unit_of, weights=np.diag(self.S), minlength=self.M)
        xx, xy, _ = self._split_sums(A, self._cache["Ssum"])
        nx = A @ self.sizes
        ny = self.N - nx
        p0_sum = (xx - A @ self._cache["Sdiag"]) / 2.0
        return p0_sum / (nx * (nx - 1) / 2.0) - xy / (nx * ny)

    def distance_matrix(self, metric: str) -> np.ndarray:
        if metric == "cosine":
            D = 1.0 - self.S
        else:
            from scipy.spatial.distance import cdist

            D = cdist(self.emb, self.emb, "cityblock" if metric == "l1" else "euclidean")
        np.fill_diagonal(D, 0.0)
        return D

    def energy(self, A: np.ndarray, metric: str) -> np.ndarray:
        """2/(nm) sum_XY d - 1/n^2 sum_XX d - 1/m^2 sum_YY d (the V-statistic of the authors' code)."""
        key = f"D-{metric}"
        if key not in self._cache:
            self._cache[key] = block_sums(self.distance_matrix(metric), self.unit_of, self.M)
        xx, xy, yy = self._split_sums(A, self._cache[key])
        nx = A @ self.sizes
        ny = self.N - nx
        return 2.0 * xy / (nx * ny) - xx / nx**2 - yy / ny**2

    # --- histograms --------------------------------------------------------------------------
    def _pairs(self):
        """Off-diagonal ordered pairs (i, j), built once: their similarities sorted, and the pairs in
        (unit of j, similarity) order with each one's rank in the sorted similarities."""
        if "pairs" not in self._cache:
            i, j = np.nonzero(~np.eye(self.N, dtype=bool))
            vals = self.S[i, j]
            by_value = np.argsort(vals, kind="stable")
            rank = np.empty(len(vals), dtype=np.intp)
            rank[by_value] = np.arange(len(vals))
            by_v = np.lexsort((rank, self.unit_of[j]))
            self._cache["pairs"] = (vals[by_value], self.unit_of[i[by_v]], self.unit_of[j[by_v]], rank[by_v])
        return self._cache["pairs"]

    def ranges(self, A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per-row histogram range. "pooled": [min, max] of P0 and P1 together, i.e. over all pairs
        with at least one end in X, which is the min/max over units in X of each unit's extremes."""
        R = len(A)
        if "uext" not in self._cache:
            off = self.S.copy()
            np.fill_diagonal(off, np.inf)
            row_min = off.min(axis=1)
            np.fill_diagonal(off, -np.inf)
            row_max = off.max(axis=1)
            umin = np.full(self.M, np.inf)
            umax = np.full(self.M, -np.inf)
            np.minimum.at(umin, self.unit_of, row_min)
            np.maximum.at(umax, self.unit_of, row_max)
            self._cache["uext"] = (umin, umax)
        umin, umax = self._cache["uext"]
        if isinstance(self.hist_range, str) and self.hist_range == "pooled":
            inx = A > 0
            lo = np.where(inx, umin[None, :], np.inf).min(axis=1)
            hi = np.where(inx, umax[None, :], -np.inf).max(axis=1)
            return lo, hi
        if isinstance(self.hist_range, str) and self.hist_range == "all-pairs":
            return np.full(R, umin.min()), np.full(R, umax.max())
        lo, hi = self.hist_range
        return np.full(R, float(lo)), np.full(R, float(hi))

    def hist_counts(self, A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(P0 counts, P1 counts) per row, shape (R, bins), exactly np.histogram's."""
        R, nb = len(A), self.bins
        lo, hi = self.ranges(A)
        c0 = np.zeros((R, nb))
        c1 = np.zeros((R, nb))
        uniq, group = np.unique(np.stack([lo, hi], axis=1), axis=0, return_inverse=True)
        group = group.ravel()
        # Few units (perturbations): count unit-block histograms, O(M^2 bins) per range group.
        # Single outputs as units: one sparse matrix entry per pair, O(N^2) per group.
        blocks = self.M * self.M * (nb + 1) < self.N * (self.N - 1) // 2
        # float32 is exact here: entries are 0/1 and the sums are counts far below 2^24.
        At = np.ascontiguousarray(A.T, dtype=np.float32)
        for g, (glo, ghi) in enumerate(uniq):
            rows = np.nonzero(group == g)[0]
            edges = hist_edges(glo, ghi, nb)
            Ht, totals = self._block_hist(edges) if blocks else self._pair_hist(edges)
            Ag = At[:, rows]
            XH = np.asarray(Ht @ Ag).reshape(self.M, nb, len(rows))  # sum over u in X, per (v, bin, row)
            XH *= Ag[:, None, :]
            inside = XH.sum(axis=0, dtype=np.float64).T / 2.0
            c0[rows] = inside
            c1[rows] = A[rows] @ totals - 2.0 * inside
        return np.rint(c0), np.rint(c1)

    def _edge_positions(self, vals: np.ndarray, edges: np.ndarray) -> np.ndarray:
        """How many sorted similarities lie below each edge; the last bin is closed, so the last edge
        counts values equal to it too. Bin b holds the values ranked in [pos_b, pos_(b+1))."""
        pos = np.searchsorted(vals, edges, side="left")
        pos[-1] = np.searchsorted(vals, edges[-1], side="right")
        return pos

    def _block_hist(self, edges):
        """Ht[(v, b), u] = #ordered pairs (i in u, j in v) in bin b, and per-unit totals [u, b].

        Pairs are keyed once by (unit pair, rank of their similarity) as exact integers, so one
        searchsorted per (unit pair, edge) counts each block's pairs below each edge."""
        M, nb = self.M, self.bins
        if "block_keys" not in self._cache:
            ui, uj, vals = self._sorted_pairs()
            P = len(vals)
            self._cache["block_keys"] = (np.sort((ui * M + uj).astype(np.int64) * P + np.arange(P)), P)
        keys, P = self._cache["block_keys"]
        pos = self._edge_positions(self._sorted_pairs()[2], edges)
        targets = np.arange(M * M, dtype=np.int64)[:, None] * P + pos[None, :]
        below = np.searchsorted(keys, targets.ravel()).reshape(M * M, nb + 1)
        H = np.diff(below, axis=1).reshape(M, M, nb).astype(np.float32)  # unordered pairs, [u_i, u_j, b]
        H = H + H.transpose(1, 0, 2)  # ordered pairs: (i, j) and (j, i)
        Ht = H.transpose(1, 2, 0).reshape(M * nb, M)  # [(v, b), u]
        return Ht, H.sum(axis=1, dtype=np.float64)

    def _pair_hist(self, edges):
        """The same as a CSR with one entry per ordered pair, built without a sort: the sparse
        product costs R N^2 instead of the dense R N^2 bins."""
        M, nb = self.M, self.bins
        vals, u_v, v_v, rank_v = self._pairs()
        pos = self._edge_positions(vals, edges)
        bin_of = np.full(len(vals), -1, dtype=np.intp)
        bin_of[pos[0]:pos[-1]] = np.repeat(np.arange(nb), np.diff(pos))
        b = bin_of[rank_v]
        keep = b >= 0
        key = v_v[keep] * nb + b[keep]  # already sorted: pairs are in (v, similarity) order
        indptr = np.zeros(M * nb + 1, dtype=np.int64)
        np.cumsum(np.bincount(key, minlength=M * nb), out=indptr[1:])
        Ht = sparse.csr_matrix((np.ones(len(key), np.float32), u_v[keep], indptr), shape=(M * nb, M))
        totals = np.bincount(u_v[keep] * nb + b[keep], minlength=M * nb).reshape(M, nb)
        return Ht, totals

    # --- empirical CDFs ----------------------------------------------------------------------
    def _sorted_pairs(self):
        """Unordered pairs i < j as unit indices, sorted by similarity."""
        if "sorted" not in self._cache:
            iu, ju = np.triu_indices(self.N, k=1)
            vals = self.S[iu, ju]
            order = np.argsort(vals, kind="stable")
            self._cache["sorted"] = (self.unit_of[iu[order]], self.unit_of[ju[order]], vals[order])
        return self._cache["sorted"]

    def _label_chunks(self, A: np.ndarray):
        """Yield (row slice, pair codes): 2 = pair in P0, 1 = in P1, 0 = inside Y, by similarity."""
        ui, uj, _ = self._sorted_pairs()
        step = max(1, _CHUNK_ELEMENTS // max(len(ui), 1))
        A8 = (A > 0).astype(np.int8)
        for s in range(0, len(A), step):
            a = A8[s:s + step]
            yield slice(s, s + step), a[:, ui] + a[:, uj]

    def cdf_stats(self, A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(1-Wasserstein, Kolmogorov-Smirnov) between P0 and P1 per row, exact."""
        _, _, vals = self._sorted_pairs()
        gaps = np.diff(vals)
        run_end = np.append(gaps > 0, True)  # KS is read where a run of tied values ends
        nx = A @ self.sizes
        n0 = nx * (nx - 1) / 2.0
        n1 = nx * (self.N - nx)
        w1 = np.empty(len(A))
        ks = np.empty(len(A))
        for rows, code in self._label_chunks(A):
            diff = np.cumsum(code == 2, axis=1, dtype=np.int64) / n0[rows, None]
            diff -= np.cumsum(code == 1, axis=1, dtype=np.int64) / n1[rows, None]
            np.abs(diff, out=diff)
            w1[rows] = diff[:, :-1] @ gaps
            ks[rows] = diff[:, run_end].max(axis=1)
        return w1, ks

    # --- dispatch ----------------------------------------------------------------------------
    def evaluate(self, A: np.ndarray, omegas: list[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        if any(o in HIST_OMEGAS for o in omegas):
            c0, c1 = self.hist_counts(A)
            js = js_from_counts(c0, c1)
            out["js"] = js
            out["js-distance"] = np.sqrt(js)
        if any(o in CDF_OMEGAS for o in omegas):
            out["wasserstein"], out["ks"] = self.cdf_stats(A)
        for o in omegas:
            if o in ENERGY_OMEGAS:
                out[o] = self.energy(A, o.split("-", 1)[1])
            elif o == "mean-diff":
                out[o] = self.mean_diff(A)
        return {o: out[o] for o in omegas}
