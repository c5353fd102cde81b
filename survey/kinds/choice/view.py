"""The report's sections for forced choice (scale "choice"): per model and pair of messages the
preference test (the preference for A: share choosing A − share choosing B, both orders averaged) and the
position-bias test (share choosing the first-shown option − the second-shown), from survey.kinds.choice.table.compare_choice, with their plots.

Helm & Priebe (2026), "When prompt perturbations break your A/B test: A valid statistical test for
generative surveying", name joint presentation as future work; the tests are those of
survey.kinds.choice.statistics. Rows of a forced-choice table name the message shown first (``message``) and
second (``second``); ``answer`` is the position chosen (1 first, 2 second).
"""

from __future__ import annotations

import pandas as pd

from survey.common.formatting import fmt
from survey.data.completeness import Completeness
from survey.kinds.choice.statistics import PERSONA_NOTE, POSITION_QUANTITY, ChoiceResult, preference_name
from survey.reporting.context import incomplete_note
from survey.reporting.views.base import ReportView


def choice_headline(r: ChoiceResult, alpha: float, completeness: Completeness | None = None) -> str:
    model = r.model
    pref, pos = r.preference, r.position_bias
    lo, hi = pref.difference_ci
    said = (f"the {preference_name(r.a, r.b)} is {pref.statistic:+.3f} ({pref.confidence:.0%} CI {lo:+.3f} to "
            f"{hi:+.3f}, over the {r.n_pairs} paraphrase pairs; 0 means no preference)")
    position = (f" Position bias ({POSITION_QUANTITY}): {pos.statistic:+.3f} ({pos.confidence:.0%} CI "
                f"{pos.difference_ci[0]:+.3f} to {pos.difference_ci[1]:+.3f}; test of no position bias "
                f"p = {pos.pvalue:.3g}).")
    partial = incomplete_note(completeness, model)
    if pref.pvalue <= alpha and pref.statistic != 0:
        winner = r.a if pref.statistic > 0 else r.b
        return (f"{model}: personas prefer “{winner}”: {said}; the preference holds across the paraphrase pairs "
                f"(sign-flip permutation test, p = {pref.pvalue:.3g}).{position}{partial}")
    return (f"{model}: no reliable preference between “{r.a}” and “{r.b}”: {said}, but paraphrase pairs vary as "
            f"much as that (sign-flip permutation test, p = {pref.pvalue:.3g}, above α = {alpha}).{position}{partial}")


def choice_warnings(r: ChoiceResult, alpha: float) -> list[str]:
    out = []
    for name, t in r.persona_tests.items():
        if t.pvalue <= alpha < r.preference.pvalue:
            out.append(f"{r.model}, {r.a} vs {r.b}: the per-persona {name} test calls this significant (p = "
                       f"{t.pvalue:.3g}), but it treats personas as independent while each paraphrase pair shifts "
                       "every persona at once; it is not valid here. Rely on the preference (sign-flip) test.")
    if r.warning:
        out.append(f"{r.model}, {r.a} vs {r.b}: {r.warning}.")
    if r.invalid:
        out.append(f"{r.model}, {r.a} vs {r.b}: {r.invalid} replies chose neither option; they are excluded "
                   f"from the shares ({r.empty_cells} persona × pair × order cells had no valid reply).")
    if r.pairs_left_out:
        out.append(f"{r.model}, {r.a} vs {r.b}: {len(r.pairs_left_out)} pair(s) without a valid reply in both "
                   "orders were left out.")
    return out


def order_counts(df: pd.DataFrame, model: str, a: str, b: str) -> dict[str, tuple[int, int, int]]:
    """Replies by order of presentation: label -> (chose A, chose B, invalid)."""
    sub = df[df["model"] == model]
    out = {}
    for first, second in ((a, b), (b, a)):
        rows = sub[(sub["message"] == first) & (sub["second"] == second)]
        ans = pd.to_numeric(rows["answer"], errors="coerce")
        chose_first, chose_second = int((ans == 1).sum()), int((ans == 2).sum())
        chose_a, chose_b = (chose_first, chose_second) if first == a else (chose_second, chose_first)
        out[f"{first} shown first"] = (chose_a, chose_b, int(ans.isna().sum()))
    return out


