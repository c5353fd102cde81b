"""survey.stats.humans.human_fidelity, survey.fidelity and `survey fidelity`: every number is the one the
tested statistics give on inputs built here by hand, the designs are told apart, and mistakes are one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon

from survey.common.formatting import to_json
from survey.data.sources import Source
from survey.errors import SurveyError
from survey.stats.humans import human_fidelity
from survey.stats.ppi import PPIArm, ppi_between_effect, ppi_paired_effect

sys.path.insert(0, str(Path(__file__).parent))
from synthetic import synthetic  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FAST = dict(n_boot=200, flips=999, seed=1)


def _predictions(table, message):
    rows = table[table["message"] == message]
    return rows.groupby("persona")["expected"].mean()


def test_between_subjects_numbers_are_the_statistics_on_hand_built_inputs():
    table, humans = synthetic("between", seed=3)
    res = human_fidelity(Source.of(table), humans, **FAST)
    assert res.design == "between" and "between-subjects" in res.basis
    ya, yb = humans.answers("a"), humans.answers("b")
    assert res.human_effect.estimate == pytest.approx(ya["answer"].mean() - yb["answer"].mean())
    se = np.sqrt(ya["answer"].var(ddof=1) / len(ya) + yb["answer"].var(ddof=1) / len(yb))
    assert res.human_effect.se == pytest.approx(se)
    # the humans alone: Welch's t test (scipy's)
    from scipy import stats as sps

    welch = sps.ttest_ind(ya["answer"], yb["answer"], equal_var=False)
    assert res.human_effect.pvalue == pytest.approx(welch.pvalue, rel=1e-9)
    assert res.human_effect.df == pytest.approx(welch.df, rel=1e-9)
    fa, fb = _predictions(table, "a"), _predictions(table, "b")
    pop = [p for p in fa.index if not p.startswith("human-")]
    ref = ppi_between_effect(PPIArm(ya["answer"].to_numpy(float), fa[["human-" + r for r in ya["respondent"]]].to_numpy(),
                                    fa[pop].to_numpy()),
                             PPIArm(yb["answer"].to_numpy(float), fb[["human-" + r for r in yb["respondent"]]].to_numpy(),
                                    fb[pop].to_numpy()),
                             same_personas=True)
    got = res.ppi["toy"]
    assert (got.estimate, got.se, *got.ci) == pytest.approx((ref.estimate, ref.se, *ref.ci))
    # levels: the persona shares are the answers' shares, the JSD scipy's
    lv = next(x["fidelity"] for x in res.levels if x["message"] == "a")
    rows = table[table["message"] == "a"]
    assert lv.persona[1] == pytest.approx(rows["answer"].mean())
    assert lv.human[1] == pytest.approx(ya["answer"].mean())
    assert lv.jsd == pytest.approx(jensenshannon(lv.human, lv.persona, base=2) ** 2)
    assert lv.wasserstein == pytest.approx(abs(lv.human[1] - lv.persona[1]))
    # effects: the persona side is survey.analyze's
    import survey

    persona = survey.analyze(table, "a", "b", flips=999, seed=1)["toy"].effect.estimate
    assert res.effects[0]["fidelity"].persona_effect == pytest.approx(persona)
    assert res.effects[0]["fidelity"].human_effect == pytest.approx(res.human_effect.estimate)


def test_within_subjects_uses_the_paired_differences():
    table, humans = synthetic("within", seed=4)
    res = human_fidelity(Source.of(table), humans, **FAST)
    assert res.design == "within"
    t = humans.table.pivot(index="respondent", columns="message", values="answer")
    assert res.human_effect.estimate == pytest.approx((t["a"] - t["b"]).mean())
    fa, fb = _predictions(table, "a"), _predictions(table, "b")
    pop = [p for p in fa.index if not p.startswith("human-")]
    ids = ["human-" + r for r in t.index]
    ref = ppi_paired_effect(t["a"].to_numpy(float), t["b"].to_numpy(float), fa[ids].to_numpy(), fb[ids].to_numpy(),
                            fa[pop].to_numpy(), fb[pop].to_numpy())
    assert res.ppi["toy"].estimate == pytest.approx(ref.estimate)
    assert res.ppi["toy"].ci == pytest.approx(ref.ci)


def test_an_informative_model_narrows_the_interval_and_an_uninformative_one_does_not():
    setting = dict(n_humans=300, n_personas=300, seed=5, human_slope=2.5)
    good_table, good_humans = synthetic("between", link=2.5, **setting)
    bad_table, bad_humans = synthetic("between", link=0.0, **setting)
    good = human_fidelity(Source.of(good_table), good_humans, **FAST).ppi["toy"]
    bad = human_fidelity(Source.of(bad_table), bad_humans, **FAST).ppi["toy"]
    assert good.width_ratio < 0.97
    assert bad.width_ratio > 0.98


def test_without_predictions_for_the_respondents_there_is_no_ppi_and_it_says_why():
    table, humans = synthetic("between", seed=6)
    table = table[~table["persona"].str.startswith("human-")]
    res = human_fidelity(Source.of(table), humans, **FAST)
    assert res.ppi == {}
    assert any("never answered as a respondent" in n and "ask = true" in n for n in res.notes)
    some = human_fidelity(Source.of(table_with_some := _drop_some(synthetic("between", seed=6)[0])), humans, **FAST)
    assert table_with_some["persona"].str.startswith("human-").any()
    assert any("no prediction for 1 of" in n for n in some.notes)
    assert res.effects and res.levels  # fidelity needs no predictions


def _drop_some(table):
    """Without respondent r000's rendered persona."""
    return table[table["persona"] != "human-r000"]


