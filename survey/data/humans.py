"""Human answers as data: one row per respondent x message shown, beside the personas' long table.

Columns (long form, a plain CSV): ``respondent``, ``message``, ``answer``, optional ``perturbation`` (when the
humans saw paraphrases), optional ``weight`` (the respondent's survey weight, one value per respondent) and
any number of attribute columns (age, gender, ...: the persona template's fields where they exist, one value
per respondent). ``answer`` is in the study's response type: the score (1/0 for Yes/No, the point of a
likert or rating scale) or the type's word ("Yes", "No"), read as survey.responses reads a model's reply. A
type may read its human answers its own way (``human_answers``): a ranking's are each message's rank, 1 = best
(survey.kinds.rank.parsing). The type is a scale name or the response type itself: the study's, or the one a
store or table describes (``Source.response``), so that answers in its own words (a checkbox's option names)
are read as its replies are.

A Qualtrics-style wide export (``read_humans_wide``) has one row per respondent and one column per message
(the column named after the message id, or mapped with ``columns=``), empty where the respondent was not
shown that message; every other column except the id column is an attribute. Qualtrics writes two extra
header rows under the column names (the question text, then ``{"ImportId": ...}``); they are recognised and
skipped, and the lines errors name are still the file's.

Two designs are recognised per pair of messages: **within-subjects** (every respondent who saw one of the two
saw both) and **between-subjects** (no one saw both, respondents were randomised to one). Anything else is
refused by the analyses that need a design, naming the fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from survey.common.display import Display
from survey.common.limits import HUMAN_RESPONDENTS_MAX, WHY
from survey.errors import SurveyError
from survey.responses import DEFAULT_SCALE, response_type
from survey.responses.base import ResponseType

REQUIRED = ("respondent", "message", "answer")
OPTIONAL = ("perturbation", "weight")
HUMAN_PREFIX = "human-"  # persona ids of respondents rendered as personas (persona ids allow no ':')
QUALTRICS_ID = "ResponseId"


@dataclass(repr=False)
class Humans(Display):
    """Validated human answers: ``table`` (respondent, message, [perturbation], answer, weight, attributes...),
    the response ``scale``, the ``attributes`` (one value per respondent) and where they came from."""

    table: pd.DataFrame
    scale: str
    attributes: list[str]
    path: str | None = None

    @property
    def messages(self) -> list[str]:
        return list(pd.unique(self.table["message"]))

    @property
    def respondents(self) -> pd.DataFrame:
        """One row per respondent: its attributes and weight, indexed by respondent."""
        cols = [*self.attributes, "weight"]
        return self.table.groupby("respondent", sort=False)[cols].first()

    def design(self, a: str, b: str) -> str:
        """"within" (everyone who saw A or B saw both), "between" (no one saw both) or "mixed"."""
        for m in (a, b):
            if m not in set(self.table["message"]):
                raise SurveyError(f"the humans saw no message '{m}'; they saw {', '.join(self.messages)}")
        saw = self.table[self.table["message"].isin([a, b])].groupby("respondent")["message"].nunique()
        return "within" if (saw == 2).all() else "between" if (saw == 1).all() else "mixed"

    def answers(self, message: str) -> pd.DataFrame:
        """The respondents who saw ``message``: respondent, answer, weight (one row each)."""
        rows = self.table[self.table["message"] == message]
        return rows[["respondent", "answer", "weight"]].reset_index(drop=True)

    def persona_records(self, fields: list[str]) -> list[dict]:
        """Each respondent as a persona record (id ``human-<respondent>``) with the attributes ``fields``
        names; refuses when a respondent lacks one (their persona could not be rendered)."""
        missing = [f for f in fields if f != "id" and f not in self.attributes]
        if missing:
            raise SurveyError(f"the persona template uses {', '.join(missing)}, which the human file lacks "
                              f"(its attributes: {', '.join(self.attributes) or 'none'}): add those columns to the "
                              "human file, or leave the humans out of the design")
        people = self.respondents
        out = []
        for rid, row in people.iterrows():
            attrs = {k: _plain(row[k]) for k in self.attributes}
            empty = [f for f in fields if f != "id" and (attrs.get(f) is None or str(attrs[f]).strip() == "")]
            if empty:
                raise SurveyError(f"respondent '{rid}' has no {', '.join(empty)}, which the persona template "
                                  "uses: fill it in the human file or drop the respondent")
            out.append({"id": HUMAN_PREFIX + str(rid), **attrs})
        return out

    def summary(self) -> dict:
        t = self.table
        return {"path": self.path, "scale": self.scale, "respondents": int(t["respondent"].nunique()),
                "answers": len(t), "messages": {str(m): int(n) for m, n in t["message"].value_counts(sort=False).items()},
                "attributes": self.attributes, "weighted": bool((t["weight"] != 1).any())}

    def display_parts(self):
        rows = [{"message": m, "respondents": n,
                 "mean answer": float(self.table.loc[self.table["message"] == m, "answer"].mean())}
                for m, n in self.summary()["messages"].items()]
        title = (f"Humans: {self.table['respondent'].nunique()} respondents, {len(self.table)} answers "
                 f"({self.scale})" + (f" from {self.path}" if self.path else ""))
        return title, rows, [f"attributes: {', '.join(self.attributes) or 'none'}"]

    def to_dict(self) -> dict:
        return self.summary()


def _plain(v):
    if isinstance(v, np.generic):
        return v.item()
    return None if isinstance(v, float) and np.isnan(v) else v


def _where(index, limit: int = 5) -> str:
    idx = [str(i) for i in list(index)[:limit]]
    more = f" and {len(index) - limit} more" if len(index) > limit else ""
    return "line(s) " + ", ".join(idx) + more


def validate_humans(df: pd.DataFrame, scale: str | ResponseType | None = None, messages=None, *,
                    source: str = "humans", coded: bool = False) -> Humans:
    """Check human answers in long form and return them normalised (``Humans``).

    ``scale``: the study's response type, by name or as the type itself (default Yes/No; a checkbox question's
    option names are read only when the type has them: the study's, or a store's ``Source.response``); ``messages``: the study's message ids, when known
    (an answer to another message is refused). The index labels of ``df`` are the lines errors name.
    ``coded``: the answers are already in the kind's own coding (the field server stored what the kind's parser
    gave), so a kind whose human files say replies (checkbox: "1, 3") is not read as replies here.
    """
    rtype = scale if isinstance(scale, ResponseType) else response_type(scale or DEFAULT_SCALE)
    if not rtype.scored:
        raise SurveyError(f"human answers need a scored response type; '{rtype.scale}' has no score to compare")
    missing = [c for c in REQUIRED if c not in df.columns]
    if missing:
        raise SurveyError(f"{source}: missing column(s) {', '.join(missing)}; a human file needs "
                          f"{', '.join(REQUIRED)} (one row per respondent x message shown), or use the wide importer "
                          "for one row per respondent")
    if df.empty:
        raise SurveyError(f"{source}: no rows")
    out = df.copy()
    for col in ("respondent", "message", *(("perturbation",) if "perturbation" in out else ())):
        text = out[col].astype("string").str.strip()
        bad = text.isna() | (text == "")
        if bad.any():
            raise SurveyError(f"{source}: column '{col}' is empty in {_where(out.index[bad])}; every row needs a {col}")
        out[col] = text.astype(str)
    if messages is not None:
        known = [str(m) for m in messages]
        bad = ~out["message"].isin(known)
        if bad.any():
            vals = ", ".join(sorted(set(out.loc[bad, "message"]))[:5])
            raise SurveyError(f"{source}: unknown message(s) {vals} in {_where(out.index[bad])}; the study's messages "
                              f"are {', '.join(known)}: rename them in the human file or drop those rows")
    own = getattr(rtype, "human_answers", None)  # a kind whose human answers are read its own way (a ranking)
    out["answer"] = own(out, source) if own is not None else _answers(out, rtype, source, coded)
    out["weight"] = _weights(out, source)
    dup = out.duplicated(["respondent", "message"], keep=False)
    if dup.any():
        r = out.loc[dup].iloc[0]
        raise SurveyError(f"{source}: respondent '{r['respondent']}' answered message '{r['message']}' more than once "
                          f"({_where(out.index[dup])}); keep one answer per respondent and message")
    attributes = [c for c in out.columns if c not in (*REQUIRED, *OPTIONAL)]
    for col in [*attributes, "weight"]:
        varies = out.groupby("respondent", sort=False)[col].nunique(dropna=False) > 1
        if varies.any():
            rid = varies.index[varies][0]
            lines = out.index[out["respondent"] == rid]
            raise SurveyError(f"{source}: respondent '{rid}' has different {col} values on {_where(lines)}; an "
                              f"attribute or weight describes the respondent: give one value")
    return Humans(out.reset_index(drop=True), rtype.scale, attributes, None if source == "humans" else source)


def _answers(rows: pd.DataFrame, rtype, source: str, coded: bool = False) -> pd.Series:
    """The scale's scores, or its words read like a model's reply ("Yes" -> 1); nothing else."""
    col = rows["answer"]
    text = col.astype("string").str.strip()
    num = pd.to_numeric(text, errors="coerce")
    if rtype.human_replies and not coded:  # every answer is read as a reply (checkbox: "3" is option 3, not the bit set 3)
        num = pd.Series(np.nan, index=num.index)
    words = text.where(num.isna()).map(lambda s: rtype.parse(s) if isinstance(s, str) and s else None)
    score = num.where(num.notna(), pd.to_numeric(words, errors="coerce"))
    bad = score.isna() | ~rtype.valid_answers(score).fillna(False).astype(bool)
    if bad.any():
        vals = ", ".join(sorted({_quoted(v) for v in col[bad].head(5)}))
        first = rows[bad.to_numpy()].iloc[0]  # (a wide file's lines repeat, one per answer column)
        who = f"respondent '{first['respondent']}', message '{first['message']}'"
        raise SurveyError(f"{source}: column 'answer' must be {rtype.describe_human_answers()}; found {vals} in "
                          f"{_where(col.index[bad])} ({who if bad.sum() == 1 else 'the first: ' + who}): fix those "
                          "answers, or drop the rows of respondents who did not answer")
    return score.astype("float64" if rtype.answer_dtype == "Float64" else "int64")


def _quoted(value) -> str:
    """An answer as an error names it: quoted when it holds a comma or a space, which would blur a list of them."""
    if value is None or (isinstance(value, float) and value != value) or value is pd.NA or not str(value).strip():
        return "an empty answer"  # a blank cell, read as NaN: "found nan" named nothing the user wrote
    text = str(value)
    return f"'{text}'" if any(c in text for c in ", ") else text


def _weights(out: pd.DataFrame, source: str) -> pd.Series:
    if "weight" not in out.columns:
        return pd.Series(1.0, index=out.index)
    w = pd.to_numeric(out["weight"], errors="coerce")
    bad = w.isna() | ~np.isfinite(w) | (w < 0)
    if bad.any():
        raise SurveyError(f"{source}: column 'weight' must hold numbers >= 0; bad value(s) in {_where(out.index[bad])}")
    if not (w > 0).any():
        raise SurveyError(f"{source}: every weight is 0; give the respondents positive weights or drop the column")
    return w.astype(float)


def read_humans(path: str | Path, scale: str | ResponseType | None = None, messages=None) -> Humans:
    """Read a long human file (.csv): one row per respondent x message shown; errors name the file's lines."""
    path = Path(path)
    return _long(_read_csv(path), path, scale, messages)


