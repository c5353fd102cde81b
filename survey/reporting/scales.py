"""The report's sections for rating scales (likert, rating): per comparison the distribution of answers,
the mean score of each message with its interval, the effect in scale points and the top-2-box share
with its own sign-flip test.

Helm & Priebe (2026), "When prompt perturbations break your A/B test: A valid statistical test for
generative surveying", note that their sign-flip test applies to any perturbation-level summary such
as mean ratings: the comparison itself is survey.stats.comparison.compare_messages on mean scores.
This module only reads the answers again for what a reader wants beside it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps

from survey.common.formatting import fmt
from survey.data.completeness import Completeness
from survey.errors import SurveyError
from survey.reporting.context import incomplete_note
from survey.stats import ab_tests
from survey.stats.ab_tests import DECISION_TEST
from survey.stats.comparison import Comparison

BINARY, ORDINAL, CHOICE = "binary", "ordinal", "choice"


@dataclass(frozen=True)
class ScaleInfo:
    """What the report needs to know of the table's response type."""

    kind: str  # "binary", "ordinal" or "choice"
    name: str  # the scale's name, e.g. "likert5"
    scores: tuple[int, ...] = ()  # ordinal: the valid scores, lowest first
    labels: dict | None = None  # ordinal: score -> the label the model answers with
    top_box: tuple[int, ...] = ()  # ordinal: the two highest scores

    @property
    def low(self) -> int:
        return self.scores[0]

    @property
    def high(self) -> int:
        return self.scores[-1]

    def top_box_words(self) -> str:
        return " and ".join(str(s) for s in self.top_box)


def report_scale(df: pd.DataFrame) -> ScaleInfo:
    """The response type of a validated long table, from its ``scale`` column (no column: Yes/No).

    One report covers one scale: a table that mixes them is refused (survey.data.scale_columns.table_scale),
    since a mean score and a share of Yes cannot be compared."""
    from survey.data.scale_columns import table_scale
    from survey.responses import response_type

    name = table_scale(df)
    if name == CHOICE:
        return ScaleInfo(CHOICE, name)
    try:
        rtype = response_type(name)
    except SurveyError:
        return ScaleInfo(BINARY, name)  # an unknown name: the table's answers decide, as before
    if not rtype.ordered:
        return ScaleInfo(BINARY, name)
    scores = tuple(sorted(int(s) for s in rtype.values))
    return ScaleInfo(ORDINAL, name, scores, {int(k): str(v) for k, v in rtype.labels.items()},
                     tuple(sorted(int(s) for s in rtype.top_box)))


def answer_shares(df: pd.DataFrame, model: str, message: str, scores: tuple[int, ...]) -> tuple[np.ndarray, float, int]:
    """(share of ALL replies at each score, share invalid, replies) of one model and message, pooled."""
    ans = df.loc[(df["model"] == model) & (df["message"] == message), "answer"]
    total = len(ans)
    counts = ans.dropna().astype(int).value_counts()
    shares = np.array([counts.get(s, 0) for s in scores], dtype=float) / max(total, 1)
    return shares, float(ans.isna().sum()) / max(total, 1), total


def mean_interval(values, confidence: float, low: float, high: float) -> tuple[float, float, float]:
    """(mean, lower, upper) of a message's mean score: a t interval over its paraphrase means.

    The paraphrase is the unit, as in the sign-flip test: each paraphrase mean averages the same
    personas, so the interval is for these personas and new paraphrases of the message."""
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    if len(v) == 0:
        return (np.nan, np.nan, np.nan)
    mean = float(v.mean())
    if len(v) < 2:
        return (mean, float(low), float(high))
    half = float(sps.t.ppf((1 + confidence) / 2, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v)))
    return (mean, max(float(low), mean - half), min(float(high), mean + half))


def _means(c: Comparison, info: ScaleInfo) -> dict[str, tuple[float, float, float]]:
    return {m: mean_interval(c.theta_bar[m], c.effect.confidence, info.low, info.high) for m in (c.a, c.b)}


def _box_shares(tb) -> dict[str, float]:
    """message -> mean over its paraphrases of the per-paraphrase top-2-box share ({} without a top-2-box)."""
    if tb is None:
        return {}
    with np.errstate(all="ignore"):
        return {m: float(np.nanmean(tb.theta_bar[m])) if np.isfinite(tb.theta_bar[m]).any() else np.nan
                for m in (tb.a, tb.b)}


def _points(x: float) -> str:
    return f"{x:+.2f}"


def ordinal_headline(c: Comparison, tb, info: ScaleInfo, alpha: float,
                     completeness: Completeness | None = None) -> str:
    means, box = _means(c, info), _box_shares(tb)
    lo, hi = c.effect.ci
    t, p = c.effect.estimate, c.tests[DECISION_TEST].pvalue
    said = (f"Mean score {means[c.a][0]:.2f} for “{c.a}” and {means[c.b][0]:.2f} for “{c.b}” on the "
            f"{info.low}–{info.high} scale ({info.name})")
    pts = f"{_points(t)} points ({c.effect.confidence:.0%} CI {_points(lo)} to {_points(hi)}; T over the {c.n_paired} paraphrase pairs)"
    boxes = "" if tb is None else (
        f" Top-2-box (scores {info.top_box_words()}): {box[c.a]:.0%} vs {box[c.b]:.0%}, a difference of "
        f"{tb.effect.estimate * 100:+.1f} percentage points (sign-flip p = {tb.tests[DECISION_TEST].pvalue:.3g}).")
    partial = incomplete_note(completeness, c.model)
    if p <= alpha:
        winner, loser = (c.a, c.b) if t > 0 else (c.b, c.a)
        return (f"{c.model}: personas rate “{winner}” higher than “{loser}”. {said}, a difference of {pts}. The "
                f"difference holds across the paraphrase pairs tested (sign-flip permutation test, p = {p:.3g})."
                f"{boxes}{partial}")
    return (f"{c.model}: no reliable difference between “{c.a}” and “{c.b}”. {said}, a difference of {pts}, but "
            f"paraphrases of the same message vary as much as that (sign-flip permutation test, p = {p:.3g}, "
            f"above α = {alpha}).{boxes}{partial}")


def ordinal_estimates(df: pd.DataFrame, c: Comparison, info: ScaleInfo) -> tuple[list[dict], list[str]]:
    """The ordinal model fitted per message (survey.stats.ordinal_estimate, point estimates): rows for the
    template and the estimator's notes; a message it cannot fit is left out of the table."""
    from survey.stats.ordinal_estimate import category_counts, estimate_ordinal

    rows, notes = [], []
    if list(info.scores) != list(range(info.low, info.high + 1)):
        return rows, notes  # the estimator counts consecutive scores
    for msg in (c.a, c.b):
        try:
            e = estimate_ordinal(category_counts(df, c.model, msg, info.low, info.high), n_boot=0)
        except SurveyError:
            continue
        rows.append({"message": msg, "tau": fmt(e.tau, 3), "sigma": fmt(e.sigma, 3), "rho": fmt(e.rho, 3),
                     "cuts": ", ".join(fmt(x, 2) for x in e.cuts),
                     "clamped": ", ".join(e.clamped) or "—"})
        notes = list(e.notes)
    return rows, notes


def ordinal_view(c: Comparison, tb, df: pd.DataFrame, info: ScaleInfo, texts: dict | None) -> dict:
    """One rating-scale comparison's section (the template's ``kind == "ordinal"`` block)."""
    from survey.plots import scales as plots
    from survey.plots import survey as binary_plots
    from survey.reporting import fig_png

    means, box = _means(c, info), _box_shares(tb)
    shares = {m: answer_shares(df, c.model, m, info.scores) for m in (c.a, c.b)}
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
                                        list(info.scores), info.labels or {s: str(s) for s in info.scores},
                                        f"{c.model}: answers on the {info.name} scale"),
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
    estimates, estimate_notes = ordinal_estimates(df, c, info)
    top_box = None
    if tb is not None:
        (tlo, thi), top = tb.effect.ci, tb.tests[DECISION_TEST]
        top_box = {"scores": info.top_box_words(), "effect": f"{tb.effect.estimate * 100:+.1f}",
                   "ci": f"[{tlo * 100:+.1f}, {thi * 100:+.1f}]", "pvalue": fmt(top.pvalue),
                   "statistic": fmt(top.statistic), "method": tb.effect.method}
    return {
        "kind": ORDINAL, "model": c.model, "a": c.a, "b": c.b, "scale": info.name,
        "tests": [{"name": ab_tests.label(name), "statistic": fmt(r.statistic), "pvalue": fmt(r.pvalue),
                   "note": ab_tests.get(name).note(r)} for name, r in c.tests.items()],
        "effect": _points(c.effect.estimate), "confidence": conf, "ci": f"[{_points(lo)}, {_points(hi)}]",
        "ci_method": c.effect.method,
        "means": {"columns": ["message", "mean score", f"{conf} CI",
                              *([f"top-2-box ({info.top_box_words()})"] if box else []),
                              "paraphrases", "invalid replies"], "rows": rows},
        "top_box": top_box, "estimates": estimates, "estimate_notes": estimate_notes,
        "design": (f"{c.n_personas} personas; perturbations "
                   + ", ".join(f"{k}: {v}" for k, v in c.n_perturbations.items())
                   + f" ({c.n_paired} pairs); r = {c.replicates} replicates."),
        "figures": figs,
    }


def ordinal_results(c: Comparison, tb, info: ScaleInfo) -> dict:
    """results.json entry: the comparison's own dict, plus the mean scores' intervals, and the scale and
    the top-2-box test where the comparison does not carry them itself."""
    own = c.to_dict()
    extra = {"scale": info.name,
             "mean_scores": {m: {"mean": v[0], "ci": [v[1], v[2]], "method": "t interval over paraphrase means"}
                             for m, v in _means(c, info).items()}}
    if tb is not None:
        test = tb.tests[DECISION_TEST]
        extra["top_box"] = {"points": list(info.top_box), "shares": _box_shares(tb), "statistic": test.statistic,
                            "pvalue": test.pvalue, "effect": tb.effect.to_dict()}
    return {**own, **{k: v for k, v in extra.items() if own.get(k) is None}}
