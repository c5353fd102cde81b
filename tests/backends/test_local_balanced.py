"""A balanced scale in exact mode on the embedded SmolLM2-135M: a reversed row's distribution is the reversed
labels' first-token mass mapped back to the forward scale's scores."""

from __future__ import annotations

import json

import pytest
from llama_reference import PERSONA, THREADS, shopper_query

from survey import Study
from survey.backends import create_backend
from survey.kinds.ordinal.balanced import ReversedScale
from survey.responses import likert

pytest.importorskip("llama_cpp")

SYSTEM = PERSONA.replace("Answer ONLY 'Yes' or 'No'.", "Answer ONLY with a whole number from 1 to 5.")


def test_a_reversed_row_reads_the_same_label_mass_mapped_back():
    back = ReversedScale(likert(5))
    user = back.template.format(perturbation="I'd like to buy a pair of sneakers.")
    backend = create_backend("local", "smollm2", n_threads=THREADS)
    try:
        kw = {"system": SYSTEM, "user": user, "max_tokens": 3, "scale": "likert5"}
        as_forward = backend.complete_sync(shopper_query("smollm2", 0, 0, **kw))
        as_reversed = backend.complete_sync(shopper_query("smollm2", 0, 1, response=back, direction="reversed", **kw))
    finally:
        backend.close()
    fwd = {int(k): v for k, v in as_forward.extra["distribution"].items()}
    rev = {int(k): v for k, v in as_reversed.extra["distribution"].items()}
    # the same prompt, the same token "k": read forward it is score k, read reversed it is score 6 - k
    for k in range(1, 6):
        assert rev[6 - k] == pytest.approx(fwd[k], rel=1e-9)
    assert as_reversed.p_yes == pytest.approx(sum(s * p for s, p in rev.items()), rel=1e-12)
    assert back.parse(as_reversed.text) == 6 - int(as_reversed.text)


def test_a_balanced_study_in_exact_mode(tmp_path):
    spec = {"name": "bal", "store": str(tmp_path / "bal.sqlite"), "replicates": 2,
            "personas": {"set": "shoppers", "count": 2},
            "messages": [{"id": "sneakers", "perturbations": "sneakers", "count": 2},
                         {"id": "boots", "perturbations": "boots", "count": 2}],
            "question": {"type": "likert", "points": 5, "order": "both"},
            "models": [{"name": "smollm2", "backend": "local", "model_id": "smollm2", "seed": 3,
                        "options": {"mode": "exact", "n_threads": THREADS}}]}
    study = Study.from_spec(spec, base_dir=tmp_path)
    assert study.run(yes=True).failed == 0
    df = study.table()
    assert set(df["direction"]) == {"forward", "reversed"} and df["answer"].notna().all()
    for _, row in df.iterrows():
        dist = {int(k): v for k, v in json.loads(row["distribution"]).items()}
        assert row["expected"] == pytest.approx(sum(s * p for s, p in dist.items()))
        shown = int(row["response"].strip()[0])
        assert int(row["answer"]) == (6 - shown if row["direction"] == "reversed" else shown)