def _long(df: pd.DataFrame, path: Path, scale, messages) -> Humans:
    if "answer" not in df.columns and "message" not in df.columns:
        raise SurveyError(f"{path}: no 'message' and 'answer' columns; a long human file has one row per respondent "
                          "x message shown. For one row per respondent (a Qualtrics export) use the wide importer "
                          "(`wide=True`)")
    counts = _counts(df, path)
    if counts is not None:  # validated as one respondent per line, then each line repeated: no per-row parsing
        df = df.drop(columns="count")
        df.insert(0, "respondent", df.index.astype(str))
    h = validate_humans(df, scale, messages, source=str(path))
    h.path = str(path)
    return h if counts is None else _expanded(h, counts)


def read_humans_wide(path: str | Path, scale: str | ResponseType | None = None, messages=None, *, columns: dict | None = None,
                     id_column: str | None = None) -> Humans:
    """Read a wide (Qualtrics-style) export: one row per respondent, one answer column per message.

    ``columns`` maps answer columns to message ids ({"Q3": "sneakers"}); without it the columns named after
    ``messages`` are the answers. ``id_column``: the respondent id (default ``ResponseId``, else ``respondent``).
    Empty answer cells mean "not shown"; the other columns are attributes (or ``weight``).
    """
    path = Path(path)
    return _wide(_read_csv(path), path, scale, messages, columns, id_column)


