"""The long response table: the contract between collection and analysis.

One row per query with the columns ``model, message, perturbation, persona, replicate, answer``
(the score: 1 = Yes, 0 = No for Yes/No; the point for a rating scale; empty = invalid), plus
optional ``response`` (raw text) and provenance columns. A ``scale`` column names each row's
response type (survey.responses: ``binary``, ``likert5``, ``rating0-10``, ``choice``, ``text``); its
answers must be that type's values or empty. A table from the store always has it; a hand-made
table without it is Yes/No unless the caller names its scale (``--scale`` on the command line).
Free text (``text``) has no answer. Forced choice adds the columns of survey.data.scale_columns.
Anything that produces this table can be analysed; the analyses never care where it came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from survey.data.pairing import perturbation_order
from survey.data.scale_columns import CHOICE_COLUMNS
from survey.data.table_questions import check_questions, question_column, questions_in  # noqa: F401 (re-exported)
from survey.data.table_questions import key_text as _strings
from survey.data.table_questions import row_labels as _rows
from survey.errors import SurveyError, TableError
from survey.responses import DEFAULT_SCALE, is_scale, known_scales, response_type

KEY = ["model", "message", "perturbation", "persona", "replicate"]
COLUMNS = [*KEY, "answer"]
# the question a row answers (several questions per study): part of the row key; a table without it is one
# question, "q" (survey.common.names.DEFAULT_QUESTION)
ROW_KEY = [*KEY, "question"]
_TEXT_KEYS = ["model", "message", "perturbation", "persona"]


def validate_table(df: pd.DataFrame, min_perturbations: int = 2, *, rows: str = "row",
                   scale: str | None = None, questions: list[str] | None = None) -> pd.DataFrame:
    """Check a long table against the contract and return a normalised copy.

    Key columns become strings, ``replicate`` an int, ``answer`` a nullable Int16 (<NA> = invalid).
    ``scale``: the response type of a table without a ``scale`` column (default Yes/No); a table
    that has one must agree with it. ``questions``: the ids of the study's questions, when the table is read
    against a study; a table answering another question is refused.
    Raises TableError naming the problem and, where possible, the offending rows by their index
    label; ``rows`` names what the labels are: "row" (a DataFrame's index), "line" (a CSV file's line
    numbers, the header being line 1) or "data row" (counted from 1).
    """
    if not isinstance(df, pd.DataFrame):
        raise TableError(f"expected a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise TableError(
            f"missing column(s) {', '.join(missing)}; a long table needs {', '.join(COLUMNS)}"
        )
    if len(df) == 0:
        raise TableError("the table has no rows")
    out = df.copy()
    for col in _TEXT_KEYS:
        if out[col].isna().any():
            where = _rows(out.index[out[col].isna()], rows)
            raise TableError(f"column '{col}' is empty in {where}; every row needs a {col}")
        out[col] = _strings(out[col])
    if "question" in out.columns:  # several questions: an empty id would be a question of its own, named ""
        blank = out["question"].isna() | out["question"].astype(str).str.strip().eq("")
        if blank.any():
            raise TableError(f"column 'question' is empty in {_rows(out.index[blank], rows)}; every row needs a "
                             "question id (or drop the column: one question)")
        out["question"] = _strings(out["question"])
    rep = pd.to_numeric(out["replicate"], errors="coerce")
    bad = rep.isna() | (rep < 0) | (rep != np.floor(rep))
    if bad.any():
        raise TableError(
            f"column 'replicate' must hold whole numbers >= 0; bad value(s) in {_rows(out.index[bad], rows)}"
        )
    out["replicate"] = rep.astype("int64")
    question_column(out, rows)
    if questions is not None:
        check_questions(out, questions)
    if "scale" in out.columns:
        out["scale"] = _parse_scales(out["scale"], rows)
        if scale is not None and not out["scale"].eq(response_type(scale).scale).all():
            found = ", ".join(sorted(pd.unique(out["scale"])))
            raise TableError(f"the table's scale column says {found}, not '{scale}'; drop `scale=` (the column "
                             "names the scale) or fix the column")
    elif scale is not None:
        out["scale"] = response_type(scale).scale
    out["answer"] = _parse_answers(out["answer"], out.get("scale"), rows)
    if scale is not None and "scale" not in df.columns:
        _check_declared_range(out["answer"], response_type(scale))
    dup = out.duplicated(ROW_KEY, keep=False)
    if dup.any():
        first = out.loc[dup, ROW_KEY].iloc[0].to_dict()
        raise TableError(
            f"{int(dup.sum())} rows share a key ({', '.join(ROW_KEY)}), e.g. {first} in {_rows(out.index[dup], rows)}; "
            "each query must appear once"
        )
    if min_perturbations:
        counts = out.groupby(["model", "message"])["perturbation"].nunique()
        few = counts[counts < min_perturbations]
        if len(few):
            (model, message), k = next(iter(few.items()))
            raise TableError(
                f"message '{message}' (model '{model}') has {k} perturbation(s); "
                f"the tests need at least {min_perturbations} per message"
            )
    return out


def _check_declared_range(answers: pd.Series, rtype) -> None:
    """A scale the caller declared for a table without a ``scale`` column must fit the answers: when none
    lies in the upper (or lower) half of a scale of five or more points, the answers were most likely
    given on a shorter scale (1-5 answers read as rating0-10 once gave "top-2-box 0% vs 0%" without a
    word). A table whose own ``scale`` column names the scale is trusted as it is."""
    valid = answers.dropna().astype(int)
    if not rtype.view.ordered or len(rtype.values) < 5 or valid.empty:
        return
    low, high = rtype.low, rtype.high
    middle = (low + high) / 2
    lo, hi = int(valid.min()), int(valid.max())
    if hi <= middle or lo >= middle:
        part = "upper" if hi <= middle else "lower"
        raise TableError(f"no answer uses the {part} half of the declared scale {rtype.scale} ({low} to {high}): "
                         f"the {len(valid)} valid answers run from {lo} to {hi}. Declare the scale they were "
                         f"given on (e.g. `scale={f'likert{hi}' if lo >= 1 else f'likert{lo}-{hi}'}`), or, if {rtype.scale} is right, name it in a "
                         "'scale' column of the table")


def _parse_scales(col: pd.Series, rows: str = "row") -> pd.Series:
    """Response type names; an empty cell is the default (Yes/No), an unknown name is an error."""
    names = col.astype("string").str.strip()
    names = names.where(names.notna() & (names != ""), DEFAULT_SCALE).astype(object)
    known = {v: is_scale(v) for v in pd.unique(names)}
    unknown = ~names.map(known).astype(bool)
    if unknown.any():
        vals = ", ".join(sorted({f"'{v}'" for v in names[unknown].head(5)}))
        raise TableError(f"column 'scale' names unknown response type(s) {vals} in "
                         f"{_rows(col.index[unknown], rows)}; known: {known_scales()}")
    return names


def _parse_answers(col: pd.Series, scales: pd.Series | None = None, noun: str = "row") -> pd.Series:
    """Accept the scale's values (1/0, '1'/'0', 1.0/0.0 for Yes/No) and empty/NaN for invalid; reject
    anything else. Without a scale column every row is Yes/No."""
    as_str = col.astype("string").str.strip()
    empty = col.isna() | as_str.isna() | (as_str == "")
    num = pd.to_numeric(as_str.where(~empty), errors="coerce")
    for scale in ([DEFAULT_SCALE] if scales is None else pd.unique(scales)):
        rtype = response_type(scale)
        rows = True if scales is None else scales == scale
        bad = rows & ~empty & ~rtype.valid_answers(num).fillna(False).astype(bool)
        if bad.any():
            vals = sorted({str(v) for v in col[bad].head(5)})
            where = "" if scales is None else f" in rows of scale '{scale}'"
            want = (f"{_describe(rtype)} or empty (invalid)" if rtype.scored
                    else f"empty ('{scale}' replies have no score)")
            hint = ("; a table of another scale needs a 'scale' column or `scale=` (e.g. `scale=likert5`)"
                    if scales is None and num[bad].notna().all() else "")
            raise TableError(f"column 'answer'{where} must be {want}; found {', '.join(vals)} "
                             f"in {_rows(col.index[bad], noun)}{hint}")
    dtypes = {response_type(s).answer_dtype for s in ([DEFAULT_SCALE] if scales is None else pd.unique(scales))}
    return num.astype(dtypes.pop() if len(dtypes) == 1 else "Float64")


def _describe(rtype) -> str:
    """"1 (Yes), 0 (No)"; a long scale by its range: "whole numbers 0 to 10"."""
    if rtype.ordered and rtype.points > 5:
        return f"whole numbers {rtype.low} to {rtype.high}"
    return rtype.describe_values()


def invalid_answers(df: pd.DataFrame) -> int:
    """Rows whose answer is empty although their response type scores replies (free text never counts)."""
    rows = True
    if "scale" in df.columns:
        scored = {v: response_type(v).scored for v in pd.unique(df["scale"])}
        rows = df["scale"].map(scored).astype(bool)
    return int((df["answer"].isna() & rows).sum())


def read_table(path: str | Path, min_perturbations: int = 2, scale: str | None = None) -> pd.DataFrame:
    """Read a long table from CSV or Parquet and validate it (``scale``: see validate_table)."""
    path = Path(path)
    if not path.exists():
        raise TableError(f"{path}: no such file")
    suffix = path.suffix.lower()
    try:
        if suffix == ".parquet":
            df, rows = pd.read_parquet(path), "data row"
            df.index = pd.RangeIndex(1, len(df) + 1)
        elif suffix in (".csv", ".txt"):
            # Keys stay text: persona "007" must not become 7.
            df, rows = pd.read_csv(path, dtype={c: str for c in (*_TEXT_KEYS, "question", *CHOICE_COLUMNS)}, keep_default_na=False,
                                   na_values={"answer": [""]}), "line"
            check_delimiter(df, path)
            df.index = pd.RangeIndex(2, len(df) + 2)  # errors name the file's lines; the header is line 1
        else:
            raise TableError(f"{path}: unknown table format '{suffix}'; use a .csv or .parquet table or a .sqlite "
                             "store")
    except TableError:
        raise
    except Exception as exc:  # parser errors are user errors: the file is not a table
        raise TableError(f"{path}: cannot read table ({' '.join(str(exc).split())})") from exc
    try:
        return validate_table(df, min_perturbations=min_perturbations, rows=rows,
                              scale=scale).reset_index(drop=True)
    except TableError as exc:
        raise TableError(f"{path}: {exc}") from exc


def check_delimiter(df: pd.DataFrame, path: Path) -> None:
    """A CSV read as one column whose header holds ';' or a tab was written with another separator
    (spreadsheets in many locales write ';'): say so instead of listing every column as missing."""
    if len(df.columns) != 1:
        return
    header = str(df.columns[0])
    for sep, name in ((";", "semicolon"), ("\t", "tab")):
        if sep in header:
            raise TableError(f"{path}: the file looks {name}-separated (its header is '{header[:60]}'); "
                             "survey reads comma-separated tables: save it as CSV with commas")


def write_table(df: pd.DataFrame, path: str | Path) -> Path:
    """Write a long table as CSV or Parquet (chosen by suffix); validates first, so no bad table is written."""
    path = Path(path)
    out = validate_table(df, min_perturbations=0)
    if "question" not in df.columns:  # one question: the table is written as given (a store's export has the column)
        out = out.drop(columns="question")
    path.parent.mkdir(parents=True, exist_ok=True)
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        out.to_parquet(path, index=False)
    elif suffix == ".csv":
        out.to_csv(path, index=False)
    else:
        raise TableError(f"{path}: unknown table format '{suffix}'; use .csv or .parquet")
    return path


@dataclass
class CellCounts:
    """Score sums and valid counts per (persona, perturbation) cell of one model and message.

    For Yes/No the score sum is the Yes count (also ``yes``); for a rating scale it is the sum of the
    points, so ``theta`` is the cell's mean score either way (Helm & Priebe (2026): the sign-flip test
    needs only a perturbation-level summary, e.g. mean ratings).
    """

    message: str
    personas: list[str]
    perturbations: list[str]
    total: np.ndarray  # (n, m) sum of the valid answers' scores (Yes count for Yes/No)
    valid: np.ndarray  # (n, m) valid answers
    invalid: np.ndarray  # (n, m) invalid answers
    replicates: int = 0
    empty_cells: list[tuple[str, str]] = field(default_factory=list)
    p: np.ndarray | None = None  # (n, m) exact expected score per cell, when analysed that way

    @property
    def yes(self) -> np.ndarray:
        """The Yes counts of a Yes/No question: its score sums."""
        return self.total

    @property
    def theta(self) -> np.ndarray:
        """theta_hat_ij = mean score (or the exact expected score); NaN marks a cell with no valid answer."""
        if self.p is not None:
            return self.p
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.valid > 0, self.total / np.maximum(self.valid, 1), np.nan)

    @property
    def n_invalid(self) -> int:
        return int(self.invalid.sum())


def first_appearance(values: pd.Series) -> list[str]:
    """Unique values in order of first appearance (personas, models, messages; never the pairing)."""
    return list(pd.unique(values))


def expected_column(sub: pd.DataFrame) -> pd.Series | None:
    """Exact mode's expected score per row: ``expected``, else the older ``p_yes``; None if neither has values."""
    for col in ("expected", "p_yes"):
        if col in sub and sub[col].notna().any():
            return pd.to_numeric(sub[col], errors="coerce")
    return None


