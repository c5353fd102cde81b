"""Figures of a rating-scale comparison: the distribution of answers per message as stacked bars, and
the mean score of every paraphrase with each message's mean and its interval.

Built on matplotlib.figure.Figure (Agg canvas), not pyplot: nothing leaks across calls. Functions
return the Figure; the caller saves it.
"""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

INVALID_COLOR = "#b0b0b0"
LEGEND_POINTS_MAX = 24  # beyond this many points a legend entry each does not fit under the bars
MESSAGE_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2")


def point_colors(k: int) -> list:
    """K colours ordered from the lowest to the highest point: a diverging red-yellow-blue palette,
    so that low and high answers read as opposite ends and the middle as neutral."""
    cmap = colormaps["RdYlBu"]
    return [cmap(x) for x in np.linspace(0.08, 0.92, k)]


def _luminance(rgba) -> float:
    r, g, b = rgba[:3]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _legend_label(score: int, label: str) -> str:
    return str(score) if str(label) == str(score) else f"{score} “{label}”"


def distribution_bars(shares: dict[str, np.ndarray], invalid: dict[str, float], scores: list[int],
                      labels: dict[int, str], title: str) -> Figure:
    """One horizontal bar per message, split into the share of replies at each point (lowest left)
    and, in grey at the right, the share of invalid replies.

    ``shares``: message -> share of ALL replies at each score (same order as ``scores``); with
    ``invalid`` (message -> share of all replies that were invalid) a bar sums to 1.
    """
    msgs = list(shares)
    colors = point_colors(len(scores))
    fig = Figure(figsize=(8.5, 1.6 + 0.55 * len(msgs)))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    y = np.arange(len(msgs))
    left = np.zeros(len(msgs))
    for k, (score, color) in enumerate(zip(scores, colors, strict=True)):
        w = np.array([shares[m][k] for m in msgs], dtype=float)
        many = len(scores) > LEGEND_POINTS_MAX
        ax.barh(y, w, left=left, color=color, edgecolor="none" if many else "white", lw=0.5,
                label=None if many else _legend_label(score, labels[score]))
        for yi, (x0, wi) in enumerate(zip(left, w, strict=True)):
            if wi >= 0.06:  # label segments wide enough to hold the number
                ax.text(x0 + wi / 2, yi, f"{wi:.0%}", ha="center", va="center", fontsize=7,
                        color="white" if _luminance(color) < 0.45 else "black")
        left += w
    bad = np.array([invalid.get(m, 0.0) for m in msgs], dtype=float)
    if bad.any():
        ax.barh(y, bad, left=left, color=INVALID_COLOR, edgecolor="white", lw=0.5, label="invalid")
    ax.set_yticks(y, [f"{m}\n({b:.1%} invalid)" if b else m for m, b in zip(msgs, bad, strict=True)])
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of replies")
    ax.set_title(title, fontsize=10)
    if len(scores) > LEGEND_POINTS_MAX:  # a legend of every point would not fit: a colour bar from low to high
        _score_bar(fig, ax, scores, labels, bad.any())
    else:
        ax.legend(ncols=min(len(scores) + int(bad.any()), 12), fontsize=7, loc="upper center",
                  bbox_to_anchor=(0.5, -0.32 if len(msgs) <= 2 else -0.2), frameon=False, title="score",
                  title_fontsize=7)
    fig.tight_layout()
    return fig


def _score_bar(fig: Figure, ax, scores: list[int], labels: dict[int, str], invalid: bool) -> None:
    """The scale's colours as a bar under the axes, its ends labelled with the lowest and highest points (and
    grey named once when invalid replies are drawn)."""
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import BoundaryNorm, ListedColormap

    edges = np.arange(len(scores) + 1)
    mappable = ScalarMappable(BoundaryNorm(edges, len(scores)), ListedColormap(point_colors(len(scores))))
    bar = fig.colorbar(mappable, ax=ax, orientation="horizontal", fraction=0.08, pad=0.3, aspect=60)
    bar.set_ticks([0.5, len(scores) - 0.5], labels=[_legend_label(scores[0], labels[scores[0]]),
                                                     _legend_label(scores[-1], labels[scores[-1]])])
    bar.ax.tick_params(labelsize=7, length=0)
    bar.set_label("score (lowest to highest)" + ("; grey: invalid" if invalid else ""), fontsize=7)


def _short(pid: str, text: str | None, width: int = 44) -> str:
    if not text:
        return pid
    text = " ".join(str(text).split())
    return f"{pid}: {text if len(text) <= width else text[:width - 1] + '…'}"


def paraphrase_scores(model: str, means: dict[str, tuple[list[str], np.ndarray]],
                      intervals: dict[str, tuple[float, float, float]], low: float, high: float,
                      texts: dict | None = None) -> Figure:
    """Mean score of every paraphrase (over personas), one labelled row each, highest first within each
    message; the message's mean (thick bar) with its interval (shaded).

    ``means``: message -> (paraphrase ids, their mean scores); ``intervals``: message -> (mean, lo, hi);
    ``texts``: {(message, paraphrase id): wording} adds each wording to its label.
    """
    texts = texts or {}
    n = sum(len(ids) for ids, _ in means.values()) + len(means)
    fig = Figure(figsize=(8.5, max(3.2, 0.24 * n + 1.6)))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    y0, ticks, tick_labels = 0.0, [], []
    for (msg, (ids, vals)), color in zip(means.items(), MESSAGE_COLORS * 4, strict=False):
        vals = np.asarray(vals, dtype=float)
        order = sorted(range(len(vals)), key=lambda j: (np.isnan(vals[j]), -np.nan_to_num(vals[j])))
        ys = y0 + np.arange(len(order))
        v = vals[order]
        ok = ~np.isnan(v)
        mean, lo, hi = intervals[msg]
        ax.scatter(v[ok], ys[ok], color=color, s=30, zorder=3, label=f"{msg}: mean {mean:.2f} [{lo:.2f}, {hi:.2f}]")
        if len(ys):
            ax.fill_betweenx([ys[0] - 0.4, ys[-1] + 0.4], lo, hi, color=color, alpha=0.12, lw=0)
            ax.vlines(mean, ys[0] - 0.4, ys[-1] + 0.4, color=color, lw=2.5, alpha=0.7)
        ticks += list(ys)
        tick_labels += [_short(ids[j], texts.get((msg, ids[j]))) for j in order]
        y0 += len(order) + 1
    ax.set_yticks(ticks, tick_labels, fontsize=7.5)
    ax.invert_yaxis()
    pad = 0.02 * (high - low)
    ax.set_xlim(low - pad, high + pad)
    ax.grid(axis="x", alpha=0.3)
    ax.set_xlabel(f"mean score over personas (scale {low:g} to {high:g})")
    ax.set_ylabel("paraphrase (highest first within each message)")
    # two short lines: one long line was cut off at the figure's edge next to the long paraphrase labels
    ax.set_title(f"{model}: every paraphrase of each message\n(bar = message mean, band = its interval)", fontsize=10)
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    return fig
