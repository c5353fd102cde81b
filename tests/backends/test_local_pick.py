"""Pick one of k in exact mode on the real SmolLM2-135M GGUF: the local backend reads the distribution over the
k positions from the digits' first-token mass, and the analysis runs on it (``probabilities``)."""

from __future__ import annotations

import json

import pytest
from llama_reference import THREADS

import survey
from survey import Study

pytest.importorskip("llama_cpp")


def test_a_pick_study_runs_end_to_end_in_exact_mode(tmp_path):
    spec = {"name": "pick", "store": str(tmp_path / "pick.sqlite"), "replicates": 1,
            "personas": {"set": "shoppers", "count": 2},
            "messages": [{"id": m, "perturbations": m, "count": 2} for m in ("sneakers", "boots", "sandals")],
            "question": {"type": "pick"},
            "models": [{"name": "smollm2", "backend": "local", "model_id": "smollm2", "seed": 3,
                        "options": {"mode": "exact", "n_threads": THREADS}}]}
    study = Study.from_spec(spec, base_dir=tmp_path)
    run = study.run(yes=True)
    assert run.stored == 2 * 2 * 3 and run.failed == 0
    df = study.table()
    assert set(df["scale"]) == {"pick3"} and df["shown"].str.count(r"\|").eq(2).all()
    for _, row in df.iterrows():
        dist = {int(k): v for k, v in json.loads(row["distribution"]).items()}
        assert set(dist) == {1, 2, 3} and sum(dist.values()) == pytest.approx(1)
        assert row["expected"] == pytest.approx(sum(t * p for t, p in dist.items()))
        assert row["chosen"] == row["shown"].split("|")[int(row["answer"]) - 1]
    res = survey.analyze(df, every_pair=True, probabilities=True, flips=99)
    assert len(res.results) == 3
    r = res.results[0]
    assert sum(s for s, _ in r.shares.values()) == pytest.approx(1) and sum(r.position.shares) == pytest.approx(1)
