"""Stored replies collected with another prompt than the study's now: found, named, refused or handled.

A row's prompt hash (survey.study.design.prompt_hash) covers the system and user prompt and the
model's settings. When the study changes after a run (question template, persona text, a paraphrase,
temperature ...), its stored rows no longer answer the study as written. A run refuses them and names
what changed from the context recorded at the last run; the way out is explicit: keep the old rows as
their own study (``rename_stored``) or delete just the changed rows to collect them again
(``drop_changed``). Nothing is deleted unless asked.
"""

from __future__ import annotations

from survey.collect.design_state import bits, changed_masks, stored_masks
from survey.data.store import Store
from survey.errors import SurveyError
from survey.study.context import MAX_NAMED, context_changes, study_context
from survey.study.design import QueryDesign


def changed_rows(design: QueryDesign, store: Store) -> dict[str, list[tuple]]:
    """model -> keys of its stored replies whose prompt hash differs from the current study's (every model
    of the study, whichever a run is restricted to: a later run must not meet them unexplained), in
    design order. The store is read per cell and prompt hash (survey.collect.design_state)."""
    out: dict[str, list[tuple]] = {}
    name = design.study.name
    for spec in design.study.models:
        ok = stored_masks(store, name, spec.name, "ok", design.study.replicates)
        keys = [(name, spec.name, message, perturbation, persona, k, question)
                for (persona, message, perturbation, question), mask in changed_masks(design, spec, ok)
                for k in bits(mask)]
        if keys:
            out[spec.name] = keys
    return out


def _ids(values) -> str:
    ids = sorted(set(values), key=lambda v: (len(v), v))
    more = len(ids) - MAX_NAMED
    return ", ".join(ids[:MAX_NAMED]) + (f" and {more} more" if more > 0 else "")


def changed_error(design: QueryDesign, store: Store, changed: dict[str, list[tuple]]) -> SurveyError:
    """One line: how many rows, which models/personas/paraphrases, what changed, and the two ways out."""
    name = design.study.name
    keys = [k for ks in changed.values() for k in ks]
    per_model = ", ".join(f"model {m}: {len(ks)}" for m, ks in changed.items())
    recorded = store.context(name)
    if recorded is None:
        what = ("this store has no record of the prompts they were sent with (written before that record "
                "existed), so what changed cannot be named")
    else:
        found = context_changes(recorded, study_context(design))
        what = "changed: " + "; ".join(found) if found else "the recorded context shows no difference"
    return SurveyError(
        f"study '{name}': {len(keys)} stored replies were collected with another prompt or settings than the "
        f"study's now ({per_model}; personas {_ids(k[4] for k in keys)}; paraphrases {_ids(k[3] for k in keys)}); "
        f"{what}. Keep the old rows as their own study with --rename-stored OLDNAME (Python: "
        "rename_stored='OLDNAME'; the study is then collected afresh), or collect just these rows again with "
        "--drop-changed (deletes them); nothing is deleted otherwise")


def resolve_changed(design: QueryDesign, store: Store, *, drop_changed: bool = False,
                    rename_stored: str | None = None) -> int:
    """Refuse changed rows, or apply the way out asked for; returns the rows dropped or renamed (0: none)."""
    if rename_stored is not None:
        return store.rename_study(design.study.name, rename_stored)
    changed = changed_rows(design, store)
    if not changed:
        return 0
    if not drop_changed:
        raise changed_error(design, store, changed)
    return store.delete_rows([k for ks in changed.values() for k in ks])
