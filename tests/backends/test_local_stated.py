"""The embedded model writes a stated distribution (elicit = "distribution") within the JSON object's skeleton
(survey.backends.stated_writer): every reply is a JSON object naming exactly the options, each a number the
model chose digit by digit; exact mode writes the most likely one (reproducible), constrain = true draws one."""

from __future__ import annotations

import json

import numpy as np
import pytest
from llama_reference import PERSONA, PERTURBATIONS, QUESTION, THREADS

from survey.backends import Query, create_backend
from survey.backends.local import LocalBackend
from survey.backends.stated_writer import _pick
from survey.responses import BINARY, likert
from survey.responses.stated import StatedDistribution

pytest.importorskip("llama_cpp")


def stated_query(rtype, perturbation: int = 0, replicate: int = 0, temperature: float = 1.0) -> Query:
    user = rtype.question(QUESTION.replace("{p}", "{perturbation}")).format(perturbation=PERTURBATIONS[perturbation])
    return Query(study="t", model="smollm2", message="sneakers", perturbation=f"p{perturbation}", persona="p59",
                 replicate=replicate, system=PERSONA.replace(BINARY.answer_instruction(), rtype.answer_instruction()),
                 user=user, seed=7, temperature=temperature, response=rtype, max_tokens=rtype.max_tokens)


@pytest.fixture(scope="module")
def drawn() -> LocalBackend:
    backend = create_backend("local", "smollm2", n_threads=THREADS, mode="sample", constrain=True)
    yield backend
    backend.close()


@pytest.mark.parametrize("rtype", [StatedDistribution(BINARY), StatedDistribution(likert(5))], ids=["yes-no", "likert5"])
def test_every_reply_is_an_object_of_the_options_with_numbers_in_range(drawn, rtype):
    for k in range(2 if len(rtype.labels) == 2 else 1):
        reply = drawn.complete_sync(stated_query(rtype, k, replicate=k))
        values = json.loads(reply.text)
        assert list(values) == list(rtype.labels.values())
        assert all(isinstance(v, (int, float)) and 0 <= v <= 1 for v in values.values())
        assert reply.extra["constrained"] is True and reply.completion_tokens >= len(values)


def test_exact_mode_writes_the_most_likely_statement_every_time():
    backend = create_backend("local", "smollm2", n_threads=THREADS)
    try:
        rtype = StatedDistribution(BINARY)
        texts = {backend.complete_sync(stated_query(rtype, 1, replicate=k)).text for k in range(2)}
        assert len(texts) == 1 and backend.complete_sync(stated_query(rtype, 1)).extra["temperature"] == 0.0
    finally:
        backend.close()


def test_a_choice_follows_the_model_s_mass_on_each_option():
    logprobs = np.log(np.array([0.1, 0.2, 0.3, 0.4]))
    options = {"a": np.array([0, 1]), "b": np.array([2]), "c": np.array([3]), "none": np.array([], dtype=int)}
    assert _pick(logprobs, options, 0.0, np.random.default_rng(0)) == "c"
    draws = [_pick(logprobs, options, 1.0, np.random.default_rng(s)) for s in range(600)]
    assert abs(draws.count("a") / 600 - 0.3) < 0.07
