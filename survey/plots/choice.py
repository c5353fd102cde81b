"""Figures of a forced choice between A and B: per pair, the preference for A (share choosing A − share
choosing B, both orders averaged) and the position bias (share choosing the first-shown option − the
second-shown); and the replies by order of presentation.

Built on matplotlib.figure.Figure (Agg canvas), not pyplot: nothing leaks across calls. Functions
return the Figure; the caller saves it.
"""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from survey.kinds.choice.statistics import ChoiceResult
from survey.plots.scales import INVALID_COLOR

PREFERENCE_COLOR, POSITION_COLOR = "#1f77b4", "#ff7f0e"
CHOSE_A, CHOSE_B = "#1f77b4", "#d62728"


def _pair_label(p) -> str:
    return "/".join(map(str, p)) if isinstance(p, (tuple, list)) else str(p)


def choice_shares(model: str, res: ChoiceResult) -> Figure:
    """Two panels, one row per pair used: left the preference for A averaged over both orders (what the
    preference test uses), right the position bias. Each panel marks 0 (no preference, no position bias)
    and the overall value with its interval."""
    used = ~np.isnan(np.asarray(res.d_pair, dtype=float))
    pref = 2 * np.asarray(res.d_pair, dtype=float)[used]  # share A − share B = 2 (share A − 1/2)
    pos = 2 * np.asarray(res.position_pair, dtype=float)[used]
    labels = [_pair_label(p) for p in res.pairs]
    m = len(labels)
    fig = Figure(figsize=(9.0, max(3.0, 0.26 * m + 1.8)))
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, 2, sharey=True)
    y = np.arange(m)
    for ax, vals, test, color, xlabel in (
            (axes[0], pref, res.preference, PREFERENCE_COLOR,
             f"preference for {res.a}:\nshare choosing {res.a} − share choosing {res.b}"),
            (axes[1], pos, res.position_bias, POSITION_COLOR, "position bias:\nshare choosing first − second shown")):
        lo, hi = test.difference_ci
        ax.axvspan(lo, hi, color=color, alpha=0.12, lw=0, label=f"{test.confidence:.0%} CI [{lo:+.2f}, {hi:+.2f}]")
        ax.axvline(test.statistic, color=color, lw=2.2, alpha=0.8,
                   label=f"overall {test.statistic:+.2f}, p = {test.pvalue:.3g}")
        ax.axvline(0.0, color="black", lw=0.9, ls="--")
        ax.scatter(vals, y, color=color, s=26, zorder=3)
        ax.set_xlim(-1.04, 1.04)
        ax.set_xlabel(xlabel, fontsize=9)
        ax.grid(axis="x", alpha=0.3)
        ax.legend(fontsize=7, loc="lower right" if test.statistic < 0 else "lower left", framealpha=0.9)
    axes[0].set_yticks(y, labels, fontsize=7.5)
    axes[0].invert_yaxis()
    axes[0].set_ylabel("pair (A paraphrase / B paraphrase)")
    axes[0].set_title("preference", fontsize=10)
    axes[1].set_title("position bias", fontsize=10)
    fig.suptitle(f"{model}: {res.a} vs {res.b} per paraphrase pair (dashed: 0)", fontsize=10)
    fig.tight_layout()
    return fig


def replies_by_order(model: str, a: str, b: str, counts: dict[str, tuple[int, int, int]]) -> Figure:
    """One stacked bar per order of presentation: the share of replies choosing A, choosing B, invalid.

    ``counts``: order label (e.g. "A shown first") -> (chose A, chose B, invalid). With no position
    bias and no preference every valid bar splits in half; a position bias tilts the two orders in
    opposite directions.
    """
    orders = list(counts)
    fig = Figure(figsize=(8.0, 1.5 + 0.55 * len(orders)))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    y = np.arange(len(orders))
    arr = np.array([counts[o] for o in orders], dtype=float)
    shares = arr / np.maximum(arr.sum(axis=1, keepdims=True), 1)
    left = np.zeros(len(orders))
    for k, (name, color) in enumerate(((f"chose {a}", CHOSE_A), (f"chose {b}", CHOSE_B), ("invalid", INVALID_COLOR))):
        if k == 2 and not shares[:, 2].any():
            continue
        ax.barh(y, shares[:, k], left=left, color=color, edgecolor="white", label=name)
        for yi, (x0, w) in enumerate(zip(left, shares[:, k], strict=True)):
            if w >= 0.06:
                ax.text(x0 + w / 2, yi, f"{w:.0%}", ha="center", va="center", fontsize=8,
                        color="white" if k < 2 else "black")
        left += shares[:, k]
    ax.axvline(0.5, color="black", lw=0.8, ls="--")
    ax.set_yticks(y, orders)
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of replies")
    ax.set_title(f"{model}: replies by order of presentation", fontsize=10)
    ax.legend(ncols=3, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.35), frameon=False)
    fig.tight_layout()
    return fig
