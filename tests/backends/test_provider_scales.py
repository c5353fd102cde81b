"""Provider backends on rating scales: the exact expected score and distribution from first-token
top log-probabilities, through the fake OpenAI and Mistral servers and the engine into the table."""

from __future__ import annotations

import asyncio
import json
import math
from types import SimpleNamespace

import pandas as pd
import pytest

from survey.backends import create_backend
from survey.collect.engine import Engine, ModelRun
from survey.data.store import Store
from survey.data.table import validate_table
from survey.responses import response_type
from survey.study.design import build_design
from survey.study.spec import parse_study

KEY = "sk-test-scales"
LIKERT_TOKENS = {"4": 0.5, "5": 0.25, " 3": 0.1, "3": 0.05, "Sure": 0.1}  # " 3" and "3" both answer 3
TEN_TOKENS = {"7": 0.45, "1": 0.3, "8": 0.2, "I": 0.05}  # "1" may begin "10"


def personas(_ref):
    return SimpleNamespace(name="p", personas=[SimpleNamespace(id=str(i)) for i in range(2)],
                           system_prompt=lambda p: f"You are shopper {p.id}.")


def paraphrases(ref):
    return SimpleNamespace(name=ref, message=ref, source=f"{ref}.yaml",
                           items=[SimpleNamespace(id=f"{ref[0]}{j}", text=f"{ref} text {j}") for j in range(2)])


def collect(tmp_path, backend, scale_question: dict, model: dict) -> pd.DataFrame:
    spec = parse_study({"name": "s", "store": "x.sqlite", "replicates": 2, "personas": {"set": "p"},
                        "messages": [{"id": "sneakers", "perturbations": "sneakers", "count": 2},
                                     {"id": "boots", "perturbations": "boots", "count": 2}],
                        "question": scale_question, "models": [{"name": "m", **model}]})
    design = build_design(spec, personas, paraphrases)
    store = Store(tmp_path / "s.sqlite")
    run = ModelRun("s", "m", backend, list(design.queries(spec.models[0])), response=spec.question.response)
    asyncio.run(Engine(store, progress=False).run([run]))
    return validate_table(store.to_long_table("s"))


def backend_for(provider: str, fake):
    if provider == "openai":
        return create_backend("openai", "fake-model", base_url=fake.base_url)
    return create_backend("mistral", "mistral-small-latest", server_url=fake.url)


MODEL = {"openai": {"backend": "openai", "model_id": "fake-model", "logprobs": True, "top_logprobs": 5},
         "mistral": {"backend": "mistral", "model_id": "mistral-small-latest", "logprobs": True, "top_logprobs": 5}}


@pytest.mark.parametrize("provider", ["openai", "mistral"])
def test_likert5_expected_score_and_distribution_from_top_logprobs(tmp_path, fake_server, provider):
    fake = fake_server(provider, KEY, first_tokens=LIKERT_TOKENS)
    table = collect(tmp_path, backend_for(provider, fake), {"type": "likert"}, MODEL[provider])
    labels = 0.5 + 0.25 + 0.1 + 0.05  # "Sure" is no label
    want = {1: 0.0, 2: 0.0, 3: 0.15 / labels, 4: 0.5 / labels, 5: 0.25 / labels}
    assert len(table) == 2 * 4 * 2 and set(table["scale"]) == {"likert5"}
    assert table["expected"].to_numpy() == pytest.approx([sum(s * p for s, p in want.items())] * len(table))
    for dist in table["distribution"]:
        got = {int(k): v for k, v in json.loads(dist).items()}
        assert got == pytest.approx(want) and sum(got.values()) == pytest.approx(1)
    valid = table["answer"].dropna().astype(int)
    assert valid.isin([3, 4, 5]).all() and table["answer"].isna().sum() == (table["response"] == "Sure").sum()


@pytest.mark.parametrize("provider", ["openai", "mistral"])
def test_a_first_token_that_may_begin_a_longer_label_gives_no_exact_score(tmp_path, fake_server, provider):
    fake = fake_server(provider, KEY, first_tokens=TEN_TOKENS)
    table = collect(tmp_path, backend_for(provider, fake), {"type": "rating", "low": 0, "high": 10},
                    MODEL[provider])
    assert set(table["scale"]) == {"rating0-10"} and table["expected"].isna().all()
    with Store(tmp_path / "s.sqlite") as store:
        extras = [json.loads(e) for (e,) in store.db.execute("SELECT extra FROM responses")]
    assert all("may begin '10'" in e["expected_note"] and "distribution" not in e for e in extras)
    # the replies themselves are still answers: "1" is 1, "7" is 7
    assert set(table["answer"].dropna().astype(int)) <= {1, 7, 8}


def test_the_ambiguity_rule_of_the_response_types():
    ten, five = response_type("rating0-10"), response_type("likert5")
    lp = {t: math.log(p) for t, p in TEN_TOKENS.items()}
    assert ten.score_from_logprobs(lp) is None and "'1'" in ten.logprobs_note(lp)
    unambiguous = {"7": math.log(0.6), "1.": math.log(0.2), "10": math.log(0.2)}  # "1." ended the number
    assert ten.logprobs_note(unambiguous) is None
    assert ten.score_from_logprobs(unambiguous) == pytest.approx(0.6 * 7 + 0.2 * 1 + 0.2 * 10)
    assert five.logprobs_note({"1": 0.0}) is None  # no label on 1-5 starts with "1" but "1" itself


# The server's top tokens miss labels 3 and 4, which hold the 4.4% outside them: stored as 0 they once
# made every expected score 0.04-0.10 points low against the in-process model.
UNSEEN_TOKENS = {"1": 0.80, "2": 0.064, "5": 0.092}


@pytest.mark.parametrize("provider", ["openai", "mistral"])
def test_labels_missing_from_the_top_tokens_give_no_exact_score(tmp_path, fake_server, provider):
    fake = fake_server(provider, KEY, first_tokens=UNSEEN_TOKENS)
    table = collect(tmp_path, backend_for(provider, fake), {"type": "likert"}, MODEL[provider])
    assert table["expected"].isna().all() and table["answer"].notna().all()
    with Store(tmp_path / "s.sqlite") as store:
        extras = [json.loads(e) for (e,) in store.db.execute("SELECT extra FROM responses")]
    assert all("'3', '4' not among the 3 top first tokens" in e["expected_note"] for e in extras)
    assert all("at most 0.044" in e["expected_note"] and "distribution" not in e for e in extras)


def test_unseen_labels_count_as_zero_only_when_the_mass_outside_the_top_tokens_is_negligible():
    five = response_type("likert5")
    lp = {t: math.log(p) for t, p in UNSEEN_TOKENS.items()}
    assert five.score_from_logprobs(lp) is None and "at most 0.044" in five.logprobs_note(lp)
    nearly_all = {"1": math.log(0.8), "2": math.log(0.1), "5": math.log(0.0995)}  # 0.0005 outside: negligible
    assert five.logprobs_note(nearly_all) is None
    assert five.score_from_logprobs(nearly_all) == pytest.approx((0.8 + 0.2 + 5 * 0.0995) / 0.9995)
