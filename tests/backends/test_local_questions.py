"""Several questions after the same persona and paraphrase (the independent flow), on the real SmolLM2 GGUF:
the local backend's batch entry evaluates their shared prefix once, and every answer is the one the query
gets when its prompt is evaluated whole (kv_reuse = false), in exact mode and in sampling mode."""

from __future__ import annotations

from dataclasses import replace

import pytest
from llama_reference import PERSONA, PERTURBATIONS, THREADS, shopper_query

from survey.backends import BackendError, create_backend
from survey.backends.local import LocalBackend
from survey.responses import response_type
from survey.study.design import answer_in_kind

pytest.importorskip("llama_cpp")

OPENING = 'A customer said: "{p}" Based on this, '
QUESTIONS = {  # id -> (question template, scale)
    "intent": (OPENING + "would you personally be interested in buying the product they are describing?", "binary"),
    "appeal": (OPENING + "does the product they are describing appeal to you?", "binary"),
    "unique": (OPENING + "is the product they are describing different from others you know?", "binary"),
    "likely": (OPENING + "how likely would you be to buy it?", "likert5"),
}


def questions(**kw) -> list:
    """Two paraphrases x four questions, each question in its own prompt after the persona and paraphrase."""
    out = []
    for i in range(2):
        for qid, (template, scale) in QUESTIONS.items():
            system = answer_in_kind(PERSONA, response_type(scale))  # a rating question's own instruction
            out.append(replace(shopper_query("smollm2", i, 0, scale=scale, system=system, **kw),
                               perturbation=f"p{i}-{qid}", user=template.format(p=PERTURBATIONS[i])))
    return out


@pytest.fixture(scope="module")
def pair():
    """(reusing backend, whole-prompt backend): the same model, with and without the KV reuse."""
    reuse = create_backend("local", "smollm2", n_threads=THREADS)
    whole = create_backend("local", "smollm2", n_threads=THREADS, kv_reuse=False)
    yield reuse, whole
    reuse.close()
    whole.close()


def sharing(backend: LocalBackend, mode: str, **options) -> LocalBackend:
    """A backend in ``mode`` on an already loaded runtime and its KV reuse setting; a reusing one gets empty
    caches of recent prompts (so its prompts are evaluated again), a whole-prompt one keeps them (each entry
    came from a whole evaluation)."""
    other = LocalBackend.__new__(LocalBackend)
    other.__dict__.update(backend.__dict__)
    other.options = backend.options.model_copy(update={"mode": mode, **options})
    if backend.options.kv_reuse:
        other._first, other._masses = type(backend._first)(), type(backend._masses)()
    return other


def test_exact_mode_answers_of_several_questions_equal_each_prompt_evaluated_whole(pair):
    reuse, whole = pair
    qs = questions()
    before, whole_before = reuse.stats()["tokens_evaluated"], whole.stats()["tokens_evaluated"]
    many = reuse.complete_many(qs)
    alone = [whole.complete_sync(q) for q in qs]
    for got, ref in zip(many, alone, strict=True):
        assert got.p_yes == pytest.approx(ref.p_yes, abs=1e-9)
        assert got.text == ref.text
        for value, p in ref.extra.get("distribution", {}).items():
            assert got.extra["distribution"][value] == pytest.approx(p, abs=1e-9)
    assert "distribution" in many[3].extra  # the rating question's five-point distribution
    spent = reuse.stats()["tokens_evaluated"] - before
    assert spent < 0.5 * (whole.stats()["tokens_evaluated"] - whole_before)  # the prefix evaluated once


def test_sampling_mode_draws_of_several_questions_equal_each_prompt_evaluated_whole(pair):
    reuse, whole = pair
    for options in ({}, {"constrain": True}):
        a, b = sharing(reuse, "sample", **options), sharing(whole, "sample", **options)
        qs = questions()
        assert [r.text for r in a.complete_many(qs)] == [b.complete_sync(q).text for q in qs]
    free = questions(max_tokens=4)[:4]  # completions: the prompt's logits, then one token at a time
    a, b = sharing(reuse, "sample"), sharing(whole, "sample")
    assert [r.text for r in a.complete_many(free)] == [b.complete_sync(q).text for q in free]


def test_the_batch_entry_runs_prompts_sharing_a_prefix_together_and_answers_in_the_order_given(pair, monkeypatch):
    reuse, _ = pair
    qs = questions()
    shuffled = qs[1::2] + qs[0::2]  # questions of one paraphrase apart
    shuffled.insert(3, replace(qs[0], perturbation="bad", params={"nope": 1}))
    sent = []
    original = LocalBackend.complete_sync
    monkeypatch.setattr(LocalBackend, "complete_sync", lambda self, q: sent.append(q) or original(self, q))
    replies = reuse.complete_many(shuffled)
    assert [(q.system, q.user) for q in sent] == sorted((q.system, q.user) for q in shuffled)
    assert isinstance(replies[3], BackendError) and replies[3].code == "bad_params"
    for q, r in zip(shuffled, replies, strict=True):
        if q.perturbation != "bad":
            assert r.p_yes == original(reuse, q).p_yes  # each reply is its own query's