def cell_counts(df: pd.DataFrame, model: str, message: str, personas: list[str] | None = None,
                probabilities: bool = False, perturbations: list[str] | None = None,
                value=None) -> CellCounts:
    """Aggregate one (model, message) of a validated table into per-cell counts.

    ``perturbations`` fixes the column order (and set), e.g. a comparison's pairs first; by default
    the design or natural order of survey.data.pairing. ``personas`` fixes the row order (and set)
    so that two messages line up; personas absent for this message get empty cells.
    ``probabilities``: theta is the mean of the ``expected`` column per cell (exact mode's expected
    score, P(Yes | Yes or No) for Yes/No), free of replicate noise; cells without it are empty.
    ``value``: a function of the answer column giving what to average instead of the score (e.g. the
    top-2-box indicator); it sees only valid answers.
    """
    sub = df[(df["model"] == model) & (df["message"] == message)]
    if sub.empty:
        known = sorted(df.loc[df["model"] == model, "message"].unique())
        raise TableError(f"no rows for message '{message}' of model '{model}'; messages are {known}")
    perts = list(perturbations) if perturbations is not None else perturbation_order(sub)
    pers = personas if personas is not None else first_appearance(sub["persona"])
    ans = sub["answer"]
    valid = ans.notna()
    score = (ans if value is None else value(ans)).astype("Float64").where(valid, 0.0).fillna(0.0)
    g = pd.DataFrame({
        "persona": sub["persona"], "perturbation": sub["perturbation"],
        "total": score.astype(float), "valid": valid.astype(int), "invalid": (~valid).astype(int),
    }).groupby(["persona", "perturbation"], sort=False).sum()
    shape = (len(pers), len(perts))
    mats = {}
    for col in ("total", "valid", "invalid"):
        wide = g[col].unstack("perturbation").reindex(index=pers, columns=perts)
        mats[col] = wide.fillna(0).to_numpy(dtype=float if col == "total" else np.int64).reshape(shape)
    if np.all(mats["total"] == np.round(mats["total"])) and np.all(np.abs(mats["total"]) < 2.0**53):
        mats["total"] = mats["total"].astype(np.int64)  # integer scores stay integers: ties stay exact (and in range)
    empty = [(pers[i], perts[j]) for i, j in zip(*np.nonzero(mats["valid"] == 0), strict=True)]
    reps = int(sub.groupby(["persona", "perturbation"]).size().max())
    p = None
    if probabilities:
        expected = expected_column(sub)
        if expected is None:
            raise TableError(f"message '{message}' of model '{model}' has no exact expected scores (the expected or "
                             "p_yes column); they come from a local model in exact mode, a provider's logprobs or "
                             "a question with elicit = 'distribution'")
        p = (expected.groupby([sub["persona"], sub["perturbation"]], sort=False)
             .mean().unstack().reindex(index=pers, columns=perts).to_numpy(dtype=float))
        empty = [(pers[i], perts[j]) for i, j in zip(*np.nonzero(np.isnan(p)), strict=True)]
    return CellCounts(message, list(pers), perts, mats["total"], mats["valid"], mats["invalid"],
                      reps, empty, p)


