"""Power against budget, one line per strategy, one panel per test (like Figure 4 of Helm & Priebe 2026).

Built on matplotlib.figure.Figure with the Agg canvas (no pyplot registry to leak); the caller saves.
"""

from __future__ import annotations

from matplotlib import colormaps
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from survey.stats import ab_tests
from survey.stats.planning.power import PowerResult


def power_curves(results: list[PowerResult], alpha: float, target: float | None = None,
                 rho: float | None = None, title: str | None = None) -> Figure:
    """Simulated power vs the budget asked for; explicit (n, m, r) triples are single points."""
    if not results:
        raise ValueError("no power results to plot")
    tests = [ab_tests.get(t) for t in results[0].power]  # one panel per simulated test
    fig = Figure(figsize=(13 * len(tests) / 3, 4.2))
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(tests), sharey=True, squeeze=False)[0]
    strategies: dict[str, list[PowerResult]] = {}
    for res in results:
        strategies.setdefault(res.design.strategy, []).append(res)
    cmap = colormaps["tab10"]
    for ax, test in zip(axes, tests, strict=True):
        for i, (label, rows) in enumerate(strategies.items()):
            rows = sorted(rows, key=lambda x: x.design.budget)
            x = [r.design.budget for r in rows]
            y = [r.power[test.name] for r in rows]
            color = cmap(i % 10)
            style = "o" if "," in label else "o-"
            ax.plot(x, y, style, color=color, lw=1.6, ms=3.5, label=label if "," not in label else f"({label})")
        ax.axhline(alpha, color="grey", lw=0.8, ls=":")
        if target is not None:
            ax.axhline(target, color="black", lw=0.8, ls="--")
        ax.set_xscale("log")
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("budget N = 2·n·m·r queries")
        invalid = not test.valid_when_rho_positive and rho is not None and rho > 0
        ax.set_title(test.label + (" — INVALID at rho > 0" if invalid else ""), fontsize=10,
                     color="#b22222" if invalid else "black")
        ax.grid(alpha=0.3, which="both")
    axes[0].set_ylabel(f"power at alpha = {alpha:g}")
    axes[0].legend(title="n:m:r", fontsize=8, loc="upper left")
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig
