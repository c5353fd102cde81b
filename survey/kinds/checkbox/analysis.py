"""The checkbox question's analysis (survey.kinds.checkbox.statistics): per option the share ticking it by
message, a sign-flip test per option, Holm across the options; by segment, the segments' interaction per option,
Holm across the options (CheckboxResult.interaction_parts). The option names come from the rows' ``options``
column (a run stores them), else from the scale (numbers)."""

from __future__ import annotations

import numpy as np

from survey.errors import SurveyError
from survey.kinds.checkbox.power import CheckboxPlan
from survey.kinds.checkbox.statistics import compare_checkbox
from survey.stats.kinds.base import Kind, MessageLevels


def option_names(df, view) -> list[str]:
    if "options" in df:
        named = df["options"].dropna()
        if len(named):
            names = str(named.iloc[0]).split("|")
            if len(names) == len(view.points):
                return names
    return [str(v) for v in view.labels.values()]


class Checkbox(Kind):
    name = "checkbox"
    weighted = True

    def compare(self, df, model, a, b, view, opts):
        if opts.probabilities:
            raise SurveyError(f"scale '{view.scale}' has no exact mode: compare the answers")
        res = compare_checkbox(df, model, a, b, option_names(df, view), alternative=opts.alternative,
                               n_resamples=opts.flips, seed=opts.seed, confidence=opts.confidence,
                               pairing=opts.pairing, weights=opts.weights)
        res.scale = view.scale
        return res

    def message_levels(self, results, view, confidence):
        """Each message's options ticked per reply (the sum of its options' shares, per paraphrase) with the t
        interval over its paraphrases, and each option's share per message: one quantity for every message. Each
        pair is decided by its own option, so the deciding option's share would mix options across messages."""
        from survey.stats.comparison import MEAN_COVERS, mean_interval

        ticked, shares = {}, {}
        for r in results:
            for c in r.comparisons:
                for msg, bar in c.theta_bar.items():
                    shares.setdefault(c.option, {}).setdefault(msg, float(np.nanmean(bar)))
            for msg in (r.a, r.b):
                if msg not in ticked:
                    ticked[msg] = np.sum([np.asarray(c.theta_bar[msg], dtype=float) for c in r.comparisons], axis=0)
        k = len(results[0].options)
        values = {}
        for msg, bar in ticked.items():
            got = mean_interval(bar, confidence, 0, k)
            values[msg] = (got["mean"], tuple(got["ci"]))
        note = "share ticking each option: " + "; ".join(
            f"{o}: " + ", ".join(f"{m} {v:.2f}" for m, v in per.items()) for o, per in shares.items())
        deciding = {f"{r.a} vs {r.b}": r.decision.option for r in results}
        which = "each pair's A − B is the share of its deciding option: " + ", ".join(
            f"{pair} '{option}'" for pair, option in deciding.items())
        return MessageLevels("options ticked per reply", values, confidence, "t interval over paraphrase means",
                             MEAN_COVERS, (note, which), {"option_shares": shares, "deciding_option": deciding})

    def plan_params(self, view, delta, *, sigma=None, rho=None, tau=None, positions=None, messages=None):
        if positions is not None or messages is not None:
            raise SurveyError("--positions and --messages belong to pickK, maxdiffS and choice scales")
        return CheckboxPlan(float(delta), view.scale, sigma, rho, tau)

    def heterogeneity_claim(self, view):
        return "equal effects on every option's share (each option compared across models, Holm across the options)"

    def heterogeneity_null(self, view, a, b):
        return (f"{self.heterogeneity_claim(view)}: for every option, every model's share choosing it under {a} − "
                f"under {b} the same")

    def effect_words(self, view, a, b):
        return f"effect = share ticking the deciding option under {a} − under {b}"

    def label_words(self, view, source):
        return f"each cell's {source} share"


CHECKBOX = Checkbox()
