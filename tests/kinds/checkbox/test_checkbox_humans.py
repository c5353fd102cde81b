"""Checkbox answers beside people's (survey.kinds.checkbox.humans): per option the numbers are
survey.stats.humans.human_fidelity's on hand-built Yes/No tables of the option's indicator (and plain numpy
shares), the prediction-powered interval covers a known truth at about its rate, a checkbox study fielded to
people reaches the comparison with no file, and mistakes are one line."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import survey
from survey.common.formatting import to_json
from survey.data.humans import validate_humans
from survey.data.sources import Source
from survey.errors import SurveyError
from survey.kinds.checkbox.humans import checkbox_fidelity
from survey.stats.humans import human_fidelity

OPTIONS = ["comfortable", "stylish", "good value"]
SCALE = "checkbox3-0-3"
FAST = dict(n_boot=50, flips=199, seed=1)


def bits(ticks: np.ndarray) -> np.ndarray:
    """Rows of 0/1 ticks as bit sets (option i adds 2^i)."""
    return (ticks * (1 << np.arange(ticks.shape[-1]))).sum(axis=-1)


def synthetic_checkbox(seed=0, n_humans=40, n_personas=8, m=2, p_a=(0.7, 0.5, 0.3), p_b=(0.5, 0.5, 0.4),
                       design="between", follow=0.7, attribute=False):
    """(long table, Humans): population personas and every respondent rendered as a persona ("human-<id>") tick
    each option independently with the truth's probabilities, humans too; a rendered persona gives its human's
    own tick with probability ``follow`` (the model predicts them), else a fresh draw."""
    rng = np.random.default_rng(seed)
    truth = {"A": np.asarray(p_a), "B": np.asarray(p_b)}
    people = [f"r{i:02d}" for i in range(n_humans)]
    shown = {r: (("A", "B") if design == "within" else (("A",) if i % 2 == 0 else ("B",)))
             for i, r in enumerate(people)}
    human_ticks = {(r, msg): (rng.random(3) < truth[msg]).astype(int) for r in people for msg in ("A", "B")}
    ages = {r: ("young" if i % 3 else "old") for i, r in enumerate(people)}
    rows = []
    units = [(f"p{j}", None) for j in range(n_personas)] + [(f"human-{r}", r) for r in people]
    for pid, r in units:
        for msg in ("A", "B"):
            for k in range(m):
                fresh = (rng.random(3) < truth[msg]).astype(int)
                if r is not None:
                    fresh = np.where(rng.random(3) < follow, human_ticks[(r, msg)], fresh)
                rows.append({"model": "toy", "message": msg, "perturbation": f"{msg}{k}", "persona": pid,
                             "replicate": 0, "answer": int(bits(fresh)), "scale": SCALE, "options": "|".join(OPTIONS),
                             "age": ages.get(r, "young" if pid[-1] in "0246" else "old")})
    table = pd.DataFrame(rows)
    hum = [{"respondent": r, "message": msg, "answer": int(bits(human_ticks[(r, msg)])),
            **({"age": ages[r]} if attribute else {})} for r in people for msg in shown[r]]
    return table, validate_humans(pd.DataFrame(hum), SCALE, ["A", "B"], coded=True)


def indicator_inputs(table: pd.DataFrame, humans, i: int):
    """Option i's Yes/No tables, built here without the kind's code."""
    t = table.copy()
    t["answer"] = (t["answer"].astype(int) // (1 << i)) % 2
    t["scale"] = "binary"
    h = humans.table.copy()
    h["answer"] = (h["answer"].astype(int) // (1 << i)) % 2
    return t.drop(columns="options"), validate_humans(h, "binary", ["A", "B"])


def test_each_option_is_human_fidelity_on_its_indicator():
    table, humans = synthetic_checkbox(seed=3)
    res = checkbox_fidelity(Source.of(table), humans, **FAST)
    assert res.options == OPTIONS and len(res.per_option) == 3 and res.design == "between"
    for i, o in enumerate(res.per_option):
        t, h = indicator_inputs(table, humans, i)
        ref = human_fidelity(Source.of(t), h, **FAST)
        got = o["fidelity"]
        assert o["option"] == OPTIONS[i]
        assert to_json(got.to_dict()) == to_json(ref.to_dict())  # every number, note and verdict
        # the plain shares: the humans' of the respondents shown each message, the personas' over their rows
        for msg in ("A", "B"):
            seen = humans.table[humans.table["message"] == msg]["answer"].to_numpy()
            lv = next(x["fidelity"] for x in got.levels if x["message"] == msg)
            assert lv.human[1] == pytest.approx(np.mean(seen >> i & 1))
            assert lv.persona[1] == pytest.approx(np.mean(table.loc[table["message"] == msg, "answer"].to_numpy() >> i & 1))
        ya = humans.answers("A")["answer"].to_numpy() >> i & 1
        yb = humans.answers("B")["answer"].to_numpy() >> i & 1
        assert got.human_effect.estimate == pytest.approx(ya.mean() - yb.mean())
        row = next(r for r in res.rows() if r["option"] == OPTIONS[i])
        assert row["humans A"] == pytest.approx(ya.mean()) and row["humans B"] == pytest.approx(yb.mean())
        # the persona effect is the checkbox analysis' own per-option effect
        per = survey.analyze(table, "A", "B", flips=199, seed=1)["toy"].per_option[i]["effect"]
        assert got.effects[0]["fidelity"].persona_effect == pytest.approx(per.estimate)
        # Bonferroni: the simultaneous interval is the humans-alone interval at 1 - 0.05 / 3
        sim = o["simultaneous"]
        assert sim["confidence"] == pytest.approx(1 - 0.05 / 3)
        wide = human_fidelity(Source.of(t), h, confidence=1 - 0.05 / 3, **FAST)
        assert sim["human_effect"].ci == pytest.approx(wide.human_effect.ci)
        assert sim["ppi"]["toy"].ci == pytest.approx(wide.ppi["toy"].ci)


def test_the_result_shows_itself_says_how_options_are_compared_and_is_strict_json():
    table, humans = synthetic_checkbox(seed=4, design="within")
    res = checkbox_fidelity(Source.of(table), humans, **FAST)
    assert res.design == "within"
    text = repr(res)
    assert text.startswith("Checkbox fidelity to people, A vs B (within-subjects), 3 options compared one at a time")
    assert "comfortable" in text and len(text) <= 1000
    assert "one at a time" in res.multiplicity and "Bonferroni over the 3 options" in res.multiplicity
    assert "no adjustment across the options" in res.multiplicity
    html = res._repr_html_()
    assert "<table>" in html and "good value" in html
    d = res.to_dict()
    assert [o["option"] for o in d["per_option"]] == OPTIONS and d["simultaneous_confidence"] == pytest.approx(1 - 0.05 / 3)
    to_json(d)  # strict JSON: no NaN
    assert res.fidelity("stylish") is res.per_option[1]["fidelity"]


def test_a_prior_analysis_gives_the_same_numbers():
    table, humans = synthetic_checkbox(seed=5)
    src = Source.of(table)
    prior = survey.analyze(src, "A", "B", flips=199, seed=1, alpha=0.05)
    with_prior = checkbox_fidelity(src, humans, prior=prior, **FAST)
    assert to_json(with_prior.to_dict()) == to_json(checkbox_fidelity(src, humans, **FAST).to_dict())
    # the prior's per-option marginal effects (at the stated confidence, not the ones simultaneous over the options
    # shown beside the Holm decision) are the ones taken: a marked one shows through
    r = prior["toy"]
    assert r.comparisons[1].marginal.confidence == 0.95 and r.per_option[1]["effect"].confidence == 1 - 0.05 / 3
    marked = r.comparisons[1].marginal.__class__(**{**vars(r.comparisons[1].marginal), "estimate": 0.123})
    r.comparisons[1].marginal = marked
    taken = checkbox_fidelity(src, humans, prior=prior, **FAST)
    assert taken.per_option[1]["fidelity"].effects[0]["fidelity"].persona_effect == 0.123
    assert taken.per_option[0]["fidelity"].effects[0]["fidelity"].persona_effect != 0.123
    binary = survey.analyze(indicator_inputs(table, humans, 0)[0], "A", "B", flips=199, seed=1)
    with pytest.raises(SurveyError, match="prior: give the checkbox question's own analysis"):
        checkbox_fidelity(src, humans, prior=binary, **FAST)


def test_by_gives_each_option_levels_per_segment():
    table, humans = synthetic_checkbox(seed=6, attribute=True)
    res = checkbox_fidelity(Source.of(table), humans, by="age", **FAST)
    segs = {x["segment"] for x in res.per_option[0]["fidelity"].levels}
    assert segs == {"age = young", "age = old"} and res.by == "age"
    row = res.rows()[0]  # the segments pooled: still every human's share
    ya = humans.answers("A")["answer"].to_numpy() & 1
    assert row["humans A"] == pytest.approx(ya.mean())
    with pytest.raises(SurveyError, match="the human file has no attribute 'income'"):
        checkbox_fidelity(Source.of(table), humans, by="income", **FAST)


def test_the_prediction_powered_interval_covers_the_truth_at_its_rate():
    """Known truth: humans and personas tick with the same per-option probabilities, 30 humans per message (the
    smallest arm the PPI interval's documented coverage holds from); 25 studies x 3 options, each interval at 95%,
    and the Bonferroni intervals of a study covering all 3 options together."""
    p_a, p_b = (0.7, 0.5, 0.3), (0.5, 0.5, 0.4)
    truth = np.subtract(p_a, p_b)
    covered, together = [], []
    for seed in range(25):
        table, humans = synthetic_checkbox(seed=100 + seed, n_humans=60, n_personas=4, p_a=p_a, p_b=p_b)
        res = checkbox_fidelity(Source.of(table), humans, n_boot=2, flips=99, seed=seed)
        ci = np.array([o["fidelity"].ppi["toy"].ci for o in res.per_option])
        sim = np.array([o["simultaneous"]["ppi"]["toy"].ci for o in res.per_option])
        covered += list((ci[:, 0] <= truth) & (truth <= ci[:, 1]))
        together.append(bool(((sim[:, 0] <= truth) & (truth <= sim[:, 1])).all()))
    assert abs(np.mean(covered) - 0.95) <= 2.576 * np.sqrt(0.95 * 0.05 / len(covered)), np.mean(covered)
    assert np.mean(together) >= 0.95 - 2.576 * np.sqrt(0.95 * 0.05 / len(together)), np.mean(together)


@pytest.mark.parametrize("change, message", [
    (lambda t, h: (t, validate_humans(h.table.assign(answer=h.table["answer"] | 8), "checkbox4-0-4", ["A", "B"],
                                      coded=True)),
     "the humans answered a checkbox of 4 options (checkbox4-0-4), the personas one of 3 (checkbox3-0-3)"),
    (lambda t, h: (t, validate_humans(h.table.assign(answer=h.table["answer"] | 1), "checkbox3", ["A", "B"],
                                      coded=True)),
     "the humans answered on checkbox3, the personas on checkbox3-0-3"),
    (lambda t, h: (t, validate_humans(h.table.assign(answer=h.table["answer"].clip(0, 1)), "binary", ["A", "B"])),
     "the humans answered on binary, the personas a checkbox3-0-3 question"),
    (lambda t, h: (t.assign(scale="binary", answer=t["answer"] & 1), h), "the table's question is binary, not a checkbox"),
    (lambda t, h: (pd.concat([t.assign(question="q1"), t.assign(question="q2")]), h),
     "the source asks 2 questions (q1, q2): give the rows of the checkbox question the humans answered"),
])
def test_a_mismatched_human_file_is_one_line(change, message):
    table, humans = synthetic_checkbox(seed=7)
    table, humans = change(table, humans)
    with pytest.raises(SurveyError) as info:
        checkbox_fidelity(Source.of(table), humans, **FAST)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_human_file_with_more_options_than_the_study_is_refused_at_its_line(tmp_path):
    from survey.data.humans import load_humans

    path = tmp_path / "humans.csv"
    path.write_text('respondent,message,answer\nh1,A,"1, 3"\nh1,B,2\nh2,A,"2, 5"\nh2,B,1\n')
    with pytest.raises(SurveyError) as info:
        load_humans(path, SCALE, ["A", "B"])
    assert "0 to 3 of the options 1 to 3 by number" in str(info.value) and "line(s) 4" in str(info.value)
    assert "\n" not in str(info.value)


def test_a_message_the_humans_never_saw_is_one_line():
    table, humans = synthetic_checkbox(seed=8)
    more = pd.concat([table, table[table["message"] == "B"].assign(message="C",
                                                                   perturbation=lambda d: "C" + d["perturbation"])])
    with pytest.raises(SurveyError) as info:
        checkbox_fidelity(Source.of(more), humans, "A", "C", **FAST)
    assert str(info.value) == "message 'C' was not answered by both the humans and the personas; shared: A, B"
    with pytest.raises(SurveyError, match="confidence must be between 0 and 1"):
        checkbox_fidelity(Source.of(table), humans, confidence=95, **FAST)


FIELD = Path(__file__).resolve().parents[2] / "field"


def test_a_fielded_checkbox_study_reaches_the_comparison_with_no_file(tmp_path):
    """`survey field` stores each person's boxes as the bit set; the study's Source carries them as its humans."""
    sys.path.insert(0, str(FIELD))
    from field_study import ABOUT, write_study
    from starlette.testclient import TestClient

    from survey.field import field_server

    question = 'type = "checkbox"\noptions = ["comfortable", "stylish", "good value", "durable"]\nmax_choices = 2'
    study = write_study(tmp_path, question=question)
    survey.Study.from_toml(study).run(yes=True)
    fs = field_server(study, rng=random.Random(5))
    try:
        for i in range(12):
            c = TestClient(fs.app)
            c.post("/start", data={"consent": "yes", "rid": f"h{i}"})
            page = c.post("/about", data={**ABOUT, "demo-age": str(20 + i)}).text
            ticks = {"item0-opt-1": "1", "item0-opt-3": "1"} if "sneaker" in page.lower() else {"item0-opt-2": "1"}
            if i % 4 == 0:
                ticks = {"item0-opt-4": "1"}
            r = c.post("/questions", data={**ticks, "attention": "Blue"})
            assert "C0DE42" in r.text, r.text[:400]
        stored = fs.store.answers()
    finally:
        fs.close()
    src = survey.open_source(str(study))
    assert src.humans is not None and src.humans.path.endswith("store.sqlite (fielded)")  # no human file
    res = checkbox_fidelity(src, src.humans, "sneakers", "boots", **FAST)
    assert res.options == ["comfortable", "stylish", "good value", "durable"]
    stored = stored.set_index("respondent")
    for i, o in enumerate(res.per_option):
        share = {m: float(np.mean(stored.loc[stored["message"] == m, "answer"].astype(int).to_numpy() >> i & 1))
                 for m in ("sneakers", "boots")}
        assert o["fidelity"].human_effect.estimate == pytest.approx(share["sneakers"] - share["boots"])


def test_the_terminal_text_and_the_report_section_show_every_option():
    from survey.kinds.checkbox.text import fidelity_text
    from survey.kinds.checkbox.view import fidelity_sections

    table, humans = synthetic_checkbox(seed=9)
    res = checkbox_fidelity(Source.of(table), humans, **FAST)
    text = fidelity_text(res)
    assert text.splitlines()[0] == ("Checkbox fidelity to people, A vs B (between-subjects): 3 options, each compared "
                                    "as ticked or not")
    for o in OPTIONS:
        assert f"option '{o}'" in text
    row = res.rows()[0]
    assert f"humans A {row['humans A']:.3f}" in text and "over the 3 options [" in text
    assert "multiplicity: The options are compared one at a time" in text and "validity: " in text
    (sec,) = fidelity_sections(res)
    assert sec.title == "Does it match people?" and res.multiplicity in sec.paragraphs
    shares, effects, ppi = sec.tables
    assert [r[0] for r in shares["rows"]] == OPTIONS and shares["columns"][2:6] == ["humans A", "humans B",
                                                                                  "personas A", "personas B"]
    assert effects["rows"][0][2].startswith(f"{row['human effect']:.3f} (")
    assert ppi["columns"][3] == "simultaneous CI (Bonferroni, 3 options)" and len(ppi["rows"]) == 3
    assert any(p.startswith("comfortable: toy: the personas' effect") for p in sec.paragraphs)


def test_humans_all_giving_one_answer_get_no_human_minus_persona_p_value():
    """Every human ticks option 1 under A and none under B: the humans' effect is 1 with an estimated s.e. of 0,
    which leaves out their sampling error (30 humans an arm all ticking is likely at a true share of 0.97). The
    difference human − persona then rests on the personas' s.e. alone: no p-value (it read 5e-48), a note instead."""
    table, humans = synthetic_checkbox(seed=2, n_humans=60, m=8, p_a=(0.8, 0.5, 0.3), p_b=(0.2, 0.5, 0.4), follow=0.3)
    h = humans.table.copy()
    h["answer"] = (h["answer"].astype(int) & ~1) | (h["message"] == "A").astype(int)  # option 1: A ticks, B not
    humans = validate_humans(h[["respondent", "message", "answer"]], SCALE, ["A", "B"], coded=True)
    res = checkbox_fidelity(Source.of(table), humans, **FAST)
    first = res.per_option[0]["fidelity"]
    assert first.human_effect.estimate == 1.0 and first.human_effect.se == 0.0
    ef = first.effects[0]["fidelity"]
    assert np.isnan(ef.pvalue) and np.isnan(ef.ci[0]) and np.isnan(ef.ci[1])
    assert ef.to_dict()["pvalue"] is None
    assert any("same answer" in n and "no p-value" in n for n in first.notes)
    other = res.per_option[1]["fidelity"].effects[0]["fidelity"]  # humans who vary keep their p-value
    assert 0 < other.pvalue <= 1
    assert to_json(res.to_dict())  # strict JSON still
    shown = str(res) + " ".join(first.verdicts())
    assert " nan" not in shown.lower() and "no difference p-value" in shown
