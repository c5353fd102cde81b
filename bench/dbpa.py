"""Benchmark: DBPA permutation test (JS distance, 30 pooled bins) vs a re-implementation of the
authors' current JS test, on the same embeddings, for k = 20, 50, 100 outputs per side and B = 1000.

Baseline (Rauba, Wei & van der Schaar's code, QiyaoWei/Hypo-Test on GitHub,
src/dbpa/model/core.py as of July 2025, rewritten here): for every permutation, shuffle the pooled
raw embeddings, recompute the cosine similarities with sklearn's cosine_similarity (as their code
does), take P0 (i < j within X) and P1 (all cross pairs), build the two 30-bin histograms over their
pooled [min, max] and call scipy.spatial.distance.jensenshannon; p = (c + 1)/(B + 1). Their code
bins with density=True on explicit np.linspace edges; the counts used here give the same edges and,
after jensenshannon's normalisation, the same statistic. (Their first version, June 2025, resampled
similarity scores with replacement and binned each set on its own range; that is not benchmarked.)

Ours: survey.stats.dbpa.permutation.dbpa_test (similarity matrix once, every permutation re-indexes it,
vectorised across permutations). Both must give the same observed statistic.

Both run with BLAS limited to one thread: the machine has 2 shared cores and multi-threaded
BLAS on tiny matrices only measures contention. Also printed: a leaner baseline that replaces
sklearn's cosine_similarity by a numpy normalise + matmul. Every side is timed alike (bench/timing.py):
CPU time, ``--repeats`` calls each, the median. The last line is the minimum ratio over k against the
authors-style baseline.

    .venv/bin/python bench/dbpa.py [--quick] [--repeats R]
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy.spatial.distance import jensenshannon
from sklearn.metrics.pairwise import cosine_similarity
from threadpoolctl import threadpool_limits
from timing import load, median_cpu  # bench/timing.py, next to this file

from survey.stats.dbpa.permutation import dbpa_test

BINS = 30


def _numpy_cosine(a, b=None):
    an = a / np.linalg.norm(a, axis=1, keepdims=True)
    bn = an if b is None else b / np.linalg.norm(b, axis=1, keepdims=True)
    return an @ bn.T


def baseline_statistic(x, y, cosine):
    within = cosine(x)
    p0 = within[np.triu_indices_from(within, k=1)]
    p1 = cosine(x, y).ravel()
    lo, hi = min(p0.min(), p1.min()), max(p0.max(), p1.max())
    h0 = np.histogram(p0, bins=BINS, range=(lo, hi))[0]
    h1 = np.histogram(p1, bins=BINS, range=(lo, hi))[0]
    return jensenshannon(h0, h1)


def baseline_test(x, y, n_perm, seed, cosine=cosine_similarity):
    rng = np.random.default_rng(seed)
    pooled = np.vstack([x, y])
    k = len(x)
    observed = baseline_statistic(x, y, cosine)
    null = np.empty(n_perm)
    for b in range(n_perm):
        perm = rng.permutation(len(pooled))
        null[b] = baseline_statistic(pooled[perm[:k]], pooled[perm[k:]], cosine)
    pvalue = (1 + np.count_nonzero(null >= observed)) / (1 + n_perm)
    return observed, pvalue, null


def embeddings(k, seed, dim=384):
    """Sentence-embedding-like clouds: a shared direction plus noise (cosines mostly 0.3-0.8);
    Y is slightly shifted, as for a mild perturbation."""
    rng = np.random.default_rng(seed)
    center = rng.normal(size=dim)
    x = center + rng.normal(size=(k, dim)) * 1.2
    y = center + rng.normal(size=(k, dim)) * 1.2 + rng.normal(size=dim) * 0.15
    return x, y


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="B = 200 for a smoke run")
    ap.add_argument("--repeats", type=int, default=3, help="calls per side (the median CPU time is reported)")
    args = ap.parse_args()
    B = 200 if args.quick else 1000
    r = args.repeats
    ratios = []
    print(f"load average {load()} before; CPU seconds, median of {r} calls on each side")
    with threadpool_limits(1):
        dbpa_test(*embeddings(10, 0), omega="js-distance", n_resamples=50, seed=0)  # warm imports
        for k in (20, 50, 100):
            x, y = embeddings(k, seed=k)
            t_base, (obs_b, p_b, null_b) = median_cpu(lambda x=x, y=y: baseline_test(x, y, B, seed=1), r)
            t_lean, _ = median_cpu(
                lambda x=x, y=y: baseline_test(x, y, B, seed=1, cosine=_numpy_cosine), r)
            t_fast, res = median_cpu(
                lambda x=x, y=y: dbpa_test(x, y, omega="js-distance", n_resamples=B, seed=1), r)
            if not np.isclose(res.statistic, obs_b, rtol=0, atol=1e-12):
                raise SystemExit(f"k={k}: observed statistics differ: {res.statistic!r} vs {obs_b!r}")
            ratios.append(t_base / t_fast)
            print(f"k={k:3d} B={B}: baseline {t_base:7.3f}s (lean numpy {t_lean:6.3f}s), ours {t_fast:6.3f}s; "
                  f"ratio {t_base / t_fast:6.1f}x (lean {t_lean / t_fast:5.1f}x); JS distance {res.statistic:.6f} "
                  f"both; p {p_b:.3f} vs {res.pvalue:.3f}; null mean {null_b.mean():.4f} vs "
                  f"{res.null_distribution.mean():.4f}")
    print(f"load average {load()} after")
    print(f"ratio: {min(ratios):.1f}")


if __name__ == "__main__":
    main()