def choice_view(r: ChoiceResult, df: pd.DataFrame) -> dict:
    """One forced choice's section (templates/views/choice.html.j2)."""
    from survey.plots.choice import choice_shares, replies_by_order
    from survey.reporting import fig_png

    model = r.model
    rows = []
    for test, name, null in ((r.preference, f"preference for {r.a}", "0: no preference"),
                             (r.position_bias, "position bias", "0: no position bias")):
        lo, hi = test.difference_ci
        rows.append([name, test.what, f"{test.statistic:+.3f}", f"[{lo:+.3f}, {hi:+.3f}]",
                     fmt(test.pvalue), test.n_pairs, f"{null}; {test.method}"])
    persona = [{"name": name, "statistic": fmt(t.statistic), "pvalue": fmt(t.pvalue), "note": PERSONA_NOTE}
               for name, t in r.persona_tests.items()]
    conf = f"{r.preference.confidence:.0%}"
    figs = [
        fig_png(choice_shares(model, r),
                f"Per paraphrase pair: left, the preference for “{r.a}” (share of valid replies choosing “{r.a}” "
                f"minus share choosing “{r.b}”), averaged over both orders of presentation (what the preference test "
                "uses); right, the position bias (share choosing whichever option was shown first minus the "
                f"second). Solid line and band: the overall value and its {conf} interval (sign-flip inversion); "
                "dashed: 0."),
        fig_png(replies_by_order(model, r.a, r.b, order_counts(df, model, r.a, r.b)),
                f"All replies by order of presentation: the share choosing “{r.a}”, choosing “{r.b}”, and invalid. "
                "A position bias tilts the two orders in opposite directions; averaging them cancels it."),
    ]
    return {
        "template": "views/choice.html.j2", "model": model, "a": r.a, "b": r.b, "confidence": conf,
        "shares": {"columns": ["test", "quantity", "estimate", f"{conf} CI", "p-value", "pairs", "null; method"],
                   "rows": rows},
        "persona_tests": persona, "warning": r.warning, "notes": list(r.notes),
        "design": (f"{r.n_personas} personas; {r.n_pairs} paraphrase pairs used, each asked in both orders; "
                   f"r = {r.replicates} replicates per order; {r.invalid} invalid replies."),
        "figures": figs,
    }


class ChoiceView(ReportView):
    kind = "choice"
    template = "views/choice.html.j2"
    reading = "chose between paraphrases of the two messages, shown side by side"
    reading_template = "views/choice_reading.html.j2"
    exact_title = "The same tests on the model's exact choice probabilities"
    exact_intro = ("These models report the exact probability of choosing each option in every prompt, so the "
                   "preference and position-bias tests can run on it directly, without replicate noise.")

    def headline(self, r, view, alpha, completeness=None) -> str:
        return choice_headline(r, alpha, completeness)

    def warnings(self, r, view, alpha) -> list[str]:
        return choice_warnings(r, alpha)

    def section(self, r, df, view, texts, fits) -> dict:
        return choice_view(r, df)

    def exact_table(self, results: list) -> dict:
        rows = []
        for r in results:
            p, q = r.preference, r.position_bias
            (plo, phi), (qlo, qhi) = p.difference_ci, q.difference_ci
            rows.append([r.model, f"{r.a} vs {r.b}", f"{p.statistic:+.3f}", f"[{plo:+.3f}, {phi:+.3f}]",
                         fmt(p.pvalue), f"{q.statistic:+.3f}", f"[{qlo:+.3f}, {qhi:+.3f}]", fmt(q.pvalue)])
        return {"columns": ["model", "messages", "preference for A (share A − share B)", "CI", "preference p",
                            "position bias (first − second)", "CI", "position-bias p"], "rows": rows}


VIEW = ChoiceView()
