"""Open what a user points at, a long-table file (.csv/.parquet) or a response store (SQLite), as a
validated long table. Analyses call this and never care which it was.

``load_source`` returns a ``Source``: the table plus the study it was scoped to, the study's recorded
context (a store's, else None) and the data's completeness (survey.data.completeness). From a store
the table holds one study's rows only, and only those inside the study's current design when the
store recorded it: rows left from an earlier design (e.g. personas cut since) are counted, named in
the completeness warnings and left out. ``load_long_table`` returns just the table.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pandas as pd

from survey.common.display import Display
from survey.data.completeness import (
    CONTEXT_BASIS,
    NO_CONTEXT_BASIS,
    Completeness,
    ModelCompleteness,
    grid_counts,
    table_completeness,
)
from survey.data.design_rows import in_design, outside_design
from survey.data.store_questions import recorded_questions
from survey.data.table import read_table, validate_table
from survey.errors import SurveyError
from survey.responses import DEFAULT_SCALE, response_type

_SQLITE_MAGIC = b"SQLite format 3\x00"


def is_store(path: Path) -> bool:
    if path.suffix.lower() in (".sqlite", ".sqlite3", ".db"):
        return True
    try:
        with path.open("rb") as fh:
            return fh.read(16) == _SQLITE_MAGIC
    except OSError:
        return False


@dataclass(frozen=True)
class RecordedHumans:
    """The human file a study named, as its run recorded it (``humans = ...`` and ``[humans]``)."""

    path: str | None = None
    sha256: str | None = None
    rendered_personas: int | None = None  # how many respondents the models answered about, then
    settings: dict | None = None  # the study's [humans] settings (wide, columns, compare, ...) as recorded

    @property
    def compare(self) -> tuple[str, str] | None:
        """The pair the study declared for its comparison with the humans (``[humans] compare = [A, B]``)."""
        pair = (self.settings or {}).get("compare")
        return (str(pair[0]), str(pair[1])) if pair else None


@dataclass(frozen=True)
class StudyContext:
    """What a study's run recorded beside its rows (survey.data.store's context), parsed once: the messages in
    the study's order, its human file, its [segments] and [target] (the defaults of an analysis) and each
    model's sequential path. A table file has none: every field is empty."""

    messages: tuple[str, ...] = ()
    # the study's questions in study order, each {"id", "scale", "template", "max_tokens"} (a store from before
    # several questions: the one question "q"); the primary's id ([analysis] primary, None when not named), the
    # family adjustment over questions x pairs and how the questions were asked
    questions: tuple[dict, ...] = ()
    primary: str | None = None
    family: str = "holm"
    flow: str = "independent"
    question: dict | None = None  # Source.for_question: the entry of the question the source holds
    humans: RecordedHumans | None = None
    segments: object = None  # the study's [segments]: what analyze's ``by`` defaults to
    target: dict | None = None  # the study's [target]: {"margins": ..., "source": ...}
    sequential: dict = field(default_factory=dict)  # model -> the recorded sequential path (data bought in rounds)

    @classmethod
    def parse(cls, ctx: dict | None, sequential: dict | None = None) -> StudyContext:
        ctx = ctx or {}
        humans = ctx.get("humans") or {}
        analysis = ctx.get("analysis") or {}
        return cls(messages=tuple(str(m["id"]) for m in ctx.get("messages") or []),
                   questions=recorded_questions(ctx), primary=ctx.get("primary"), family=ctx.get("family") or "holm",
                   flow=ctx.get("flow") or "independent",
                   question=ctx.get("question") if ctx.get("for_question") else None,
                   humans=RecordedHumans(humans.get("path"), humans.get("sha256"), humans.get("rendered_personas"),
                                         humans.get("spec")) if humans else None,
                   segments=analysis.get("segments"), target=analysis.get("target") or None,
                   sequential=dict(sequential or {}))

    def question_ids(self) -> list[str]:
        return [str(q["id"]) for q in self.questions]

    @property
    def humans_pair(self) -> tuple[str, str] | None:
        """The pair the study declared for its comparison with the humans, else None."""
        return self.humans.compare if self.humans is not None else None


