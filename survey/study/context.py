"""A study's context: what its stored rows rest on, recorded in the store at run time.

`study_context` builds the record `Store.record_context` keeps (its shape is documented there): the
question, the persona and perturbation set files with their sha256, the paraphrase texts in registry
order, each model's settings and expected queries. `context_changes` compares a recorded context with
the current study and names what changed, so a run can refuse rows collected with another prompt.
"""

from __future__ import annotations

import hashlib

from survey.study.design import QueryDesign

_SETTINGS = ("model_id", "temperature", "max_tokens", "seed", "logprobs", "top_logprobs", "params")
MAX_NAMED = 5  # ids named in one message; the rest are counted


def _short_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _source(s) -> dict:
    """Set name, file and sha256 (None for sets built in code or by a test's loader)."""
    source = getattr(s, "source", None)
    return {"set": getattr(s, "name", None), "path": str(source) if source else None,
            "sha256": getattr(s, "sha256", None)}


def study_context(design: QueryDesign) -> dict:
    """The context record of a study as designed now (see `Store.record_context` for its shape)."""
    study = design.study
    several = {"questions": [_question(q) for q in study.questions], "primary": study.analysis.primary,
               "family": study.analysis.family, "flow": study.flow,
               **({"question_order": study.question_order} if study.question_order else {})}
    return {
        "study": study.name,
        "replicates": study.replicates,
        "question": _question(study.question),  # the primary: what one-question readers read
        **several,
        "personas": {**_source(design.persona_set), "template": study.personas.template,
                     "ids": [str(p.id) for p in design.personas],
                     "prompt_sha256": {str(p.id): _short_hash(design.system_prompt(p)) for p in design.personas},
                     # what segments and weights are built on (survey.data.attributes)
                     "attributes": {str(p.id): _attributes(p) for p in design.personas}},
        "messages": [{"id": m.id, **_source(m.perturbation_set), "paraphrases": [{"id": str(p.id), "text": p.text}
                                                                  for p in m.items]}
                     for m in design.messages],
        "models": [{"name": m.name, "backend": m.backend, "model_id": m.model_id,
                    "temperature": m.temperature, "max_tokens": design.max_tokens(m), "seed": m.seed,
                    "logprobs": m.logprobs, "top_logprobs": m.top_logprobs, "params": dict(m.params),
                    "expected_queries": design.queries_per_model}
                   for m in study.models],
        **({"analysis": design.analysis} if design.analysis else {}),
        **({"humans": _humans(design)} if design.humans is not None else {}),
    }


def _question(q) -> dict:
    """One question's record: its id, type, template and reply length, and a balanced scale's reversed half
    (absent otherwise, so older records still compare equal)."""
    return {"id": q.id, "type": q.type, "template": q.resolved_template, "max_tokens": q.default_max_tokens,
            **({"order": "both", "reversed_template": q.template_for(1)} if q.order == "both" else {})}


def _humans(design: QueryDesign) -> dict:
    """The human file a study names: analyses of its store find it here (survey.data.sources)."""
    from pathlib import Path

    h = design.humans
    data = Path(h.path).read_bytes() if h.path and Path(h.path).exists() else b""
    return {"path": h.path, "sha256": hashlib.sha256(data).hexdigest() if data else None,
            "respondents": int(h.table["respondent"].nunique()), "rendered_personas": design.n_human_personas,
            "spec": design.study.humans.model_dump()}


def _attributes(persona) -> dict:
    attrs = getattr(persona, "attributes", None)
    return dict(attrs) if isinstance(attrs, dict) else {}


def set_files(ctx: dict) -> list[str]:
    """One line per set file a context names: 'persona set shoppers: PATH (sha256 1a2b3c4d5e6f)'."""
    def line(what: str, s: dict) -> str:
        digest = f" (sha256 {s['sha256'][:12]})" if s.get("sha256") else ""
        return f"{what} {s.get('set')}: {s.get('path') or 'built in code'}{digest}"

    out = [line("persona set", ctx["personas"])] + [line(f"message {m['id']}: perturbation set", m)
                                                    for m in ctx["messages"]]
    h = ctx.get("humans")
    if h:
        digest = f" (sha256 {h['sha256'][:12]})" if h.get("sha256") else ""
        out.append(f"human answers: {h['path']}{digest}, {h['respondents']} respondents, "
                   f"{h['rendered_personas']} of them asked about as personas")
    return out


def _named(ids: list[str]) -> str:
    more = len(ids) - MAX_NAMED
    return ", ".join(ids[:MAX_NAMED]) + (f" and {more} more" if more > 0 else "")


def context_changes(old: dict, new: dict) -> list[str]:
    """What differs between a recorded context and the current one, in words (empty: nothing that shapes
    a prompt). Keys a context lacks (older records) are skipped, never reported as changes."""
    out = []
    old_questions = {q.get("id", "q"): q for q in old.get("questions") or ([old["question"]] if old.get("question")
                                                                            else [])}
    several = len(new.get("questions") or []) > 1
    for nq in new.get("questions") or [new["question"]]:
        oq = old_questions.get(nq.get("id", "q"), {})
        if "template" in oq and oq["template"] != nq["template"]:
            which = f"question {nq['id']}'s template" if several else "the question template"
            out.append(f"{which} (was {oq['template']!r}, now {nq['template']!r})")
    op, np_ = old.get("personas", {}), new["personas"]
    if op.get("template", np_["template"]) != np_["template"]:
        out.append("the study's persona template")
    old_prompts = op.get("prompt_sha256", {})
    persona_ids = [i for i, h in np_["prompt_sha256"].items() if old_prompts.get(i, h) != h]
    if persona_ids:
        out.append(f"the persona text of {_named(persona_ids)} (set {np_['set']}: {np_['path']})")
    old_msgs = {m["id"]: m for m in old.get("messages", [])}
    for m in new["messages"]:
        before = {p["id"]: p["text"] for p in old_msgs.get(m["id"], {}).get("paraphrases", [])}
        ids = [p["id"] for p in m["paraphrases"] if before.get(p["id"], p["text"]) != p["text"]]
        if ids:
            out.append(f"the paraphrase text of {_named(ids)} (message {m['id']}, set {m['set']}: {m['path']})")
    old_models = {m["name"]: m for m in old.get("models", [])}
    for m in new["models"]:
        was = old_models.get(m["name"], {})
        diffs = [f"{k} {was[k]!r} -> {m[k]!r}" for k in _SETTINGS if k in was and was[k] != m[k]]
        if diffs:
            out.append(f"model {m['name']}'s settings ({', '.join(diffs)})")
    return out
