"""For whom: a forest plot of A over B per segment of personas, with the pooled effect and the effect weighted
to a target population beside them.

Built on matplotlib.figure.Figure (Agg canvas), not pyplot, like the other report plots. Returns the Figure.
"""

from __future__ import annotations

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

COLORS = {1: "#1f77b4", -1: "#d62728", 0: "#7f7f7f"}  # A preferred, B preferred, no reliable difference


def segment_forest(seg, pooled=None, title: str | None = None) -> Figure:
    """One row per segment (dot: effect; thick bar: its CI; thin bar: the simultaneous CI across segments),
    then the pooled effect and the weighted population effect. Colour: blue when the Holm-adjusted test
    prefers A, red B, grey neither. ``seg``: a survey.stats.segments.SegmentAnalysis; ``pooled``: the pooled
    A/B result."""
    rows = []  # (label, effect, (lo, hi), (slo, shi) | None, sign)
    for s in seg.segments:
        sign = (1 if s.effect > 0 else -1) if s.pvalue_adjusted <= seg.alpha else 0
        rows.append((f"{s.segment} (n = {s.n_personas})", s.effect, s.ci, s.simultaneous_ci, sign))
    if pooled is not None:
        p = float(pooled.decision.pvalue)
        eff = pooled.effect
        rows.append((f"all personas (n = {pooled.n_personas})", eff.estimate, tuple(eff.ci), None,
                     (1 if eff.estimate > 0 else -1) if p <= seg.alpha else 0))
    if seg.population is not None:
        d = seg.population.to_dict()
        rows.append((f"target population ({d['effective_personas']:.0f} effective)", d["effect"], tuple(d["ci"]), None,
                     (1 if d["effect"] > 0 else -1) if d["pvalue"] <= seg.alpha else 0))
    fig = Figure(figsize=(7.5, 0.55 * len(rows) + 1.6))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    for i, (_label, eff, (lo, hi), simul, sign) in enumerate(rows):
        y = len(rows) - 1 - i
        color = COLORS[sign]
        if simul is not None:
            ax.plot(simul, [y, y], color=color, lw=1, alpha=0.5)
        ax.plot([lo, hi], [y, y], color=color, lw=3)
        ax.plot([eff], [y], linestyle="none", color=color, ms=7, mec="white", marker="D" if simul is None else "o")
    ax.axvline(0, color="#444", lw=0.8, ls="--")
    n_seg = len(seg.segments)
    if n_seg and len(rows) > n_seg:
        ax.axhline(len(rows) - n_seg - 0.5, color="#bbb", lw=0.6)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r[0] for r in reversed(rows)])
    ax.set_xlabel(f"effect: {seg.unit}, {seg.a} − {seg.b} (positive favours {seg.a})")
    ax.set_title(title or f"{seg.model}: {seg.a} vs {seg.b} by {seg.by or 'target weights'}\n"
                          "thick: CI; thin: simultaneous CI across segments", fontsize=10)
    fig.tight_layout()
    return fig
