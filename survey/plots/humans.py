"""Does it match people? Left: each message's mean answer for the humans and each model's personas. Right:
the A - B effect of the humans (alone), of each model's personas (sign-flip CI) and, where the models answered
as the respondents, the prediction-powered estimate about the humans. Built on matplotlib.figure.Figure."""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

HUMAN = "#333333"
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2"]


def _mean(points, shares) -> float:
    return float(np.dot(points, shares))


def human_fidelity_plot(res) -> Figure:
    """``res``: a survey.stats.humans.HumanFidelity."""
    models = [e["model"] for e in res.effects]
    fig = Figure(figsize=(10, 0.5 * (2 * len(models) + 1) + 2.2))
    FigureCanvasAgg(fig)
    left, right = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    messages = [res.a, res.b]
    width = 0.8 / (len(models) + 1)
    for k, msg in enumerate(messages):
        lv = {x["model"]: x["fidelity"] for x in res.levels if x["message"] == msg and x["segment"] == "all"}
        if not lv:
            continue
        first = next(iter(lv.values()))
        left.bar(k, _mean(first.points, first.human), width, color=HUMAN, label="humans" if k == 0 else None)
        for j, m in enumerate(models):
            if m in lv:
                left.bar(k + (j + 1) * width, _mean(lv[m].points, lv[m].persona), width,
                         color=PALETTE[j % len(PALETTE)], label=m if k == 0 else None)
    left.set_xticks([k + len(models) * width / 2 for k in range(2)], messages, fontsize=8)
    left.set_ylabel(f"mean answer ({res.unit})")
    left.set_title("levels: humans vs personas", fontsize=10)
    left.legend(fontsize=7)
    rows = [("humans alone", res.human_effect.estimate, res.human_effect.ci, HUMAN)]
    for j, e in enumerate(res.effects):
        f, color = e["fidelity"], PALETTE[j % len(PALETTE)]
        half = 1.96 * f.persona_se if np.isfinite(f.persona_se) else np.nan
        rows.append((f"{e['model']} personas", f.persona_effect, (f.persona_effect - half, f.persona_effect + half),
                     color))
        if e["model"] in res.ppi:
            p = res.ppi[e["model"]]
            rows.append((f"humans + {e['model']} (PPI)", p.estimate, p.ci, color))
    for i, (_label, est, (lo, hi), color) in enumerate(rows):
        y = len(rows) - 1 - i
        right.plot([lo, hi], [y, y], color=color, lw=3, alpha=0.7)
        right.plot([est], [y], "o", color=color)
    right.axvline(0, color="#999999", lw=0.8)
    right.set_yticks(range(len(rows)), [r[0] for r in reversed(rows)], fontsize=8)
    right.set_xlabel(f"effect {res.a} − {res.b} ({res.unit})", fontsize=8)
    right.set_title("effects with their intervals", fontsize=10)
    fig.tight_layout()
    return fig