def test_segments_compare_levels_per_shared_attribute_level():
    table, humans = synthetic("between", seed=7)
    res = human_fidelity(Source.of(table), humans, by="age", **FAST)
    segs = {x["segment"] for x in res.levels}
    assert segs == {"age = old", "age = young"}
    young = next(x["fidelity"] for x in res.levels if x["segment"] == "age = young" and x["message"] == "a")
    assert young.n_humans == int(((humans.table["age"] == "young") & (humans.table["message"] == "a")).sum())
    with pytest.raises(SurveyError, match="no attribute 'income'"):
        human_fidelity(Source.of(table), humans, by="income", **FAST)


def test_mistakes_are_named():
    table, humans = synthetic("between", seed=8)
    with pytest.raises(SurveyError, match="message 'c' was not answered"):
        human_fidelity(Source.of(table), humans, "a", "c", **FAST)
    from survey.data.humans import validate_humans

    mixed = validate_humans(humans.table.assign(respondent=["r000"] * 2 + list(humans.table["respondent"][2:]))
                            .drop(columns=["weight", "age"]), "binary")
    with pytest.raises(SurveyError, match="keep one design"):
        human_fidelity(Source.of(table), mixed, **FAST)


def test_result_shows_itself_briefly_and_as_strict_json():
    table, humans = synthetic("between", seed=9)
    res = human_fidelity(Source.of(table), humans, **FAST)
    assert len(repr(res)) <= 1000 and "between-subjects" in repr(res)
    assert "<table>" in res._repr_html_() and "random sample of the target population" in res._repr_html_()
    doc = json.loads(to_json(res.to_dict()))
    assert doc["design"] == "between" and doc["ppi"]["toy"]["rests_on"]
    assert "fixed before the human answers" in doc["validity"]
    assert doc["levels"][0]["distances"]["jsd"]["noise_floor"] > 0
    assert len(doc["verdicts"]) == 1


def _files(tmp_path):
    table, humans = synthetic("between", n_humans=60, n_personas=20, seed=10)
    table.drop(columns="age").to_csv(tmp_path / "t.csv", index=False)
    humans.table.drop(columns="weight").to_csv(tmp_path / "h.csv", index=False)
    return tmp_path / "t.csv", tmp_path / "h.csv"


def test_python_api_reads_the_files(tmp_path):
    import survey

    t, h = _files(tmp_path)
    res = survey.fidelity(t, humans=h, n_boot=100, flips=999)
    assert res.humans["path"] == str(h) and res.ppi
    with pytest.raises(SurveyError, match="no human answers"):
        survey.fidelity(t)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "survey", "fidelity", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "COLUMNS": "150"})


def test_cli_json_and_text_and_mistakes(tmp_path):
    t, h = _files(tmp_path)
    out = _cli(t, "--humans", h, "--json", "--bootstrap", 100)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["design"] == "between" and set(doc["ppi"]) == {"toy"}
    text = _cli(t, "--humans", h, "--bootstrap", 100)
    assert text.returncode == 0 and "prediction-powered" in text.stdout and "validity:" in text.stdout
    # beside JSD, Wasserstein and lambda, a column says what they mean
    assert "in words" in text.stdout and ("far:" in text.stdout or "close:" in text.stdout)
    assert "the model's answers" in text.stdout
    missing = _cli(t, "--humans", tmp_path / "nope.csv", "--json")
    assert missing.returncode == 2 and "no such human file" in json.loads(missing.stdout)["error"]
    bad = tmp_path / "bad.csv"
    bad.write_text("respondent,message,answer\nr1,zzz,Yes\n")
    wrong = _cli(t, "--humans", bad)
    assert wrong.returncode == 2 and "unknown message(s) zzz in line(s) 2" in wrong.stderr
    assert "Traceback" not in wrong.stderr