@dataclass(repr=False)
class Source(Display):
    """A validated long table and what it rests on: the one input of every analysis. A DataFrame is wrapped
    once, where a user hands it over (``Source.of``)."""

    table: pd.DataFrame
    path: str
    kind: str  # "store" or "table"
    study: str | None  # the study a store's rows were scoped to (None for a table file)
    context: dict | None  # the study's recorded context (Store.context), when the store has one
    completeness: Completeness | None  # None: a table in memory, which says nothing about where it came from
    humans: object = None  # survey.data.humans.Humans: the human answers beside the personas, when named

    @classmethod
    def of(cls, data, completeness: Completeness | None = None) -> Source:
        """``data`` as a Source: a Source as it is (with ``completeness`` instead of its own when given), a long
        table in memory as one that rests on nothing recorded."""
        if isinstance(data, Source):
            if completeness is None or completeness is data.completeness:
                return data
            return cls(data.table, data.path, data.kind, data.study, data.context, completeness, data.humans)
        if not isinstance(data, pd.DataFrame):
            raise SurveyError(f"give a long table (a DataFrame) or a Source (survey.load_source); got "
                              f"{type(data).__name__}")
        if completeness is None:
            return cls(data, "", "table", None, None, None)
        return cls(data, completeness.path or "", completeness.kind, completeness.study, None, completeness)

    def with_table(self, table: pd.DataFrame) -> Source:
        """The same source over another table (e.g. validated against a scale, or some models' rows)."""
        return Source(table, self.path, self.kind, self.study, self.context, self.completeness, self.humans)

    @property
    def fielded_gap(self) -> str:
        """Why a store holding fielded responses (`survey field`) gives no human answers (every respondent failed
        the attention check, or the question shows the messages together), or "" when it holds none."""
        from survey.data.fielded import fielded_gap

        return fielded_gap(self.path, self.study) if self.kind == "store" else ""

    @property
    def questions(self) -> list[str]:
        """The question ids, in study order when the store recorded it, else in order of appearance ("q" for a table
        or store of one question)."""
        from survey.data.table import questions_in

        present = questions_in(self.table)
        recorded = [q for q in self.study_context.question_ids() if q in present]
        return recorded + [q for q in present if q not in recorded]

    def for_question(self, qid: str) -> Source:
        """The rows of one question, as a Source of their own: its scale is the question's, and its context
        holds that question's entry (``study_context.question``) beside the study's."""
        ids = self.questions
        if qid not in ids:
            raise SurveyError(f"no question '{qid}': the source asks {', '.join(ids)}")
        t = self.table
        table = t if "question" not in t.columns or len(ids) == 1 else t[t["question"].astype(str) == qid].reset_index(
            drop=True)
        ctx = self.context
        if ctx is not None:
            entry = next((q for q in recorded_questions(ctx) if q["id"] == qid), None)
            ctx = {**ctx, "for_question": qid, **({"question": entry} if entry is not None else {})}
        one = Source(table, self.path, self.kind, self.study, ctx, self.completeness, self.humans)
        if getattr(self.humans, "fielded_question", qid) != qid:  # people's answers to this question instead
            from survey.data.fielded import fielded_humans

            messages = sorted(set(one.table["message"].astype(str)))
            one = dataclasses.replace(one, humans=fielded_humans(self.path, self.study, None, messages, question=qid))
        return one

    @cached_property
    def study_context(self) -> StudyContext:
        """The recorded context, parsed (survey.data.sources.StudyContext)."""
        return StudyContext.parse(self.context, self.completeness.sequential if self.completeness else None)

    @property
    def scale(self) -> str | None:
        """The table's response type, when its ``scale`` column names one."""
        t = self.table
        return str(t["scale"].iloc[0]) if "scale" in t.columns and len(t) else None

    @property
    def response(self):
        """The response type the rows were answered on, as they describe it (survey.responses.base.ResponseType
        .for_rows): the ``scale`` column's type (Yes/No without one) with what a run stored beside each reply (a
        checkbox question's option names), read from the rows of the question ``scale`` is taken from."""
        t = self.table
        if "question" in t.columns and len(t):
            t = t[t["question"].astype(str) == str(t["question"].iloc[0])]
        return response_type(self.scale or DEFAULT_SCALE).for_rows(t)

    def display_parts(self):
        t = self.table
        rows = [{"model": m, "rows": int(n), "messages": int(t.loc[t["model"] == m, "message"].nunique()),
                 "personas": int(t.loc[t["model"] == m, "persona"].nunique())}
                for m, n in t["model"].value_counts(sort=False).items()]
        where = f"{self.kind} {self.path}" + (f", study '{self.study}'" if self.study else "")
        notes = self.completeness.warnings() if self.completeness else []
        if self.humans is not None:
            h = self.humans.summary()
            notes = [f"humans: {h['respondents']} respondents from {h['path']}", *notes]
        return f"Source: {len(t)} rows from {where}", rows, notes

