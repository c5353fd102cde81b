"""DBPA plots: the P0 and P1 similarity histograms beside the null distribution of omega.

Built on matplotlib.figure.Figure (Agg canvas), not pyplot, so nothing leaks across calls.
Functions return the Figure; the caller saves it.
"""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from survey.stats.dbpa.family import FamilyResult
from survey.stats.dbpa.permutation import DBPAResult, histograms

_P0, _P1, _OBS = "#1f77b4", "#ff7f0e", "#d62728"


def _hist_panel(ax, res: DBPAResult, labels: tuple[str, str]) -> None:
    h0, h1, edges = histograms(res.p0, res.p1, bins=res.bins, hist_range=res.hist_range)
    width = np.diff(edges)
    ax.bar(edges[:-1], h0 / max(h0.sum(), 1) / width, width=width, align="edge", alpha=0.55, color=_P0,
           label=f"P0: within {labels[0]} (n={len(res.p0)})")
    ax.bar(edges[:-1], h1 / max(h1.sum(), 1) / width, width=width, align="edge", alpha=0.55, color=_P1,
           label=f"P1: {labels[0]} x {labels[1]} (n={len(res.p1)})")
    ax.set_xlabel("cosine similarity")
    ax.set_ylabel("density")
    ax.legend(fontsize=8, loc="upper left")


def _null_panel(ax, res: DBPAResult) -> None:
    null = np.asarray(res.null_distribution)
    ax.hist(null, bins=min(40, max(10, len(np.unique(null)))), color="#7f7f7f", alpha=0.7,
            label=f"null ({res.n_resamples} {'relabelings' if res.exact else 'permutations'}"
                  f" of {'perturbations' if res.unit == 'perturbation' else 'outputs'})")
    ax.axvline(res.statistic, color=_OBS, lw=2, label=f"observed = {res.statistic:.4g}, p = {res.pvalue:.3g}")
    ax.set_xlabel(f"omega = {res.omega}")
    ax.set_ylabel("count")
    ax.legend(fontsize=8, loc="upper right")


def dbpa_figure(results: DBPAResult | list[DBPAResult], title: str = "",
                labels: tuple[str, str] = ("X", "Y")) -> Figure:
    """First panel: P0 and P1 histograms on the test's bins; then one panel per omega with its null
    distribution and the observed value (several omegas of one test share P0 and P1)."""
    results = [results] if isinstance(results, DBPAResult) else list(results)
    if not results:
        raise ValueError("no DBPA result to plot")
    fig = Figure(figsize=(5.5 * (1 + len(results)), 4), layout="constrained")
    FigureCanvasAgg(fig)
    axes = np.atleast_1d(fig.subplots(1, 1 + len(results)))
    _hist_panel(axes[0], results[0], labels)
    for ax, res in zip(axes[1:], results, strict=True):
        _null_panel(ax, res)
    if title:
        fig.suptitle(title)
    return fig


def family_figure(fam: FamilyResult, base: str = "base", title: str = "") -> Figure:
    """Per test: -log10 p (raw and adjusted) with the alpha line; with roles, the ROC curve too."""
    panels = 2 if fam.roc is not None else 1
    fig = Figure(figsize=(6 + 4.5 * (panels - 1), max(3.0, 0.35 * len(fam.names) + 1.5)), layout="constrained")
    FigureCanvasAgg(fig)
    axes = np.atleast_1d(fig.subplots(1, panels))
    ax = axes[0]
    y = np.arange(len(fam.names))
    raw = -np.log10([r.pvalue for r in fam.results])
    adj = -np.log10(np.maximum(fam.adjusted, 1e-300))
    colors = ["#2ca02c" if role == "control" else "#9467bd" if role == "target" else "#1f77b4"
              for role in (fam.roles or [None] * len(fam.names))]
    ax.barh(y, raw, color=colors, alpha=0.45, label="raw p")
    ax.scatter(adj, y, color="k", s=14, zorder=3, label=f"{fam.correction}-adjusted p")
    ax.axvline(-np.log10(fam.alpha), color=_OBS, ls="--", label=f"alpha = {fam.alpha:g}")
    ax.set_yticks(y, fam.names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"-log10 p (vs {base})")
    ax.set_ylabel("perturbation")
    ax.legend(fontsize=8, loc="best", framealpha=0.9)
    if fam.roc is not None:
        roc = fam.roc
        axes[1].plot(roc.fpr, roc.tpr, marker="o", ms=3, color="#9467bd", label=f"AUC = {roc.auc:.3f}")
        axes[1].plot([0, 1], [0, 1], color="#7f7f7f", ls=":")
        axes[1].set_xlabel("FPR (control perturbations with p < alpha)")
        axes[1].set_ylabel("TPR (target perturbations with p < alpha)")
        axes[1].legend(fontsize=8, loc="lower right")
    if title:
        fig.suptitle(title)
    return fig


def family_tests_figure(fam: FamilyResult, base: str = "base") -> Figure:
    """One row per test of a family: P0/P1 histograms and the null distribution of omega."""
    n = len(fam.results)
    fig = Figure(figsize=(11, 3.2 * n), layout="constrained")
    FigureCanvasAgg(fig)
    axes = np.asarray(fig.subplots(n, 2)).reshape(n, 2)
    for row, (name, res) in enumerate(zip(fam.names, fam.results, strict=True)):
        _hist_panel(axes[row, 0], res, (base, name))
        _null_panel(axes[row, 1], res)
        axes[row, 0].set_title(name, fontsize=9, loc="left")
    return fig
