"""Balanced scales (question order = "both"): the reversed scale, the study, the direction test and its
validity by simulation."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import survey
from survey import Study
from survey.errors import SurveyError
from survey.kinds.ordinal.balanced import ReversedScale
from survey.kinds.ordinal.direction import direction_differences, direction_test
from survey.kinds.ordinal.direction_sim import binomial_interval, rejection_rates
from survey.kinds.ordinal.model import make_ordinal_params
from survey.responses import likert, rating
from survey.stats.permutation import sign_flip_test
from survey.study.question import direction_of


def spec(tmp_path, question: dict, options: dict, replicates: int = 4, personas: int = 6, count: int = 6) -> dict:
    return {"name": "bal", "store": str(tmp_path / "bal.sqlite"), "replicates": replicates,
            "personas": {"set": "shoppers", "count": personas},
            "messages": [{"id": "sneakers", "perturbations": "sneakers", "count": count},
                         {"id": "boots", "perturbations": "boots", "count": count}],
            "question": question,
            "models": [{"name": "sim", "backend": "simulated", "seed": 3, "options": options}]}


def test_the_reversed_scale_maps_answers_back():
    fwd = likert(5)
    back = ReversedScale(fwd)
    assert back.scale == "likert5" and back.view == fwd.view
    assert [back.parse(t) for t in ("1", "2", "5.", "**4**", "6", "x")] == [5, 4, 1, 2, None, None]
    assert list(back.labels.values()) == ["1", "2", "3", "4", "5"] and list(back.labels) == [5, 4, 3, 2, 1]
    # first-token log-probabilities of the shown numbers become the forward scale's distribution
    dist = back.distribution_from_logprobs({"1": math.log(0.7), "4": math.log(0.3)})
    assert dist[5] == pytest.approx(0.7) and dist[2] == pytest.approx(0.3)
    assert back.score_from_logprobs({"1": math.log(0.7), "4": math.log(0.3)}) == pytest.approx(0.7 * 5 + 0.3 * 2)
    words = likert(labels=["Definitely not", "Probably not", "Maybe", "Probably", "Definitely"])
    wback = ReversedScale(words)
    assert wback.parse("Probably not") == 2 and wback.parse("Probably") == 4  # the longer word still wins
    assert "'Definitely', 'Probably', 'Maybe'" in wback.template and "'Definitely'" in wback.answer_instruction()
    r = ReversedScale(rating(0, 10))
    assert r.parse("0") == 10 and r.parse("10") == 0 and "0 (extremely appealing)" in r.template
    assert [direction_of(k, "both") for k in range(4)] == ["forward", "reversed", "forward", "reversed"]
    assert direction_of(1, "forward") == "forward"


def test_a_balanced_study_refuses_what_it_cannot_balance(tmp_path):
    for question, replicates, words in (
            ({"type": "likert", "order": "both"}, 3, "even number"),
            ({"type": "binary", "order": "both"}, 2, "no scale to reverse"),
            ({"type": "likert", "order": "both", "template": "Rate {perturbation} 1-5"}, 2, "reversed_template"),
            ({"type": "likert", "reversed_template": "x {perturbation}"}, 2, "only applies with order")):
        with pytest.raises(SurveyError, match=words):
            Study.from_spec(spec(tmp_path, question, {}, replicates=replicates), base_dir=tmp_path)


def test_a_balanced_study_runs_analyzes_and_reports(tmp_path):
    question = {"type": "likert", "points": 5, "order": "both"}
    study = Study.from_spec(spec(tmp_path, question, {"direction_bias": 1.0, "sigma": 0.5}), base_dir=tmp_path)
    plan = study.dry_run().to_dict()
    assert plan["question"]["order"] == "both" and "definitely would buy) to 5" in plan["question"]["reversed"]["template"]
    run = study.run(yes=True)
    assert run.failed == 0
    df = study.table()
    assert (df["direction"] == np.where(df["replicate"] % 2, "reversed", "forward")).all()
    back = df[df["direction"] == "reversed"]
    # the raw reply is the reversed number; the answer, the expected score and the distribution the forward scale's
    assert (back["answer"].astype(int) == 6 - back["response"].astype(int)).all()
    for _, row in back.head(5).iterrows():
        dist = {int(k): v for k, v in json.loads(row["distribution"]).items()}
        assert row["expected"] == pytest.approx(sum(s * p for s, p in dist.items()))
    res = survey.analyze(df, "sneakers", "boots")
    c = res["sim"]
    d = c.direction
    # acquiescence of +1 logit: forward answers clearly higher; the statistic is the mean per-pair difference
    assert d.effect.estimate > 0.5 and d.pvalue < 0.05 and d.n_pairs == 6
    fwd = df[df["direction"] == "forward"]["answer"].astype(float).mean()
    assert d.means["forward"] - d.means["reversed"] == pytest.approx(fwd - back["answer"].astype(float).mean())
    out = c.to_dict()["direction"]
    assert out["pvalue"] == d.pvalue and out["means"]["forward"] > out["means"]["reversed"]
    # exact mode: the same test on the stored expected scores
    exact = survey.analyze(df, "sneakers", "boots", probabilities=True)["sim"].direction
    assert exact.effect.estimate > 0.5
    page_dir = tmp_path / "rep"
    survey.report(df, out=page_dir)
    page = (page_dir / "index.html").read_text()
    assert "Direction of the scale" in page and "Asked in both directions" in page


def test_the_direction_test_is_the_sign_flip_test_of_the_pair_differences():
    rng = np.random.default_rng(4)
    f = [rng.integers(1, 6, (5, 7)).astype(float) for _ in range(2)]
    r = [rng.integers(1, 6, (5, 7)).astype(float) for _ in range(2)]
    f[0][0, 0] = np.nan  # an empty cell is left out of its pair's mean
    d = direction_differences(f, r)
    by_hand = np.array([np.mean([np.nanmean(f[k][:, j] - r[k][:, j]) for k in range(2)]) for j in range(7)])
    assert np.allclose(d, by_hand, atol=1e-12)
    res = direction_test(d, span=4.0)
    assert res.pvalue == sign_flip_test(d).pvalue and res.effect.estimate == pytest.approx(d.mean())


@pytest.mark.parametrize("rho", [0.0, 0.3, 0.6])
def test_size_of_both_tests_and_power_with_the_right_sign(rho):
    """At 1 000 surveys per cell: the A/B test under a strong direction bias rejects inside the 99% binomial
    interval of 0.05; the direction test under a message effect never above it and not far below it (it is
    an exact test of a statistic with ties, measured at 0.045-0.048 over 8 000 surveys; bench/balanced_scales.py);
    each has power with the right sign under its alternative."""
    n, m, r, surveys = 10, 12, 2, 1000
    lo, hi = binomial_interval(0.05, surveys)
    ab_null = rejection_rates(make_ordinal_params(points=5, sigma=1.0, rho=rho), n, m, r, bias=0.8,
                              surveys=surveys, seed=11)
    dir_null = rejection_rates(make_ordinal_params(points=5, sigma=1.0, rho=rho, delta=1.2), n, m, r, bias=0.0,
                               surveys=surveys, seed=12)
    assert lo <= ab_null["ab"]["rate"] <= hi, ab_null
    assert 0.03 <= dir_null["direction"]["rate"] <= hi, dir_null
    # delta shifts B up: A - B negative; bias 0.8 pulls forward answers up: forward - reversed positive
    assert ab_null["direction"]["positive"] > 0.9 and ab_null["direction"]["negative"] == 0
    assert dir_null["ab"]["negative"] > 0.4 and dir_null["ab"]["positive"] < 0.01
