"""The personas' attributes (age, gender, ...) behind a long table: what segments and weights are built on.

Where they come from, in this order: attributes given by the caller (a DataFrame indexed by persona id, or
a persona set), the persona set a store's study recorded at run time (its context), or the table's own
columns that hold one value per persona (a table file may carry ``gender``, ``age`` beside the contract).
"""

from __future__ import annotations

import pandas as pd

from survey.data.table import COLUMNS
from survey.errors import SurveyError

# columns of the long table that describe a query, not a persona
_NOT_ATTRIBUTES = {*COLUMNS, "scale", "response", "p_yes", "expected", "distribution", "second",
                   "second_perturbation", "study", "logprobs", "extra", "error", "error_code", "status", "seq",
                   "prompt_hash", "requested_model", "reported_model", "prompt_tokens", "completion_tokens",
                   "attempts", "batch_job", "created_at", "updated_at", "backend", "expected_note", "order",
                   "model_id", "chosen", "direction", "question", "position", "shown", "shown_perturbations",
                   "best", "worst"}


def attributes_frame(personas) -> pd.DataFrame:
    """A DataFrame (index: persona id as text, one column per attribute) from a DataFrame with an ``id``
    column or index, a persona set (anything with ``.personas`` whose items have ``to_record()``) or a list of
    such personas, or a dict
    persona id -> {attribute: value}."""
    if isinstance(personas, pd.DataFrame):
        df = personas.set_index("id") if "id" in personas.columns else personas.copy()
    elif hasattr(personas, "personas") or isinstance(personas, list | tuple):
        items = personas.personas if hasattr(personas, "personas") else personas
        df = pd.DataFrame([p.to_record() for p in items]).set_index("id")
    elif isinstance(personas, dict):
        df = pd.DataFrame.from_dict(personas, orient="index")
    else:
        raise SurveyError("personas: give a persona set, a DataFrame of attributes with an 'id' column, or a dict "
                          "persona id -> attributes")
    df.index = df.index.map(str)
    if df.index.has_duplicates:
        raise SurveyError(f"persona '{df.index[df.index.duplicated()][0]}' appears twice in the attributes")
    return df


def _from_context(context: dict | None) -> pd.DataFrame | None:
    recorded = ((context or {}).get("personas") or {}).get("attributes")
    return attributes_frame(recorded) if recorded else None


def _from_columns(table: pd.DataFrame) -> pd.DataFrame | None:
    cols = [c for c in table.columns if c not in _NOT_ATTRIBUTES]
    if not cols:
        return None
    constant = [c for c, n in table.groupby("persona", sort=False)[cols].nunique(dropna=False).max().items()
                if n <= 1]
    if not constant:
        return None
    out = table.groupby("persona", sort=False)[constant].first()
    out.index = out.index.map(str)
    return out


def persona_attributes(source, personas=None) -> pd.DataFrame:
    """The attributes of the personas of ``source`` (a survey.data.sources.Source):
    ``personas`` when given, else the store's recorded persona set, else the table's per-persona columns.
    Every persona of the table must have attributes; a SurveyError says where to give them."""
    table = source.table
    frame = attributes_frame(personas) if personas is not None else _from_context(source.context)
    if frame is None:
        frame = _from_columns(table)
    if frame is None:
        raise SurveyError("the table carries no persona attributes: give the persona set (--personas SET, or "
                          "personas= in Python) or add attribute columns such as gender and age to the table")
    ids = pd.unique(table["persona"].astype(str))
    missing = [p for p in ids if p not in frame.index]
    if missing:
        raise SurveyError(f"no attributes for persona(s) {', '.join(missing[:5])}"
                          f"{' and more' if len(missing) > 5 else ''}: the persona set does not match the table's ids")
    return frame.loc[list(ids)]


__all__ = ["attributes_frame", "persona_attributes"]
