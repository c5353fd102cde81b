"""Best–worst scaling in exact mode on the real SmolLM2-135M GGUF: the local backend reads the probability of each
(best, worst) reply "b w" by the chain rule over its tokens, renormalised over the six pairs, and stores it as the
row's distribution; checked against a fresh llama.cpp model, then analysed (``probabilities``)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from llama_reference import THREADS

import survey
from survey import Study
from survey.backends import create_backend
from survey.backends.llama_runtime import default_gguf_path
from survey.study.design import build_design, prompt_hash

pytest.importorskip("llama_cpp")

PAIRS = ("1 2", "1 3", "2 1", "2 3", "3 1", "3 2")


def _reference(gguf, prompt: list[int], spellings: dict[str, list[list[int]]]) -> dict[int, float]:
    """Per code 10 b + w, the chain-rule probability of "b w" (with and without a leading space) from a fresh
    Llama keeping all logits: the prompt evaluated once, each spelling evaluated after it, float64 softmax."""
    from llama_cpp import Llama

    fresh = Llama(str(gguf), n_ctx=512, n_threads=THREADS, n_threads_batch=THREADS, logits_all=True, verbose=False)
    try:
        fresh.eval(prompt)
        state = fresh.save_state()
        mass = {}
        for label, paths in spellings.items():
            total = 0.0
            for path in paths:
                fresh.load_state(state)
                fresh.eval(path)
                logits = fresh.scores[len(prompt) - 1: len(prompt) - 1 + len(path)].astype(np.float64)
                logp = logits - logits.max(axis=1, keepdims=True)
                logp -= np.log(np.exp(logp).sum(axis=1, keepdims=True))
                total += float(np.exp(sum(logp[i, t] for i, t in enumerate(path))))
            b, w = label.split()
            mass[10 * int(b) + int(w)] = total
    finally:
        fresh.close()
    z = sum(mass.values())
    return {c: m / z for c, m in mass.items()}


def test_exact_maxdiff_stores_the_chain_rule_distribution_over_the_pairs(tmp_path):
    spec = {"name": "mdx", "store": str(tmp_path / "mdx.sqlite"), "replicates": 1,
            "personas": {"set": "shoppers", "count": 2},
            "messages": [{"id": m, "perturbations": m, "count": 2} for m in ("sneakers", "boots", "sandals", "loafers")],
            "question": {"type": "maxdiff", "subset": 3},
            "models": [{"name": "smollm2", "backend": "local", "model_id": "smollm2", "seed": 3,
                        "options": {"mode": "exact", "n_threads": THREADS}}]}
    study = Study.from_spec(spec, base_dir=tmp_path)
    run = study.run(yes=True)
    assert run.stored == 2 * 2 * 4 and run.failed == 0
    df = study.table()
    assert set(df["scale"]) == {"maxdiff3"}
    dists = [{int(c): p for c, p in json.loads(text).items()} for text in df["distribution"]]
    for dist in dists:
        assert set(dist) == {12, 13, 21, 23, 31, 32} and sum(dist.values()) == pytest.approx(1, abs=1e-12)
    # the stored answer is a draw from the distribution, so it is one of the pairs and best/worst name messages
    for row in df.itertuples():
        shown = row.shown.split("|")
        assert (row.best, row.worst) == (shown[int(row.answer) // 10 - 1], shown[int(row.answer) % 10 - 1])

    # an independent reference on one row per persona: the prompt the study sent, each pair spelled by the tokenizer
    queries = {prompt_hash(q): q for q in build_design(study.spec).queries(study.spec.models[0])}
    backend = create_backend("local", "smollm2", n_threads=THREADS)
    try:
        rt = backend.runtime
        spellings = {label: [rt.llm.tokenize((space + label).encode(), add_bos=False, special=False)
                             for space in ("", " ")] for label in PAIRS}
        for r in (0, int(np.flatnonzero(df["persona"] != df["persona"].iloc[0])[0])):
            q = queries[df["prompt_hash"].iloc[r]]
            assert q.temperature == 1.0 and q.user.count("Option ") == 3
            ref = _reference(default_gguf_path(), rt.tokenize(rt.render(q.system, q.user)), spellings)
            assert dists[r] == pytest.approx(ref, abs=1e-4)
    finally:
        backend.close()
    assert max(dists[0].values()) < 0.99  # not a degenerate check: the model spreads its mass over the pairs

    res = survey.analyze(df, every_pair=True, probabilities=True, flips=99)
    assert len(res.results) == 6
    r = res.results[0]
    assert sum(r.best_by_position) == pytest.approx(1)
    assert all(-1 <= s <= 1 for s, _ in r.scores.values())
