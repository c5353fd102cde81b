"""The path of a sequential test against its boundary, one panel per model."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def path_plot(results: dict[str, dict]):
    """results: model -> a sequential result's to_dict() (survey.stats.sequential). Group-sequential:
    |mean paired difference| against the boundary by pairs bought; betting: wealth against 1/alpha."""
    fig, axes = plt.subplots(1, len(results), figsize=(4.2 * len(results), 3.2), squeeze=False)
    for ax, (model, d) in zip(axes[0], results.items(), strict=True):
        pairs = [p["pairs"] for p in d["path"]]
        if d["method"] == "betting":
            ax.plot(pairs, [p["wealth"] for p in d["path"]], marker="o", label="wealth (largest so far)")
            ax.axhline(1 / d["alpha"], color="#c33", ls="--", label=f"1/alpha = {1 / d['alpha']:g}")
            ax.set_yscale("log")
            ax.set_ylabel("wealth")
        else:
            sign = -1.0 if d["design"]["alternative"] == "less" else 1.0
            stat = [abs(p["statistic"]) if d["design"]["alternative"] == "two-sided" else sign * p["statistic"]
                    for p in d["path"]]
            ax.plot(pairs, stat, marker="o", label="|mean difference|" if sign > 0 else "mean difference")
            ax.plot(pairs, [p["boundary"] for p in d["path"]], color="#c33", ls="--", marker=".", label="boundary")
            ax.set_ylabel("mean paired difference P(Yes|A) - P(Yes|B)")
        ax.set_xlim(0, d["max_pairs"])
        ax.set_xlabel(f"paraphrase pairs bought (of {d['max_pairs']})")
        ax.set_title(f"{model}: {d['decision']} at look {d['look']}", fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
