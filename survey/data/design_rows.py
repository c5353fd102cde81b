"""Which stored rows fall inside the study design a store recorded (its models, personas, paraphrases,
replicates and questions), and what puts the others outside it. Read by survey.data.sources when it opens a
store, so that rows left from an earlier design are counted, named and never analysed."""

from __future__ import annotations

import pandas as pd

from survey.data.pairing import natural_key
from survey.data.store_questions import recorded_questions


def _design(ctx: dict) -> dict[str, set]:
    """The keys a recorded context allows: only the parts it names (older records may lack some)."""
    out: dict[str, set] = {}
    if ctx.get("models"):
        out["model"] = {str(m["name"]) for m in ctx["models"]}
    ids = (ctx.get("personas") or {}).get("ids")
    if ids:
        out["persona"] = {str(x) for x in ids}
    if ctx.get("messages"):
        out["cell"] = {(str(m["id"]), str(p["id"])) for m in ctx["messages"] for p in m.get("paraphrases") or []}
    if ctx.get("replicates"):
        out["replicate"] = set(range(int(ctx["replicates"])))
    questions = recorded_questions(ctx)
    if questions:
        out["question"] = {q["id"] for q in questions}
    return out


def in_design(rows: pd.DataFrame, ctx: dict) -> pd.Series:
    """Which rows fall inside the study design recorded in ``ctx``."""
    keep = pd.Series(True, index=rows.index)
    d = _design(ctx)
    for col in ("model", "persona"):
        if col in d:
            keep &= _text(rows[col]).isin(d[col])
    if "cell" in d:  # (message, paraphrase) pairs, vectorised: a million rows once took seconds here
        cells = pd.MultiIndex.from_arrays([_text(rows["message"]), _text(rows["perturbation"])])
        keep &= cells.isin(list(d["cell"]))
    if "replicate" in d:
        keep &= rows["replicate"].astype(int).isin(d["replicate"])
    if "question" in d and "question" in rows.columns:
        keep &= _text(rows["question"]).isin(d["question"])
    return keep


def _text(col: pd.Series) -> pd.Series:
    """A key column compared as text; a store's categories already are (and stay codes: no string per row)."""
    return col if isinstance(col.dtype, pd.CategoricalDtype) else col.astype(str)


def outside_design(states: pd.DataFrame, ctx: dict, inside: pd.Series | None = None) -> dict:
    """The rows outside the recorded design and what puts them there (models, personas, paraphrases);
    ``inside``: in_design(states, ctx) when already known."""
    out = states[~(in_design(states, ctx) if inside is None else inside)]
    if out.empty:
        return {}
    d = _design(ctx)
    info: dict = {"rows": len(out), "replies": int((out["status"] == "ok").sum())}
    if "model" in d:
        info["models"] = sorted(set(out["model"].astype(str)) - d["model"])
    if "persona" in d:
        info["personas"] = sorted(set(out["persona"].astype(str)) - d["persona"], key=natural_key)
    if "cell" in d:
        cells = set(zip(out["message"].astype(str), out["perturbation"].astype(str), strict=True)) - d["cell"]
        info["paraphrases"] = [f"{m}/{p}" for m, p in sorted(cells)]
    if "replicate" in d:
        info["replicates"] = sorted(set(out["replicate"].astype(int)) - d["replicate"])
    if "question" in d and "question" in out.columns:
        info["questions"] = sorted(set(out["question"].astype(str)) - d["question"])
    return info


__all__ = ["in_design", "outside_design"]
