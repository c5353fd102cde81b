"""What a report rests on, for its "Study" and "Data completeness" sections: the study's name, question,
persona set, response type and paraphrase texts (from the store's recorded context, else what the
table itself shows), and the per-model completeness (survey.data.completeness)."""

from __future__ import annotations

import pandas as pd

from survey.data.completeness import Completeness
from survey.data.table import messages_in, models_in

UNKNOWN = "not recorded (a table, not a store)"
NO_RECORD = "not recorded (the store holds no study context)"


def _scale(df: pd.DataFrame, context: dict | None) -> str:
    q = (context or {}).get("question") or {}
    if q.get("type"):
        return str(q["type"])
    scales = sorted(set(df["scale"].dropna().astype(str))) if "scale" in df else []
    return ", ".join(scales) or "binary"


def paraphrase_texts(context: dict | None) -> dict[tuple[str, str], str]:
    """{(message, paraphrase id): text} from a recorded context (empty without one)."""
    return {(str(m["id"]), str(p["id"])): str(p.get("text", ""))
            for m in (context or {}).get("messages") or [] for p in m.get("paraphrases") or []}


def _file(src: dict) -> str:
    """'shipped, sha256 1a2b3c4d5e6f…' of a recorded set (where it came from and its hash; a page shows no
    absolute path of the machine that ran the study), or '' (a set built in code, or no record)."""
    path = str(src.get("path") or "")
    origin = "shipped with survey" if path and _shipped(path) else ("local file" if path else "")
    return ", ".join(x for x in (origin, src.get("sha256") and f"sha256 {str(src['sha256'])[:12]}…") if x)


def _shipped(path: str) -> bool:
    from survey.registry.files import SHIPPED_ROOT

    return str(SHIPPED_ROOT) in path


def study_view(df: pd.DataFrame, context: dict | None, completeness: Completeness) -> dict:
    """The Study section: name, question, persona set, response type and each message's paraphrases."""
    missing = UNKNOWN if completeness.kind == "table" else NO_RECORD
    ctx = context or {}
    q, personas = ctx.get("question") or {}, ctx.get("personas") or {}
    if personas.get("set"):
        where = _file(personas)
        n = len(personas.get("ids") or []) or df["persona"].nunique()
        persona_set = f"{personas['set']}" + (f" ({where})" if where else "") + f", {n} personas"
    else:
        persona_set = f"{missing}; {df['persona'].nunique()} personas in the data"
    texts = paraphrase_texts(context)
    messages = []
    recorded = {str(m["id"]): m for m in ctx.get("messages") or []}
    for msg in dict.fromkeys([*recorded, *messages_in(df)]):
        ids = [str(p["id"]) for p in (recorded.get(msg) or {}).get("paraphrases") or []] or \
            list(dict.fromkeys(df.loc[df["message"] == msg, "perturbation"].astype(str)))
        src = recorded.get(msg) or {}
        label = (src.get("set") or "") + (f": {_file(src)}" if src.get("set") and _file(src) else "")
        messages.append({"id": msg, "set": label, "paraphrases":
                         [{"id": i, "text": texts.get((msg, i)) or "(text not recorded)"} for i in ids]})
    return {"name": completeness.study or ctx.get("study") or missing, "questions": questions_view(df, ctx),
            "question": q.get("template") or missing, "persona_set": persona_set,
            "response_type": _scale(df, context), "models": ", ".join(models_in(df)),
            "recorded_at": ctx.get("recorded_at"), "messages": messages}


def questions_view(df: pd.DataFrame, ctx: dict) -> str:
    """'intent (binary, primary), appeal (likert5)' for a study of several questions (the recorded questions, else
    the table's question column with each one's scale), '' for one question."""
    recorded = [(str(q.get("id")), str(q.get("type") or q.get("scale") or "")) for q in ctx.get("questions") or []]
    if not recorded and "question" in df:
        scales = (df.groupby("question", sort=False)["scale"].first() if "scale" in df
                  else pd.Series("binary", index=pd.unique(df["question"])))
        recorded = [(str(q), str(s) if pd.notna(s) else "binary") for q, s in scales.items()]
    if len(recorded) < 2:
        return ""
    primary = ctx.get("primary")
    return ", ".join(f"{q} ({s}{', primary' if q == primary else ''})" if s else q for q, s in recorded)


def completeness_view(c: Completeness) -> dict:
    """The Data completeness section: where expected counts come from and one row per model."""
    rows = []
    for m in c.models:
        codes = ", ".join(f"{k} × {v}" for k, v in sorted(m.failures.items(), key=lambda kv: -kv[1]))
        failed = "unknown" if m.failed is None else (f"{m.failed} ({codes})" if codes else str(m.failed))
        if m.expected is not None:
            rows.append([m.model, m.expected, m.stored, failed, m.missing, f"{m.fraction:.0%}"])
        else:
            rows.append([m.model, f"unknown (own grid {m.grid})", m.stored, failed,
                         f"{m.grid_missing} of the grid", "unknown"])
    return {"basis": c.basis, "columns": ["model", "expected", "stored (with a reply)", "failed (no reply)",
                                          "missing", "share collected"], "rows": rows}


def incomplete_note(c: Completeness | None, model: str) -> str:
    """The sentence a model's headline gets when its data is partial, else ''."""
    m = c.model(model) if c else None
    if m is None or m.complete is not False:
        return ""
    return (f" Based on only {m.stored} of the {m.expected} queries this study expects ({m.fraction:.0%}): "
            "the study is incomplete.")
