"""A checkbox result's intervals agree with its decision: the decision is Holm-adjusted over the k options, so the
intervals shown beside it are simultaneous over the options (Bonferroni, each at 1 − (1 − confidence)/k), and "not
significant" never comes with a deciding interval that excludes 0 (the unadjusted 95% interval did)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import survey
from survey.kinds.checkbox.statistics import compare_checkbox
from survey.stats.effect import effect_ci
from survey.stats.family import interval_levels

OPTIONS = ["comfortable", "stylish", "good value", "durable"]


def ticked_table(ticks_a, ticks_b, n: int = 4) -> pd.DataFrame:
    """Option 1 ticked by the first ticks[j] of n personas on pair j (option 2 always, so a reply ticks one)."""
    rows = []
    for msg, ticks in (("A", ticks_a), ("B", ticks_b)):
        for j, t in enumerate(ticks):
            for i in range(n):
                rows.append(dict(model="m", message=msg, perturbation=f"{msg}{j}", persona=f"p{i}", replicate=0,
                                 answer=2 | int(i < t), scale="checkbox4-1-3", options="|".join(OPTIONS)))
    return pd.DataFrame(rows)


# option 1's per-pair differences (0.5, 0.75, 0.5, 0.75, 0.25, -0.25, 1, 0.75): raw sign-flip p 0.023 (counting
# ties), so its unadjusted 95% interval excludes 0, while its Holm p over the 4 options is above 0.05
TICKS_A, TICKS_B = [2, 3, 4, 4, 1, 1, 4, 4], [0, 0, 2, 1, 0, 2, 0, 1]


def test_not_significant_comes_with_an_interval_holding_zero():
    r = compare_checkbox(ticked_table(TICKS_A, TICKS_B), "m", "A", "B", OPTIONS)
    d = (np.array(TICKS_A) - np.array(TICKS_B)) / 4
    assert r.decision.option == "comfortable" and r.pvalue > 0.05
    assert effect_ci(d, confidence=0.95).ci[0] > 0  # the unadjusted interval said A > B
    assert r.interval_level == pytest.approx(1 - 0.05 / 4) == interval_levels([0.1] * 4, 0.05, "holm")[0]
    assert r.effect.ci[0] <= 0 <= r.effect.ci[1]
    assert r.effect.ci == effect_ci(d, confidence=1 - 0.05 / 4, bounds=(-1.0, 1.0)).ci
    assert all(o["effect"].confidence == r.interval_level for o in r.per_option)


def null_table(rng, n=6, m=8, r=2, k=4, rho=0.5, messages=("A", "B"), effects=None) -> pd.DataFrame:
    """A checkbox4-0-4 table with no difference between the messages (or ``effects``: message -> shift): option o
    ticked with probability expit(persona + paraphrase shift + c_o)."""
    persona = rng.normal(0, 1, n)
    c = np.linspace(1, -1, k)
    rows = []
    for msg in messages:
        for j in range(m):
            shift = rng.normal(0, rho) + (effects or {}).get(msg, 0.0)
            for i in range(n):
                for rep in range(r):
                    p = 1 / (1 + np.exp(-(persona[i] + shift + c)))
                    mask = int(((rng.random(k) < p) << np.arange(k)).sum())
                    rows.append(dict(model="m", message=msg, perturbation=f"{msg}{j}", persona=f"p{i}",
                                     replicate=rep, answer=mask, scale="checkbox4-0-4", options="|".join(OPTIONS)))
    return pd.DataFrame(rows)


def test_under_the_null_no_study_says_not_significant_beside_an_interval_excluding_zero():
    """60 null studies at alpha = 0.05: the deciding interval excludes 0 while the Holm p is above alpha in none
    (the unadjusted 95% interval did so in several: the defect this guards against)."""
    rng = np.random.default_rng(3)
    contradicting, unadjusted = 0, 0
    for _ in range(60):
        res = compare_checkbox(null_table(rng), "m", "A", "B", OPTIONS, n_resamples=999)
        excludes = not res.effect.ci[0] <= 0 <= res.effect.ci[1]
        contradicting += res.pvalue > 0.05 and excludes
        old = effect_ci(res.d_perturbation, confidence=0.95, bounds=(-1.0, 1.0)).ci
        unadjusted += res.pvalue > 0.05 and not old[0] <= 0 <= old[1]
    assert contradicting == 0
    assert unadjusted > 0


def test_the_level_is_said_in_text_json_report_and_python(tmp_path, capsys):
    from cli_result import run_cli

    df = ticked_table(TICKS_A, TICKS_B)
    r = survey.analyze(df, "A", "B")["m"]
    words = "98.75% intervals, simultaneous over the 4 options (Bonferroni: 1 − 0.05/4 each"
    assert words in r.interval_words and r.interval_level == pytest.approx(0.9875) and r.confidence == 0.95
    got = r.to_dict()["intervals"]
    assert got == {"confidence": pytest.approx(0.9875), "adjustment": "bonferroni over the 4 options",
                   "family_confidence": 0.95}
    df.to_csv(tmp_path / "t.csv", index=False)
    code, out, _ = run_cli(capsys, "analyze", str(tmp_path / "t.csv"))
    assert code == 0 and "98.75% CI" in out and f"intervals: {words}" in out
    code, out, _ = run_cli(capsys, "analyze", str(tmp_path / "t.csv"), "--json")
    assert code == 0 and "bonferroni over the 4 options" in out
    json.loads(out)
    survey.report(df, out=tmp_path / "r")
    html = (tmp_path / "r" / "index.html").read_text()
    assert "98.75% CI" in html and "simultaneous over the 4 options" in html


def test_every_pairs_joint_interval_is_over_the_pairs_and_the_options():
    """Three messages: each pair's Holm p over the pairs is of its Holm p over the options, so its joint interval is
    Bonferroni over both (1 − 0.05/(3·4)); a pair called no difference never has one excluding 0."""
    rng = np.random.default_rng(5)
    contradicting = 0
    for _ in range(8):
        df = null_table(rng, m=8, messages=("A", "B", "C"), effects={"A": 0.6})
        s = survey.analyze(df, every_pair=True, flips=999).sets[0]
        assert s.pair_confidence == pytest.approx(0.9875) and s.simultaneous_confidence == pytest.approx(1 - 0.05 / 12)
        assert "Bonferroni over them too (α/4 in place of α)" in s.joint
        for p in s.pairs:
            d = p.comparison.d_perturbation
            assert p.simultaneous_ci == effect_ci(d[~np.isnan(d)], confidence=1 - 0.05 / 12, bounds=(-1.0, 1.0)).ci
            contradicting += p.pvalue_adjusted > 0.05 and not p.simultaneous_ci[0] <= 0 <= p.simultaneous_ci[1]
    assert contradicting == 0


def test_a_questions_family_interval_is_over_the_family_and_the_options():
    """Two checkbox questions, one pair: the family's Holm p is of each question's Holm p over its options, so each
    family interval is at 1 − 0.05/(2·4), and its stated level says so."""
    rng = np.random.default_rng(9)
    contradicting = 0
    for _ in range(4):
        one = null_table(rng, effects={"A": 0.8}).assign(question="fit")
        two = null_table(rng, effects={"A": 0.4}).assign(question="look")
        res = survey.analyze(pd.concat([one, two], ignore_index=True), "A", "B", flips=999)
        for r in res.results:
            assert r.simultaneous_level == pytest.approx(1 - 0.05 / 8)
            d = r.result.d_perturbation
            assert r.simultaneous_ci == effect_ci(d[~np.isnan(d)], confidence=1 - 0.05 / 8, bounds=(-1.0, 1.0)).ci
            lo, hi = r.simultaneous_ci
            contradicting += r.pvalue_adjusted > 0.05 and not lo <= 0 <= hi
    assert contradicting == 0
