"""Figures of one A-vs-B comparison: per-perturbation means, per-persona differences, permutation null."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # no display on servers and CI; must precede pyplot
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from survey.stats.comparison import Comparison  # noqa: E402

COLORS = {"a": "#1f77b4", "b": "#d62728"}


def perturbation_means(c: Comparison):
    """Dot plot of mean P(Yes) per perturbation, one row of dots per message, with message means."""
    fig, ax = plt.subplots(figsize=(7.5, 3.2))
    for row, (msg, color) in enumerate(((c.a, COLORS["a"]), (c.b, COLORS["b"]))):
        vals = np.asarray(c.theta_bar[msg], dtype=float)
        vals = vals[~np.isnan(vals)]
        jitter = np.random.default_rng(row).uniform(-0.12, 0.12, len(vals))
        ax.scatter(vals, row + jitter, color=color, alpha=0.75, s=28, label=f"{msg} (m = {len(vals)})")
        if len(vals):
            ax.vlines(vals.mean(), row - 0.3, row + 0.3, color=color, lw=2.5)
    ax.set_yticks([0, 1], [c.a, c.b])
    ax.set_xlim(-0.02, 1.02)
    ax.set_xlabel("mean P(Yes) over personas, per perturbation")
    ax.set_title(f"{c.model}: every paraphrase of each message (bar = message mean)")
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    return fig


def persona_differences(c: Comparison):
    """Histogram of the per-persona differences D_i (what the sign and Wilcoxon tests see)."""
    fig, ax = plt.subplots(figsize=(7.5, 3.2))
    d = np.asarray(c.d_persona, dtype=float)
    d = d[~np.isnan(d)]
    ax.hist(d, bins=min(30, max(5, len(d) // 2)), color="#7f7f7f", edgecolor="white")
    ax.axvline(0, color="black", lw=1)
    ax.axvline(d.mean() if len(d) else 0, color=COLORS["a"], lw=2, label=f"mean {d.mean():+.3f}")
    ax.set_xlabel(f"persona difference  P(Yes | {c.a}) − P(Yes | {c.b})")
    ax.set_ylabel("personas")
    ax.set_title(f"{c.model}: per-persona differences (n = {len(d)})")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def permutation_null(c: Comparison):
    """Null distribution of T under sign flips, with the observed T marked."""
    fig, ax = plt.subplots(figsize=(7.5, 3.2))
    null = c.sign_flip.null_distribution
    if null is not None and len(null):
        ax.hist(null, bins=60, color="#bcbd22", edgecolor="white", density=True)
    t = c.sign_flip.statistic
    ax.axvline(t, color=COLORS["b"], lw=2.5, label=f"observed T = {t:+.3f}")
    ax.axvline(-t, color=COLORS["b"], lw=1, ls="--", label="−T (two-sided)")
    kind = "all sign flips" if c.sign_flip.exact and c.n_paired <= 16 else "sample of sign flips"
    ax.set_xlabel("T = mean over perturbation pairs of the persona-averaged difference")
    ax.set_title(f"{c.model}: sign-flip null ({kind}), p = {c.sign_flip.pvalue:.3g}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
