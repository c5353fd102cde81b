"""A ranking on the real SmolLM2-135M GGUF in sampling mode, constrained to the k! orderings the question allows
(the local backend's ``constrain``): every reply parses, the table names the messages in ranked order, and the
analysis runs on it."""

from __future__ import annotations

import pytest
from llama_reference import THREADS

import survey
from survey import Study

pytest.importorskip("llama_cpp")


@pytest.mark.slow  # each prompt walks the 6 orderings' tokens (about 24 passes of the model): about 15 CPU seconds in all
def test_a_ranking_study_runs_on_smollm2_in_constrained_sampling_mode(tmp_path):
    spec = {"name": "rank", "store": str(tmp_path / "rank.sqlite"), "replicates": 1,
            "personas": {"set": "shoppers", "count": 1},
            "messages": [{"id": m, "perturbations": m, "count": 2} for m in ("sneakers", "boots", "sandals")],
            "question": {"type": "rank"},
            "models": [{"name": "smollm2", "backend": "local", "model_id": "smollm2", "seed": 3, "temperature": 0.7,
                        "options": {"mode": "sample", "constrain": True, "n_threads": THREADS}}]}
    study = Study.from_spec(spec, base_dir=tmp_path)
    run = study.run(yes=True, progress=False)
    assert run.stored == 2 * 3 and run.failed == 0  # two paraphrase sets in their 3 arrangements
    df = study.table()
    assert set(df["scale"]) == {"rank3"} and df["answer"].notna().all()
    for _, row in df.iterrows():
        order = [int(c) for c in str(int(row["answer"]))]
        assert sorted(order) == [1, 2, 3] and row["response"].replace(" ", "") == ">".join(map(str, order))
        shown = row["shown"].split("|")
        assert row["ranking"] == "|".join(shown[t - 1] for t in order)
    r = survey.analyze(df, "sneakers", "boots", flips=99)["smollm2"]
    assert sum(s for s, _ in r.borda.values()) == pytest.approx(3.0) and len(r.position.mean_ranks) == 3