def _wide(df: pd.DataFrame, path: Path, scale, messages, columns, id_column) -> Humans:
    df = df[~_qualtrics_header_rows(df)]
    idc = id_column or next((c for c in (QUALTRICS_ID, "respondent") if c in df.columns), None)
    if idc is None or idc not in df.columns:
        raise SurveyError(f"{path}: no respondent id column ({id_column or 'ResponseId or respondent'}); name it "
                          "with `id_column=` (--humans-id-column)")
    mapping = dict(columns or {})
    if not mapping:
        if messages is None:
            raise SurveyError(f"{path}: which columns are answers? give the study's messages or `columns=` "
                              "(answer column -> message id; --humans-column COLUMN=MESSAGE)")
        mapping = {str(m): str(m) for m in messages if str(m) in df.columns}
    absent = [c for c in mapping if c not in df.columns]
    if absent or not mapping:
        raise SurveyError(f"{path}: answer column(s) {', '.join(absent) or '(none named after the messages)'} not in "
                          f"the file; its columns are {', '.join(map(str, df.columns))}: map them with `columns=` "
                          "(--humans-column COLUMN=MESSAGE)")
    attrs = [c for c in df.columns if c not in mapping and c != idc]
    long = df.reset_index(names="_line").melt(id_vars=["_line", idc, *attrs], value_vars=list(mapping),
                                              var_name="_col", value_name="answer")
    long = long[long["answer"].astype("string").str.strip().fillna("") != ""]
    long["message"] = long["_col"].map(mapping)
    long = long.rename(columns={idc: "respondent"}).set_index("_line").drop(columns="_col")
    if long.empty:
        raise SurveyError(f"{path}: no answers in the columns {', '.join(mapping)}")
    h = validate_humans(long.sort_index(kind="stable"), scale, messages, source=str(path))
    h.path = str(path)
    return h


