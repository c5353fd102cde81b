"""HTML reports: one self-contained index.html (plots inlined as PNG) plus results.json and table.csv.

The report reads a Source (survey.data.sources.load_source, or a long table that ``survey.report`` wraps): the
table, the study's recorded context and the data's completeness, plus optional JSON outputs of other commands.
Statistics come from survey.stats; this package does the I/O.
"""

from __future__ import annotations

import base64
import dataclasses
import io
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from survey import __version__
from survey.api.analysis import study_segments
from survey.common.formatting import to_json
from survey.data.completeness import table_completeness
from survey.data.sources import Source
from survey.data.table import messages_in, models_in, require_messages, validate_table
from survey.errors import SurveyError
from survey.reporting.context import completeness_view, paraphrase_texts, study_view
from survey.reporting.html_env import html_environment
from survey.reporting.message_set import set_headline, set_sections, set_warnings
from survey.reporting.summary import study_summary
from survey.stats.analysis import SegmentOptions, analyze, estimate, result_dict
from survey.stats.kinds import CompareOptions, FitOptions
from survey.stats.table_comparison import CompareTableOptions, compare_table


@dataclass
class Fig:
    png: str  # base64 PNG
    caption: str


@dataclass
class Section:
    """A free-form report section (planning, validity, DBPA, across models...)."""

    title: str
    paragraphs: list[str] = field(default_factory=list)
    tables: list[dict] = field(default_factory=list)  # {"columns": [...], "rows": [[...]]}
    figures: list[Fig] = field(default_factory=list)


def fig_png(fig, caption: str) -> Fig:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    return Fig(base64.b64encode(buf.getvalue()).decode("ascii"), caption)


