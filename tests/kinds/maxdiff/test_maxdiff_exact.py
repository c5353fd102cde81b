"""Best–worst scaling in exact mode (survey.kinds.maxdiff.statistics, ``probabilities``): each row's distribution over the
(best, worst) pairs gives expected best and worst counts; the scores equal a direct computation from the
distributions, and a distribution that is one-hot on the answer gives the sampled analysis back."""

from __future__ import annotations

import json

import numpy as np
import pytest

import survey
from survey import Study
from survey.kinds.maxdiff.analysis import MAXDIFF
from survey.kinds.maxdiff.statistics import compare_maxdiff

MESSAGES = ("sneakers", "boots", "sandals", "loafers")
CODES = (12, 13, 21, 23, 31, 32)


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """A simulated maxdiff3 table with a random distribution over the six pairs on every row."""
    tmp = tmp_path_factory.mktemp("mdx")
    spec = {"name": "mdx", "store": str(tmp / "mdx.sqlite"), "replicates": 1, "personas": {"set": "shoppers", "count": 5},
            "messages": [{"id": m, "perturbations": m, "count": 3} for m in MESSAGES],
            "question": {"type": "maxdiff", "subset": 3},
            "models": [{"name": "sim", "backend": "simulated", "seed": 2, "options": {"deltas": {"sneakers": 1.0}}}]}
    study = Study.from_spec(spec, base_dir=tmp)
    study.run(yes=True)
    df = study.table().copy()
    rng = np.random.default_rng(5)
    probs = rng.dirichlet(np.full(len(CODES), 0.7), size=len(df))
    df["distribution"] = [json.dumps({str(c): float(p) for c, p in zip(CODES, row, strict=True)}) for row in probs]
    return df


def _direct_scores(df) -> dict:
    """Score of each message: mean over sets of the mean over personas of the mean over the rows showing it of
    P(best = it) - P(worst = it), summed from the pair distribution by hand."""
    set_of = df["shown_perturbations"].map(lambda p: p.split("|")[0].rsplit("-", 1)[-1])
    out = {}
    for msg in MESSAGES:
        per_set = []
        for num in sorted(set_of.unique()):
            rows = df[(set_of == num) & df["shown"].map(lambda s, msg=msg: msg in s.split("|"))]
            nets = []
            for shown, text in zip(rows["shown"], rows["distribution"], strict=True):
                pos = shown.split("|").index(msg) + 1
                dist = {int(c): p for c, p in json.loads(text).items()}
                nets.append(sum(p for c, p in dist.items() if c // 10 == pos)
                            - sum(p for c, p in dist.items() if c % 10 == pos))
            personas = list(rows["persona"])
            per_set.append(np.mean([np.mean([n for n, p in zip(nets, personas, strict=True) if p == q])
                                    for q in sorted(set(personas))]))
        out[msg] = float(np.mean(per_set))
    return out


def test_expected_scores_equal_a_direct_computation_from_the_distributions(table):
    res = compare_maxdiff(table, "sim", "sneakers", "boots", n_resamples=99, probabilities=True)
    direct = _direct_scores(table)
    for msg in MESSAGES:
        assert res.scores[msg][0] == pytest.approx(direct[msg], abs=1e-12)
    assert res.effect.estimate == pytest.approx(direct["sneakers"] - direct["boots"], abs=1e-12)
    assert sum(res.best_by_position) == pytest.approx(1)
    sampled = compare_maxdiff(table, "sim", "sneakers", "boots", n_resamples=99)
    assert res.scores["boots"][0] != pytest.approx(sampled.scores["boots"][0], abs=1e-6)  # the distribution is read


def test_a_one_hot_distribution_gives_the_sampled_analysis(table):
    one_hot = table.dropna(subset=["answer"]).copy()
    one_hot["distribution"] = [json.dumps({str(int(a)): 1.0}) for a in one_hot["answer"]]
    exact = compare_maxdiff(one_hot, "sim", "boots", "sandals", n_resamples=99, probabilities=True)
    sampled = compare_maxdiff(one_hot, "sim", "boots", "sandals", n_resamples=99)
    assert exact.scores == sampled.scores and exact.best_by_position == sampled.best_by_position


def test_analyze_reads_the_distributions_only_when_every_row_has_one(table):
    assert MAXDIFF.has_exact(table, "sim", "sneakers", "boots")
    res = survey.analyze(table, "sneakers", "boots", probabilities=True, flips=99).results[0]
    assert res.effect.estimate == pytest.approx(compare_maxdiff(table, "sim", "sneakers", "boots", n_resamples=99,
                                                                probabilities=True).effect.estimate, abs=1e-12)
    partial = table.copy()
    partial.loc[partial.index[0], "distribution"] = None
    assert not MAXDIFF.has_exact(partial, "sim", "sneakers", "boots")
    assert not MAXDIFF.has_exact(table.drop(columns="distribution"), "sim", "sneakers", "boots")
