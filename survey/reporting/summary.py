"""The study summary table of a report: design, pinned model ids, query and invalid counts, cost."""

from __future__ import annotations

import pandas as pd

from survey.collect.pricing import PRICES

FREE_MARKERS = ("simulated", "local", "smollm")


def _cost(model_ids: list[str], tokens_in: int, tokens_out: int) -> str:
    """List-price estimate from the provider-reported model id; '0' for free backends, '—' if unknown."""
    if not model_ids or any(any(k in mid.lower() for k in FREE_MARKERS) for mid in model_ids):
        return "0"
    for table in PRICES.values():
        match = max((k for k in table if model_ids[0].startswith(k)), key=len, default=None)
        if match:
            p_in, p_out = table[match]
            return f"{(tokens_in * p_in + tokens_out * p_out) / 1e6:.4f} (list price)"
    return "—"


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
            "replicates": int(sub.groupby(["message", "perturbation", "persona"]).size().max()),
            "queries": len(sub), "invalid": f"{invalid} ({invalid / len(sub):.1%})",
            "tokens": f"{t_in} / {t_out}" if t_in or t_out else "—",
            "cost": _cost(ids, t_in, t_out),
        })
    return rows
