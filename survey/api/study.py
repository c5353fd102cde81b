"""`Study`: a study file (or a StudySpec built in code) as a Python object you plan, run and read.

This is the one path from a study to stored responses: `survey run`, `survey demo` and scripts or
notebooks all call it. The store is opened for each operation and closed after it, so nothing keeps a
SQLite handle between calls.

    study = Study.from_toml("survey-examples/sim.toml")   # after `survey init` (survey.init())
    plan = study.dry_run()        # cells, queries, tokens, cost, what is stored
    run = study.run(yes=True)     # sends only what is missing; works inside Jupyter's event loop too
    df = study.table()            # this study's long table, validated
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from survey.collect.engine import Engine, RunReport
from survey.collect.run_plan import Plan, check_keys, make_plan
from survey.common.display import Display
from survey.data.store import Store
from survey.errors import SurveyError
from survey.study.spec import StudySpec, load_study, parse_study


@dataclass(repr=False)
class StudyRun(Display):
    """What `Study.run` did: the plan it carried out and the engine's report (None: nothing to send).

    ``interrupted``: stopped by Ctrl-C or SIGTERM (every reply received is stored; run again to resume);
    ``report.signal`` says which ("SIGINT" or "SIGTERM").
    ``incomplete``: something is still owed (interrupted, failed rows, unanswered batch queries).
    """

    plan: Plan
    report: RunReport | None = None

    @property
    def interrupted(self) -> bool:
        return bool(self.report and self.report.interrupted)

    @property
    def incomplete(self) -> bool:
        return bool(self.report and self.report.incomplete)

    @property
    def stored(self) -> int:
        """Replies stored by this run (0 when nothing was sent)."""
        return self.report.stored if self.report else 0

    @property
    def failed(self) -> int:
        """Queries that failed for good in this run (a rerun sends them again)."""
        return self.report.failed if self.report else 0

    def display_parts(self):
        title = (f"Run of study '{self.plan.study.name}': {self.stored} replies stored, {self.failed} failed"
                 + (" (interrupted: run again to resume)" if self.interrupted else "")
                 + (" - nothing to send" if self.report is None else ""))
        rows = [{"model": name, "stored": m.stored, "failed": m.failed, "invalid": m.invalid}
                for name, m in (self.report.models.items() if self.report else [])]
        return title, rows, self.plan.warnings

    sequential: dict | None = None  # a study bought in rounds: model -> its sequential decision and path

    def to_dict(self) -> dict:
        """``{"plan": ..., "run": ... or None}`` (and ``"sequential"`` for a study bought in rounds), the shape
        of `survey run --json`."""
        return {"plan": self.plan.to_dict(), "run": self.report.to_dict() if self.report else None,
                **({"sequential": self.sequential} if self.sequential is not None else {})}


@dataclass
class _Progress:
    """Filled in while a run goes, so an interrupted run still has its plan and engine report."""

    plan: Plan | None = None
    engine: Engine | None = None

    def result(self) -> StudyRun:
        return StudyRun(self.plan, self.engine.report if self.engine else None)


class Study:
    """A validated study and where its relative paths resolve (store, persona/perturbation files).

    Build one with `Study.from_toml(path)`, or in code with `Study(StudySpec(...), base_dir=...)` or
    `Study.from_spec(...)`; a plain dict is validated like a study file. Relative paths resolve
    against ``base_dir`` (the study file's folder for `from_toml`; the working directory if None).
    """

    def __init__(self, spec: StudySpec | Mapping, base_dir: str | Path | None = None, *,
                 source: str | None = None):
        if isinstance(spec, Mapping):
            spec = parse_study(dict(spec), source or "study")
        elif not isinstance(spec, StudySpec):
            raise SurveyError(f"Study needs a StudySpec or a dict, got {type(spec).__name__}")
        if base_dir is not None:
            spec = spec.model_copy()  # the caller's spec keeps its own base folder
            spec._base_dir = Path(base_dir).expanduser().resolve()
            spec._sets_dir = None  # sets resolve against the new base folder too
        self.spec = spec
        self.source = source or f"study '{spec.name}'"  # names the study in error messages

    @classmethod
    def from_toml(cls, path: str | Path) -> Study:
        """Read and validate a study TOML file; relative paths in it resolve against its folder."""
        return cls(load_study(path), source=str(path))

    @classmethod
    def from_spec(cls, spec: StudySpec | Mapping, base_dir: str | Path | None = None) -> Study:
        """Same as ``Study(spec, base_dir)``: a StudySpec built in code, or a dict shaped like the TOML."""
        return cls(spec, base_dir)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def store_path(self) -> Path:
        """The SQLite store of this study's responses (created by the first dry run or run)."""
        return self.spec.store_path

    def __repr__(self) -> str:
        return f"Study({self.name!r}, store={str(self.store_path)!r})"

    def dry_run(self, models: list[str] | None = None, *, drop_changed: bool = False,
                rename_stored: str | None = None) -> Plan:
        """What a run would do, sending nothing: per model the queries, what is stored, what is missing,
        estimated tokens and cost, and open batch jobs; ``plan.context`` names the set files used.

        ``models`` restricts the plan to these model names. Stored replies collected with another prompt
        or settings are refused as by `run`; ``drop_changed`` / ``rename_stored`` plan as if that way out
        were taken (nothing is changed). ``plan.to_dict()`` is `survey run --dry-run --json`.
        A model with queries to send whose API key variable is missing or empty is refused, as the run would.
        """
        plan = self._read_plan(models, drop_changed, rename_stored)
        check_keys(plan)
        return plan

    def _read_plan(self, models: list[str] | None = None, drop_changed: bool = False,
                   rename_stored: str | None = None) -> Plan:
        """``dry_run`` without the key check (an offline batch file needs no key)."""
        self._check_batch()
        # a dry run writes nothing: an existing store is read, a missing one is an empty one in memory
        # a zero-byte file is an empty database a run fills in (a reader's probe may have made it)
        exists = self.store_path.exists() and self.store_path.stat().st_size > 0
        if not exists:
            _check_store_folder(self.store_path)  # what a run would refuse, the dry run refuses
        read_only = exists and not (drop_changed or rename_stored)  # those are tried in a rolled-back transaction
        with Store(self.store_path if exists else ":memory:", read_only=read_only) as store:
            return self._plan(store, models, drop_changed, rename_stored, apply=False)

    def run(self, *, yes: bool = False, models: list[str] | None = None, max_attempts: int = 8,
            poll_interval: float = 10.0, progress: bool | None = None, drop_changed: bool = False,
            rename_stored: str | None = None) -> StudyRun:
        """Collect what the store is missing and return a `StudyRun`; a rerun sends only what is missing.

        ``yes`` must be True when paid models have queries to send (otherwise SurveyError); the
        study's budget is checked either way. ``max_attempts``: attempts per query on retryable errors;
        ``poll_interval``: first seconds between batch polls (grows to 2 minutes); ``progress``: progress
        bars on stderr (None: when stderr is a terminal).

        Stored replies collected with another prompt or settings (a changed template, persona text,
        paraphrase or temperature) are refused with an error naming what changed. ``rename_stored=NAME``
        keeps every stored row of the study as study NAME and collects the study afresh;
        ``drop_changed=True`` deletes just the changed rows and collects them again. The run records the
        study's context (set files and their sha256, texts, expected queries: `Store.context`).

        Blocking. Inside a running event loop (Jupyter) the run gets its own loop in a worker thread;
        from async code, ``await study.arun(...)`` instead. Ctrl-C (or a kernel interrupt) stops the run
        and returns it with ``interrupted = True``: every reply received by then is stored. In the main
        thread SIGTERM (docker stop, systemd, ``timeout``) does the same while the run lasts.
        Before the first query each model gets one cheap preflight request: a wrong URL, port or API
        key raises SurveyError naming the model, the URL and the fix.
        """
        from survey.common.event_loop import Terminated, run_coroutine

        state = _Progress()
        try:
            run_coroutine(self._collect(state, yes, models, max_attempts, poll_interval, progress,
                                        drop_changed, rename_stored), sigterm=True)
        except KeyboardInterrupt as exc:
            if state.engine is None:  # stopped before anything was sent
                raise
            state.engine.report.interrupted = True
            state.engine.report.signal = "SIGTERM" if isinstance(exc, Terminated) else "SIGINT"
        return self._with_decisions(state.result())

    def _with_decisions(self, result: StudyRun) -> StudyRun:
        """A study bought in rounds: the run carries each model's sequential decision (`survey run --json`)."""
        if self.spec.sequential is not None:
            result.sequential = self.sequential_results()
        return result

    async def arun(self, *, yes: bool = False, models: list[str] | None = None, max_attempts: int = 8,
                   poll_interval: float = 10.0, progress: bool | None = None, drop_changed: bool = False,
                   rename_stored: str | None = None) -> StudyRun:
        """`run` for async code: same arguments and result. Cancelling it cancels the run; every reply
        received by then is stored and the cancellation propagates."""
        state = _Progress()
        await self._collect(state, yes, models, max_attempts, poll_interval, progress, drop_changed,
                            rename_stored)
        return self._with_decisions(state.result())

    def sequential_results(self) -> dict[str, dict]:
        """model -> decision and path of a study bought in rounds (its ``[sequential]`` table); {} otherwise."""
        from survey.data.sequential_paths import read_paths

        with Store(self.store_path) as store:
            return read_paths(store, self.name)

    def table(self, include_failed: bool = False) -> pd.DataFrame:
        """This study's long table (only its rows, even when the store holds other studies), validated.

        Only the rows inside the design its latest run recorded: rows of an earlier design (e.g.
        personas cut since) are left out; ``load()`` counts and names them.
        ``include_failed`` also returns rows whose call failed (no answer); they are not validated then.
        """
        from survey.data.design_rows import in_design
        from survey.data.table import validate_table

        with Store(self.store_path, read_only=True) as store:
            df = store.to_long_table(self.name, include_failed=include_failed)
            ctx = store.context(self.name)
        if ctx and len(df):
            df = df[in_design(df, ctx)].reset_index(drop=True)
        if include_failed:
            return df
        if df.empty:
            raise SurveyError(f"{self.store_path}: study '{self.name}' has no answered queries yet; run it first")
        return validate_table(df)

    def load(self):
        """This study's table with what it rests on (a survey.data.sources.Source): the recorded
        context and each model's completeness (queries expected, stored, failed, missing) and the
        rows left out of the current design. ``survey.analyze(study.load())`` carries them along."""
        from survey.data.sources import load_source

        return load_source(self.store_path, self.name)

    # -- internals -----------------------------------------------------------------------------

    def _check_batch(self) -> None:
        from survey.backends import backend_capabilities

        for m in self.spec.models:
            if m.batch and not backend_capabilities(m.backend, m.options).batch:
                raise SurveyError(f"{self.source}: model '{m.name}': backend '{m.backend}' has no batch API; "
                                  "set batch = false")

    def _plan(self, store: Store, models: list[str] | None, drop_changed: bool, rename_stored: str | None,
              apply: bool) -> Plan:
        """The plan after refusing changed rows or taking the way out asked for; ``apply=False`` takes it
        inside a transaction that is rolled back, so a dry run (or a run's checks) changes nothing."""
        from survey.collect.changed import resolve_changed
        from survey.study.design import build_design

        design = build_design(self.spec)
        if not apply:
            store.db.execute("BEGIN")
        try:
            resolve_changed(design, store, drop_changed=drop_changed, rename_stored=rename_stored)
            return make_plan(self.spec, store, design, models=list(models) if models else None)
        finally:
            if not apply:
                store.db.execute("ROLLBACK")

    async def _collect(self, state: _Progress, yes: bool, models: list[str] | None, max_attempts: int,
                       poll_interval: float, progress: bool | None, drop_changed: bool = False,
                       rename_stored: str | None = None) -> None:
        from survey.collect.runner import collect
        from survey.collect.similarity_rating import rate_stored

        self._check_batch()
        with Store(self.store_path) as store:  # opened in the thread that runs the loop (SQLite wants that)
            if store.migrated is not None:  # a store from before several questions per study: upgraded on open
                print(f"{self.store_path}: upgraded for several questions per study: added the question column "
                      f"({store.migrated} rows kept as question 'q')", file=sys.stderr)
            plan = state.plan = self._plan(store, models, drop_changed, rename_stored, apply=False)
            plan.check_budget()
            if plan.paid and not yes:
                cost = "unknown" if plan.cost is None else f"${plan.cost:,.4f}"
                raise SurveyError(f"{self.source} sends {plan.to_send} queries to paid providers (estimated "
                                  f"cost {cost}); pass yes=True to confirm")
            if drop_changed or rename_stored is not None:  # checked and confirmed: now take the way out
                plan = state.plan = self._plan(store, models, drop_changed, rename_stored, apply=True)
            store.record_context(self.name, plan.context)
            if plan.to_send == 0 and not any(m.open_jobs for m in plan.models):
                rate_stored(store, self.spec)  # replies an interrupted run stored but did not rate
                return
            engine = state.engine = Engine(
                store, max_attempts=max_attempts, poll_interval=poll_interval,
                max_poll_interval=max(poll_interval, 120.0),
                progress=sys.stderr.isatty() if progress is None else progress)
            if self.spec.sequential is not None:  # rounds of paraphrase pairs until the test decides
                from survey.collect.sequential import collect_in_rounds

                await collect_in_rounds(engine, plan, collect)
            else:
                await collect(engine, plan)
            rate_stored(store, self.spec)  # ssr: embed the new replies and rate them (a no-op for other types)


def _check_store_folder(path: Path) -> None:
    """A store a run could create: its nearest existing ancestor is a folder (checked without creating one)."""
    for parent in Path(path).absolute().parents:
        if parent.exists():
            if not parent.is_dir():
                raise SurveyError(f"store {path}: cannot create its folder: {parent} is a file, not a folder")
            return


def study_store(path, study: str | None = None) -> tuple[Path, str | None]:
    """The store and study a reading command reads: a study file (.toml) stands for the store its run filled and
    its own study; any other path is a store or table, with ``study`` as given."""
    if Path(path).suffix.lower() != ".toml":
        if not Path(path).exists():  # here all three forms open, so the words name all three
            raise SurveyError(f"{path}: no such file (give a .csv/.parquet table, a .sqlite store or a .toml study "
                              "file)")
        return Path(path), study
    spec = Study.from_toml(path)
    if study is not None and study != spec.name:
        raise SurveyError(f"{path} is study '{spec.name}'; --study {study} names another: give its store instead")
    if not spec.store_path.exists():
        raise SurveyError(f"{path}: its store {spec.store_path} does not exist yet: `survey run {path}` first")
    return spec.store_path, spec.name


def open_source(path, study: str | None = None, *args, **keywords):
    """survey.load_source on a table, a store, or a study file (its store, see ``study_store``): one resolver
    for every command that reads answers."""
    from survey.data.sources import load_source
    from survey.errors import TableError

    store, name = study_store(path, study)
    if name is not None:
        _require_answers(path, store, name)
    try:
        return load_source(store, name, *args, **keywords)
    except TableError as exc:  # the table layer knows tables and stores; here a study file opens too
        if "unknown table format" in str(exc):
            raise TableError(f"{exc}, or a .toml study file") from None
        raise


def _require_answers(path, store: Path, name: str) -> None:
    """A study file whose store holds none of its answers yet (a fielded study's store exists from the first
    respondent, before any model ran) says what to do, not that the store has no such study."""
    from survey.data.sources import is_store

    if not is_store(store):
        return  # the table layer names what the path is
    with Store(store, read_only=True) as st:
        if name not in st.studies():
            raise SurveyError(f"{path}: its store {store} holds no answers of study '{name}' yet: "
                              f"`survey run {path}` first")
