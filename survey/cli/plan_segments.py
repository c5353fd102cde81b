"""`survey plan --segments K` and `survey plan --personas SET --by ATTR`: personas needed per segment for a
target power on each segment's effect and on the segment x message interaction (survey.stats.planning
.segments). See docs/planning.md, "Segments".
"""

from __future__ import annotations

import click

from survey import SurveyError
from survey.cli.common import echo_json, print_table

DEFAULT_PAIRS, DEFAULT_REPLICATES = 20, 5  # a segment plan's design when neither the options nor a study give one


def segment_options(f):
    for opt in reversed([
        click.option("--segments", "segments", type=int, default=None,
                     help="plan K segments: personas needed per segment for --target-power (default 0.8)"),
        click.option("--personas", "persona_set", default=None,
                     help="with --by: a persona set whose segments give the sizes to check"),
        click.option("--by", "by", default=None, help="segment the --personas set by an attribute (gender) or "
                     "bins of a numeric one (age:18-34,35-54,55+)"),
        click.option("--interaction-delta", type=float, default=None,
                     help="also plan the interaction of two segments whose effects differ by this (latent logit; "
                     "their effects are delta +/- half of it)"),
        click.option("--pairs", type=int, default=None,
                     help=f"segment plans: paraphrase pairs m [default: STUDY's paraphrases, else {DEFAULT_PAIRS}]"),
        click.option("--replicates", type=int, default=None,
                     help=f"segment plans: replicates r per persona and paraphrase [default: STUDY's replicates, "
                          f"else {DEFAULT_REPLICATES}]"),
        click.option("--adjustment", type=click.Choice(["holm", "bonferroni"]), default="holm", show_default=True,
                     help="segment plans: multiplicity adjustment across the segments"),
    ]):
        f = opt(f)
    return f


def wants_segments(opts: dict) -> bool:
    return any(opts.get(k) is not None for k in ("segments", "persona_set", "by", "interaction_delta"))


def segment_sizes(segments: int | None, persona_set: str | None, by: str | None) -> tuple[int | dict[str, int], int | None]:
    """(K, or segment -> personas of the set when --personas and --by are given; the set's size or None).
    Bad combinations are one-line errors."""
    if segments is not None and segments < 2:
        raise SurveyError(f"--segments {segments}: a segment plan needs at least 2 segments (without segments, "
                          "drop --segments)")
    if by is not None and persona_set is None:
        raise SurveyError("--by segments a persona set: give --personas SET too (or plan --segments K)")
    if persona_set is None:
        if segments is None:
            raise SurveyError("--interaction-delta plans segments: give --segments K or --personas SET --by ATTR")
        return segments, None
    from survey import load_persona_set

    pset = load_persona_set(persona_set)
    total = len(pset.personas)
    if by is None:
        if segments is None:
            raise SurveyError("--personas needs --by ATTR (the set's segments) or --segments K")
        if segments > total:
            raise SurveyError(f"--segments {segments} is more than the {total} personas of {persona_set}; a segment "
                              "needs at least one persona: lower --segments or use a larger set")
        return segments, total
    from survey import attributes_frame, segment_by

    sizes = segment_by(attributes_frame(pset), by).sizes
    if segments is not None and segments != len(sizes):
        raise SurveyError(f"--segments {segments} but --by {by} makes {len(sizes)} segments of {persona_set}; "
                          "drop --segments or change --by")
    if len(sizes) < 2:
        raise SurveyError(f"--by {by} makes {len(sizes)} segment of {persona_set}; a segment plan needs at least 2")
    return sizes, total


def study_scale(study_file: str, scale_given: bool):
    """(the scale of the study's question, its StudySpec) for `survey plan STUDY`: the primary question's."""
    from survey import Study

    if scale_given:
        raise SurveyError("--scale and STUDY both name the scale: STUDY plans its own question's scale; drop one")
    spec = Study.from_toml(study_file).spec
    return spec.question.type, spec


def study_segment_sizes(spec, segments: int | None, persona_set: str | None,
                        by: str | None) -> tuple[int | dict[str, int], int | None, str]:
    """(K or segment -> personas, the study's persona count, the segments' words) of `survey plan STUDY`: the
    study's own personas (its set, count and sample) by --by, else by the study's [segments]."""
    if persona_set is not None:
        raise SurveyError("STUDY's personas are the study's own: drop --personas (or drop STUDY and give --scale)")
    if by is None and spec.segments is None:
        if segments is None:
            raise SurveyError(f"study '{spec.name}' defines no [segments]: give --by ATTR (its personas' attribute) "
                              "or --segments K")
        return segments, None, ""
    from survey import attributes_frame, build_design, segment_by

    personas = build_design(spec).personas
    definition = by if by is not None else spec.segments.definition
    sizes = segment_by(attributes_frame(list(personas)), definition).sizes
    words = definition if isinstance(definition, str) else ", ".join(definition)
    if segments is not None and segments != len(sizes):
        raise SurveyError(f"--segments {segments} but the segments of study '{spec.name}' (by {words}) are "
                          f"{len(sizes)}; drop --segments or change --by")
    if len(sizes) < 2:
        raise SurveyError(f"the personas of study '{spec.name}' by {words} make {len(sizes)} segment; a segment plan "
                          "needs at least 2")
    return sizes, len(personas), f"the personas of study {spec.name} by {words}"


