"""Open what a user points at, a long-table file (.csv/.parquet) or a response store (SQLite), as a
validated long table. Analyses call this and never care which it was."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from survey.data.table import read_table, validate_table
from survey.errors import SurveyError

_SQLITE_MAGIC = b"SQLite format 3\x00"


def is_store(path: Path) -> bool:
    if path.suffix.lower() in (".sqlite", ".sqlite3", ".db"):
        return True
    try:
        with path.open("rb") as fh:
            return fh.read(16) == _SQLITE_MAGIC
    except OSError:
        return False


def load_long_table(path: str | Path, study: str | None = None, min_perturbations: int = 2) -> pd.DataFrame:
    """The validated long table in a .csv/.parquet file or a store (``study`` picks one when it holds several)."""
    path = Path(path)
    if not path.exists():
        raise SurveyError(f"{path}: no such file (give a .csv/.parquet table or a .sqlite store)")
    if not is_store(path):
        if study:
            raise SurveyError("--study applies to a store, not to a table file")
        return read_table(path, min_perturbations=min_perturbations)
    from survey.collect.store import Store

    with Store(path, create=False) as st:
        df = st.to_long_table(study)
    if df.empty:
        raise SurveyError(f"{path}: the store holds no answered queries yet; run the study first")
    return validate_table(df, min_perturbations=min_perturbations)
