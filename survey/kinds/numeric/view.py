"""The report's section for a numeric question: the mean-score section (survey.kinds.ordinal.view) with the
distributions of the numbers by message (a histogram each, invalid replies counted beside it)."""

from __future__ import annotations

import numpy as np

from survey.kinds.ordinal.view import OrdinalView, ordinal_view
from survey.reporting.context import incomplete_note
from survey.reporting.views.base import decision_words, not_at, significant


def numeric_headline(c, view, alpha: float, completeness=None) -> str:
    """One comparison in words: the messages' means in the question's terms, and what the sign-flip test says."""
    means = {m: v["mean"] for m, v in (c.mean_scores or {}).items()}
    lo, hi = c.effect.ci
    said = (f"{view.quantity.capitalize()} {means.get(c.a, float('nan')):.4g} for “{c.a}” and "
            f"{means.get(c.b, float('nan')):.4g} for “{c.b}” ({c.unit}), a difference of {c.effect.estimate:+.4g} "
            f"({c.effect.confidence:.0%} CI {lo:+.4g} to {hi:+.4g})")
    partial = incomplete_note(completeness, c.model)
    if significant(c, alpha):
        winner, loser = (c.a, c.b) if c.effect.estimate > 0 else (c.b, c.a)
        return (f"{c.model}: personas answer higher numbers for “{winner}” than for “{loser}”. {said}; the "
                f"difference holds across the paraphrase pairs tested ({decision_words(c)}).{partial}")
    return (f"{c.model}: no reliable difference between “{c.a}” and “{c.b}”. {said}, but paraphrases of the same "
            f"message vary as much as that ({decision_words(c)}{not_at(c, alpha)}).{partial}")


def distributions_figure(df, model: str, messages: tuple[str, str], view):
    """Histograms of one model's valid answers to each message on common bins over the scale's range."""
    import matplotlib.pyplot as plt

    low, high = view.points
    bins = np.linspace(low, high, 21)
    fig, axes = plt.subplots(len(messages), 1, figsize=(7, 1.6 + 1.4 * len(messages)), sharex=True)
    for ax, msg in zip(np.atleast_1d(axes), messages, strict=True):
        ans = df.loc[(df["model"] == model) & (df["message"] == msg), "answer"]
        valid = ans.dropna().astype(float)
        ax.hist(valid, bins=bins, color="#4477aa")
        ax.set_ylabel(msg, rotation=0, ha="right")
        ax.set_title(f"{len(valid)} valid, {int(ans.isna().sum())} invalid", fontsize=8, loc="right")
    np.atleast_1d(axes)[-1].set_xlabel(f"answer ({view.scale})")
    fig.tight_layout()
    return fig


class NumericView(OrdinalView):
    kind = "numeric"
    reading = "answered with a number for many paraphrases (perturbations) of each message"
    exact_title = "The same tests on exact scores"

    def headline(self, c, view, alpha, completeness=None) -> str:
        return numeric_headline(c, view, alpha, completeness)

    def section(self, c, df, view, texts, fits) -> dict:
        from survey.reporting import fig_png

        out = ordinal_view(c, None, df, view, texts, fits)
        out["figures"] = [fig_png(distributions_figure(df, c.model, (c.a, c.b), view),
                                  f"The numbers answered to “{c.a}” and “{c.b}”: histograms of every valid reply, "
                                  "pooled over personas, paraphrases and replicates, on the scale's range."),
                          *out["figures"][1:]]
        return out

    def warnings(self, c, view, alpha) -> list[str]:
        out = [w for w in super().warnings(c, view, alpha) if "labels of the" not in w]
        if c.invalid["total"]:
            low, high = view.points
            out.append(f"{c.model}: {c.invalid['total']} replies gave no number from {low:g} to {high:g}; they are "
                       "excluded from the means.")
        return out


VIEW = NumericView()