def build_report(source: Source, out_dir: str | Path, *, title: str | None = None, a: str | None = None,
                 b: str | None = None, options: CompareOptions | None = None,
                 sizes: dict | None = None, extras: dict | None = None, segments: SegmentOptions | None = None,
                 humans=None, primary: str | None = None, family: str | None = None) -> dict:
    """Write index.html, results.json and table.csv into out_dir; return the results dict.

    ``source``: a survey.data.sources.Source (``survey.report`` wraps a DataFrame), whose study context and
    completeness the report shows (a table in memory: its own grid's completeness, its context unknown).
    ``extras``: optional {"plan": ..., "validate": ..., "dbpa": ...} outputs of those commands' --json.
    ``sizes``: model -> size, to order the across-model plot. ``segments``: survey.analyze's ``by``,
    ``weights``, ``personas`` and ``adjust`` (the study's recorded [segments] and [target] apply by default).
    ``humans``: the human answers (survey.data.humans.Humans) for "Does it match people?" (default: the source's).

    The report renders results: it computes nothing analyze, estimate and compare_table do not return, and
    it analyses once: the across-model, across-message and human views take that Analysis.
    """
    from survey.reporting.extras import extra_sections
    from survey.reporting.segments import segment_sections
    from survey.reporting.views import view_for

    context = source.context
    humans = humans if humans is not None else source.humans
    df = validate_table(source.table)
    source = Source.of(source.with_table(df), source.completeness or table_completeness(df))
    completeness = source.completeness
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    every = a is None and b is None
    require_messages(df, [a, b])
    options = options or CompareOptions(flips=9999)
    alpha = options.alpha
    wanted = study_segments(source, segments or SegmentOptions())
    res = analyze(source, a, b, every_pair=every, options=options, segments=wanted if wanted.active else None,
                  primary=primary, family=family)
    several = hasattr(res, "by_question")
    headlines, views, found, fits, exact, sections, extra_json = [], [], [], {}, {}, [], {}
    exact_sections, extra_sections_done, first_view, scorecard = [], False, None, []
    set_secs, message_sets = [], {}  # per question: a k-message study's levels and pairwise matrix
    for qid, src, part in _questions(source, res):
        view, kind, rv = part.view, part.kind, view_for(part.view)
        first_view = first_view or (view, rv)
        sets = getattr(part, "sets", None)  # three or more messages: the levels and every pair, once per model
        per_pair = not sets or rv.per_pair_sections
        shown = part.results if per_pair else []
        q_fits = {r.model: _fits(src, r, kind) for r in part.results}
        q_exact = _exact(src, part, options)
        placed = {(r.model, r.a, r.b): r for r in res.results if getattr(r, "question", None) == qid}
        if not several:
            headlines += ([set_headline(s, alpha, completeness) for s in sets] if sets else
                          [rv.headline(r, view, alpha, completeness) for r in part.results])
        views += [{**rv.section(r, src.table, view, paraphrase_texts(context), q_fits[r.model]),
                   "template": rv.template, "question": qid, "in_family": placed.get((r.model, r.a, r.b))}
                  for r in shown]
        prefix = f"question {qid}: " if several else ""  # a warning's first letter is raised below
        found += [prefix + w for s in sets or () for w in set_warnings(s)]
        found += [prefix + w for r in part.results for w in r.warnings]
        found += [prefix + w for r in shown for w in rv.warnings(r, view, alpha)]
        table = _compare_table(src, a, b, sizes, part)
        q_sections, q_json = extra_sections(src.table, None if extra_sections_done else extras, table=table,
                                            alpha=alpha, messages_html=not sets)
        extra_sections_done = several
        if several:
            for sec in q_sections:
                sec.title = f"Question {qid} — {sec.title}"
            fits[qid] = q_fits
            extra_json.update({k: v for k, v in q_json.items() if k not in ("across_models", "across_messages")})
            extra_json.setdefault("by_question", {})[qid] = {k: v for k, v in q_json.items()
                                                              if k in ("across_models", "across_messages")}
        else:
            fits, extra_json = q_fits, q_json
        for sec in (q_set_sections := [sec for s in sets or () for sec in set_sections(s, kind, view, per_pair)]):
            sec.title = prefix[:1].upper() + prefix[1:] + sec.title
        set_secs += q_set_sections
        if sets:
            message_sets[qid] = part.to_dict()["message_sets"]
        sections += segment_sections(part.results, prefix) + q_sections
        if q_exact:
            exact.setdefault(kind.exact_key, []).extend({**({"question": qid} if several else {}), **result_dict(r)}
                                                        for r in q_exact)
            exact_sections.append(Section(prefix[:1].upper() + prefix[1:] + rv.exact_title, paragraphs=[rv.exact_intro],
                                          tables=[rv.exact_table(q_exact)]))
    if several:
        from survey.reporting.questions import headlines as question_headlines
        from survey.reporting.questions import order_section, scorecard_json, scorecard_sections

        headlines, scorecard = question_headlines(res), scorecard_sections(res)
        order = order_section(res.order_effects)
        sections = ([order] if order else []) + sections
    human_json = {}
    if humans is not None:
        from survey.api.fidelity import declared_pair

        # the pair the study declared ([humans] compare) when the report names none, as survey fidelity reads it
        sections, human_json = _with_humans(sections, source, humans, declared_pair(source, a, b), res)
    sections = set_secs + exact_sections + sections
    view, rv = first_view
    summary = study_summary(df)
    warnings = [f"Left out: {x}" for x in res.left_out] + found
    for qid, part_json in [(None, extra_json), *extra_json.get("by_question", {}).items()]:
        across = part_json.get("across_models")
        if across and across["models"]["depends_on_model"]:
            warnings.insert(0, (f"Question {qid}: t" if qid else "T") + "he conclusion depends on the model: "
                            + "; ".join(across["models"]["reasons"])
                            + f". (The heterogeneity test's null: {across['models']['heterogeneity_null']}.)")
    warnings = [w[0].upper() + w[1:] for w in [*completeness.warnings(), *warnings]]
    results = {"study": completeness.study, "completeness": completeness.to_dict(), "context": context,
               "summary": summary, "alpha": alpha, "results": res.to_dict()["results"],
               **({"message_sets": message_sets if several else message_sets[None]} if message_sets else {}),
               **({"left_out": res.left_out} if res.left_out else {}),
               "fits": ({q: _fits_json(f) for q, f in fits.items()} if several else _fits_json(fits)),
               **exact, **({"scorecard": scorecard_json(res)} if several else {}),
               **extra_json, **human_json}
    env = html_environment()
    html = env.get_template("report.html.j2").render(
        title=title or "Generative survey report", generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        version=__version__, n_rows=len(df), headlines=headlines,
        warnings=warnings, summary=summary, study=study_view(df, context, completeness),
        completeness=completeness_view(completeness), reading=rv.reading, reading_template=rv.reading_template,
        scale=view,
        comparisons=views, extra_sections=sections, scorecard=scorecard,
    )
    (out / "index.html").write_text(html, encoding="utf-8")
    (out / "results.json").write_text(to_json(results), encoding="utf-8")
    df.to_csv(out / "table.csv", index=False)
    return results


