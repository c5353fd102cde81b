"""Figures of one A-vs-B comparison: per-perturbation means, per-persona differences, permutation null."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # no display on servers and CI; must precede pyplot
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from survey.stats.comparison import Comparison  # noqa: E402

COLORS = {"a": "#1f77b4", "b": "#d62728"}


def _label(pid: str, text: str | None, width: int = 48) -> str:
    if not text:
        return pid
    text = " ".join(str(text).split())
    return f"{pid}: {text if len(text) <= width else text[:width - 1] + '…'}"


def perturbation_means(c: Comparison, texts: dict | None = None):
    """Mean P(Yes) of every paraphrase, one labelled row each, best first within each message, with
    the message means. ``texts``: {(message, paraphrase id): text} adds each wording to its label."""
    texts = texts or {}
    rows = []  # (message, color, [(id, mean)] best first)
    for msg, color, ids in ((c.a, COLORS["a"], c.pairing.order_a if c.pairing else None),
                            (c.b, COLORS["b"], c.pairing.order_b if c.pairing else None)):
        vals = np.asarray(c.theta_bar[msg], dtype=float)
        ids = list(ids) if ids is not None and len(ids) == len(vals) else [f"#{j + 1}" for j in range(len(vals))]
        rows.append((msg, color, sorted(zip(ids, vals, strict=True),
                                        key=lambda iv: (np.isnan(iv[1]), -np.nan_to_num(iv[1])))))
    n = sum(len(r[2]) for r in rows)
    fig, ax = plt.subplots(figsize=(8.5, max(3.2, 0.24 * (n + 1) + 1.6)))
    y, ticks, labels = 0.0, [], []
    for msg, color, items in rows:
        ys = y + np.arange(len(items))
        vals = np.array([v for _, v in items])
        ok = ~np.isnan(vals)
        ax.scatter(vals[ok], ys[ok], color=color, s=30, zorder=3,
                   label=f"{msg} (m = {int(ok.sum())}, mean {np.nanmean(vals) if ok.any() else np.nan:.3f})")
        if ok.any():
            ax.vlines(vals[ok].mean(), ys[0] - 0.4, ys[-1] + 0.4, color=color, lw=2.5, alpha=0.6)
        ticks += list(ys)
        labels += [_label(pid, texts.get((msg, pid))) for pid, _ in items]
        y += len(items) + 1
    ax.set_yticks(ticks, labels, fontsize=7.5)
    ax.invert_yaxis()
    ax.set_xlim(-0.02, 1.02)
    ax.grid(axis="x", alpha=0.3)
    ax.set_xlabel("mean P(Yes) over personas")
    ax.set_ylabel("paraphrase (best first within each message)")
    ax.set_title(f"{c.model}: every paraphrase of each message (vertical bar = message mean)", fontsize=10)
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
    ax.set_ylabel("density of T under sign flips")
    ax.set_title(f"{c.model}: sign-flip null ({kind}), p = {c.sign_flip.pvalue:.3g}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
