"""The report's sections for pick one of k (scale "pickK"): per model and pair of messages, every message's
order-averaged share with its interval, the pair's sign-flip test over paraphrase sets (Holm-adjusted over the
pairs) and the position-bias test, from survey.kinds.pick.statistics.

Helm & Priebe (2026), "When prompt perturbations break your A/B test: A valid statistical test for generative
surveying", name joint presentation as future work; the tests are those of survey.kinds.pick.statistics. A row's
``shown`` column names the messages by position; ``answer`` is the position chosen.
"""

from __future__ import annotations

from survey.common.formatting import fmt
from survey.reporting.context import incomplete_note
from survey.reporting.views.base import ReportView


def pick_headline(r, alpha: float, completeness=None) -> str:
    k = len(r.messages)
    shares = ", ".join(f"“{m}” {s:.0%}" for m, (s, _) in sorted(r.shares.items(), key=lambda x: -x[1][0]))
    said = (f"shown {k} messages together, personas chose {shares} (positions averaged over a Latin square, "
            f"{r.n_sets} paraphrase sets)")
    pos = r.position
    position = (" Chosen share by position: " + ", ".join(f"{t + 1}: {s:.0%}" for t, s in enumerate(pos.shares))
                + f" (test of no position bias p = {pos.pvalue:.3g}).")
    partial = incomplete_note(completeness, r.model)
    if r.pair.pvalue <= alpha and r.effect.estimate != 0:
        winner, loser = (r.a, r.b) if r.effect.estimate > 0 else (r.b, r.a)
        return (f"{r.model}: “{winner}” is chosen more often than “{loser}”: {said}; the difference holds across "
                f"the paraphrase sets (sign-flip permutation test, Holm-adjusted over the pairs, p = "
                f"{r.pair.pvalue:.3g}).{position}{partial}")
    return (f"{r.model}: no reliable difference between “{r.a}” and “{r.b}”: {said}; paraphrase sets vary as much "
            f"(sign-flip permutation test, Holm-adjusted over the pairs, p = {r.pair.pvalue:.3g}, above α = "
            f"{alpha}).{position}{partial}")


def pick_warnings(r, alpha: float) -> list[str]:
    out = [f"{r.model}, {r.a} vs {r.b}: {r.warning}."] if r.warning else []
    if r.invalid:
        out.append(f"{r.model}, {r.a} vs {r.b}: {r.invalid} replies named no option; they are excluded from the shares.")
    if r.sets_left_out:
        out.append(f"{r.model}, {r.a} vs {r.b}: {len(r.sets_left_out)} paraphrase set(s) left out (not asked in every "
                   "arrangement, or an arrangement without a valid reply).")
    return out


def pick_view(r) -> dict:
    """One pick-one-of-k section (templates/views/pick.html.j2)."""
    conf = f"{r.effect.confidence:.0%}"
    k = len(r.messages)
    shares = [[m, f"{s:.3f}", f"[{ci[0]:.3f}, {ci[1]:.3f}]"] for m, (s, ci) in r.shares.items()]
    positions = [[f"position {t + 1}", f"{s:.3f}", f"[{ci[0]:.3f}, {ci[1]:.3f}]"]
                 for t, (s, ci) in enumerate(zip(r.position.shares, r.position.cis, strict=True))]
    lo, hi = r.effect.ci
    tests = [[f"{r.a} vs {r.b} (sign-flip over paraphrase sets)", f"{r.effect.estimate:+.3f}", f"[{lo:+.3f}, {hi:+.3f}]",
              fmt(r.pair.raw_pvalue), fmt(r.pair.pvalue)],
             [f"position bias (permutation of arrangements within sets; statistic k·Σ(share − 1/{k})²)",
              fmt(r.position.statistic), "", fmt(r.position.pvalue), ""]]
    return {"template": "views/pick.html.j2", "model": r.model, "a": r.a, "b": r.b, "k": k, "confidence": conf,
            "shares": {"columns": ["message", "share chosen", f"{conf} CI"], "rows": shares},
            "positions": {"columns": ["position", "share chosen", f"{conf} CI"], "rows": positions},
            "tests": {"columns": ["test", "estimate", f"{conf} CI", "p-value", "Holm p (over the pairs)"], "rows": tests},
            "warning": r.warning, "notes": list(r.notes),
            "design": (f"{r.n_personas} personas; {r.n_sets} paraphrase sets, each asked in {k} arrangements (a Latin "
                       f"square: every message in every position once); r = {r.replicates} replicates per arrangement; "
                       f"{r.invalid} invalid replies.")}


class PickView(ReportView):
    kind = "pick"
    per_pair_sections = False  # each pair's section would repeat the shares (scores) of every message
    template = "views/pick.html.j2"
    reading = "chose one of several messages shown together, in rotated positions"
    exact_title = "The same tests on the model's exact choice probabilities"
    exact_intro = ("These models report the exact probability of choosing each position in every prompt, so the "
                   "shares and tests can run on it directly, without replicate noise.")

    def headline(self, r, view, alpha, completeness=None) -> str:
        return pick_headline(r, alpha, completeness)

    def warnings(self, r, view, alpha) -> list[str]:
        return pick_warnings(r, alpha)

    def section(self, r, df, view, texts, fits) -> dict:
        return pick_view(r)

    def exact_table(self, results: list) -> dict:
        rows = [[r.model, f"{r.a} vs {r.b}", f"{r.effect.estimate:+.3f}", f"[{r.effect.ci[0]:+.3f}, {r.effect.ci[1]:+.3f}]",
                 fmt(r.pair.pvalue), fmt(r.position.pvalue)] for r in results]
        return {"columns": ["model", "messages", "share A − share B", "CI", "Holm p", "position p"], "rows": rows}


VIEW = PickView()
