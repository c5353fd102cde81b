"""How complete the data behind a result is, per model: the queries the study expects, those stored
with a reply, those that failed without one (e.g. content-filtered) and those missing (never stored).

Where "expected" comes from (``Completeness.basis`` says which):
- a store with the study's recorded context (survey.data.store.Store.context): the expected
  queries per model of the study's latest run, and rows outside that design are left out and counted;
- a store without one (written before the record): unknown; only the stored rows' own
  persona x paraphrase x replicate grid is checked, which cannot see personas never reached;
- a table file or a DataFrame: unknown (a table, not a store); likewise only its own grid is checked.

survey.data.sources.load_source computes it; analyze, estimate, validate, compare_table and the
report take it as ``completeness=`` (or a whole Source) and put ``to_dict()`` in their JSON (a bare
DataFrame carries none unless given; ``table_completeness(df)`` judges one by its own grid).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from survey.common.display import Display

TABLE_BASIS = ("unknown (a table, not a store): only the table's own persona × paraphrase × replicate "
               "grid is checked")
NO_CONTEXT_BASIS = ("unknown (this store holds no recorded study context): only the stored rows' own "
                    "persona × paraphrase × replicate grid is checked")
CONTEXT_BASIS = "the study's design recorded in the store by its latest run"


@dataclass
class ModelCompleteness:
    """One model's counts. ``expected`` is None when the study's count is unknown; ``grid`` is then
    the size of the data's own persona × paraphrase × replicate grid (rows stored or failed)."""

    model: str
    expected: int | None
    stored: int  # rows with a reply (valid or not)
    failed: int | None  # rows without a reply; None when the source cannot tell
    failures: dict[str, int] = field(default_factory=dict)  # error code -> rows
    grid: int | None = None
    stopped: str | None = None  # a study bought in rounds: why the rest was not needed (expected is what was bought)

    @property
    def missing(self) -> int | None:
        """Expected queries with no row at all (None when the expected count is unknown)."""
        if self.expected is None:
            return None
        return max(self.expected - self.stored - (self.failed or 0), 0)

    @property
    def grid_missing(self) -> int | None:
        return None if self.grid is None else max(self.grid - self.stored - (self.failed or 0), 0)

    @property
    def fraction(self) -> float | None:
        return None if not self.expected else min(self.stored / self.expected, 1.0)

    @property
    def complete(self) -> bool | None:
        """Every expected query answered; None when the expected count is unknown."""
        return None if self.expected is None else self.stored >= self.expected

    def describe(self) -> str:
        fails = f"{self.failed} failed" + (f" ({_codes(self.failures)})" if self.failures else "")
        if self.failed is None:
            fails = "failed unknown"
        if self.expected is not None:
            return (f"model {self.model}: {self.stored} of {self.expected} expected queries stored "
                    f"({self.fraction:.0%}), {fails}, {self.missing} missing"
                    + (f"; {self.stopped}" if self.stopped else ""))
        return (f"model {self.model}: {self.stored} of the {self.grid} queries of its own grid present"
                + (f", {fails}" if self.failed is not None else "") + f", {self.grid_missing} missing")

    def to_dict(self) -> dict:
        return {"model": self.model, "expected": self.expected, "stored": self.stored, "failed": self.failed,
                "missing": self.missing, "fraction": self.fraction, "complete": self.complete,
                "failures": dict(self.failures), "grid": self.grid, "grid_missing": self.grid_missing,
                "stopped": self.stopped}


