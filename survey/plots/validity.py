"""Empirical CDF of sub-sampled p-values against the diagonal, one panel per configuration
(like Figure 3 of Helm & Priebe 2026). Under the null a valid test's curve lies on or below the diagonal.
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from survey.stats import ab_tests
from survey.stats.planning.validity import ValidityResult


def pvalue_ecdfs(results: list[ValidityResult], title: str | None = None) -> Figure:
    """The empirical distribution of each test's p-values per configuration of `survey validate` (under the null
    a valid test's lies on or below the diagonal)."""
    if not results:
        raise ValueError("no validity results to plot")
    cols = min(3, len(results))
    rows = math.ceil(len(results) / cols)
    fig = Figure(figsize=(4.2 * cols, 3.9 * rows))
    FigureCanvasAgg(fig)
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
    for ax, res in zip(axes, results, strict=False):
        ax.plot([0, 1], [0, 1], color="black", lw=0.8, ls="--", label="uniform")
        for test, p in res.pvalues.items():
            x = np.sort(np.asarray(p))
            y = np.arange(1, len(x) + 1) / len(x)
            rate = res.rates[test].rate
            spec = ab_tests.get(test)
            ax.step(np.r_[0, x, 1], np.r_[0, y, 1], where="post", color=spec.color, lw=1.4,
                    label=f"{spec.label} ({rate:.2f})")
        ax.axvline(res.alpha, color="grey", lw=0.7, ls=":")
        n, m, r = res.config
        ax.set_title(f"{res.model}: n={n}, m={m}, r={r}", fontsize=10)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_xlabel("p-value")
        ax.set_ylabel("share of draws with p <= x")
        ax.legend(fontsize=7, title=f"rate at alpha={res.alpha:g}", title_fontsize=7, loc="lower right")
        ax.grid(alpha=0.3)
    for ax in axes[len(results):]:
        ax.set_visible(False)
    cond = results[0].condition
    fig.suptitle(title or (f"{'null split' if cond == 'null' else 'alternative'}: "
                           f"{results[0].a} vs {results[0].b}, {next(iter(results[0].rates.values())).draws} draws"),
                 fontsize=11)
    fig.tight_layout()
    return fig
