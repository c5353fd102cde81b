"""The run plan counted per cell (survey.collect.design_state) equals the plan made query by query, with
replies stored (some under another prompt), failed rows, rows held by an open batch job and rows outside
the design; the lazy queries, missing queries and key -> position index equal the lists they replace."""

from __future__ import annotations

import pytest
from shoe_study import shoe_study_toml

from survey.collect.changed import changed_rows
from survey.collect.design_state import DesignIndex
from survey.collect.engine import estimate_tokens
from survey.collect.run_plan import make_plan
from survey.data.store import Store
from survey.study.design import build_design, prompt_hash
from survey.study.spec import load_study

MODELS = """
[[models]]
name = "sim"
backend = "simulated"
seed = 3
[[models]]
name = "other"
backend = "simulated"
seed = 4
max_tokens = 5
"""


def _reference(design, spec, store):
    """The plan as it was made before: every query, one by one."""
    study = design.study
    queries = list(design.queries(spec))
    done = store.done_keys(study.name, spec.name)
    hashes = store.prompt_hashes(study.name, spec.name)
    jobs = store.batch_jobs(study.name, spec.name, open_only=True)
    in_jobs = {cid for j in jobs for cid in j["custom_ids"]}
    failed_keys = store.keys(study.name, spec.name, "failed")
    out = dict(replies=0, changed=0, in_batch=0, failed=0, missing=[])
    for q in queries:
        if q.key in done:
            out["replies"] += 1
            out["changed"] += hashes.get(q.key) not in (None, prompt_hash(q))
        elif q.custom_id in in_jobs:
            out["in_batch"] += 1
        else:
            out["missing"].append(q)
            out["failed"] += q.key in failed_keys
    out["input_tokens"] = sum(estimate_tokens(q) - q.max_tokens for q in out["missing"])
    out["output_tokens"] = sum(q.max_tokens for q in out["missing"])
    return queries, out


@pytest.fixture(params=["binary", "choice"])
def stored(request, tmp_path):
    question = '\n[question]\ntype = "choice"\n' if request.param == "choice" else ""
    path = tmp_path / "study.toml"
    path.write_text(shoe_study_toml("cells", "s.sqlite", replicates=3, personas=4, paraphrases=3) + question + MODELS)
    spec = load_study(path)
    design = build_design(spec)
    store = Store(tmp_path / "s.sqlite")
    sim = spec.models[0]
    queries = list(design.queries(sim))
    for i, q in enumerate(queries):
        if i % 5 == 0:
            store.record(q.key, status="ok", prompt_hash=prompt_hash(q), answer=1)
        elif i % 7 == 0:
            store.record(q.key, status="ok", prompt_hash="another-prompt", answer=0)
        elif i % 11 == 0:
            store.record(q.key, status="ok", prompt_hash=None, answer=0)
        elif i % 4 == 0:
            store.record(q.key, status="failed", error="boom")
    store.add_batch_job("job-1", spec.name, sim.name, [queries[2].custom_id, queries[3].custom_id,
                                                        queries[4].custom_id, queries[5].custom_id])
    store.record(("cells", "sim", "sneakers", "not-in-design", queries[0].persona, 0), status="ok", answer=1)
    store.record((*queries[0].key[:5], 7), status="ok", prompt_hash="x", answer=1)  # replicate beyond r
    yield spec, design, store
    store.close()


def test_the_plan_counted_per_cell_equals_the_plan_made_query_by_query(stored):
    spec, design, store = stored
    plan = make_plan(spec, store, design)
    for m in plan.models:
        queries, ref = _reference(design, m.spec, store)
        assert (m.replies, m.changed, m.in_batch, m.failed) == \
            (ref["replies"], ref["changed"], ref["in_batch"], ref["failed"])
        assert (m.input_tokens, m.output_tokens) == (ref["input_tokens"], ref["output_tokens"])
        assert len(m.missing) == len(ref["missing"]) and bool(m.missing) == bool(ref["missing"])
        assert list(m.missing) == ref["missing"]
        assert len(m.queries) == len(queries) and list(m.queries) == queries
        assert dict(m.seq) == {q.key: i for i, q in enumerate(queries)}
        assert m.to_dict()["to_send"] == len(ref["missing"])
    assert plan.models[0].replies and plan.models[0].changed and plan.models[0].in_batch and plan.models[0].failed


def test_changed_rows_are_the_stored_replies_under_another_prompt_in_design_order(stored):
    spec, design, store = stored
    hashes = store.prompt_hashes(spec.name, "sim")
    expected = [q.key for q in design.queries(spec.models[0]) if hashes.get(q.key) not in (None, prompt_hash(q))]
    assert expected and changed_rows(design, store) == {"sim": expected}


def test_the_index_answers_like_the_dict_it_replaces(stored):
    spec, design, _ = stored
    index = DesignIndex(design, spec.models[1])
    keys = [q.key for q in design.queries(spec.models[1])]
    assert len(index) == len(keys) and list(index) == keys
    assert all(index[k] == i for i, k in enumerate(keys))
    for bad in [("cells", "sim", *keys[0][2:]), (*keys[0][:5], 3), (*keys[0][:5], True), ("x",), None,
                (*keys[0][:4], "nobody", 0)]:
        assert bad not in index and index.get(bad) is None