def _qualtrics_header_rows(df: pd.DataFrame) -> pd.Series:
    """Qualtrics' two rows under the header: question texts and {"ImportId": ...} records."""
    first = df.iloc[:, 0].astype("string").fillna("")
    imports = df.apply(lambda c: c.astype("string").fillna("").str.startswith('{"ImportId"')).any(axis=1)
    text_row = pd.Series(False, index=df.index)
    if imports.any():
        at = df.index.get_loc(imports.idxmax())
        if at >= 1:
            text_row.iloc[at - 1] = True
    return imports | text_row | (first == "Response ID")


def _read_csv(path: Path) -> pd.DataFrame:
    """The file as text columns, indexed by file line; leading '#' lines (a source note) are skipped."""
    from survey.data.table import check_delimiter

    if not path.exists():
        raise SurveyError(f"{path}: no such human file")
    if path.suffix.lower() not in (".csv", ".txt"):
        raise SurveyError(f"{path}: human answers are read from .csv files; export the survey as CSV")
    try:
        with path.open(encoding="utf-8-sig") as fh:
            notes = 0
            for line in fh:
                if not line.startswith("#"):
                    break
                notes += 1
        df = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""], skiprows=notes,
                         encoding="utf-8-sig")
    except Exception as exc:  # parser errors are user errors
        raise SurveyError(f"{path}: cannot read the human file ({' '.join(str(exc).split())})") from exc
    check_delimiter(df, path)
    df.index = pd.RangeIndex(notes + 2, notes + 2 + len(df))  # errors name the file's lines
    return df