def load_source(path: str | Path, study: str | None = None, min_perturbations: int = 2,
                scale: str | None = None, *, provenance: bool = False, humans: str | Path | dict | None = None) -> Source:
    """The validated long table in a .csv/.parquet file or a store, with its study, context and completeness.
    A study file (.toml) is refused, naming survey.open_source, which opens the store its run filled.

    A store's rows are scoped to ``study``, or to its only study (an error lists them when it holds several).
    ``scale``: the response type of a table file without a ``scale`` column (e.g. "likert5"; default Yes/No);
    a table or store that names its scale must agree with it.
    ``provenance``: from a store, also read each reply's text, log-probabilities, extra JSON, prompt hash,
    attempts, errors and timestamps (exports and reports show them); without it a store is read in one
    lean pass with the columns an analysis uses (keys, answer, expected score, scale columns, model ids,
    tokens, backend, design order), which at a million rows is several times faster and smaller.
    ``humans``: a human file (survey.data.humans) to hold beside the personas as ``Source.humans``, as a path or as
    a study's [humans] table (a dict with ``file`` and optionally ``wide``, ``id_column``, ``columns``); a store
    whose study named one (``humans = ...`` in the study file) brings it without being told.
    """
    src = _load_source(path, study, min_perturbations, scale, provenance)
    people = _humans_for(src, humans)
    return src if people is None else dataclasses.replace(src, humans=people)


def _humans_for(src: Source, path) -> object:
    """The human file given, else the one the store's study recorded (checked against the table's scale and
    messages)."""
    from survey.data.humans import load_humans

    recorded = src.study_context.humans
    if path is None and not (recorded and recorded.path):
        if src.kind != "store":
            return None
        from survey.data.fielded import fielded_humans  # answers fielded to people (`survey field`)

        return fielded_humans(src.path, src.study, src.scale, sorted(set(src.table["message"].astype(str))))
    messages = sorted(set(src.table["message"].astype(str)))
    if path is not None:  # read as the rows' own type: a checkbox's answers may name its options
        return load_humans(path, src.response, messages)
    if not Path(recorded.path).exists():
        raise SurveyError(f"{src.path}: the study's human file {recorded.path} is gone; give it with `humans=`")
    if recorded.sha256:
        import hashlib

        now = hashlib.sha256(Path(recorded.path).read_bytes()).hexdigest()
        if now != recorded.sha256:
            asked = (f"; its models answered about {recorded.rendered_personas} respondents as they were then"
                     if recorded.rendered_personas else "")
            raise SurveyError(f"{src.path}: the human file {recorded.path} changed since the run recorded it (sha256 "
                              f"{recorded.sha256[:12]}, now {now[:12]}){asked}: restore it, or run the study again "
                              "into a new store")
    opts = recorded.settings or {}
    return load_humans(recorded.path, src.response, messages, wide=opts.get("wide"), columns=opts.get("columns"),
                       id_column=opts.get("id_column"))


