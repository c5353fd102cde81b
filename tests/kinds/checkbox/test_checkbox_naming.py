"""Wherever a checkbox question's headline effect is shown, its option is named: the effect is the difference of the
deciding option's shares, and each result, segment and question may decide on another option. A segment's
simultaneous interval is over the segments and the options its decision is adjusted over, so that a segment the
adjusted p calls no difference never gets one excluding 0."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from cli_result import run_cli

import survey
from survey.kinds.checkbox.parsing import CheckboxScale
from survey.stats.effect import effect_ci

OPTIONS = ["comfortable", "stylish", "good value", "durable"]


def segmented_table(levels: dict, n: int = 6, m: int = 8, r: int = 2, seed: int = 0) -> pd.DataFrame:
    """Personas with a ``segment`` attribute; message A's replies shifted by the segment's level."""
    rng = np.random.default_rng(seed)
    scale = CheckboxScale(OPTIONS, 1, 3)
    rows = []
    for msg in ("A", "B"):
        for j in range(m):
            u = rng.normal(0, 0.5)
            for s, (segment, level) in enumerate(levels.items()):
                for i in range(n):
                    shift = (level if msg == "A" else 0.0) + u + np.sin(i + s)
                    for k in range(r):
                        rows.append(dict(model="m", message=msg, perturbation=f"{msg}{j}", persona=f"{segment}{i}",
                                         replicate=k, answer=scale.parse(scale.simulated_reply(shift, rng)),
                                         scale="checkbox4-1-3", options="|".join(OPTIONS), segment=segment))
    return pd.DataFrame(rows)


def test_the_result_names_its_deciding_option():
    r = survey.analyze(segmented_table({"all": 1.0}), "A", "B", flips=999)["m"]
    option = r.decision.option
    assert r.unit == f"share choosing '{option}' (the deciding option of 4)" == r.to_dict()["unit"]
    assert r.deciding_part == option and r.decision_tests == 4


def test_the_analysis_repr_names_the_option_beside_its_holm_p():
    """The top-level Analysis shows the deciding option's effect and Holm p: the option is named in its row."""
    res = survey.analyze(segmented_table({"all": 1.0}), "A", "B", flips=999)
    option = res["m"].decision.option
    row = next(line for line in repr(res).splitlines() if line.strip().startswith("model m"))
    assert f"option {option}, effect" in row
    assert "the deciding option, the one with the smallest Holm-adjusted p over the options" in repr(res)


def test_several_questions_name_the_option_in_the_scorecard(tmp_path):
    one = segmented_table({"all": 1.0}, seed=1).assign(question="fit")
    two = segmented_table({"all": -1.0}, seed=2).assign(question="look")
    res = survey.analyze(pd.concat([one, two], ignore_index=True), "A", "B", flips=999)
    card = res.scorecard()
    for q in ("fit", "look"):
        option = res.by_question[q].results[0].decision.option
        assert card.xs(("m", "A vs B", q))["unit"] == f"share choosing '{option}' (the deciding option of 4)"
    survey.report(pd.concat([one, two], ignore_index=True), out=tmp_path / "r", a="A", b="B")
    html = (tmp_path / "r" / "index.html").read_text()
    assert "per option)" not in html and "(the deciding option of 4)" in html


def test_segments_name_each_segments_option_in_text_json_and_report(tmp_path, capsys):
    df = segmented_table({"young": 2.0, "old": -1.5, "mid": 0.5}, n=8, m=10)
    r = survey.analyze(df, "A", "B", by="segment", flips=999)["m"]
    seg = r.segments
    said = seg.sentence()
    for s in seg.segments:
        assert s.part == s.result.decision.option
        if s.pvalue_adjusted <= 0.05:
            assert f"on option '{s.part}'" in said
    doc = seg.to_dict()
    assert [x["option"] for x in doc["segments"]] == [s.part for s in seg.segments]
    assert all(x["unit"].startswith(f"share choosing '{x['option']}'") for x in doc["segments"])
    if len({s.part for s in seg.segments}) > 1:
        assert seg.unit == "share choosing each segment's deciding option, named beside it"
    df.to_csv(tmp_path / "t.csv", index=False)
    code, out, err = run_cli(capsys, "analyze", tmp_path / "t.csv", "--by", "segment", "--flips", "999", "--json")
    assert code == 0, err
    got = json.loads(out)["results"][0]["segments"]
    assert [x["option"] for x in got] == [s.part for s in seg.segments]
    code, out, err = run_cli(capsys, "analyze", tmp_path / "t.csv", "--by", "segment", "--flips", "999")
    assert code == 0 and "on option" in out
    survey.report(df, out=tmp_path / "r", by="segment")
    assert "on option" in (tmp_path / "r" / "index.html").read_text()


def test_a_segments_simultaneous_interval_is_over_the_segments_and_the_options():
    """Every segment the Holm p (over the segments, of its Holm p over the options) calls no difference has a
    simultaneous interval holding 0: the interval is at 1 − alpha/(K k)."""
    contradicting = 0
    for seed in range(6):
        df = segmented_table({"young": 1.0, "old": 0.0, "mid": 0.5}, n=6, m=8, seed=seed)
        seg = survey.analyze(df, "A", "B", by="segment", flips=999)["m"].segments
        for s in seg.segments:
            d = np.array(list(s.result.per_pair().values()))
            assert s.simultaneous_ci == effect_ci(d, confidence=1 - 0.05 / (3 * 4), bounds=(-1.0, 1.0)).ci
            lo, hi = s.simultaneous_ci
            contradicting += s.pvalue_adjusted > 0.05 and not lo <= 0 <= hi
    assert contradicting == 0
