"""A human file of a checkbox study may name the options ("Comfortable and good value") as a model's reply may:
read against the study, a store or a table (whose rows hold the option names), it gives the same bit sets as
the file that numbers them ("1, 3"), on every path that reads one (survey.load_source and open_source with
humans=, a study's [humans], survey.fidelity, `survey analyze --humans`, `survey fidelity STUDY`). An answer
that names no option is refused in one line naming its line, respondent and message."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from cli_result import run_cli

import survey
from survey.errors import SurveyError

OPTIONS = ["comfortable", "stylish", "good value", "durable"]
MESSAGES = ("sneakers", "boots")
STUDY = """
name = "ticks"
store = "store.sqlite"
replicates = 1

[humans]
file = "named.csv"

[personas]
set = "panel.jsonl"

[[messages]]
id = "sneakers"
perturbations = "sneakers"
count = 4

[[messages]]
id = "boots"
perturbations = "boots"
count = 4

[question]
type = "checkbox"
options = ["comfortable", "stylish", "good value", "durable"]
max_choices = 3

[[models]]
name = "sim"
backend = "simulated"
seed = 3
"""


def _ways(ticked: list[int], i: int) -> str:
    """The options ticked (0-based), named the ways a reply may name them: any case, joined by commas, "and" or
    "&", a name with its number as the question lists it."""
    names = [OPTIONS[t] for t in ticked]
    style = i % 4
    if style == 0:
        names = [n.title() for n in names]  # "Good Value"
    elif style == 1:
        names = [n.upper() for n in names]
    elif style == 2:
        names = [f"{t + 1}. {OPTIONS[t]}" for t in ticked]  # "3. good value"
    if len(names) == 1:
        return names[0]
    joiner = (" and ", " & ", ", ")[i % 3]
    return ", ".join(names[:-1]) + joiner + names[-1] if joiner != ", " else ", ".join(names)


def _files(tmp_path, respondents: int = 10):
    """The same answers twice: numbered ("1, 3") and named; with the attributes the persona template renders."""
    rng = np.random.default_rng(4)
    numbered, named = ["respondent,message,answer,age,gender"], ["respondent,message,answer,age,gender"]
    masks = []
    for r in range(respondents):
        age, gender = int(rng.integers(18, 80)), str(rng.choice(["male", "female"]))
        for j, msg in enumerate(MESSAGES):
            ticked = sorted(rng.choice(4, size=int(rng.integers(1, 4)), replace=False).tolist())
            masks.append(sum(1 << t for t in ticked))
            numbered.append(f'h{r},{msg},"{", ".join(str(t + 1) for t in ticked)}",{age},{gender}')
            named.append(f'h{r},{msg},"{_ways(ticked, 2 * r + j)}",{age},{gender}')
    (tmp_path / "numbered.csv").write_text("\n".join(numbered) + "\n")
    (tmp_path / "named.csv").write_text("\n".join(named) + "\n")
    return masks


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """A checkbox study whose [humans] file names the options, run on the simulated backend (it asks the model
    about every respondent rendered as a persona); the tests below only read it."""
    tmp = tmp_path_factory.mktemp("ticks")
    rng = np.random.default_rng(0)
    header = {"template": "You are a shopper aged {age}, {gender}."}
    panel = [json.dumps(header)] + [json.dumps({"id": f"p{i}", "age": int(rng.integers(18, 80)),
                                                "gender": str(rng.choice(["male", "female"]))}) for i in range(6)]
    (tmp / "panel.jsonl").write_text("\n".join(panel) + "\n")
    masks = _files(tmp)
    (tmp / "study.toml").write_text(STUDY)
    s = survey.Study.from_toml(tmp / "study.toml")
    s.run(yes=True, progress=False)
    return tmp, s, masks


def _answers(humans) -> list[int]:
    t = humans.table.sort_values(["respondent", "message"], key=lambda c: c.map(_order), kind="stable")
    return [int(a) for a in t["answer"]]


def _order(v):
    return int(v[1:]) if isinstance(v, str) and v.startswith("h") and v[1:].isdigit() else MESSAGES.index(v)


def test_a_study_whose_humans_name_the_options_runs_and_reads_them(study):
    tmp, s, masks = study
    src = s.load()  # the store, with the study's [humans] file read against it
    assert _answers(src.humans) == masks
    assert src.context["humans"]["rendered_personas"] == 10  # the design read the file too (ask = true)
    opened = survey.open_source(tmp / "study.toml")  # what `survey fidelity STUDY` and `analyze STUDY` open
    assert _answers(opened.humans) == masks


def test_named_and_numbered_files_give_the_same_bit_sets_against_a_store_or_table(study):
    tmp, s, masks = study
    store = tmp / "store.sqlite"
    numbered = survey.load_source(store, humans=tmp / "numbered.csv").humans
    named = survey.load_source(store, humans=tmp / "named.csv").humans
    assert _answers(numbered) == _answers(named) == masks
    table = tmp / "table.csv"
    s.table().to_csv(table, index=False)  # a table file keeps the options column
    assert _answers(survey.load_source(table, humans=str(tmp / "named.csv")).humans) == masks
    spec = survey.load_source(store, humans={"file": str(tmp / "named.csv")}).humans  # a [humans]-style table
    assert _answers(spec) == masks
    long = pd.read_csv(tmp / "named.csv", dtype=str)  # one row per respondent, one column per message
    long.pivot(index="respondent", columns="message", values="answer").reset_index().to_csv(tmp / "wide.csv",
                                                                                           index=False)
    wide = survey.load_source(store, humans={"file": str(tmp / "wide.csv"), "wide": True}).humans
    assert _answers(wide) == masks


def test_python_readers_take_the_type_with_its_options(study):
    tmp, s, masks = study
    src = survey.load_source(tmp / "store.sqlite")
    assert src.response.options == tuple(OPTIONS) and src.response.scale == "checkbox4-1-3"
    assert _answers(survey.load_humans(tmp / "named.csv", src.response, list(MESSAGES))) == masks
    assert _answers(survey.load_humans(tmp / "named.csv", s.spec.question.response, list(MESSAGES))) == masks
    with pytest.raises(SurveyError) as exc:  # the scale's name alone knows the options by number only
        survey.load_humans(tmp / "named.csv", "checkbox4-1-3", list(MESSAGES))
    assert "names are not known here" in str(exc.value) and "\n" not in str(exc.value)
    frame = pd.read_csv(tmp / "named.csv", dtype=str)
    try:  # a DataFrame of answers is read against the source, as a file is
        survey.fidelity(src, humans=frame)
    except SurveyError as exc:  # (until checkbox answers have a comparison with people)
        assert "column 'answer'" not in str(exc)


def test_the_commands_read_a_named_file(study, capsys):
    tmp, s, masks = study
    code, out, err = run_cli(capsys, "analyze", tmp / "store.sqlite", "--humans", tmp / "named.csv", "--json")
    assert code == 0, err
    code, out, err = run_cli(capsys, "fidelity", tmp / "study.toml")
    assert "column 'answer'" not in err  # the study's [humans] file is read; the comparison is the kind's


def test_an_unknown_option_is_refused_in_one_line_naming_the_row(study, capsys):
    tmp, s, masks = study
    lines = (tmp / "named.csv").read_text().splitlines()
    lines[3] = 'h1,sneakers,"Comfortable and cheap",30,male'
    (tmp / "bad.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(SurveyError) as exc:
        survey.load_source(tmp / "store.sqlite", humans=tmp / "bad.csv")
    msg = str(exc.value)
    assert "\n" not in msg and "'Comfortable and cheap' in line(s) 4" in msg
    assert "respondent 'h1', message 'sneakers'" in msg and "1. comfortable" in msg and "4. durable" in msg
    code, out, err = run_cli(capsys, "analyze", tmp / "store.sqlite", "--humans", tmp / "bad.csv")
    assert code == 2 and err.strip().count("\n") == 0 and "line(s) 4" in err
    code, out, err = run_cli(capsys, "analyze", tmp / "store.sqlite", "--humans", tmp / "bad.csv", "--json")
    assert code == 2 and set(json.loads(out)) == {"error"} and "cheap" in json.loads(out)["error"]


def test_a_type_without_stored_words_is_its_own_registered_type():
    from survey.data.sources import Source
    from survey.responses import response_type

    table = pd.DataFrame({"scale": ["likert5"], "options": ["a|b"]})
    assert Source(table, "", "table", None, None, None).response is response_type("likert5")
    assert response_type("checkbox3").for_rows(pd.DataFrame({"options": ["a|b"]})) is response_type("checkbox3")