def test_analyze_with_humans_adds_the_statement_about_people(tmp_path):
    t, h = _files(tmp_path)
    out = subprocess.run([sys.executable, "-m", "survey", "analyze", str(t), "--humans", str(h), "--json",
                          "--flips", "999"], capture_output=True, text=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["results"] and doc["humans"]["design"] == "between"
    assert doc["humans"]["ppi"]["toy"]["ci"][0] < doc["humans"]["ppi"]["toy"]["estimate"]
    assert "random sample of the target population" in doc["humans"]["validity"]


def test_weights_give_the_weighted_human_effect_and_the_weighted_between_ppi():
    table, humans = synthetic("between", seed=2)
    rows = humans.table["respondent"].isin(humans.table["respondent"].iloc[:10])
    humans.table.loc[rows, "weight"] = 3.0
    res = human_fidelity(Source.of(table), humans, **FAST)
    arm = {m: humans.table[humans.table["message"] == m] for m in ("a", "b")}
    weighted = {m: np.average(t["answer"], weights=t["weight"]) for m, t in arm.items()}
    assert res.human_effect.estimate == pytest.approx(weighted["a"] - weighted["b"])
    assert res.human_effect.ci[0] < res.human_effect.estimate < res.human_effect.ci[1]
    # the respondents' weights reach the between-subjects PPI too (the population personas stay unweighted)
    ya, yb = humans.answers("a"), humans.answers("b")
    fa, fb = _predictions(table, "a"), _predictions(table, "b")
    pop = [p for p in fa.index if not p.startswith("human-")]
    args = (ya["answer"].to_numpy(float), fa[["human-" + r for r in ya["respondent"]]].to_numpy(), fa[pop].to_numpy(),
            yb["answer"].to_numpy(float), fb[["human-" + r for r in yb["respondent"]]].to_numpy(), fb[pop].to_numpy())
    ref = ppi_between_effect(PPIArm(*args[:3], w=ya["weight"].to_numpy(float)),
                             PPIArm(*args[3:], w=yb["weight"].to_numpy(float)), same_personas=True)
    got = res.ppi["toy"]
    assert (got.estimate, got.se, *got.ci) == pytest.approx((ref.estimate, ref.se, *ref.ci), rel=1e-12)
    assert got.estimate != pytest.approx(ppi_between_effect(PPIArm(*args[:3]), PPIArm(*args[3:]), same_personas=True).estimate, rel=1e-6)


def test_fewer_humans_than_the_ppi_interval_was_checked_on_is_said_once():
    table, humans = synthetic("between", n_humans=40, seed=4)  # about 20 per arm
    res = human_fidelity(Source.of(table), humans, **FAST)
    said = [n for n in res.notes if n.startswith("PPI: Only")]
    assert len(said) == 1 and "per arm" in said[0], res.notes
    table, humans = synthetic("between", seed=4)
    assert not [n for n in human_fidelity(Source.of(table), humans, **FAST).notes if n.startswith("PPI: Only")]


def test_the_levels_read_at_80_columns_as_two_tables(tmp_path):
    """Nine columns' headers alone are wider than 80 columns: below 100 the levels print as answers (with the
    words), then distances, each header whole; from 100 on, as one table."""
    t, h = _files(tmp_path)
    narrow = subprocess.run([sys.executable, "-m", "survey", "fidelity", str(t), "--humans", str(h), "--bootstrap",
                             "50"], capture_output=True, text=True, cwd=ROOT,
                            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "COLUMNS": "80"})
    assert narrow.returncode == 0, narrow.stderr
    assert "levels: distances" in narrow.stdout
    for header in ("persona", "Wasserstein [CI]", "JSD floor", "JSD [CI]"):
        assert any(header in line for line in narrow.stdout.splitlines()), header
    assert max(len(line) for line in narrow.stdout.splitlines() if line[:1] in "┏┃┡│└") <= 80
    wide = _cli(t, "--humans", h, "--bootstrap", 50)
    assert "levels: distances" not in wide.stdout and "Wasserstein" in wide.stdout
