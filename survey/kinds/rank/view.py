"""The report's sections for a ranking (scale "rankK"): per model and pair of messages, every message's mean rank
and Borda score with intervals, every pair's sign-flip test over paraphrase sets (Holm-adjusted over the pairs)
and the position-bias test, from survey.kinds.rank.statistics."""

from __future__ import annotations

from survey.common.formatting import fmt
from survey.reporting.context import incomplete_note
from survey.reporting.views.base import ReportView


def rank_headline(r, alpha: float, completeness=None) -> str:
    k = len(r.messages)
    ranks = ", ".join(f"“{m}” {x:.2f}" for m, (x, _) in sorted(r.mean_rank.items(), key=lambda x: x[1][0]))
    said = (f"ranking {k} messages shown together, personas gave mean ranks {ranks} (1 = best; positions averaged "
            f"over a Latin square, {r.n_paired} paraphrase sets)")
    pos = r.position
    position = (" Mean rank by position: " + ", ".join(f"{t + 1}: {x:.2f}" for t, x in enumerate(pos.mean_ranks))
                + f" (test of no position bias p = {pos.pvalue:.3g}).")
    partial = incomplete_note(completeness, r.model)
    if r.pair.pvalue <= alpha and r.effect.estimate != 0:
        winner, loser = (r.a, r.b) if r.effect.estimate > 0 else (r.b, r.a)
        return (f"{r.model}: “{winner}” is ranked above “{loser}”: {said}; the difference holds across the paraphrase "
                f"sets (sign-flip permutation test of Borda scores, Holm-adjusted over the pairs, p = "
                f"{r.pair.pvalue:.3g}).{position}{partial}")
    return (f"{r.model}: no reliable difference between “{r.a}” and “{r.b}”: {said}; paraphrase sets vary as much "
            f"(sign-flip permutation test of Borda scores, Holm-adjusted over the pairs, p = {r.pair.pvalue:.3g}, "
            f"above α = {alpha}).{position}{partial}")


def rank_warnings(r, alpha: float) -> list[str]:
    out = [f"{r.model}, {r.a} vs {r.b}: {r.warning}."] if r.warning else []
    if r.invalid:
        out.append(f"{r.model}, {r.a} vs {r.b}: {r.invalid} replies were no complete ranking (a number twice or "
                   "missing, a tie or a hedge); they are excluded.")
    if r.sets_left_out:
        out.append(f"{r.model}, {r.a} vs {r.b}: {len(r.sets_left_out)} paraphrase set(s) left out (not asked in every "
                   "arrangement, or an arrangement without a valid ranking).")
    return out


def rank_section(r) -> dict:
    """One ranking section (templates/views/rank.html.j2)."""
    conf = f"{r.effect.confidence:.0%}"
    k = len(r.messages)
    scores = [[m, f"{r.mean_rank[m][0]:.3f}", f"[{r.mean_rank[m][1][0]:.3f}, {r.mean_rank[m][1][1]:.3f}]",
               f"{s:.3f}", f"[{ci[0]:.3f}, {ci[1]:.3f}]"] for m, (s, ci) in r.borda.items()]
    positions = [[f"position {t + 1}", f"{x:.3f}", f"[{ci[0]:.3f}, {ci[1]:.3f}]"]
                 for t, (x, ci) in enumerate(zip(r.position.mean_ranks, r.position.cis, strict=True))]
    pairs = [[f"{p['a']} vs {p['b']}", f"{p['difference']:+.3f}", fmt(p["raw_pvalue"]), fmt(p["pvalue"])]
             for p in r.pairs]
    lo, hi = r.effect.ci
    return {"template": "views/rank.html.j2", "model": r.model, "a": r.a, "b": r.b, "k": k, "confidence": conf,
            "centre": f"{(k + 1) / 2:g}",
            "scores": {"columns": ["message", "mean rank", f"{conf} CI", "Borda score", f"{conf} CI"], "rows": scores},
            "pairs": {"columns": ["pair", "Borda difference", "p-value", "Holm p (over the pairs)"], "rows": pairs},
            "effect": f"{r.effect.estimate:+.3f} [{lo:+.3f}, {hi:+.3f}]",
            "positions": {"columns": ["position", "mean rank", f"{conf} CI"], "rows": positions},
            "position_p": fmt(r.position.pvalue), "warning": r.warning, "notes": list(r.notes),
            "design": (f"{r.n_personas} personas; {r.n_sets} paraphrase sets, each asked in {k} arrangements (a Latin "
                       f"square: every message in every position once); r = {r.replicates} replicates per arrangement; "
                       f"{r.invalid} invalid replies.")}


def humans_rank_figure(res):
    """Each message's mean rank (1 = best, on the left) with its interval: the humans' and each model's personas',
    one row per message (``res``: survey.kinds.rank.humans.HumanRanks)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    messages, models = list(res.messages), list(res.models)
    fig = Figure(figsize=(7, 0.45 * len(messages) * (len(models) + 1) + 1.4))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    step = 0.8 / (len(models) + 1)
    sources = [("humans", {m: {"rank": r, "ci": ci} for m, (r, ci) in res.mean_rank.items()})]
    sources += [(name, v.get("mean_rank", {})) for name, v in res.models.items()]
    for j, (name, ranks) in enumerate(sources):
        ys = [i + j * step for i, m in enumerate(messages) if m in ranks]
        xs = [ranks[m]["rank"] for m in messages if m in ranks]
        errs = [[x - ranks[m]["ci"][0] for m, x in zip([m for m in messages if m in ranks], xs, strict=True)],
                [ranks[m]["ci"][1] - x for m, x in zip([m for m in messages if m in ranks], xs, strict=True)]]
        ax.errorbar(xs, ys, xerr=errs, fmt="o" if j == 0 else "s", color="#333333" if j == 0 else f"C{j - 1}",
                    capsize=3, label=name)
    ax.set_yticks([i + len(models) * step / 2 for i in range(len(messages))], messages, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0.8, res.k + 0.2)
    ax.set_xlabel("mean rank (1 = best)")
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig


class RankView(ReportView):
    kind = "rank"
    per_pair_sections = False  # each pair's section would repeat the Borda scores of every message
    template = "views/rank.html.j2"
    reading = "ranked several messages shown together, in rotated positions"
    exact_title = "The same tests on the model's exact ranking probabilities"
    exact_intro = ("These models report the exact probability of every ranking in every prompt, so the Borda scores "
                   "and tests can run on their expectation, without replicate noise.")

    def headline(self, r, view, alpha, completeness=None) -> str:
        return rank_headline(r, alpha, completeness)

    def warnings(self, r, view, alpha) -> list[str]:
        return rank_warnings(r, alpha)

    def section(self, r, df, view, texts, fits) -> dict:
        return rank_section(r)

    def humans_figure(self, res):
        return humans_rank_figure(res), (f"Mean rank of each message (1 = best) given by the humans and by each "
                                         f"model's personas, with {res.confidence:.0%} intervals (humans: t intervals "
                                         "over respondents; personas: sign-flip intervals over paraphrase sets).")

    def exact_table(self, results: list) -> dict:
        rows = [[r.model, f"{r.a} vs {r.b}", f"{r.effect.estimate:+.3f}", f"[{r.effect.ci[0]:+.3f}, {r.effect.ci[1]:+.3f}]",
                 fmt(r.pair.pvalue), fmt(r.position.pvalue)] for r in results]
        return {"columns": ["model", "messages", "Borda A − Borda B", "CI", "Holm p", "position p"], "rows": rows}


VIEW = RankView()
