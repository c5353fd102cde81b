"""The report's view of a Yes/No comparison (Helm & Priebe (2026), "When prompt perturbations break your
A/B test"): P(Yes) per message, the effect in percentage points, every test, the Beta-logit fit per
message, and the paraphrase, persona and null-distribution plots."""

from __future__ import annotations

import numpy as np

from survey.common.formatting import fmt
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


class BinaryView(ReportView):
    kind = "binary"
    template = "views/binary.html.j2"
    reading = "answered Yes/No to many paraphrases (perturbations) of each message"
    exact_title = "The same tests on the model's exact P(Yes)"
    exact_intro = ("These models report the exact probability of answering Yes in every persona × paraphrase cell, "
                   "so the tests can run on it directly, without replicate noise. Less noise makes the invalid tests "
                   "even more confident, while the sign-flip test still accounts for paraphrases moving every persona "
                   "at once.")

    def headline(self, c, view, alpha, completeness=None) -> str:
        pa, pb = (float(np.nanmean(c.theta_bar[x])) for x in (c.a, c.b))
        lo, hi = c.effect.ci
        t = c.effect.estimate
        pts = f"{t * 100:+.1f} percentage points ({c.effect.confidence:.0%} CI {lo * 100:+.1f} to {hi * 100:+.1f})"
        said = f"{pa:.0%} of answers were Yes for “{c.a}” and {pb:.0%} for “{c.b}”"
        # the shares are rounded means over every paraphrase; T is unrounded, over the pairs only
        what = f"T over the {c.n_paired} paraphrase pairs; the shares are rounded"
        partial = incomplete_note(completeness, c.model)
        decided = decision_words(c)
        if significant(c, alpha):
            winner, loser = (c.a, c.b) if t > 0 else (c.b, c.a)
            return (f"{c.model}: personas are more likely to want to buy after “{winner}” than after “{loser}”. "
                    f"{said}, a difference of {pts} ({what}). The difference holds across the {c.n_paired} "
                    f"paraphrase pairs tested ({decided}).{partial}")
        return (f"{c.model}: no reliable difference between “{c.a}” and “{c.b}”. {said}, a difference of {pts} "
                f"({what}), but paraphrases of the same message vary as much as that ({decided}{not_at(c, alpha)})."
                f"{partial}")

    def warnings(self, c, view, alpha) -> list[str]:
        out = persona_test_warnings(c, alpha)
        if c.invalid["total"]:
            out.append(f"{c.model}: {c.invalid['total']} answers were neither Yes nor No; they are excluded from "
                       f"the rates ({sum(c.empty_cells.values())} persona×paraphrase cells had no valid answer).")
        return out

    def section(self, c, df, view, texts, fits) -> dict:
        from survey.plots import survey as plots
        from survey.reporting import fig_png

        figs = [
            fig_png(plots.perturbation_means(c, texts), f"Mean P(Yes) of every paraphrase of “{c.a}” and “{c.b}”, "
                    "averaged over personas: one labelled row per paraphrase, best first within each message, so "
                    "the winning and losing wordings can be read off. Vertical bar = the message's mean over all its "
                    f"paraphrases. The effect T averages the paired differences over the {c.n_paired} paraphrase "
                    "pairs, so the distance between the bars equals T only when every paraphrase is paired and "
                    "every cell has a valid answer."),
            fig_png(plots.persona_differences(c), "Per-persona differences in P(Yes) between the messages "
                    "(what the sign and Wilcoxon tests use)."),
            fig_png(plots.permutation_null(c), "Null distribution of the effect under random sign flips of "
                    "paraphrase pairs, with the observed effect T marked (the same T as in the text above)."),
        ]
        lo, hi = c.effect.ci
        estimates = [{"message": m, **{k: fmt(v, 3) for k, v in f.params.items()}} for m, f in fits.items()]
        notes = next((f.notes for f in fits.values()), [])
        return {
            "model": c.model, "a": c.a, "b": c.b, "template": self.template, "tests": test_rows(c),
            "effect": f"{c.effect.estimate:+.4f}", "confidence": f"{c.effect.confidence:.0%}",
            "ci": f"[{lo:+.4f}, {hi:+.4f}]", "ci_method": interval_words(c.effect),
            "design": design_words(c),
            "estimates": estimates, "estimate_notes": notes, "figures": figs,
        }



VIEW = BinaryView()
