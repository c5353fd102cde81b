"""Exact mode and constrained draws on rating scales, on the real SmolLM2-135M GGUF.

SmolLM2 writes each digit as its own token and has no " 3" token: " 3" is " " then "3", and "10" is
"1" then "0". The label probabilities are checked against an independent reference: a fresh
Llama(logits_all=True) per token path, chained by hand.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from llama_reference import PERSONA, THREADS, shopper_query
from scipy import stats

from survey import Study
from survey.backends import create_backend
from survey.backends.llama_runtime import default_gguf_path
from survey.backends.local import LocalBackend, replicate_seed
from survey.responses import likert, response_type

pytest.importorskip("llama_cpp")

LIKERT = ('A customer said: "I\'d like to buy a pair of sneakers." How likely would you personally be to buy the '
          'product they are describing, from 1 (definitely would not buy) to 5 (definitely would buy)? '
          'Answer with a single whole number.')
SYSTEM = PERSONA.replace("Answer ONLY 'Yes' or 'No'.", "Answer ONLY with a whole number from 1 to 5.")


def ask(scale: str = "likert5", replicate: int = 0, **kw):
    return shopper_query("smollm2", 0, replicate, **{"scale": scale, "system": SYSTEM, "user": LIKERT,
                                                     "max_tokens": 3, **kw})


@pytest.fixture(scope="module")
def exact() -> LocalBackend:
    backend = create_backend("local", "smollm2", n_threads=THREADS)
    yield backend
    backend.close()


def fresh_probabilities(tokens: list[int], extensions: list[list[int]]) -> list[np.ndarray]:
    """P(next token) after ``tokens`` + each extension's every prefix, from ONE fresh
    Llama(logits_all=True) sharing nothing with the backend (the reference of llama_reference, loaded once):
    for extension e, the list gets len(e) + 1 rows (after the prompt, after e[:1], ...)."""
    from llama_cpp import Llama

    fresh = Llama(str(default_gguf_path()), n_ctx=512, n_threads=THREADS, n_threads_batch=THREADS,
                  logits_all=True, verbose=False)
    out = []
    try:
        for ext in extensions:
            fresh.reset()
            fresh.eval(tokens + ext)
            for i in range(len(ext) + 1):
                logits = fresh.scores[len(tokens) - 1 + i].astype(np.float64)
                p = np.exp(logits - logits.max())
                out.append(p / p.sum())
    finally:
        fresh.close()
    return out


def tokens_of(rt, text: str) -> list[int]:
    return rt.llm.tokenize(text.encode(), add_bos=False, special=False)


def test_digits_are_single_tokens_and_a_space_is_its_own_token(exact):
    rt = exact.runtime
    assert [len(tokens_of(rt, str(d))) for d in range(10)] == [1] * 10
    assert tokens_of(rt, "10") == tokens_of(rt, "1") + tokens_of(rt, "0")
    assert tokens_of(rt, " 3") == tokens_of(rt, " ") + tokens_of(rt, "3")
    paths = rt.label_paths(response_type("likert5").labels)
    assert paths.inner == [tuple(tokens_of(rt, " "))]  # one more pass per cell, after the space


def test_likert5_distribution_matches_a_fresh_chain_rule_reference(exact):
    reply = exact.complete_sync(ask())
    dist = {int(k): v for k, v in reply.extra["distribution"].items()}
    assert set(dist) == {1, 2, 3, 4, 5} and sum(dist.values()) == pytest.approx(1, abs=1e-12)
    assert reply.p_yes == pytest.approx(sum(s * p for s, p in dist.items()), rel=1e-12)
    assert 1 <= reply.p_yes <= 5 and reply.text in {"1", "2", "3", "4", "5"}

    rt = exact.runtime
    prompt = rt.tokenize(rt.render(SYSTEM, LIKERT))
    space = tokens_of(rt, " ")[0]
    first, _, after_space = fresh_probabilities(prompt, [[], [space]])
    for d in range(1, 6):
        digit = tokens_of(rt, str(d))[0]
        reference = first[digit] + first[space] * after_space[digit]
        assert reply.extra[f"p_{d}_raw"] == pytest.approx(reference, rel=1e-4)


def test_on_0_to_10_a_one_counts_only_when_the_number_ends_there(exact):
    reply = exact.complete_sync(ask("rating0-10"))
    raw = {s: reply.extra[f"p_{s}_raw"] for s in range(11)}
    assert 0 < sum(raw.values()) <= 1 + 1e-12
    rt = exact.runtime
    prompt = rt.tokenize(rt.render(SYSTEM, LIKERT))
    one, zero = tokens_of(rt, "1")[0], tokens_of(rt, "0")[0]
    space = tokens_of(rt, " ")[0]
    digits = [tokens_of(rt, str(d))[0] for d in range(10)]
    p1, after_one, _, _, p_space, after_space_one, _ = fresh_probabilities(prompt, [[one, zero],
                                                                                     [space, one, zero]])
    continues = exact.runtime.continues()
    assert continues[digits].all() and not continues[space]

    def end(p):  # 1 - P(a letter or digit follows): the reply says "1", not "10", "12" or "1st"
        return 1 - p[continues].sum()

    ten = p1[one] * after_one[zero] + p1[space] * p_space[one] * after_space_one[zero]
    alone = p1[one] * end(after_one) + p1[space] * p_space[one] * end(after_space_one)
    assert raw[10] == pytest.approx(ten, rel=1e-4)
    assert raw[1] == pytest.approx(alone, rel=1e-4)
    assert raw[1] < p1[one] + p1[space] * p_space[one]  # the first-token rule would over-count "1"
    dist = {int(k): v for k, v in reply.extra["distribution"].items()}
    assert sum(dist.values()) == pytest.approx(1) and reply.p_yes == pytest.approx(
        sum(s * p for s, p in dist.items()))


def test_word_labels_that_extend_each_other(exact):
    words = likert(labels=["Definitely not", "Probably not", "Maybe", "Probably", "Definitely"])
    q = ask(words.scale, response=words, max_tokens=words.max_tokens,
            user="Would you buy sneakers? Answer with one of: 'Definitely not', 'Probably not', 'Maybe', "
                 "'Probably', 'Definitely'.")
    rt = exact.runtime
    paths = rt.label_paths(words.labels)
    probably = tuple(tokens_of(rt, "Probably"))
    assert paths.ends[probably] == 4 and probably in paths.children  # "Probably" then maybe " not"
    before = exact.stats()["forward_passes"]
    replies = [exact.complete_sync(dataclasses.replace(q, replicate=k)) for k in range(40)]
    assert exact.stats()["forward_passes"] - before <= len(paths.inner) + 1  # the replicates reuse them
    dist = {int(k): v for k, v in replies[0].extra["distribution"].items()}
    assert sum(dist.values()) == pytest.approx(1) and all(p > 0 for p in dist.values())
    assert sum(replies[0].extra[f"p_{w.casefold()}_raw"] for w in words.labels.values()) <= 1
    assert {words.parse(r.text) for r in replies} <= set(words.labels)


def test_replicates_are_draws_from_the_distribution(exact):
    replies = [exact.complete_sync(ask(replicate=k)) for k in range(300)]
    dist = {int(k): v for k, v in replies[0].extra["distribution"].items()}
    assert all(r.extra["distribution"] == replies[0].extra["distribution"] for r in replies)
    u = np.random.default_rng(replicate_seed(7, ask(replicate=5).key)).random()
    assert replies[5].text == str(response_type("likert5").draw(dist, u))
    counts = np.array([sum(r.text == str(s) for r in replies) for s in range(1, 6)])
    expected = np.array([dist[s] for s in range(1, 6)]) * len(replies)
    keep = expected >= 5  # chi-square cells with enough expected counts; the rest pooled
    observed = np.append(counts[keep], counts[~keep].sum())
    expect = np.append(expected[keep], expected[~keep].sum())
    observed, expect = observed[expect > 0], expect[expect > 0]
    assert stats.chisquare(observed, expect).pvalue > 1e-3


def test_constrained_sampling_draws_labels_at_the_exact_rates(exact):
    backend = LocalBackend("smollm2", n_threads=THREADS, mode="sample", constrain=True)
    backend._rt = exact.runtime
    replies = [backend.complete_sync(ask(replicate=k)) for k in range(300)]
    scale = response_type("likert5")
    answers = [scale.parse(r.text) for r in replies]
    assert None not in answers and all(r.extra["constrained"] for r in replies)
    dist = {int(k): v for k, v in exact.complete_sync(ask()).extra["distribution"].items()}
    counts = np.array([answers.count(s) for s in range(1, 6)])
    expected = np.array([dist[s] for s in range(1, 6)]) * len(replies)
    big = expected >= 5
    observed = np.append(counts[big], counts[~big].sum())
    expect = np.append(expected[big], expected[~big].sum())
    observed, expect = observed[expect > 0], expect[expect > 0]
    assert stats.chisquare(observed, expect).pvalue > 1e-3
    assert [backend.complete_sync(ask(replicate=k)).text for k in range(10)] == [r.text for r in replies[:10]]


def test_a_likert5_study_runs_end_to_end_in_exact_mode(tmp_path):
    spec = {"name": "lik", "store": str(tmp_path / "lik.sqlite"), "replicates": 2,
            "personas": {"set": "shoppers", "count": 2},
            "messages": [{"id": "sneakers", "perturbations": "sneakers", "count": 2},
                         {"id": "boots", "perturbations": "boots", "count": 2}],
            "question": {"type": "likert", "points": 5},
            "models": [{"name": "smollm2", "backend": "local", "model_id": "smollm2", "seed": 3,
                        "options": {"mode": "exact", "n_threads": THREADS}}]}
    study = Study.from_spec(spec, base_dir=tmp_path)
    run = study.run(yes=True)
    assert run.stored == 16 and run.failed == 0
    df = study.table()
    assert len(df) == 16 and set(df["scale"]) == {"likert5"}
    assert df["answer"].notna().all() and df["answer"].astype(int).between(1, 5).all()
    assert df["expected"].between(1, 5).all()
    cells = df.groupby(["persona", "message", "perturbation"])
    assert (cells["expected"].nunique() == 1).all()
    for _, row in df.iterrows():
        dist = {int(k): v for k, v in json.loads(row["distribution"]).items()}
        assert set(dist) == {1, 2, 3, 4, 5} and sum(dist.values()) == pytest.approx(1)
        assert row["expected"] == pytest.approx(sum(s * p for s, p in dist.items()))
        assert dist[int(row["answer"])] > 0


def test_forced_choice_in_exact_mode_and_scales_in_plain_sample_mode(exact):
    choice = exact.complete_sync(ask("choice", user='Option 1: "sneakers" Option 2: "boots" Which would you '
                                                  'rather buy? Answer 1 or 2.', max_tokens=2))
    dist = {int(k): v for k, v in choice.extra["distribution"].items()}
    assert set(dist) == {1, 2} and sum(dist.values()) == pytest.approx(1)
    assert choice.p_yes == pytest.approx(dist[1] + 2 * dist[2]) and choice.text in ("1", "2")
    # without constrain, sample mode generates up to max_tokens and the parser reads the reply
    backend = LocalBackend("smollm2", n_threads=THREADS, mode="sample")
    backend._rt = exact.runtime
    replies = [backend.complete_sync(ask(replicate=k)) for k in range(5)]
    assert all(r.p_yes is None and 1 <= r.completion_tokens <= 3 and "finish_reason" in r.extra for r in replies)
