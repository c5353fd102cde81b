"""Edges of the comparisons with people, each met by a user: a message every human answered alike, an
incomplete store, a human file or [humans] changed after the run, three messages without a declared pair in a
benchmark, weighted humans, a DataFrame in Python. Each is one clear statement, never a wrong number."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from survey.data.sources import Source
from survey.errors import SurveyError

sys.path.insert(0, str(Path(__file__).parent))
from synthetic import synthetic  # noqa: E402
from test_benchmark import FAST, HUMANS, STUDY  # noqa: E402


def _study(d: Path, name: str, counts: list[tuple[str, str, int]], extra: str = "") -> Path:
    if not (d / "panel.jsonl").exists():
        header = {"template": "You are a shopper aged {age}. Answer ONLY 'Yes' or 'No'. Do not explain."}
        (d / "panel.jsonl").write_text("\n".join([json.dumps(header)] + [json.dumps({"id": f"p{i}", "age": 20 + i})
                                                                            for i in range(30)]) + "\n")
    (d / f"{name}.csv").write_text("message,answer,count\n" + "".join(f"{m},{a},{n}\n" for m, a, n in counts))
    (d / f"{name}.toml").write_text(STUDY.format(name=name, da=0.5, db=-0.5).replace("ask = false",
                                                                                     "ask = false" + extra))
    return d / f"{name}.toml"


def _run(path: Path):
    import survey

    study = survey.Study.from_toml(path)
    study.run(progress=False)
    return study


def test_a_message_every_human_answered_alike_skips_only_its_dispersion_ratio(tmp_path):
    import survey

    path = _study(tmp_path, "u", [("u-a", "Yes", 50), ("u-a", "No", 0), ("u-b", "Yes", 20), ("u-b", "No", 30)])
    _run(path)
    res = survey.fidelity(path, **FAST)
    assert res.human_effect.estimate == pytest.approx(1 - 0.4)
    assert {d["message"] for d in res.dispersion} == {"u-b"}
    assert any("u-a: no dispersion ratio" in n for n in res.notes)
    others = [_study(tmp_path, f"o{i}", [(f"o{i}-a", "Yes", 30 + 5 * i), (f"o{i}-a", "No", 20),
                                         (f"o{i}-b", "Yes", 20), (f"o{i}-b", "No", 30)]) for i in range(3)]
    for o in others:
        _run(o)
    bench = survey.fidelity_benchmark([path, *others], **FAST)
    assert set(bench.names) == {"u", "o0", "o1", "o2"} and bench.models


def test_an_incomplete_store_and_weighted_humans_are_said(tmp_path):
    import survey

    path = _study(tmp_path, "c", [("c-a", "Yes", 30), ("c-a", "No", 20), ("c-b", "Yes", 20), ("c-b", "No", 30)])
    study = _run(path)
    from survey.data.store import Store

    with Store(study.store_path) as st:  # lose one model's replies to one message: the store is now incomplete
        st.db.execute("DELETE FROM responses WHERE message = 'c-b' AND model = 'follows'")
    res = survey.fidelity(path, **FAST)
    assert any("incomplete" in n.lower() for n in res.notes), res.notes
    table, humans = synthetic("between", seed=3)
    humans.table["weight"] = [2.0 if r.endswith(("0", "2", "4")) else 1.0 for r in humans.table["respondent"]]
    res = survey.fidelity(table, humans, **FAST)  # a DataFrame and Humans in Python
    assert any("carry weights" in n for n in res.notes)


def test_a_human_file_or_humans_section_changed_after_the_run_is_refused(tmp_path):
    import survey

    path = _study(tmp_path, "h", [("h-a", "Yes", 30), ("h-a", "No", 20), ("h-b", "Yes", 20), ("h-b", "No", 30)])
    _run(path)
    survey.fidelity(path, **FAST)
    text = path.read_text()
    path.write_text(text.replace("ask = false", "ask = false\ncompare = [\"h-b\", \"h-a\"]"))
    with pytest.raises(SurveyError, match=r"\[humans\] changed since its store was filled"):
        survey.fidelity(path, **FAST)
    path.write_text(text)
    (tmp_path / "h.csv").write_text((tmp_path / "h.csv").read_text().replace("h-a,Yes,30", "h-a,Yes,31"))
    with pytest.raises(SurveyError, match="changed since the run recorded it"):
        survey.fidelity(path, **FAST)


def test_a_benchmark_names_the_study_that_needs_a_declared_pair(tmp_path):
    import survey

    three = _study(tmp_path, "t", [("t-a", "Yes", 30), ("t-a", "No", 20), ("t-b", "Yes", 20), ("t-b", "No", 30),
                                   ("t-c", "Yes", 10), ("t-c", "No", 40)])
    three.write_text(three.read_text().replace(
        "[[models]]", "[[messages]]\nid = \"t-c\"\nperturbations = \"loafers\"\ncount = 6\n\n[[models]]", 1))
    _run(three)
    other = _study(tmp_path, "e1", [("e1-a", "Yes", 30), ("e1-a", "No", 20), ("e1-b", "Yes", 20), ("e1-b", "No", 30)])
    _run(other)
    with pytest.raises(SurveyError, match=r"^t \(.*\): .*share 3 messages.*\[humans\] compare"):
        survey.fidelity_benchmark([other, three], **FAST)
    with pytest.raises(SurveyError, match="as a list"):
        survey.fidelity_benchmark(str(other))
    with pytest.raises(SurveyError, match="confidence must be between 0 and 1"):
        survey.fidelity(other, confidence=1.5)
    assert len(HUMANS) == 5  # the shared study template is the benchmark test's


def test_levels_by_bins_of_a_numeric_attribute_as_analyze_takes_them():
    from survey.data.humans import validate_humans
    from survey.stats.humans import human_fidelity

    table, humans = synthetic("between", seed=3, n_humans=30)
    years = {"young": 25, "old": 60}
    table["age"] = table["age"].map(years)
    people = humans.table.copy()
    people["age"] = people["age"].map(years)
    people["answer"] = people["answer"].map({1: "Yes", 0: "No"})
    humans = validate_humans(people, "binary", ["a", "b"])
    res = human_fidelity(Source.of(table), humans, by="age:18-39,40+", n_boot=100, flips=999)
    assert {x["segment"] for x in res.levels} == {"age = 18-39", "age = 40+"}
    young = (people.drop_duplicates("respondent")["age"] < 40).sum()
    lv = next(x["fidelity"] for x in res.levels if x["segment"] == "age = 18-39" and x["message"] == "a"
              and x["model"] == "toy")
    assert lv.n_humans == (people[(people["age"] < 40) & (people["message"] == "a")]).shape[0]
    assert young < 20 and any("too few for a stable noise floor" in n for n in res.notes)
    with pytest.raises(SurveyError, match="no persona attribute 'height'|no attribute 'height'"):
        human_fidelity(Source.of(table), humans, by="height:1-2", n_boot=100, flips=999)


def test_a_benchmark_carries_each_experiment_s_notes(tmp_path):
    import survey

    paths = [_study(tmp_path, f"n{i}", [(f"n{i}-a", "Yes", 30 + 5 * i), (f"n{i}-a", "No", 20),
                                        (f"n{i}-b", "Yes", 20), (f"n{i}-b", "No", 30)]) for i in range(2)]
    studies = [_run(p) for p in paths]
    from survey.data.store import Store

    with Store(studies[1].store_path) as st:  # the second experiment's store loses replies
        st.db.execute("DELETE FROM responses WHERE message = 'n1-b' AND model = 'follows'")
    bench = survey.fidelity_benchmark(paths, **FAST)
    assert any(n.startswith("n1: ") and "incomplete" in n.lower() for n in bench.notes), bench.notes
    assert not any(n.startswith("n0: ") and "incomplete" in n.lower() for n in bench.notes)
