"""Stated distributions (elicit = "distribution") from the study through the engine to the store and the
analysis: stored as exact mode stores its distribution, invalid replies with their reason, empty replies
retried; the simulated respondent states its true distribution (known truth: parsing and the test's size)."""

import asyncio

import numpy as np
import pytest
from scipy import stats
from test_scale_collection import paraphrases, personas, study

import survey
from survey.backends.base import Query, Reply
from survey.backends.simulated import SimulatedBackend
from survey.collect.engine import Engine, ModelRun
from survey.data.store import Store
from survey.data.table import cell_counts, validate_table
from survey.errors import SurveyError
from survey.responses import BINARY
from survey.responses.stated import StatedDistribution
from survey.stats.permutation import sign_flip_pvalues
from survey.study.design import build_design


class Scripted:
    """Replies from a function of the query; counts the calls per row."""

    def __init__(self, reply):
        self.reply, self.calls = reply, {}

    async def complete(self, q):
        self.calls[q.key] = self.calls.get(q.key, 0) + 1
        return Reply(text=self.reply(q, self.calls[q.key]), model_id="x")

    async def aclose(self):
        pass


def collect(tmp_path, spec, backend):
    design = build_design(spec, personas, paraphrases)
    queries = list(design.queries(spec.models[0]))
    store = Store(tmp_path / "s.sqlite")
    eng = Engine(store, progress=False, base_delay=0.0, max_delay=0.0)
    report = asyncio.run(eng.run([ModelRun("s", "m", backend, queries, response=spec.question.response)]))
    return queries, validate_table(store.to_long_table("s")), report


def test_a_stated_yes_no_distribution_is_stored_as_exact_mode_stores_p_yes(tmp_path):
    spec = study({"elicit": "distribution"})
    backend = Scripted(lambda q, n: '{"Yes": 0.8, "No": 0.2}' if q.message == "sneakers" else '{"Yes": 0.3, "No": 0.7}')
    queries, table, _ = collect(tmp_path, spec, backend)
    assert "Answer ONLY with the JSON object" in queries[0].system and "'Yes' or 'No'" not in queries[0].system
    assert queries[0].user.endswith('{"Yes": p, "No": p}') and queries[0].max_tokens == spec.question.response.max_tokens
    assert set(table["scale"]) == {"binary"} and table["answer"].notna().all()
    sneakers = table["message"] == "sneakers"
    assert np.allclose(table.loc[sneakers, "expected"], 0.8) and np.allclose(table.loc[~sneakers, "expected"], 0.3)
    assert cell_counts(table, "m", "sneakers", probabilities=True).theta == pytest.approx(np.full((3, 3), 0.8))
    result = survey.analyze(table, "sneakers", "boots", probabilities=True, flips=99, seed=1).results[0]
    assert result.effect.estimate == pytest.approx(0.5)


def test_invalid_statements_keep_their_reason_and_empty_replies_are_retried(tmp_path):
    spec = study({"type": "likert", "points": 3, "elicit": "distribution"}, reps=1)
    replies = {"sneakers": '{"1": 1, "2": 1, "3": 1}', "boots": '{"1": 0.5, "2": 0.5, "4": 0}'}
    backend = Scripted(lambda q, n: "" if n == 1 else replies[q.message] if q.perturbation.endswith("0")
                       else '{"1": 0.2, "2": 0.3, "3": 0.5}')
    _, table, report = collect(tmp_path, spec, backend)
    assert set(backend.calls.values()) == {2}  # every empty first reply was sent again
    assert report.models["m"].failed == 0 and report.models["m"].retries == len(table)
    extra = table.set_index(["message", "perturbation", "persona"])["extra"]
    assert '"invalid_reason": "the probabilities sum to 3, not 1 (within 0.05)"' in extra[("sneakers", "s0", "0")]
    assert "unknown option '4'" in extra[("boots", "b0", "0")]
    valid = table[table["answer"].notna()]
    assert len(valid) == len(table) - 6 and np.allclose(valid["expected"], 2.3)
    assert valid["distribution"].iloc[0] == '{"1": 0.2, "2": 0.3, "3": 0.5}'