def run_segment_plan(params, source, opts: dict, given: dict, as_json: bool, study=None) -> None:
    """Plan the segments and print the result (text or --json); ``study`` the StudySpec of `survey plan STUDY`,
    whose personas give the segments' sizes."""
    from survey import plan_segments

    bad = [flag for flag, value in given.items() if value]
    if bad:
        raise SurveyError(f"{bad[0]} belongs to the budget plan; a segment plan (--segments, --by) takes --pairs, "
                          "--replicates, --delta, --interaction-delta and --target-power")
    if study is not None:
        sizes, total, words = study_segment_sizes(study, opts["segments"], opts["persona_set"], opts["by"])
    else:
        sizes, total = segment_sizes(opts["segments"], opts["persona_set"], opts["by"])
        words = f"{opts['persona_set']} by {opts['by']}"
    (pairs, replicates), design = planned_design(study, opts["pairs"], opts["replicates"])
    res = plan_segments(params, sizes, pairs=pairs, replicates=replicates,
                        interaction_delta=opts["interaction_delta"], target_power=opts["target_power"] or 0.8,
                        alpha=opts["alpha"], adjustment=opts["adjustment"], simulations=opts["simulations"],
                        flips=opts["flips"], seed=opts["seed"], source=source)
    needed = max((x["n"] or 0) for x in (res.per_segment, res.interaction or {"n": 0}))
    if total is not None and not res.current and needed * res.segments > total:
        res.warnings.append(f"{opts['persona_set'] or 'the study'} has {total} personas; {res.segments} segments of {needed} "
                            f"need {needed * res.segments}")
    if as_json:
        echo_json({**res.to_dict(), "design": design})
        return
    doc = res.to_dict()
    click.echo(f"design planned: m = {pairs} paraphrase pairs ({design['pairs_from']}), r = {replicates} "
               f"({design['replicates_from']})")
    click.echo(f"parameters: {res.describe}; alpha = {res.alpha:g} ({res.adjustment} across {res.segments} "
               f"segments); Monte Carlo s.e. <= {doc['mc_error']:.3f}")
    rows = [["each segment's effect", *_row(doc["per_segment"])]]
    if doc["interaction"]:
        rows.append([f"interaction (effects {', '.join(f'{e:g}' for e in doc['interaction']['effects'])})",
                     *_row(doc["interaction"])])
    print_table(f"personas per segment for power {res.target_power:g} (m = {res.pairs} pairs, r = "
                f"{res.replicates})", ["for", "personas per segment", "power", "queries"], rows)
    if res.current:
        print_table(f"the segments of {words}",
                    ["segment", "personas", "power on its effect", "more for the effect", "more for the interaction"],
                    [[c["segment"], c["personas"], c["power"], _more(c["more_for_effect"]),
                      _more(c["more_for_interaction"])] for c in res.current])
    for w in res.warnings:
        click.echo(f"warning: {w}")


def planned_design(study, pairs: int | None, replicates: int | None) -> tuple[tuple[int, int], dict]:
    """((m, r), where each came from) of a segment plan: an option given wins, else the study's own design
    (``study`` the StudySpec of `survey plan STUDY`: its fewest paraphrases of a message and its replicates), else
    the defaults."""
    own = None
    if study is not None and (pairs is None or replicates is None):
        from survey import build_design

        own = (min(len(m.items) for m in build_design(study).messages), int(study.replicates))
    where = f"study {study.name}'s" if study is not None else ""
    m, m_from = ((pairs, "given by --pairs") if pairs is not None else
                 (own[0], f"{where} paraphrases per message") if own else (DEFAULT_PAIRS, "the default"))
    r, r_from = ((replicates, "given by --replicates") if replicates is not None else
                 (own[1], f"{where} replicates") if own else (DEFAULT_REPLICATES, "the default"))
    return (m, r), {"pairs": m, "pairs_from": m_from, "replicates": r, "replicates_from": r_from}


def _row(res: dict) -> list:
    return ["out of reach" if res["n"] is None else res["n"], res["power"] if res["n"] else res["power_at_max"],
            "" if res["queries"] is None else res["queries"]]


def _more(n) -> str:
    return "-" if n is None else str(n)
