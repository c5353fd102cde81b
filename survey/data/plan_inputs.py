"""What a plan reads from files (survey.stats.planning does no I/O): the rows of a `survey estimate
--json` file, one estimate among them, and a long table or store to fit parameters on."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from survey.data.table import models_in, require_models
from survey.errors import SurveyError

PARAMS = ("mu", "kappa", "sigma", "rho")


def read_estimates(path: str | Path) -> list[dict]:
    """The rows of a `survey estimate --json` file."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise SurveyError(f"{path}: no such file (write one with `survey estimate ... --json > {path}`)") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SurveyError(f"{path}: not JSON ({exc}); expected `survey estimate --json` output") from None
    rows = data.get("results") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "kappa" in r for r in rows):
        raise SurveyError(f"{path}: expected {{\"results\": [...]}} as written by `survey estimate --json`")
    return rows


def pick_estimate(rows: list[dict], model: str | None, message: str | None, source: str) -> dict:
    """The one row of an estimate document matching ``model`` and ``message`` (each optional)."""
    if message is not None:
        rows = [r for r in rows if r.get("message") == message]
    if model is not None:
        rows = [r for r in rows if r.get("model") == model]
    if len(rows) != 1:
        found = ", ".join(f"{r.get('model')}/{r.get('message')}" for r in rows) or "none"
        raise SurveyError(f"{source}: need exactly one estimate; matching (model/message): {found}. "
                          "Choose with `model=` and `message=`")
    row = rows[0]
    missing = [p for p in PARAMS if not isinstance(row.get(p), (int, float))]
    if missing:
        raise SurveyError(f"{source}: the estimate lacks numeric {', '.join(missing)}")
    return row


def estimate_rows(from_estimate) -> tuple[list[dict], str]:
    """(rows, what they are) of an estimate: a `survey estimate --json` file, its document, or a result
    with ``to_dict()`` (survey.stats.analysis.estimate's)."""
    doc = from_estimate.to_dict() if hasattr(from_estimate, "to_dict") else from_estimate
    if isinstance(doc, dict):
        return doc.get("results", []), "the estimate"
    return read_estimates(from_estimate), str(from_estimate)


def plan_table(from_table, study: str | None = None) -> tuple[pd.DataFrame, str]:
    """(the long table, what it is) of a DataFrame, a table file or a store (``study`` picks one)."""
    if isinstance(from_table, pd.DataFrame):
        return from_table, "the table"
    from survey.data.sources import load_long_table

    return load_long_table(from_table, study, min_perturbations=0), str(from_table)


def plan_table_of(from_table, model: str | None, message: str | None,
                  study: str | None = None) -> tuple[pd.DataFrame, str, str]:
    """(the long table, its one model or ``model``, what the table is) to fit one message's parameters on."""
    if not message:
        raise SurveyError("`from_table=` needs `message=`: the message whose answers are fitted")
    df, source = plan_table(from_table, study)
    models = models_in(df)
    if model is None and len(models) > 1:
        raise SurveyError(f"{source} has several models ({', '.join(models)}); choose one with `model=`")
    mdl = model or models[0]
    require_models(df, [mdl])
    return df, mdl, source
