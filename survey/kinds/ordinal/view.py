"""The report's sections for rating scales (likert, rating): per comparison the distribution of answers,
the mean score of each message with its interval, the effect in scale points and the top-2-box share
with its own sign-flip test.

Helm & Priebe (2026), "When prompt perturbations break your A/B test: A valid statistical test for
generative surveying", note that their sign-flip test applies to any perturbation-level summary such
as mean ratings: the comparison itself is survey.stats.comparison.compare_messages on mean scores.
This module only reads the answers again for what a reader wants beside it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from survey.common.formatting import fmt
from survey.data.completeness import Completeness
from survey.reporting.context import incomplete_note
from survey.reporting.views.base import (
    ReportView,
    decision_words,
    design_words,
    interval_words,
    not_at,
    persona_test_warnings,
    significant,
    test_rows,
)
from survey.responses.view import AnalysisView
from survey.stats.ab_tests import DECISION_TEST
from survey.stats.comparison import Comparison


def answer_shares(df: pd.DataFrame, model: str, message: str, scores: tuple[int, ...]) -> tuple[np.ndarray, float, int]:
    """(share of ALL replies at each score, share invalid, replies) of one model and message, pooled."""
    ans = df.loc[(df["model"] == model) & (df["message"] == message), "answer"]
    total = len(ans)
    counts = ans.dropna().astype(int).value_counts()
    shares = np.array([counts.get(s, 0) for s in scores], dtype=float) / max(total, 1)
    return shares, float(ans.isna().sum()) / max(total, 1), total


def _means(c) -> dict[str, tuple[float, float, float]]:
    """message -> (mean score, lower, upper), as survey.stats.comparison.mean_interval computed it."""
    return {m: (v["mean"], *v["ci"]) for m, v in (c.mean_scores or {}).items()}


def _box_shares(tb) -> dict[str, float]:
    """message -> mean over its paraphrases of the per-paraphrase top-2-box share ({} without a top-2-box)."""
    if tb is None:
        return {}
    with np.errstate(all="ignore"):
        return {m: float(np.nanmean(tb.theta_bar[m])) if np.isfinite(tb.theta_bar[m]).any() else np.nan
                for m in (tb.a, tb.b)}


def _points(x: float) -> str:
    return f"{x:+.2f}"


def ordinal_headline(c: Comparison, tb, info: AnalysisView, alpha: float,
                     completeness: Completeness | None = None) -> str:
    means, box = _means(c), _box_shares(tb)
    lo, hi = c.effect.ci
    t = c.effect.estimate
    said = (f"Mean score {means[c.a][0]:.2f} for “{c.a}” and {means[c.b][0]:.2f} for “{c.b}” on the "
            f"{info.low}–{info.high} scale ({info.scale})")
    pts = f"{_points(t)} points ({c.effect.confidence:.0%} CI {_points(lo)} to {_points(hi)}; T over the {c.n_paired} paraphrase pairs)"
    boxes = "" if tb is None else (
        f" Top-2-box (scores {info.top_box_words()}): {box[c.a]:.0%} vs {box[c.b]:.0%}, a difference of "
        f"{tb.effect.estimate * 100:+.1f} percentage points (sign-flip p = {tb.tests[DECISION_TEST].pvalue:.3g}).")
    partial = incomplete_note(completeness, c.model) + direction_words(c)
    if significant(c, alpha):
        winner, loser = (c.a, c.b) if t > 0 else (c.b, c.a)
        return (f"{c.model}: personas rate “{winner}” higher than “{loser}”. {said}, a difference of {pts}. The "
                f"difference holds across the paraphrase pairs tested ({decision_words(c)})."
                f"{boxes}{partial}")
    return (f"{c.model}: no reliable difference between “{c.a}” and “{c.b}”. {said}, a difference of {pts}, but "
            f"paraphrases of the same message vary as much as that ({decision_words(c)}{not_at(c, alpha)})."
            f"{boxes}{partial}")


def direction_words(c: Comparison) -> str:
    """A balanced scale's direction effect for the headline, as forced choice states its position bias."""
    d = c.direction
    if d is None:
        return ""
    lo, hi = d.effect.ci
    return (f" Asked in both directions, answers average {_points(d.effect.estimate)} points higher with the scale "
            f"shown forward than reversed ({d.effect.confidence:.0%} CI {_points(lo)} to {_points(hi)}; test of no "
            f"direction effect p = {d.pvalue:.3g}); the difference between the messages averages both directions.")


def direction_section(c: Comparison) -> dict | None:
    """The direction effect's table row for the section (templates/views/ordinal.html.j2)."""
    d = c.direction
    if d is None:
        return None
    lo, hi = d.effect.ci
    return {"effect": _points(d.effect.estimate), "ci": f"[{_points(lo)}, {_points(hi)}]", "pvalue": fmt(d.pvalue),
            "forward": fmt(d.means.get("forward"), 3), "reversed": fmt(d.means.get("reversed"), 3),
            "pairs": d.n_pairs, "method": interval_words(d.effect), "warning": d.warning}


def fit_table(fits: dict) -> tuple[dict | None, list[str]]:
    """The fitted model per message ({message: Fit}, survey.stats.analysis.estimate's): a table with one column
    per parameter (and the cut points, where the model has them) and the estimator's notes."""
    if not fits:
        return None, []
    first = next(iter(fits.values()))
    names = list(first.params)
    cuts = all(hasattr(f, "cuts") for f in fits.values())
    rows = [[m, *(fmt(f.params.get(k), 3) for k in names), *([", ".join(fmt(x, 2) for x in f.cuts)] if cuts else [])]
            for m, f in fits.items()]
    return {"columns": ["message", *names, *(["cut points"] if cuts else [])], "rows": rows,
            "model": f"{first.estimator} estimator"}, list(first.notes)


