"""The simulated backend and the design: deterministic per cell, persona-major, resumable."""

import asyncio
import math
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats
from scipy.special import expit, logit

from survey.backends import create_backend
from survey.backends.base import Query
from survey.collect.engine import Engine, ModelRun
from survey.data.store import Store
from survey.errors import SurveyError
from survey.study.design import build_design, prompt_hash
from survey.study.spec import parse_study


def fake_personas(ref):
    people = [SimpleNamespace(id=f"p{i}", age=20 + i) for i in range(6)]
    return SimpleNamespace(name=ref, personas=people, system_prompt=lambda p: f"You are {p.age}.")


def fake_perturbations(ref):
    items = [SimpleNamespace(id=f"{ref}-{j}", text=f"I want {ref} #{j}") for j in range(4)]
    return SimpleNamespace(name=ref, message=ref, items=items)


def study(**over):
    data = {"name": "t", "store": "t.sqlite", "replicates": 2,
            "personas": {"set": "people", "count": 3},
            "messages": [{"perturbations": "A", "count": 3}, {"id": "b", "perturbations": "B"}],
            "models": [{"name": "sim", "backend": "simulated", "seed": 1,
                        "options": {"deltas": {"b": 0.5}}}]}
    data.update(over)
    return parse_study(data)


def design(s=None):
    return build_design(s or study(), fake_personas, fake_perturbations)


def test_design_is_persona_major_with_defaults():
    d = design()
    qs = list(d.queries(d.study.models[0]))
    assert d.n_cells == 3 * (3 + 4) and len(qs) == d.queries_per_model == 42
    assert [q.persona for q in qs[:14]] == ["p0"] * 14  # persona-major
    assert [(q.message, q.perturbation, q.replicate) for q in qs[:3]] == [("A", "A-0", 0), ("A", "A-0", 1),
                                                                          ("A", "A-1", 0)]
    q = qs[0]
    assert q.system == "You are 20." and q.user.startswith('A customer said: "I want A #0" Based on this')
    assert (q.max_tokens, q.temperature, q.seed, q.study, q.model) == (1, 1.0, 1, "t", "sim")
    assert {q.message for q in qs} == {"A", "b"}  # id defaults to the set's message


def test_seeded_persona_sample_and_errors():
    d = build_design(study(personas={"set": "x", "count": 3, "sample_seed": 4}), fake_personas, fake_perturbations)
    ids = [p.id for p in d.personas]
    assert len(set(ids)) == 3 and ids == sorted(ids)  # a sample, kept in the set's order
    again = build_design(study(personas={"set": "x", "count": 3, "sample_seed": 4}), fake_personas,
                         fake_perturbations)
    assert [p.id for p in again.personas] == ids
    others = {tuple(p.id for p in build_design(study(personas={"set": "x", "count": 3, "sample_seed": s}),
                                              fake_personas, fake_perturbations).personas) for s in range(10)}
    assert len(others) > 1  # the seed matters
    with pytest.raises(SurveyError, match="personas.count = 9 but set"):
        design(study(personas={"set": "x", "count": 9}))
    with pytest.raises(SurveyError, match="count = 7 but perturbation set 'A' has 4"):
        design(study(messages=[{"perturbations": "A", "count": 7}]))
    with pytest.raises(SurveyError, match="repeats id"):
        design(study(messages=[{"perturbations": "A"}, {"perturbations": "A"}]))


def test_prompt_hash_tracks_prompt_and_settings():
    d = design()
    q = next(d.queries(d.study.models[0]))
    from dataclasses import replace

    assert prompt_hash(q) == prompt_hash(replace(q, replicate=1))
    assert prompt_hash(q) != prompt_hash(replace(q, user=q.user + " "))
    assert prompt_hash(q) != prompt_hash(replace(q, temperature=0.5))


def test_text_mode_queries():
    d = design(study(question={"mode": "text", "max_tokens": 30}))
    q = next(d.queries(d.study.models[0]))
    assert q.max_tokens == 30 and "how do you react" in q.user


