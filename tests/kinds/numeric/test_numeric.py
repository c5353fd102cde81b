"""The numeric kind: parsing rules (a table), the study file's keys and their one-line refusals, the analysis
against independent computations (pandas cell means, brute-force sign flips), and the test's size in the 99%
binomial band of alpha with a shared paraphrase shift (a small version of bench/new_kinds_size.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import survey
from survey.errors import SurveyError
from survey.kinds.numeric.parsing import NumericScale, first_number, from_name
from survey.kinds.numeric.power import NumericPlan
from survey.responses import response_type
from survey.study.question import QuestionSpec


@pytest.mark.parametrize("reply, number", [
    ("12", 12), ("$12", 12), ("about $12", 12), ("I'd pay €12.50 for it.", 12.5), ("1,200", 1200),
    ("$1,234,567.5", 1234567.5), ("12-15", 13.5), ("$12 - $15", 13.5), ("12–15", 13.5), ("12 to 15", 13.5),
    ("Roughly 40%", 40), ("-5", -5), ("$12k", 12000), ("1,5", 1), ("1 200", 1), ("**30**", 30),
    ("0.75", 0.75), (".5", 0.5), ("3rd", None), ("12x", None), ("no idea", None), ("", None), (None, None),
])
def test_the_first_number_of_a_reply(reply, number):
    assert first_number(reply) == number


def test_out_of_range_is_invalid_never_clipped():
    scale = NumericScale(0, 100)
    assert scale.parse("100") == 100 and scale.parse("0") == 0
    assert scale.parse("101") is None and scale.parse("-1") is None and scale.parse("150-160") is None


def test_the_scale_name_rebuilds_the_type():
    for name in ("numeric0to100", "numeric0to1.5", "numeric-10to10", "numeric0to500_log", "numeric0to500_trimmed"):
        assert response_type(name).scale == name
    assert from_name("likert5") is None and from_name("numeric0to500_log") is not None
    with pytest.raises(SurveyError, match="scale 'numeric5to1': min must be below max"):
        response_type("numeric5to1")


def test_the_study_file_keys_live_in_the_kind():
    q = QuestionSpec(type="numeric", min=0, max=300, unit="US dollars", summary="log")
    assert q.type == "numeric0to300_log" and q.kind_keys.unit == "US dollars"
    assert "US dollars" in q.resolved_template and "min" not in QuestionSpec.model_fields


@pytest.mark.parametrize("keys, message", [
    ({"type": "numeric", "min": 10, "max": 5}, "min must be below max; got min = 10, max = 5"),
    ({"type": "numeric", "min": 3, "max": 3}, "min must be below max"),
    ({"type": "numeric", "max": 5}, "needs min and max"),
    ({"type": "numeric", "min": -1, "max": 5, "summary": "log"}, "needs min >= 0"),
    ({"type": "numeric", "min": 0, "max": 5, "summary": "median"}, "summary"),
    ({"type": "binary", "min": 0}, "min only applies to type = 'numeric', not to type = 'binary'"),
    ({"type": "likert", "unit": "USD"}, "unit only applies to type = 'numeric'"),
    ({"type": "numeric0to10", "min": 0}, "is a full scale name"),
])
def test_bad_keys_are_one_clear_line(keys, message):
    with pytest.raises(Exception) as info:
        QuestionSpec(**keys)
    text = str(info.value)
    assert message in text


def numeric_table(seed=0, n=10, m=8, r=2, shift=0.0, scale="numeric0to200") -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for msg, extra in (("A", shift), ("B", 0.0)):
        for j in range(m):
            u = rng.normal(0, 10)
            for i in range(n):
                for k in range(r):
                    v = float(np.clip(round(100 + extra + u + 5 * np.sin(i) + rng.normal(0, 8), 2), 0, 200))
                    rows.append(dict(model="m", message=msg, perturbation=f"{msg}{j}", persona=f"p{i}", replicate=k,
                                     answer=v, scale=scale))
    return pd.DataFrame(rows)


def brute_sign_flip(d: np.ndarray) -> float:
    obs = abs(d.mean())
    flips = [abs((d * np.array(s)).mean()) for s in itertools.product((1, -1), repeat=len(d))]
    return float(np.mean([f >= obs - 1e-12 for f in flips]))


@pytest.mark.parametrize("summary, f", [("", lambda x: x), ("_log", np.log1p)])
def test_analysis_agrees_with_an_independent_computation(summary, f):
    df = numeric_table(shift=12.0, scale="numeric0to200" + summary)
    res = survey.analyze(df, "A", "B", flips=999)
    r = res["m"]
    cells = df.assign(v=f(df["answer"].astype(float))).groupby(["message", "perturbation", "persona"])["v"].mean()
    para = cells.groupby(["message", "perturbation"]).mean()
    d = para["A"].to_numpy() - para["B"].to_numpy()  # pairs in design order A0/B0, A1/B1, ...
    assert r.effect.estimate == pytest.approx(d.mean())
    assert r.decision.pvalue == pytest.approx(brute_sign_flip(d))
    assert res.to_dict()["results"][0]["scale"] == "numeric0to200" + summary


def test_trimmed_winsorizes_at_the_pooled_quantiles():
    df = numeric_table(shift=0.0, scale="numeric0to200_trimmed")
    df.loc[0, "answer"] = 200.0  # one wild answer
    r = survey.analyze(df, "A", "B", flips=999)["m"]
    lo, hi = np.quantile(df["answer"].astype(float), [0.05, 0.95])
    x = df.assign(v=df["answer"].astype(float).clip(lo, hi))
    para = x.groupby(["message", "perturbation", "persona"])["v"].mean().groupby(["message", "perturbation"]).mean()
    assert r.effect.estimate == pytest.approx((para["A"].to_numpy() - para["B"].to_numpy()).mean())


BAND = 2.576 * np.sqrt(0.05 * 0.95 / 400)


@pytest.mark.parametrize("rho", [0.0, 0.3, 0.6])
@pytest.mark.parametrize("scale", ["numeric0to100", "numeric0to100_log"])
def test_size_inside_the_binomial_band(rho, scale):
    pv = NumericPlan(0.0, scale, sigma=1.0, rho=rho).pvalues(8, 8, 2, 400, np.random.default_rng(int(rho * 10)))
    rate = float(np.mean(pv["sign_flip"] <= 0.05))
    assert 0.05 - BAND <= rate <= 0.05 + BAND, rate


def test_power_grows_with_the_effect():
    rng = np.random.default_rng(1)
    low = np.mean(NumericPlan(0.3, "numeric0to100").pvalues(10, 8, 2, 200, rng)["sign_flip"] <= 0.05)
    high = np.mean(NumericPlan(1.2, "numeric0to100").pvalues(10, 8, 2, 200, rng)["sign_flip"] <= 0.05)
    assert high > low and high > 0.5


def test_human_answers_read_as_numbers(tmp_path):
    from survey.data.humans import load_humans

    path = tmp_path / "humans.csv"
    path.write_text("respondent,message,answer\nh1,A,12.5\nh1,B,$20\nh2,A,about 7\nh2,B,30\n")
    h = load_humans(path, "numeric0to100", ["A", "B"])
    assert list(h.table["answer"]) == [12.5, 20.0, 7.0, 30.0]
    path.write_text("respondent,message,answer\nh1,A,120\n")
    with pytest.raises(SurveyError, match="a number from 0 to 100"):
        load_humans(path, "numeric0to100", ["A", "B"])


def test_fidelity_with_invalid_persona_answers_reads_levels_on_the_answer_scale(tmp_path):
    # before: an invalid persona answer (NaN) stopped `survey fidelity` with "cannot convert float NaN to integer",
    # and the levels' "human mean" was the mean tenth's index (4.6 for answers near 100 on 0-200)
    from survey.reporting.humans import shares_in_labels
    from survey.responses import response_type

    df = numeric_table(shift=12.0)
    df.loc[[0, 7], "answer"] = np.nan  # invalid replies, as a run stores them
    path = tmp_path / "humans.csv"
    answers = [(f"h{i}", msg, 90 + 3 * i + (10 if msg == "A" else 0)) for i in range(12) for msg in "AB"]
    path.write_text("respondent,message,answer\n" + "".join(f"{r},{m},{a}\n" for r, m, a in answers))
    res = survey.fidelity(df, humans=path)
    level = next(x["fidelity"] for x in res.levels if x["message"] == "A")
    human_mean = float(np.dot(level.points, level.human))
    true_mean = np.mean([a for _, m, a in answers if m == "A"])
    assert abs(human_mean - true_mean) <= 10  # within half a tenth (20 wide) of the humans' own mean
    persona_mean = float(np.dot(level.points, level.persona))
    assert abs(persona_mean - df.loc[df["message"] == "A", "answer"].mean()) <= 10
    labels = response_type("numeric0to200").fidelity_labels()
    assert shares_in_labels(level.points, level.human, labels).startswith("0–20: 0%, 20–40: 0%")


@pytest.mark.parametrize("unit, said", [("US dollars", "mean in US dollars"), (None, "mean on the 0–200 scale")])
def test_the_effect_is_said_in_the_questions_unit(tmp_path, capsys, unit, said):
    """The effect line and the segments' sentence name the question's unit where the table carries it (a run
    stores it with every reply), else the range, never the scale's code name nor "points"."""
    from cli_result import run_cli

    df = numeric_table(shift=40.0).assign(segment=lambda t: np.where(t["persona"] < "p5", "young", "old"))
    if unit:
        df["unit"] = unit
    r = survey.analyze(df, "A", "B", by="segment", flips=199)["m"]
    amount = unit or "on the 0–200 scale"
    assert r.unit == said and r.segments.unit == said
    sentence = r.segments.sentence()
    assert f" {amount} (CI" in sentence and " points" not in sentence
    df.to_csv(tmp_path / "t.csv", index=False)
    code, out, err = run_cli(capsys, "analyze", tmp_path / "t.csv", "--by", "segment", "--flips", "199")
    assert code == 0, err
    assert f"({said}), 95% CI" in out and "numeric0to200)" not in out and " points" not in out


def test_a_run_stores_the_unit_as_a_column():
    from survey.data.scale_columns import add_scale_columns

    scale = NumericScale(0, 300, unit="US dollars")
    assert dict(scale.reply_extra) == {"unit": "US dollars"} and not NumericScale(0, 300).reply_extra
    rows = pd.DataFrame({"p_yes": [None], "answer": [12.0], "scale": [scale.scale], "message": ["A"],
                         "extra": ['{"unit": "US dollars"}']})
    assert list(add_scale_columns(rows)["unit"]) == ["US dollars"]