def ordinal_view(c: Comparison, tb, df: pd.DataFrame, info: AnalysisView, texts: dict | None, fits: dict) -> dict:
    """One mean-score comparison's section (templates/views/ordinal.html.j2)."""
    from survey.plots import scales as plots
    from survey.plots import survey as binary_plots
    from survey.reporting import fig_png

    means, box = _means(c), _box_shares(tb)
    shares = {m: answer_shares(df, c.model, m, info.points) for m in (c.a, c.b)}
    conf = f"{c.effect.confidence:.0%}"
    rows = []
    for m in (c.a, c.b):
        mean, lo, hi = means[m]
        share, bad, total = shares[m]
        rows.append([m, fmt(mean, 3), f"[{fmt(lo, 3)}, {fmt(hi, 3)}]", *([f"{box[m]:.1%}"] if box else []),
                     f"{c.n_perturbations.get(m, '—')}", f"{round(bad * total)} of {total} ({bad:.1%})"])
    ids = {m: (list(c.pairing.order_a if m == c.a else c.pairing.order_b) if c.pairing else
               [f"#{j + 1}" for j in range(len(c.theta_bar[m]))]) for m in (c.a, c.b)}
    ids = {m: v if len(v) == len(c.theta_bar[m]) else [f"#{j + 1}" for j in range(len(c.theta_bar[m]))]
           for m, v in ids.items()}
    figs = [
        fig_png(plots.distribution_bars({m: s[0] for m, s in shares.items()}, {m: s[1] for m, s in shares.items()},
                                        list(info.points), dict(info.labels) or {s: str(s) for s in info.points},
                                        f"{c.model}: answers on the {info.scale} scale"),
                f"Distribution of the answers to “{c.a}” and “{c.b}”: the share of all replies at each point of "
                f"the {info.low}–{info.high} scale (lowest left, red; highest right, blue), pooled over personas, "
                "paraphrases and replicates; invalid replies (not one of the scale's labels) in grey at the right."),
        fig_png(plots.paraphrase_scores(c.model, {m: (ids[m], c.theta_bar[m]) for m in (c.a, c.b)},
                                        means, info.low, info.high, texts),
                f"Mean score of every paraphrase, averaged over personas, highest first within each message. Thick "
                f"bar: the message's mean score; band: its {conf} t interval over the paraphrase means. The effect T "
                f"averages the paired differences over the {c.n_paired} paraphrase pairs."),
        fig_png(binary_plots.permutation_null(c), "Null distribution of the effect on mean scores under random "
                "sign flips of paraphrase pairs, with the observed effect T marked (in scale points)."),
    ]
    lo, hi = c.effect.ci
    estimates, estimate_notes = fit_table(fits)
    top_box = None
    if tb is not None:
        (tlo, thi), top = tb.effect.ci, tb.tests[DECISION_TEST]
        top_box = {"scores": info.top_box_words(), "effect": f"{tb.effect.estimate * 100:+.1f}",
                   "ci": f"[{tlo * 100:+.1f}, {thi * 100:+.1f}]", "pvalue": fmt(top.pvalue),
                   "statistic": fmt(top.statistic), "method": interval_words(tb.effect)}
    return {
        "template": "views/ordinal.html.j2", "model": c.model, "a": c.a, "b": c.b, "scale": info.scale,
        "tests": test_rows(c), "quantity": info.quantity,
        "effect": _points(c.effect.estimate), "confidence": conf, "ci": f"[{_points(lo)}, {_points(hi)}]",
        "ci_method": interval_words(c.effect),
        "means": {"columns": ["message", info.quantity, f"{conf} CI",
                              *([f"top-2-box ({info.top_box_words()})"] if box else []),
                              "paraphrases", "invalid replies"], "rows": rows},
        "top_box": top_box, "direction": direction_section(c), "estimates": estimates, "estimate_notes": estimate_notes,
        "design": design_words(c),
        "figures": figs,
    }



class OrdinalView(ReportView):
    """Mean scores on a rating scale, and the fallback for any kind without a view of its own."""

    kind = "ordinal"
    template = "views/ordinal.html.j2"
    reading = "rated many paraphrases (perturbations) of each message"
    reading_template = "views/ordinal_reading.html.j2"
    exact_title = "The same tests on the model's exact expected scores"
    exact_intro = ("These models report the exact expected score (from the probabilities of the scale's labels) in "
                   "every persona × paraphrase cell, so the tests can run on it directly, without replicate noise. "
                   "Less noise makes the invalid tests even more confident, while the sign-flip test still accounts "
                   "for paraphrases moving every persona at once.")

    def headline(self, c, view, alpha, completeness=None) -> str:
        return ordinal_headline(c, c.top_box, view, alpha, completeness)

    def warnings(self, c, view, alpha) -> list[str]:
        out = persona_test_warnings(c, alpha)
        if c.invalid["total"]:
            out.append(f"{c.model}: {c.invalid['total']} answers were not one of the {len(view.points)} labels of the "
                       f"{view.scale} scale; they are excluded from the mean scores "
                       f"({sum(c.empty_cells.values())} persona×paraphrase cells had no valid answer).")
        if c.warning:
            out.append(f"{c.model}, {c.a} vs {c.b}: {c.warning}.")
        return out

    def section(self, c, df, view, texts, fits) -> dict:
        return ordinal_view(c, c.top_box, df, view, texts, fits)


VIEW = OrdinalView()
