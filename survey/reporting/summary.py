"""The study summary table of a report: design, pinned model ids, query and invalid counts, cost."""

from __future__ import annotations

import pandas as pd

from survey.backends import backend_capabilities
from survey.errors import SurveyError


def _cost(sub: pd.DataFrame, model_ids: list[str]) -> str:
    """List-price cost of one model's rows, decided by the backend the table records for it
    (the store's ``backend`` column): '0' for a free backend, 'unknown' when the table does not
    say which backend answered or the backend has no list price for the model id."""
    names = set(sub["backend"].dropna().astype(str)) if "backend" in sub else set()
    if len(names) != 1 or sub["backend"].isna().any():
        return "unknown"
    try:
        caps = backend_capabilities(names.pop())
    except SurveyError:  # recorded by an installation that had a backend this one lacks
        return "unknown"
    if not caps.paid:
        return "0"
    if not model_ids:
        return "unknown"
    batched = sub["batch_job"].notna() if "batch_job" in sub else pd.Series(False, index=sub.index)
    total = 0.0
    for batch, part in sub.groupby(batched):
        price = caps.list_price(model_ids[0], batch=bool(batch))
        if price is None:
            return "unknown"
        t_in = pd.to_numeric(part.get("prompt_tokens", pd.Series(dtype=float)), errors="coerce").sum()
        t_out = pd.to_numeric(part.get("completion_tokens", pd.Series(dtype=float)), errors="coerce").sum()
        total += (t_in * price[0] + t_out * price[1]) / 1e6
    return f"{total:.4f} (list price)"


def study_summary(df: pd.DataFrame) -> list[dict]:
    rows = []
    for model, sub in df.groupby("model", sort=False):
        ids = sorted({str(x) for x in sub.get("model_id", pd.Series(dtype=str)).dropna()} - {""})
        if not ids and "requested_model" in sub:
            ids = sorted({str(x) for x in sub["requested_model"].dropna()} - {""})
        per_msg = sub.groupby("message", sort=False)["perturbation"].nunique()
        t_in = int(pd.to_numeric(sub.get("prompt_tokens", pd.Series(dtype=float)), errors="coerce").sum())
        t_out = int(pd.to_numeric(sub.get("completion_tokens", pd.Series(dtype=float)), errors="coerce").sum())
        invalid = int(sub["answer"].isna().sum())
        rows.append({
            "model": model, "model_ids": ", ".join(ids) or "—",
            "messages": ", ".join(f"{m} ({k})" for m, k in per_msg.items()),
            "personas": int(sub["persona"].nunique()),
            # a study of several questions asks each cell once per question: replicates are counted per question
            "replicates": int(sub.groupby([*(["question"] if "question" in sub else []), "message", "perturbation",
                                           "persona"]).size().max()),
            "queries": len(sub), "invalid": f"{invalid} ({invalid / len(sub):.1%})",
            "tokens": f"{t_in} / {t_out}" if t_in or t_out else "—",
            "cost": _cost(sub, ids),
        })
    return rows