def models_in(df: pd.DataFrame) -> list[str]:
    return first_appearance(df["model"])


def messages_in(df: pd.DataFrame, model: str | None = None) -> list[str]:
    sub = df if model is None else df[df["model"] == model]
    return first_appearance(sub["message"])


def _require(kind: str, names, known: list[str], scope: str, prefix: str) -> list[str]:
    missing = [n for n in dict.fromkeys(names) if n is not None and n not in known]
    if missing:
        named = ", ".join(f"'{n}'" for n in missing)
        what = f"{kind} {named} is" if len(missing) == 1 else f"{kind}s {named} are"
        raise SurveyError(f"{prefix}{what} not in {scope}; it has {', '.join(known)}")
    return known


def require_models(df: pd.DataFrame, names, prefix: str = "") -> list[str]:
    """The table's models; a SurveyError names any of ``names`` (None entries ignored) that it lacks."""
    return _require("model", names, models_in(df), "the table", prefix)


def require_messages(df: pd.DataFrame, names, model: str | None = None, prefix: str = "") -> list[str]:
    """The table's messages (of ``model`` when given); a SurveyError names any of ``names`` it lacks."""
    scope = "the table" if model is None else f"model '{model}'"
    return _require("message", names, messages_in(df, model), scope, prefix)


def pick_messages(df: pd.DataFrame, a: str | None = None, b: str | None = None,
                  first_two: bool = False) -> tuple[str, str]:
    """Messages A and B of a comparison. Named ones must exist; with two messages in the table, the one
    not named fills in (`--a boots` alone means boots vs the other). ``first_two``: with more than two
    messages and neither named, A and B are the first two (otherwise they must be named)."""
    if first_two and (a is None) != (b is None):
        raise SurveyError("give both `a=` and `b=`, or neither")
    msgs = require_messages(df, [a, b])
    if len(msgs) < 2:
        raise SurveyError(f"the table has one message ({', '.join(msgs)}); comparing needs two")
    if a is None and b is None and (first_two or len(msgs) == 2):
        a, b = msgs[0], msgs[1]
    elif len(msgs) == 2 and (a is None or b is None):
        a, b = a or next(m for m in msgs if m != b), b or next(m for m in msgs if m != a)
    if a is None or b is None:
        raise SurveyError(f"name the two messages with `a=` and `b=`; the table has {', '.join(msgs)}")
    if a == b:
        raise SurveyError("`a=` and `b=` must name two different messages")
    return a, b
