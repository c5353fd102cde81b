"""`survey analyze --by/--segment/--target`: the options that ask "for whom?" and "in which market?", and
the text that answers (survey.stats.segments does the statistics)."""

from __future__ import annotations

import click

from survey import SurveyError
from survey.cli.common import print_table


def segment_options(f):
    """--by, --segment, --target, --personas, --adjust, --pooled: shared by analyze and report."""
    for opt in reversed([
        click.option("--by", "by", default=None,
                     help="segments of personas: an attribute (gender) or bins of a numeric one "
                          "(age:18-34,35-54,55+); each gets its own test, Holm-adjusted"),
        click.option("--segment", "filters", multiple=True, metavar="NAME=FILTER",
                     help="a named segment, e.g. --segment \"young_high=age < 35 and income == 'high'\" (repeatable)"),
        click.option("--target", "target", type=click.Path(dir_okay=False), default=None,
                     help="target-market margins (.toml or .csv: attribute,level,share): the personas are raked to "
                          "them and the weighted population effect is reported"),
        click.option("--personas", "personas", default=None,
                     help="persona set (name or file) whose attributes the table's persona ids carry, when the "
                          "source does not record them"),
        click.option("--adjust", type=click.Choice(["holm", "bonferroni"]), default="holm", show_default=True,
                     help="multiplicity adjustment across segments"),
        click.option("--pooled", is_flag=True, help="ignore the study's [segments] and [target]: pooled results only"),
    ]):
        f = opt(f)
    return f


def segment_arguments(by, filters, target, personas, pooled) -> dict:
    """The keyword arguments of survey.analyze for the options (reads the target and persona set files)."""
    if by is not None and not by.strip():
        raise SurveyError("--by is empty: give an attribute (--by gender) or bins of a numeric one "
                          "(--by age:18-34,35-54,55+), or leave --by out")
    if by is not None and filters:
        raise SurveyError("give --by or --segment, not both")
    named = {}
    for item in filters:
        name, sep, expr = item.partition("=")
        if not sep or not name.strip() or not expr.strip():
            raise SurveyError(f"--segment {item!r}: write NAME=FILTER, e.g. --segment \"young=age < 35\"")
        if name.strip() in named:
            raise SurveyError(f"--segment {name.strip()} is given twice; give each segment its own name, or join "
                              "the filters with 'or' in one --segment")
        named[name.strip()] = expr.strip()
    out: dict = {}
    if by is not None or named:
        out["by"] = by if by is not None else named
    if target:
        from survey import read_target

        out["weights"] = read_target(target)
    if personas:
        from survey import load_persona_set

        out["personas"] = load_persona_set(personas)
    if pooled:
        if out.get("by") or out.get("weights"):
            raise SurveyError("--pooled turns the study's segments off: do not combine it with --by, --segment or "
                              "--target")
        out.update(by=False, weights=False)
    return out


def echo_segments(seg) -> None:
    """One result's segments, interaction, population effect and weights, as a marketer reads them."""
    if seg is None:
        return
    # a result decided by a family of tests (a checkbox): each effect is on its own deciding part, named
    word = next((s.result.part_word for s in seg.segments if s.part is not None), None)
    from survey import deciding_part

    if word is None and seg.population is not None and deciding_part(seg.population.result) is not None:
        word = seg.population.result.part_word  # a target alone: the weighted effect's part, named too
    rows = [[s.segment, s.n_personas, s.effect, *([s.part] if word else []), f"[{s.ci[0]:+.4g}, {s.ci[1]:+.4g}]",
             s.pvalue, s.pvalue_adjusted, f"[{s.simultaneous_ci[0]:+.4g}, {s.simultaneous_ci[1]:+.4g}]"]
            for s in seg.segments]
    if seg.population is not None:
        d = seg.population.to_dict()
        rows.append(["target population (weighted)", f"{d['effective_personas']:.1f} effective", d["effect"],
                     *([d.get(word)] if word else []), f"[{d['ci'][0]:+.4g}, {d['ci'][1]:+.4g}]", d["pvalue"], None,
                     None])
    if rows:
        print_table(f"by {seg.by or 'target weights'} (effect {seg.unit}, {seg.a} − {seg.b})",
                    ["segment", "personas", "effect", *([f"on {word}"] if word else []), "CI", "p-value",
                     f"p ({seg.adjustment})", "simultaneous CI"], rows)
    if seg.interaction is not None:
        i = seg.interaction
        if i.parts is not None:  # a family (a checkbox's options): every segment compared on the same part
            w = i.part_word
            print_table(f"segments differ? the interaction per {w} (Holm across the {w}s)",
                        [w, "statistic", "p-value", "p (holm)", "pairs"],
                        [[x[w], x["statistic"], x["pvalue"], x["holm"], x["n_pairs"]] for x in i.parts])
            click.echo(f"segments differ? interaction p = {i.pvalue:.4g} on the deciding {w} '{i.part}' "
                       f"({i.method}); null: {i.null}")
        else:
            click.echo(f"segments differ? interaction p = {i.pvalue:.4g} ({i.method}, {i.n_pairs} pairs); "
                       f"null: {i.null}")
    if seg.population is not None:
        click.echo(f"weights: {seg.population.weights.rests_on}")
    click.echo(f"in words: {seg.sentence()}")
    for w in seg.warnings:
        click.secho(f"WARNING: {w}", fg="yellow", bold=True)
    for why in seg.left_out:
        click.echo(f"segment left out: {why}", err=True)