def _counts(df: pd.DataFrame, path: Path) -> np.ndarray | None:
    """Published results as counts: without a respondent column, a ``count`` column says how many respondents
    gave that row's answer (each becomes a respondent of its own, id LINE-k); None for a file of respondents."""
    if "count" not in df.columns or "respondent" in df.columns:
        return None
    n = pd.to_numeric(df["count"], errors="coerce")
    bad = n.isna() | (n < 0) | (n != n.round())
    if bad.any():
        raise SurveyError(f"{path}: column 'count' must hold whole numbers >= 0; bad in {_where(df.index[bad])}")
    total = float(n.sum())
    if total > HUMAN_RESPONDENTS_MAX:
        raise SurveyError(f"{path}: the counts add up to {total:,.0f} respondents, more than {HUMAN_RESPONDENTS_MAX:,} "
                          f"({WHY['humans']}): give a random sample of them, as counts")
    if total == 0:
        raise SurveyError(f"{path}: every count is 0: no respondents")
    return n.to_numpy(dtype=np.int64)


def _expanded(h: Humans, counts: np.ndarray) -> Humans:
    """Each validated line repeated by its count, the copies named LINE-1, LINE-2, ..."""
    t = h.table
    keep = counts > 0
    t, counts = t[keep], counts[keep]
    rows = t.loc[t.index.repeat(counts)].reset_index(drop=True)
    ordinal = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts) + 1
    rows["respondent"] = rows["respondent"].to_numpy(dtype=str).astype(object) + "-" + ordinal.astype(str).astype(object)
    return Humans(rows, h.scale, h.attributes, h.path)


def load_humans(path, scale: str | ResponseType | None = None, messages=None, *, wide: bool | None = None,
                columns: dict | None = None, id_column: str | None = None) -> Humans:
    """A human file in either shape: long unless ``wide`` is set or the file has no 'message' column.

    ``path`` may also be a study's [humans] table as a dict (``file``, ``wide``, ``id_column``, ``columns``):
    the command line's --humans with --humans-wide, --humans-id-column and --humans-column give one.
    ``scale``: the study's response type by name ("likert5") or the type itself; answers that name a checkbox
    question's options need the type with its options: a store's or table's ``Source.response``, or
    ``Study.spec.question.response`` (``survey.load_source(store, humans=path)`` reads the file against its store).
    """
    if isinstance(path, dict):
        spec = path
        path, wide = spec["file"], spec.get("wide", wide)
        columns, id_column = spec.get("columns") or columns, spec.get("id_column") or id_column
    path = Path(path)
    df = _read_csv(path)
    if wide is None and "message" not in df.columns:
        if "answer" in df.columns:
            raise SurveyError(f"{path}: no 'message' column: a long human file needs respondent, message and answer "
                              "(one row per respondent x message shown; counts: message, answer, count)")
        try:
            return _wide(df, path, scale, messages, columns, id_column)
        except SurveyError as exc:  # say why the file was read as a wide export
            raise SurveyError(f"no 'message' column, so read as a wide export (one row per respondent, one answer "
                              f"column per message): {exc}") from None
    if wide:
        return _wide(df, path, scale, messages, columns, id_column)
    return _long(df, path, scale, messages)
