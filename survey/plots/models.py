"""The effect of A over B with its CI for each model, ordered by model size (like Figure 5 of
Helm & Priebe 2026).

Built on matplotlib.figure.Figure (Agg canvas), not pyplot: no global figure registry to leak
when a report draws many plots. Returns the Figure; the caller saves it.
"""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from survey.stats.across_models import ModelsComparison

COLORS = {1: "#1f77b4", -1: "#d62728", 0: "#7f7f7f"}  # prefers A, prefers B, not significant


def format_size(size: float | None) -> str:
    """3e9 -> '3B', 1.35e8 -> '135M'; sizes below 1000 are printed as given."""
    if size is None:
        return ""
    for div, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if size >= div:
            return f"{size / div:.3g}{unit}"
    return f"{size:.3g}"


def effect_label(res: ModelsComparison) -> str:
    """The effect's axis label in the table's unit: P(Yes), mean score, or share choosing (forced choice)."""
    from survey.responses import response_type

    return response_type(getattr(res, "scale", "binary")).view.effect_of(res.a, res.b)


def model_effects(res: ModelsComparison, log_sizes: str = "auto", title: str | None = None) -> Figure:
    """Dots with CI bars, one per model: blue = A significantly preferred, red = B, grey = neither.

    x is the model size on a log axis when every model has a distinct size (``log_sizes="auto"``
    or "yes"), like Figure 5 of Helm & Priebe (2026); otherwise models are evenly spaced in size order (models
    without a size last, in table order) with the size in the label.
    """
    models = res.by_size()
    if not models:
        raise ValueError("no models to plot")
    sizes = [s.size for s in models]
    numeric = (log_sizes == "yes" or (log_sizes == "auto" and len(models) > 1)) and \
        all(v is not None for v in sizes) and len(set(sizes)) == len(sizes)
    x = np.asarray(sizes, dtype=float) if numeric else np.arange(len(models), dtype=float)
    fig = Figure(figsize=(max(5.0, 1.1 * len(models) + 2.5), 3.8))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.axhline(0.0, color="black", lw=0.8)
    for i, (xi, s) in enumerate(zip(x, models, strict=True)):
        est = s.effect.estimate
        lo, hi = s.effect.ci
        color = COLORS[s.direction]
        ax.errorbar([xi], [est], yerr=[[est - lo], [hi - est]], fmt="o", color=color, ecolor=color,
                    capsize=4, ms=7, lw=1.6)
        if numeric:  # alternate above / below so that names of close sizes do not collide
            up = i % 2 == 0
            ax.annotate(s.model, (xi, hi if up else lo), textcoords="offset points",
                        xytext=(0, 5 if up else -12), ha="center", fontsize=8)
    if numeric:
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: format_size(v)))
        ax.xaxis.set_minor_formatter(NullFormatter())
        lo_x, hi_x = np.log10(x.min()), np.log10(x.max())
        pad = max(0.15, 0.08 * (hi_x - lo_x))
        ax.set_xlim(10 ** (lo_x - pad), 10 ** (hi_x + pad))
        ax.set_xlabel("model size (log scale)")
        ax.margins(y=0.15)
    else:
        labels = [s.model + (f"\n{format_size(s.size)}" if s.size is not None else "") for s in models]
        ax.set_xticks(x, labels, fontsize=8, rotation=0 if len(models) <= 6 else 30)
        ax.set_xlim(-0.6, len(models) - 0.4)
        ax.set_xlabel("model" + (" (ordered by size)" if any(v is not None for v in sizes) else ""))
    ax.set_ylabel(effect_label(res))
    conf = models[0].effect.confidence
    ax.set_title(title or f"Effect of {res.a} over {res.b} by model ({conf:.0%} CI)", fontsize=10)
    handles = [ax.plot([], [], "o", color=COLORS[k], label=lab)[0] for k, lab in
               ((1, f"prefers {res.a}"), (-1, f"prefers {res.b}"), (0, "not significant"))]
    ax.legend(handles=handles, fontsize=8, loc="best", frameon=False)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return fig