def test_elicit_distribution_is_refused_where_it_means_nothing():
    for question in ({"type": "text"}, {"type": "ssr"}, {"type": "pick"}, {"type": "maxdiff"}):
        with pytest.raises(SurveyError, match="has no single answer to state one for: remove elicit"):
            study({**question, "elicit": "distribution"})
    with pytest.raises(SurveyError, match="elicit"):
        study({"elicit": "distributions"})


def test_a_balanced_scale_states_both_directions(tmp_path):
    spec = study({"type": "likert", "points": 3, "order": "both", "elicit": "distribution"}, reps=2)
    backend = Scripted(lambda q, n: '{"1": 0.1, "2": 0.2, "3": 0.7}')
    queries, table, _ = collect(tmp_path, spec, backend)
    reversed_q = next(q for q in queries if q.direction == "reversed")
    assert reversed_q.response_type.elicit == "distribution" and reversed_q.user.endswith('"3": p}')
    forward = table["direction"] == "forward"
    assert np.allclose(table.loc[forward, "expected"], 2.6)
    assert np.allclose(table.loc[~forward, "expected"], 1.4)  # "3" said on the reversed scale means 1


def test_the_simulated_respondent_states_its_true_distribution(tmp_path):
    """Known truth: every stored expected score is the cell's true P(Yes) (three decimals, renormalised)."""
    spec = study({"elicit": "distribution"}, reps=1)
    backend = SimulatedBackend(seed=5, invalid_rate=0.2)
    queries, table, _ = collect(tmp_path, spec, backend)
    truth = {q.key[2:5]: backend.cell_probability(5, q.persona, q.message, q.perturbation) for q in queries}
    valid = table[table["answer"].notna()]
    got = {(r.message, r.perturbation, r.persona): r.expected for r in valid.itertuples()}
    assert 0 < len(table) - len(valid) < len(table)  # invalid_rate states sums of 2
    assert all(abs(got[k] - truth[k]) < 2e-3 for k in got)
    rating = study({"type": "likert", "elicit": "distribution"}, reps=1)
    queries, table, _ = collect(tmp_path / "r", rating, SimulatedBackend(seed=5))
    sim = SimulatedBackend(seed=5)
    means = {q.key[2:5]: sum(s * p for s, p in sim.rating_probabilities(5, q).items()) for q in queries}
    assert all(abs(r.expected - means[(r.message, r.perturbation, r.persona)]) < 1e-2 for r in table.itertuples())


def test_sign_flip_size_on_stated_distributions_is_alpha(tmp_path):
    """No message effect: the sign-flip test on the stated expected scores rejects at alpha = 0.05 inside the
    99% binomial band (1 000 simulated studies of 2 personas x 8 paraphrase pairs; the exact test's size is
    12/256)."""
    n, m, studies, alpha = 2, 8, 1000, 0.05
    stated = StatedDistribution(BINARY)

    async def stated_thetas(sim, s):  # each cell's expected score as the simulated respondent states it
        theta = np.empty((2, n, m))
        for a, msg in enumerate(("a", "b")):
            for i in range(n):
                for j in range(m):
                    q = Query(study="st", model="m", message=msg, perturbation=f"{msg}{j}", persona=f"P{i}",
                              replicate=0, system="", user="", response=stated)
                    theta[a, i, j] = stated.read((await sim.complete(q)).text, q.key)[1]
        return theta

    async def effects():  # per study, the paraphrase pairs' mean differences d_j
        return [(t[0] - t[1]).mean(axis=0) for s in range(studies)
                for t in [await stated_thetas(SimulatedBackend(seed=s, sigma=1.0, rho=0.5), s)]]

    D = np.array(asyncio.run(effects()))
    rejected = int((sign_flip_pvalues(D) <= alpha).sum())
    lo, hi = stats.binom.interval(0.99, studies, 12 / 256)
    assert lo <= rejected <= hi
