"""Best–worst scaling (survey.kinds.maxdiff.parsing, survey.kinds.maxdiff.statistics): the block design, reply parsing, the
scores against a direct computation on a simulated study, Holm against statsmodels, and size and power by
simulation (small; bench/maxdiff.py has the full table)."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

import survey
from survey import Study
from survey.kinds.maxdiff.parsing import base_block, cyclic_blocks
from survey.kinds.maxdiff.simulation import rejection_rates
from survey.kinds.maxdiff.statistics import compare_maxdiff
from survey.kinds.ordinal.direction_sim import binomial_interval
from survey.responses import response_type


@pytest.mark.parametrize(("v", "s", "block"), [(4, 3, (0, 1, 2)), (7, 3, (0, 1, 3)), (13, 4, (0, 1, 3, 9))])
def test_the_base_block_is_a_difference_set_where_one_exists(v, s, block):
    found = base_block(v, s)
    assert len(found) == s and 0 in found
    diffs = Counter((x - y) % v for x in found for y in found if x != y)
    assert len(set(diffs.values())) == 1 and len(diffs) == v - 1  # every pair of messages together equally often
    if v < 13:
        assert found == block


@pytest.mark.parametrize(("v", "s"), [(4, 3), (5, 3), (6, 4), (9, 5)])
def test_every_message_takes_every_position_once_per_set(v, s):
    blocks = cyclic_blocks(v, s, "study", 3)
    assert len(blocks) == v and all(len(set(b)) == s for b in blocks)
    for t in range(s):
        assert sorted(b[t] for b in blocks) == list(range(v))


def test_replies_name_a_best_and_a_worst():
    md = response_type("maxdiff3")
    replies = ("2 3", "Best: 1, Worst: 3", "3,1", "2 2", "4 1", "2", "", "best 2")
    assert [md.parse(t) for t in replies] == [23, 13, 31, None, None, None, None, None]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("md")
    spec = {"name": "md", "store": str(tmp / "md.sqlite"), "replicates": 2, "personas": {"set": "shoppers", "count": 8},
            "messages": [{"id": m, "perturbations": m, "count": 8} for m in ("sneakers", "boots", "sandals", "loafers")],
            "question": {"type": "maxdiff", "subset": 3},
            "models": [{"name": "sim", "backend": "simulated", "seed": 4,
                        "options": {"deltas": {"sneakers": 1.0}, "positions": [0.5, 0, 0], "invalid_rate": 0.05}}]}
    study = Study.from_spec(spec, base_dir=tmp)
    study.run(yes=True)
    return study.table()


def test_scores_equal_a_direct_computation(table):
    res = compare_maxdiff(table, "sim", "sneakers", "boots", n_resamples=999)
    assert res.n_sets == 8 and res.invalid == int(table["answer"].isna().sum()) > 0
    valid = table.dropna(subset=["answer"])
    set_of = valid["shown_perturbations"].map(lambda p: p.split("|")[0].rsplit("-", 1)[-1])
    for msg in res.messages:
        per_set = []
        for num in sorted(set_of.unique()):
            rows = valid[(set_of == num) & valid["shown"].map(lambda s, msg=msg: msg in s.split("|"))]
            net = (rows["best"] == msg).astype(float) - (rows["worst"] == msg).astype(float)
            per_set.append(net.groupby(rows["persona"]).mean().mean())
        assert res.scores[msg][0] == pytest.approx(np.mean(per_set), abs=1e-12)
    assert res.scores["sneakers"][0] == max(s for s, _ in res.scores.values())  # the simulated favourite


def test_weighted_scores_equal_a_direct_weighted_computation(table):
    """Persona weights (a target population): each set's score is the weighted mean over personas."""
    personas = sorted(table["persona"].astype(str).unique())
    weights = {p: 1.0 + k for k, p in enumerate(personas)}
    res = compare_maxdiff(table, "sim", "sneakers", "boots", n_resamples=999, weights=weights)
    valid = table.dropna(subset=["answer"])
    set_of = valid["shown_perturbations"].map(lambda p: p.split("|")[0].rsplit("-", 1)[-1])
    for msg in res.messages:
        per_set = []
        for num in sorted(set_of.unique()):
            rows = valid[(set_of == num) & valid["shown"].map(lambda s, msg=msg: msg in s.split("|"))]
            net = ((rows["best"] == msg).astype(float) - (rows["worst"] == msg).astype(float)).groupby(
                rows["persona"].astype(str)).mean()
            w = np.array([weights[p] for p in net.index])
            per_set.append(float((net.to_numpy() * w).sum() / w.sum()))
        assert res.scores[msg][0] == pytest.approx(np.mean(per_set), abs=1e-12)
    pooled = compare_maxdiff(table, "sim", "sneakers", "boots", n_resamples=999)
    assert res.scores["boots"][0] != pytest.approx(pooled.scores["boots"][0], abs=1e-9)  # the weights matter
    seg = survey.analyze(table, "sneakers", "boots", weights=weights, flips=999).results[0].segments
    assert seg.population.result.effect.estimate == pytest.approx(res.effect.estimate, abs=1e-12)


def test_holm_over_the_pairs_and_every_pair(table):
    messages = ["sneakers", "boots", "sandals", "loafers"]
    raw = [compare_maxdiff(table, "sim", a, b, n_resamples=999).pair.raw_pvalue for a, b in itertools.combinations(messages, 2)]
    holm = multipletests(raw, method="holm")[1]
    res = survey.analyze(table, every_pair=True, flips=999)
    assert len(res.results) == 6
    got = {frozenset((r.a, r.b)): r.pair.pvalue for r in res.results}
    for (a, b), q in zip(itertools.combinations(messages, 2), holm, strict=True):
        assert got[frozenset((a, b))] == pytest.approx(q, abs=1e-12)


def test_size_and_power_by_simulation():
    lo, hi = binomial_interval(0.05, 800)
    kw = dict(rho=0.3, positions=[1.5, 0, -0.5], seed=3)
    assert lo <= rejection_rates(800, 30, 12, 3, 4, 3, deltas=[0, 0, 2.0, -1.0], **kw)["pair"] <= hi
    # one fixed cyclic order instead of a random one per set: a pair's neighbours and positions are tied together
    assert rejection_rates(800, 30, 12, 3, 4, 3, deltas=[0, 0, 2.0, -1.0], random_order=False, **kw)["pair"] > hi
    power = rejection_rates(300, 30, 12, 3, 4, 3, rho=0.3, deltas=[0.6, 0, 0, 0], seed=5)
    assert power["pair_greater"] > 0.5 and power["pair_less"] == 0