def _fits_json(fits: dict) -> dict:
    return {m: {msg: {**f.summary(), "model_name": f.model_name, "notes": list(f.notes)} for msg, f in by.items()}
            for m, by in fits.items() if by}


def _questions(source: Source, res) -> list[tuple]:
    """(question id, its Source, its Analysis) per question of the report's analysis; one question: (None, the
    source, the analysis)."""
    if not hasattr(res, "by_question"):
        return [(None, source, res)]
    return [(q, source.for_question(q), part) for q, part in res.by_question.items()]


def _with_humans(sections: list, source: Source, humans, pair: tuple, analysis) -> tuple[list, dict]:
    """The "Does it match people?" section first (survey.reporting.humans), and its results for results.json;
    ``pair``: the report's (a, b), which the comparison needs when the humans saw more than two messages;
    ``analysis``: the report's, whose persona results the comparison takes. The comparison is the study's
    kind's (survey.stats.humans.by_kind): per message for most kinds, a ranking's own for rankings."""
    from survey.reporting.humans import TITLE, human_sections
    from survey.reporting.views import view_for
    from survey.stats.humans import HumanFidelity
    from survey.stats.humans.by_kind import compare_with_people

    options = analysis.options
    try:
        res = compare_with_people(source, humans, *pair, seed=options.seed, flips=options.flips, prior=analysis)
    except SurveyError as exc:  # e.g. messages the humans did not see: say so, keep the rest of the report
        return sections + [Section(TITLE, paragraphs=[f"No comparison with people: {exc}"])], {}
    own = human_sections(res) if isinstance(res, HumanFidelity) else view_for(analysis.view).humans_sections(res)
    return own + sections, {"humans": res.to_dict()}


def _fits(source: Source, r, kind) -> dict:
    """message -> the kind's fitted model of each message of one comparison, by survey.stats.analysis.estimate
    (the moment estimator, as `survey estimate` prints); none for a kind without a model."""
    if not kind.fit_params:
        return {}
    out = {}
    for msg in (r.a, r.b):
        try:
            out[msg] = estimate(source, msg, r.model, options=FitOptions(bootstrap=0))[r.model]
        except (SurveyError, KeyError):  # a degenerate message (always "No"): nothing to fit, the table says so
            continue
    return out


def _exact(source: Source, res, options: CompareOptions) -> list:
    """The same comparisons on exact mode's per-cell scores, for those whose every row carries one."""
    out = []
    exact = dataclasses.replace(options, probabilities=True)
    for r in res.results:
        if res.kind.has_exact(source.table, r.model, r.a, r.b):
            try:
                out += analyze(source, models=[r.model], pairs=[(r.a, r.b)], options=exact, strict=True).results
            except SurveyError:
                continue
    return out


def _compare_table(source: Source, a, b, sizes, analysis):
    """Across models and across messages (survey.stats.table_comparison), when the table has either; the
    report's analysis gives the comparisons it already holds."""
    df, options = source.table, analysis.options
    if len(models_in(df)) < 2 and len(messages_in(df)) < 3:
        return None
    try:
        return compare_table(source, a, b, sizes=sizes, prior=analysis, options=CompareTableOptions(
            alpha=options.alpha, n_resamples=options.flips, seed=options.seed))
    except SurveyError:
        return None
