"""Which model to trust? Each model's persona effect (x) against the human effect (y) over the experiments of a
benchmark, with both intervals, the line y = x (a persona effect predicting the same human effect) and 0 lines (sign agreement is the
share of points in the two quadrants where both effects have one sign). Built on matplotlib.figure.Figure."""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from survey.plots.humans import PALETTE


def benchmark_plot(bench) -> Figure:
    """``bench``: a survey.stats.humans.benchmark.FidelityBenchmark; one panel per model."""
    models = list(dict.fromkeys(r["model"] for r in bench.experiments))
    fig = Figure(figsize=(4.6 * len(models), 4.4))
    FigureCanvasAgg(fig)
    rows = bench.experiments
    values = [v for r in rows for v in (r["human_effect"], r["persona_effect"], *r["human_ci"], *r["persona_ci"])
              if np.isfinite(v)]
    lim = max(0.05, max(abs(v) for v in values) * 1.08) if values else 1.0
    for k, model in enumerate(models):
        ax = fig.add_subplot(1, len(models), k + 1)
        color = PALETTE[k % len(PALETTE)]
        for i, r in enumerate(x for x in rows if x["model"] == model):
            px, hy = r["persona_effect"], r["human_effect"]
            ax.plot([px, px], list(r["human_ci"]), color=color, lw=1.2, alpha=0.6)
            if all(np.isfinite(r["persona_ci"])):
                ax.plot(list(r["persona_ci"]), [hy, hy], color=color, lw=1.2, alpha=0.6)
            ax.plot([px], [hy], "o", color=color)
            # alternate the labels above and below their points: neighbouring experiments overlap less
            ax.annotate(r["experiment"], (px, hy), fontsize=7, xytext=(4, 4 if i % 2 == 0 else -10),
                        textcoords="offset points")
        ax.plot([-lim, lim], [-lim, lim], color="#999999", lw=0.8, ls="--")
        ax.axhline(0, color="#bbbbbb", lw=0.6)
        ax.axvline(0, color="#bbbbbb", lw=0.6)
        ax.set_xlim(-lim, lim)
        ax.set_ylim(-lim, lim)
        b = bench.models.get(model)
        ax.set_title(model + (f" (r = {b.correlation:+.2f}, slope {b.slope:+.2f})" if b else ""), fontsize=9)
        ax.set_xlabel(f"persona effect A − B ({bench.unit})", fontsize=8)
        if k == 0:
            ax.set_ylabel(f"human effect A − B ({bench.unit})", fontsize=8)
    fig.tight_layout()
    return fig
