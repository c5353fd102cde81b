"""`survey.report(...)`: the report of `survey report` as one call from a script or notebook.

It accepts a table or a path (table file or store), checks the options a user gives, and writes
through build_report; `survey/__init__.py` re-exports it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from survey.common.display import Display
from survey.common.limits import check_alpha, check_flips, check_seed
from survey.common.options import options_from, split_keywords
from survey.errors import SurveyError


@dataclass(frozen=True)
class ReportOptions:
    """How a report tests, checked once here: the level ``alpha``, the ``seed`` and the random sign vectors
    (``flips``) when a sign-flip test is not exact (as in survey.analyze)."""

    alpha: float = 0.05
    seed: int = 0
    flips: int = 9999

    def __post_init__(self):
        object.__setattr__(self, "alpha", check_alpha(self.alpha, "alpha (--alpha)"))
        check_seed(self.seed, "seed (--seed)")
        check_flips(self.flips, "flips (--flips)")


def report(data, out: str | Path, *, study: str | None = None, title: str | None = None, a: str | None = None,
           b: str | None = None, sizes: dict | None = None, extras: dict | None = None, humans=None,
           options: ReportOptions | None = None, primary: str | None = None, family: str | None = None,
           **keywords) -> Report:
    """Write the report of `survey report` into folder ``out`` (index.html, results.json, table.csv).

    ``data``: a long table (wrapped here, once, into a Source), a survey.data.sources.Source, or the path of a
    table file (.csv/.parquet) or a store (.sqlite; ``study`` picks one when it holds several). ``a``/``b``: the
    two messages, or neither for every pair. ``options``: a ReportOptions; or its fields as keywords ``alpha``,
    ``seed``, ``flips`` (random sign vectors when a sign-flip test is not exact, as in survey.analyze).
    ``sizes``: model -> size, to order the across-model plot. ``extras``: optional {"plan", "validate",
    "dbpa"} results (their ``to_dict()``/--json output) to add as sections. The keywords ``by``, ``weights``,
    ``personas``, ``adjust``: segments and a target market, as in survey.analyze (a store's study [segments]
    and [target] apply by default): a "For whom?" section per comparison. Returns the results written to
    results.json (a dict with a short repr for notebooks). ``humans``: a human file (or survey.data.humans.Humans)
    for the section "Does it match people?" (default: the one the store's study names). A study of several
    questions: ``primary`` the deciding question and ``family`` "holm" or "bh", as in survey.analyze (default the
    study's [analysis]); the report then opens with a scorecard per message pair.
    """
    from survey.data.humans import Humans, load_humans
    from survey.data.sources import Source, load_source
    from survey.reporting import build_report
    from survey.stats.analysis import SegmentOptions
    from survey.stats.kinds import CompareOptions

    segment_keywords = split_keywords(keywords, SegmentOptions)
    opts = options_from(ReportOptions, options, keywords, where="report")
    segments = SegmentOptions(**segment_keywords)
    if (a is None) != (b is None):
        raise SurveyError("give both --a and --b, or neither (then every pair of messages is compared)")
    # a path is opened as a Source: the report then shows the study's context and completeness
    as_file = humans if humans is not None and not isinstance(humans, Humans) else None
    src = (Source.of(data) if isinstance(data, pd.DataFrame | Source)
           else load_source(data, study, provenance=True, humans=as_file))
    if as_file is not None and src.humans is None:
        humans = load_humans(as_file, src.response, sorted(set(src.table["message"].astype(str))))
    extras = {k: v.to_dict() if hasattr(v, "to_dict") else v for k, v in (extras or {}).items()}
    if src.kind == "store" and "sequential" not in extras:  # a study bought in rounds
        from survey.data.sequential_paths import read_paths
        from survey.data.store import Store

        with Store(src.path, read_only=True) as store:
            extras["sequential"] = read_paths(store, src.study) or None
    return Report(build_report(src, out, title=title, a=a, b=b,
                               options=CompareOptions(alpha=opts.alpha, seed=opts.seed, flips=opts.flips), sizes=sizes, extras=extras, segments=segments,
                               humans=humans if isinstance(humans, Humans) else None, primary=primary,
                               family=family),
                  Path(out))


class Report(Display, dict):
    """The results written to results.json (a dict), shown briefly: where the page is and each headline result."""

    def __init__(self, results: dict, out: Path):
        super().__init__(results)
        self.out = out

    def display_parts(self):
        rows = [{"model": r.get("model"), "messages": f"{r.get('a')} vs {r.get('b')}",
                 **({"question": r["question"], "verdict": r.get("verdict")} if "question" in r else {}),
                 "effect": (r.get("effect") or {}).get("estimate"), "significant": r.get("significant")}
                for r in self.get("results", [])]
        return f"Report written to {self.out / 'index.html'}", rows, list(self.get("left_out", []))
