"""Sorted by prompt (what the engine does for the local model), the local model's answers are exactly those of
the design's order (tests/collect/test_prompt_order.py checks the order itself)."""

from __future__ import annotations

import pytest
from llama_reference import LOCAL_EXACT_MODEL_TOML
from shoe_study import shoe_study_toml

from survey.api.study import Study
from survey.backends.base import Capabilities
from survey.backends.local import LocalBackend


def test_sorted_by_prompt_the_local_model_answers_exactly_as_in_design_order(tmp_path, monkeypatch):
    pytest.importorskip("llama_cpp")
    study = shoe_study_toml("order", "order.sqlite", replicates=2, personas=3, paraphrases=2) + LOCAL_EXACT_MODEL_TOML
    sent = []
    original = LocalBackend.complete_sync

    def recording(self, q):
        sent.append((q.system, q.user))
        return original(self, q)

    monkeypatch.setattr(LocalBackend, "complete_sync", recording)
    tables = {}
    for order in ("prompt", "design"):
        if order == "design":
            monkeypatch.setattr(LocalBackend, "capabilities", Capabilities(paid=False, needs_model_id=False))
        folder = tmp_path / order
        folder.mkdir()
        (folder / "order.toml").write_text(study)
        sent.clear()
        run_ = Study.from_toml(folder / "order.toml").run(yes=True)
        assert run_.stored == 24
        assert (sent == sorted(sent)) == (order == "prompt")
        tables[order] = Study.from_toml(folder / "order.toml").table().set_index(
            ["persona", "message", "perturbation", "replicate"]).sort_index()
    prompt, design = tables["prompt"], tables["design"]
    assert (prompt["p_yes"] == design["p_yes"]).all()  # bit for bit: the KV reuse keeps whole row groups
    assert (prompt["answer"].fillna(-1) == design["answer"].fillna(-1)).all()
