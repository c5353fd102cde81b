"""The report's sections for best-worst scaling (scale "maxdiffS"): per model and pair of messages, every
message's best-minus-worst score with its interval and the pair's sign-flip test over paraphrase sets
(Holm-adjusted over the pairs), from survey.kinds.maxdiff.statistics."""

from __future__ import annotations

from survey.common.formatting import fmt
from survey.reporting.context import incomplete_note
from survey.reporting.views.base import ReportView


def maxdiff_headline(r, alpha: float, completeness=None) -> str:
    ranked = ", ".join(f"“{m}” {s:+.2f}" for m, (s, _) in sorted(r.scores.items(), key=lambda x: -x[1][0]))
    said = (f"best-minus-worst scores (share named best − share named worst, over {r.n_sets} paraphrase sets): "
            f"{ranked}")
    partial = incomplete_note(completeness, r.model)
    if r.pair.pvalue <= alpha and r.effect.estimate != 0:
        winner, loser = (r.a, r.b) if r.effect.estimate > 0 else (r.b, r.a)
        return (f"{r.model}: “{winner}” scores above “{loser}”: {said}; the difference holds across the paraphrase "
                f"sets (sign-flip permutation test, Holm-adjusted over the pairs, p = {r.pair.pvalue:.3g}).{partial}")
    return (f"{r.model}: no reliable difference between “{r.a}” and “{r.b}”: {said}; paraphrase sets vary as much "
            f"(sign-flip permutation test, Holm-adjusted over the pairs, p = {r.pair.pvalue:.3g}, above α = "
            f"{alpha}).{partial}")


class MaxDiffView(ReportView):
    kind = "maxdiff"
    per_pair_sections = False  # each pair's section would repeat the shares (scores) of every message
    template = "views/maxdiff.html.j2"
    reading = "named the best and the worst of subsets of the messages shown together"

    def headline(self, r, view, alpha, completeness=None) -> str:
        return maxdiff_headline(r, alpha, completeness)

    def warnings(self, r, view, alpha) -> list[str]:
        return [f"{r.model}: {r.invalid} replies named no best and worst; they are excluded."] if r.invalid else []

    def section(self, r, df, view, texts, fits) -> dict:
        conf = f"{r.effect.confidence:.0%}"
        lo, hi = r.effect.ci
        return {"template": self.template, "model": r.model, "a": r.a, "b": r.b,
                "scores": {"columns": ["message", "best − worst score", f"{conf} CI"],
                           "rows": [[m, f"{s:+.3f}", f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"] for m, (s, ci) in r.scores.items()]},
                "test": {"columns": ["test", "estimate", f"{conf} CI", "p-value", "Holm p (over the pairs)"],
                         "rows": [[f"{r.a} vs {r.b} (sign-flip over paraphrase sets)", f"{r.effect.estimate:+.3f}",
                                   f"[{lo:+.3f}, {hi:+.3f}]", fmt(r.pair.raw_pvalue), fmt(r.pair.pvalue)]]},
                "design": (f"{r.n_personas} personas; {r.n_sets} paraphrase sets, each asked in the blocks of a cyclic "
                           f"design (subsets of {len(r.best_by_position)}; every message in every position once per "
                           f"set); r = {r.replicates}; {r.invalid} invalid replies. Named best by position: "
                           + ", ".join(f"{t + 1}: {s:.0%}" for t, s in enumerate(r.best_by_position)) + ".")}


VIEW = MaxDiffView()
