"""The report's section for a checkbox question: per option the share ticking it under each message (a dot plot
and a table), each option's sign-flip test and its Holm-adjusted p-value; and its comparison with people, option by
option (``fidelity_sections``)."""

from __future__ import annotations

import numpy as np

from survey.common.formatting import fmt, percent, yes_no
from survey.reporting.context import incomplete_note
from survey.reporting.views.base import ReportView


def dot_plot(r):
    """Shares by message: one row per option, a dot per message."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 0.9 + 0.45 * len(r.options)))
    y = np.arange(len(r.options))[::-1]
    for msg, key, colour in ((r.a, "share_a", "#4477aa"), (r.b, "share_b", "#ee6677")):
        ax.plot([o[key] for o in r.per_option], y, "o", color=colour, label=msg)
    ax.set_yticks(y, [o["option"] for o in r.per_option])
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of replies ticking the option")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


class CheckboxView(ReportView):
    kind = "checkbox"
    template = "views/tables.html.j2"
    reading = "ticked every option that applied, for many paraphrases (perturbations) of each message"

    def headline(self, r, view, alpha, completeness=None) -> str:
        best = r.decision.option
        o = next(x for x in r.per_option if x["option"] == best)
        said = (f"“{best}” was ticked in {o['share_a']:.0%} of replies to “{r.a}” and {o['share_b']:.0%} to "
                f"“{r.b}”")
        partial = incomplete_note(completeness, r.model)
        if r.pvalue <= alpha:
            return (f"{r.model}: the messages differ on at least one option: {said} (sign-flip test per option, "
                    f"Holm-adjusted over the {len(r.options)} options, p = {r.pvalue:.3g}).{partial}")
        return (f"{r.model}: no option is ticked reliably more often for either message; the largest difference: "
                f"{said} (Holm-adjusted p = {r.pvalue:.3g}, above α = {alpha}).{partial}")

    def warnings(self, r, view, alpha) -> list[str]:
        bad = r.invalid.get("total", 0)
        return [f"{r.model}, {r.a} vs {r.b}: {bad} replies ticked no valid set of options; they are excluded."] if bad \
            else []

    def section(self, r, df, view, texts, fits) -> dict:
        from survey.reporting import fig_png

        conf = percent(r.interval_level)
        rows = [[o["option"], f"{o['share_a']:.3f}", f"{o['share_b']:.3f}", f"{o['effect'].estimate:+.3f}",
                 f"[{o['effect'].ci[0]:+.3f}, {o['effect'].ci[1]:+.3f}]", fmt(o["pvalue"]), fmt(o["holm"])]
                for o in r.per_option]
        return {"template": self.template, "model": r.model, "a": r.a, "b": r.b, "confidence": conf,
                "intro": (f"Checkbox with {len(r.options)} options: per option the share of replies ticking it "
                          "(persona × paraphrase cell means), a sign-flip test over paraphrase pairs per option, "
                          "p-values Holm-adjusted across the options. A share moves in steps of one reply, so the "
                          "observed difference often ties with sign-flipped ones; each option's test breaks these "
                          "ties at random (seeded: the same seed gives the same p), which makes its size exactly "
                          "α instead of below it."),
                "tables": [{"title": "", "columns": ["option", f"share {r.a}", f"share {r.b}", "difference",
                                                    f"{conf} CI", "sign-flip p", "Holm p (over the options)"],
                            "rows": rows}],
                "notes": [f"Intervals: {r.interval_words}"],
                "figures": [fig_png(dot_plot(r), f"Share of replies ticking each option, “{r.a}” (blue) and "
                                                 f"“{r.b}” (red), pooled over personas and paraphrases.")],
                "design": (f"{r.n_personas} personas; {r.n_paired} paraphrase pairs; r = {r.replicates} replicates; "
                           f"{r.invalid.get('total', 0)} invalid replies.")}

    def exact_table(self, results: list) -> dict:
        return {"columns": [], "rows": []}

    def humans_sections(self, res) -> list:
        return fidelity_sections(res)


VIEW = CheckboxView()


def fidelity_sections(res) -> list:
    """The report's "Does it match people?" section for a checkbox question, from a
    survey.kinds.checkbox.humans.CheckboxFidelity (nothing is computed here): per option the shares ticking it
    (humans beside each model's personas), the effects A − B with their intervals, the prediction-powered human
    effect with its Bonferroni interval over the options, and each option's verdicts in words."""
    from survey.reporting import Section
    from survey.reporting.humans import TITLE, finding
    from survey.stats.humans.in_words import level_in_words, ppi_in_words

    a, b = res.a, res.b
    sec = Section(TITLE, paragraphs=[f"{res.basis}.", res.multiplicity])
    rows = res.rows()
    sec.tables.append({"columns": ["option", "model", f"humans {a}", f"humans {b}", f"personas {a}",
                                   f"personas {b}", "in words"],
                       "rows": [[r["option"], r["model"], *(fmt(r[k], 3) for k in (
                           f"humans {a}", f"humans {b}", f"personas {a}", f"personas {b}")),
                                 _levels_in_words(res, r, level_in_words)] for r in rows]})
    sec.tables.append({"columns": ["option", "model", f"human effect {a} − {b} (CI)", "persona effect (CI)",
                                   "human − persona (CI)", "p (same effect)", "signs agree"],
                       "rows": [[r["option"], r["model"], _with_ci(r["human effect"], r["human CI"]),
                                 _with_ci(r["persona effect"], r["persona CI"]),
                                 _with_ci(r["difference"], r["difference CI"]), fmt(r["difference p"], 3),
                                 yes_no(r["signs agree"])] for r in rows]})
    if any(r["PPI effect"] is not None for r in rows):
        sec.tables.append({"columns": ["option", "model", "PPI human effect (CI)",
                                       f"simultaneous CI (Bonferroni, {len(res.options)} options)", "in words"],
                           "rows": [[r["option"], r["model"], _with_ci(r["PPI effect"], r["PPI CI"]),
                                     _ci(r["simultaneous PPI CI"]), ppi_in_words(_ppi(res, r))]
                                    for r in rows if r["PPI effect"] is not None]})
    for o in res.per_option:
        sec.paragraphs.append(f"{o['option']}: {finding(o['fidelity'])}")
        sec.paragraphs += [f"{o['option']}: {v}" for v in o["fidelity"].verdicts()]
    sec.paragraphs.append(f"What validity needs: {res.validity}")
    sec.paragraphs += [f"Note: {n}" for n in res.notes]
    return [sec]


def _ci(ci) -> str:
    return "—" if ci is None else f"{fmt(ci[0], 3)} to {fmt(ci[1], 3)}"


def _with_ci(value, ci) -> str:
    return f"{fmt(value, 3)} ({_ci(ci)})"


def _ppi(res, row):
    return res.fidelity(row["option"]).ppi[row["model"]]


def _levels_in_words(res, row, level_in_words) -> str:
    """Both messages' level comparison in words, over all the humans (with segments, each has its own: the
    option's HumanFidelity holds them)."""
    f = res.fidelity(row["option"])
    out = []
    for msg in (f.a, f.b):
        lv = next((x["fidelity"] for x in f.levels if x["model"] == row["model"] and x["message"] == msg
                   and x["segment"] == "all"), None)
        if lv is not None:
            out.append(f"{msg}: {level_in_words(lv).split(';')[0]}")
    return "; ".join(out)
