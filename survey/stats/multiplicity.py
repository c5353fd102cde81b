"""Multiplicity: one set of p-value adjustments and one function, for every family of tests (messages
compared pairwise, models, DBPA families).

Holm (step-down; family-wise error under any dependence, uniformly more powerful than Bonferroni),
Bonferroni, and Benjamini-Hochberg (false discovery rate; valid under positive dependence), or none.
"""

from __future__ import annotations

import numpy as np

from survey.errors import SurveyError

ADJUSTMENTS = ("holm", "bonferroni", "bh", "none")


def check_adjustment(method: str) -> str:
    """The method, validated once at a public entry point."""
    if method not in ADJUSTMENTS:
        raise SurveyError(f"adjustment must be one of {', '.join(ADJUSTMENTS)}; got '{method}'")
    return method


def adjust_pvalues(pvalues, method: str = "holm") -> np.ndarray:
    """Multiplicity-adjusted p-values; NaN entries stay NaN and do not count as tests.

    Matches statsmodels.stats.multitest.multipletests(method="holm" | "bonferroni" | "fdr_bh").
    """
    check_adjustment(method)
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    q = p[ok]
    k = len(q)
    if k == 0 or method == "none":
        out[ok] = q
        return out
    if method == "bonferroni":
        adj = q * k
    else:
        order = np.argsort(q, kind="stable")
        ranked = q[order]
        if method == "holm":
            # step-down: max over i' <= i of (k - i' + 1) p_(i')
            adj_sorted = np.maximum.accumulate((k - np.arange(k)) * ranked)
        else:
            # BH step-up: min over i' >= i of k p_(i') / i'
            adj_sorted = np.minimum.accumulate(((k / np.arange(1, k + 1)) * ranked)[::-1])[::-1]
        adj = np.empty(k)
        adj[order] = adj_sorted
    out[ok] = np.minimum(adj, 1.0)
    return out


def holm_rows(pvalues) -> np.ndarray:
    """Holm-adjusted p-values of each row of a (batch, tests) array at once (no NaN): adjust_pvalues(row,
    "holm") for every row, for the simulations of survey.stats.planning that test many surveys together."""
    p = np.asarray(pvalues, dtype=float)
    k = p.shape[-1]
    order = np.argsort(p, axis=-1, kind="stable")
    ranked = np.take_along_axis(p, order, axis=-1)
    adj_sorted = np.minimum(np.maximum.accumulate((k - np.arange(k)) * ranked, axis=-1), 1.0)
    out = np.empty_like(p)
    np.put_along_axis(out, order, adj_sorted, axis=-1)
    return out


def deciding_part(result) -> str | None:
    """The part (``part_word``: a checkbox's option) whose effect a result decided by a family of tests reports as
    its headline (its ``deciding_part``), else None: wherever that effect is shown, the part is named with it."""
    return getattr(result, "deciding_part", None) if hasattr(result, "part_word") else None


__all__ = ["ADJUSTMENTS", "adjust_pvalues", "check_adjustment", "deciding_part", "holm_rows"]