def _load_source(path, study, min_perturbations, scale, provenance: bool = False) -> Source:
    if scale is not None:
        response_type(scale)  # an unknown name fails first, naming the known ones
    path = Path(path)
    if path.suffix.lower() == ".toml":  # the study layer resolves a study file to its store (survey.open_source)
        raise SurveyError(f"{path}: a study file, not a table or store: give the store its run filled (the study's "
                          "`store`), or open it with survey.open_source(path), which reads that store")
    if not path.exists():
        raise SurveyError(f"{path}: no such file (give a .csv/.parquet table or a .sqlite store)")
    if not is_store(path):
        if study:
            raise SurveyError("`study=` applies to a store, not to a table file")
        df = read_table(path, min_perturbations=min_perturbations, scale=scale)
        return Source(df, str(path), "table", None, None, table_completeness(df, str(path)))
    from survey.data.store import Store

    with Store(path, read_only=True) as st:
        if provenance:
            df = st.to_long_table(study)  # refuses several studies without a choice, and unknown ones
            study = study or (str(df["study"].iloc[0]) if len(df) else (st.studies() or [None])[0])
            states = st.states(study) if study else pd.DataFrame()
        else:  # the table and the completeness's row states from one pass
            study, df, states = st.read_study(study)
        ctx = st.context(study) if study else None
        rounds = _sequential_decisions(st, study) if study else {}
    held = len(df)
    if ctx:
        inside, states_inside = in_design(df, ctx), in_design(states, ctx)
        outside = outside_design(states, ctx, states_inside)
        if not inside.all():  # (a boolean index copies the whole table even when it keeps every row)
            df = df[inside].reset_index(drop=True)
        if not states_inside.all():
            states = states[states_inside]
        completeness = _store_completeness(states, ctx, study, str(path), outside)
        _stopped_early(completeness, ctx, rounds)
    else:
        completeness = _store_completeness(states, None, study, str(path), {})
    completeness.sequential = rounds  # what decides on data collected in rounds (survey.stats.analysis)
    if df.empty and held:
        raise SurveyError(f"{path}: none of the {held} replies of study '{study}' is inside its current "
                          f"design; {completeness.warnings()[-1]}")
    if df.empty:
        raise SurveyError(f"{path}: the store holds no answered queries yet; run the study first")
    return Source(validate_table(df, min_perturbations=min_perturbations, scale=scale), str(path), "store", study,
                  ctx, completeness)


def load_long_table(path: str | Path, study: str | None = None, min_perturbations: int = 2,
                    scale: str | None = None, *, provenance: bool = False) -> pd.DataFrame:
    """The validated long table in a .csv/.parquet file or a store (``study`` picks one when it holds
    several); ``load_source`` also says what it rests on."""
    return _load_source(path, study, min_perturbations, scale, provenance).table


def _sequential_decisions(store, study: str) -> dict[str, dict]:
    from survey.data.sequential_paths import read_paths

    return read_paths(store, study)


def _stopped_early(completeness: Completeness, ctx: dict, rounds: dict[str, dict]) -> None:
    """A model whose sequential test decided before the last round was bought only the rounds it needed:
    its expected queries are those rounds' (per paraphrase, as the recorded design expects), not the
    whole design's, so it is not reported as incomplete for queries the stopping rule chose not to buy."""
    paraphrases = sum(len(m.get("paraphrases") or []) for m in ctx.get("messages") or [])
    for m in completeness.models:
        doc = rounds.get(m.model)
        if not doc or doc.get("decision") not in ("reject", "futility") or not m.expected or not paraphrases:
            continue
        if doc["pairs"] >= doc.get("max_pairs", doc["pairs"] + 1):
            continue
        bought = round(m.expected * 2 * doc["pairs"] / paraphrases)
        m.stopped = (f"stopped by the sequential test ({doc['decision']}) after {doc['pairs']} of "
                     f"{doc['max_pairs']} paraphrase pairs: {m.expected - bought} queries of the full design "
                     "were not needed")
        m.expected = bought


def _store_completeness(states: pd.DataFrame, ctx: dict | None, study: str | None, path: str,
                        outside: dict) -> Completeness:
    expected = {str(m["name"]): m.get("expected_queries") for m in (ctx or {}).get("models") or []}
    grids = grid_counts(states) if len(states) else {}
    models = []
    for model in list(expected) + [m for m in grids if m not in expected]:
        rows = states[states["model"] == model]
        failed = rows[rows["status"] == "failed"]
        codes = failed["error_code"].fillna("unknown error").astype(str).value_counts()
        exp = expected.get(model)
        models.append(ModelCompleteness(model, None if exp is None else int(exp), int((rows["status"] == "ok").sum()),
                                        len(failed), {str(k): int(v) for k, v in codes.items()},
                                        grid=None if exp is not None else grids.get(model)))
    basis = CONTEXT_BASIS if ctx and all(v is not None for v in expected.values()) else NO_CONTEXT_BASIS
    return Completeness("store", basis, models, study=study, path=path, outside=outside)