@dataclass(repr=False)
class Completeness(Display):
    """Per-model completeness of one source, the study it was scoped to and what was left out."""

    kind: str  # "store" or "table"
    basis: str  # where the expected counts come from
    models: list[ModelCompleteness]
    study: str | None = None
    path: str | None = None
    outside: dict = field(default_factory=dict)  # rows outside the study's design: {"rows", "personas", ...}
    sequential: dict = field(default_factory=dict)  # model -> the sequential test the study stopped by, if any

    @property
    def known(self) -> bool:
        return all(m.expected is not None for m in self.models)

    @property
    def complete(self) -> bool | None:
        """True when every model got every expected reply, None when that is unknown."""
        return all(m.complete for m in self.models) if self.known else None

    def model(self, name: str) -> ModelCompleteness | None:
        return next((m for m in self.models if m.model == name), None)

    def warnings(self) -> list[str]:
        """What a reader must see next to the results: partial data, failed queries, left-out rows."""
        out = []
        for m in self.models:
            if m.expected is not None and not m.complete:
                out.append(f"incomplete data: {m.describe()}; the results rest on part of the study")
            elif m.failed:
                out.append(f"model {m.model}: {m.failed} queries failed without a reply ({_codes(m.failures)})")
            if m.expected is None and m.grid_missing:
                out.append(f"model {m.model}: {m.grid_missing} of the {m.grid} queries of the data's own "
                           "persona × paraphrase × replicate grid are missing")
        if self.outside.get("rows"):
            out.append(describe_outside(self.outside, self.study))
        return out

    def lines(self) -> list[str]:
        """The text-output description: the data and study, then the models' counts (an incomplete
        model's line is its warning instead, see ``warnings``)."""
        where = f"store {self.path}" if self.kind == "store" else (f"table {self.path}" if self.path else "a table")
        out = [f"data: {where}" + (f", study '{self.study}'" if self.study else "")]
        if not self.known:
            return [*out, f"completeness: {self.basis}", *(f"  {m.describe()}" for m in self.models)]
        done = [m.describe() for m in self.models if m.complete]
        return out + ([f"completeness: {'; '.join(done)}"] if done else [])

    def display_parts(self):
        rows = [{"model": m.model, "expected": m.expected, "stored": m.stored, "failed": m.failed,
                 "complete": m.complete} for m in self.models]
        return "; ".join(self.lines()[:1]), rows, self.warnings()

    def to_dict(self) -> dict:
        return {"source": self.kind, "path": self.path, "study": self.study, "basis": self.basis,
                "known": self.known, "complete": self.complete, "models": [m.to_dict() for m in self.models],
                "outside_design": self.outside or None, "warnings": self.warnings()}


def _codes(failures: dict[str, int]) -> str:
    return ", ".join(f"{code} × {n}" for code, n in sorted(failures.items(), key=lambda kv: (-kv[1], kv[0])))


def describe_outside(outside: dict, study: str | None) -> str:
    """'the store holds N rows of study S outside its current design (personas p10, p11, ...); left out'."""
    parts = []
    for key, label in (("models", "models"), ("personas", "personas"), ("paraphrases", "paraphrases"),
                       ("replicates", "replicates")):
        names = outside.get(key) or []
        if names:
            shown = ", ".join(str(x) for x in names[:8]) + (f", ... ({len(names)} in all)" if len(names) > 8 else "")
            parts.append(f"{len(names)} {label} no longer in it: {shown}")
    of = f" of study '{study}'" if study else ""
    return (f"the store holds {outside['rows']} rows{of} outside the study's current design "
            f"({'; '.join(parts) or 'other cells'}); they are left out of every result")


def grid_counts(keys: pd.DataFrame) -> dict[str, int]:
    """model -> size of its own persona × paraphrase × replicate grid (personas × paraphrases summed
    over messages × replicates, × questions when the rows carry a ``question`` column), from rows with key columns."""
    out = {}
    for model, sub in keys.groupby("model", sort=False):
        n_personas = sub["persona"].nunique()
        n_paraphrases = sub.groupby("message")["perturbation"].nunique().sum()
        questions = sub["question"].nunique() if "question" in sub else 1
        out[model] = int(n_personas * n_paraphrases * sub["replicate"].nunique() * questions)
    return out


def table_completeness(df: pd.DataFrame, path: str | None = None) -> Completeness:
    """A table's completeness: the study's count is unknown, its own grid is checked. A ``status``
    column (a store export with failed rows) counts the failed rows; otherwise failed is unknown."""
    status = df["status"] if "status" in df else None
    models = []
    for model, n in grid_counts(df).items():
        rows = df["model"] == model
        failed = None if status is None else int((status[rows] == "failed").sum())
        models.append(ModelCompleteness(model, None, int(rows.sum()) - (failed or 0), failed, grid=n))
    return Completeness("table", TABLE_BASIS, models, path=None if path is None else str(path))
