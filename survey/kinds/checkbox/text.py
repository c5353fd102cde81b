"""The command line's text for a checkbox question: every option's shares, difference and (Holm) p-values; and its
comparison with people, option by option (``fidelity_text``)."""

from __future__ import annotations

import click

from survey.cli.common import print_table
from survey.cli.kind_output import KindText, header
from survey.common.formatting import fmt, percent, yes_no
from survey.stats.tie_breaking import TIE_WORDS


def echo_checkbox(res, r) -> None:
    header(r)
    print_table(f"options ticked (share of replies), {r.a} vs {r.b}",
                ["option", r.a, r.b, "difference", f"{percent(r.interval_level)} CI", "p", "Holm p"],
                [[o["option"], o["share_a"], o["share_b"], o["effect"].estimate,
                  f"[{o['effect'].ci[0]:+.3f}, {o['effect'].ci[1]:+.3f}]", o["pvalue"], o["holm"]]
                 for o in r.per_option])
    verdict = "significant" if res.significant(r) else "not significant"
    click.echo(f"decision at alpha = {res.alpha:g} (smallest Holm-adjusted sign-flip p over the options, "
               f"'{r.decision.option}', p = {r.pvalue:.4g}): {verdict}")
    click.echo(f"intervals: {r.interval_words}")
    click.echo(f"each option's sign-flip test: {TIE_WORDS}; the same --seed gives the same p")


def checkbox_line(r: dict, view) -> str:
    t = r["tests"]["sign_flip"]
    return f"{r['model']}: checkbox {r['a']} vs {r['b']}: '{t['option']}' Holm p = {t['pvalue']:.3g}"


TEXT = KindText(result=echo_checkbox, summary=checkbox_line, humans=lambda res: click.echo(fidelity_text(res)))


def _ci(ci) -> str:
    return "—" if ci is None else f"[{fmt(ci[0], 3)}, {fmt(ci[1], 3)}]"


def fidelity_text(res) -> str:
    """The command line's text of a survey.kinds.checkbox.humans.CheckboxFidelity: per option the shares ticking it
    (humans and each model's personas), the effects A − B with their intervals and the prediction-powered one with
    its Bonferroni interval over the options; then what it rests on, how the options are compared, and the notes."""
    a, b = res.a, res.b
    lines = [f"Checkbox fidelity to people, {a} vs {b} ({res.design}-subjects): {len(res.options)} options, each "
             "compared as ticked or not", res.basis]
    rows = res.rows()
    for o in res.per_option:
        lines.append(f"option '{o['option']}'")
        for r in (r for r in rows if r["option"] == o["option"]):
            ppi = ("no prediction-powered estimate" if r["PPI effect"] is None else
                   f"prediction-powered human effect {fmt(r['PPI effect'], 3)} {_ci(r['PPI CI'])}, over the "
                   f"{len(res.options)} options {_ci(r['simultaneous PPI CI'])}")
            lines += [f"  {r['model']}: shares ticking it: humans {a} {fmt(r[f'humans {a}'], 3)}, {b} "
                      f"{fmt(r[f'humans {b}'], 3)}; personas {a} {fmt(r[f'personas {a}'], 3)}, {b} "
                      f"{fmt(r[f'personas {b}'], 3)}",
                      f"    effect {a} − {b}: humans {fmt(r['human effect'], 3)} {_ci(r['human CI'])}, personas "
                      f"{fmt(r['persona effect'], 3)} {_ci(r['persona CI'])}; human − persona "
                      f"{fmt(r['difference'], 3)} {_ci(r['difference CI'])}, p = {fmt(r['difference p'], 3)}, signs "
                      f"agree: {yes_no(r['signs agree'])}",
                      f"    {ppi}"]
    lines += [f"multiplicity: {res.multiplicity}", f"validity: {res.validity}"]
    lines += [f"note: {n}" for n in res.notes]
    return "\n".join(lines)