def collect(store_path, qs, backend, concurrency, stop_after=None):
    async def go():
        with Store(store_path) as store:
            eng = Engine(store, progress=False)
            todo = qs if stop_after is None else qs[:stop_after]
            await eng.run([ModelRun("t", "sim", backend, todo, concurrency=concurrency)])
    asyncio.run(go())
    with Store(store_path) as store:
        return store.to_long_table()


def test_simulated_resume_gives_the_same_table(tmp_path):
    d = design(study(replicates=5))
    qs = list(d.queries(d.study.models[0]))
    opts = d.study.models[0].options
    whole = collect(tmp_path / "a.sqlite", qs, create_backend("simulated", **opts), concurrency=1)
    # interrupted after 37 queries, resumed by a new backend instance at another concurrency
    collect(tmp_path / "b.sqlite", qs, create_backend("simulated", **opts), concurrency=7, stop_after=37)
    resumed = collect(tmp_path / "b.sqlite", list(reversed(qs)), create_backend("simulated", **opts), concurrency=3)
    cols = ["model", "message", "perturbation", "persona", "replicate", "answer", "p_yes"]
    key = cols[:5]
    assert whole[cols].sort_values(key, ignore_index=True).equals(resumed[cols].sort_values(key, ignore_index=True))
    assert 0 < whole["answer"].sum() < len(whole)


def test_simulated_cell_probabilities_follow_the_model():
    b = create_backend("simulated", mu=0.3, kappa=5.0, sigma=0.0, deltas={"B": 0.7}, seed=3)
    p_a = np.array([b.cell_probability(3, f"p{i}", "A", "A-1") for i in range(4000)])
    p_b = np.array([b.cell_probability(3, f"p{i}", "B", "B-9") for i in range(4000)])
    np.testing.assert_allclose(p_b, expit(logit(p_a) + 0.7))  # sigma = 0: exactly the delta shift
    # persona base rates are Beta(mu kappa, (1 - mu) kappa): a KS test against scipy's Beta
    assert stats.kstest(p_a, stats.beta(1.5, 3.5).cdf).pvalue > 0.01


def test_simulated_shared_and_specific_variance():
    b = create_backend("simulated", mu=0.5, kappa=1e6, sigma=1.0, rho=0.4)  # p_i ~ 0.5 for everyone
    z = np.array([[logit(b.cell_probability(0, f"p{i}", "A", f"j{j}")) for j in range(300)] for i in range(30)])
    shared = z.mean(axis=0)  # u_j plus noise of variance (1 - rho) / 30
    assert np.var(shared) == pytest.approx(0.4 + 0.6 / 30, rel=0.25)
    assert np.var(z - shared) == pytest.approx(0.6 * 29 / 30, rel=0.1)


def test_simulated_replies_and_options():
    b = create_backend("simulated", invalid_rate=1.0)
    q = Query("s", "m", "A", "A-1", "p", 0, "sys", "user", logprobs=True)
    r = asyncio.run(b.complete(q))
    assert r.text == "Maybe" and math.exp(r.logprobs["Yes"]) == pytest.approx(r.p_yes)
    with pytest.raises(SurveyError, match="simulated backend options: rho"):
        create_backend("simulated", rho=2)
    with pytest.raises(SurveyError, match="simulated backend options: bogus"):
        create_backend("simulated", bogus=1)


def test_study_persona_template_overrides_the_set():
    def personas(ref):
        people = [SimpleNamespace(id="p0", attributes={"age": 30, "job": "baker"})]
        return SimpleNamespace(name=ref, personas=people, system_prompt=lambda p: "set prompt")

    s = study(personas={"set": "x", "template": "You are a {age}-year-old {job} (#{id}). Speak freely."})
    d = build_design(s, personas, fake_perturbations)
    assert next(d.queries(s.models[0])).system == "You are a 30-year-old baker (#p0). Speak freely."
    bad = build_design(study(personas={"set": "x", "template": "{income}"}), personas, fake_perturbations)
    with pytest.raises(SurveyError, match=r"\{income\}, which persona 'p0' lacks"):
        next(bad.queries(s.models[0]))
