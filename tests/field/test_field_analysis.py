"""Fielded answers go straight into the analyses about people: `survey fidelity STUDY` and
`survey analyze STORE --humans` read them from the store, with no file."""

import json
import random

import pytest
from cli_result import run_cli
from field_study import ABOUT, write_study
from starlette.testclient import TestClient

import survey
from survey.field import field_server


@pytest.fixture
def fielded(tmp_path):
    """The study run on the simulated model, then fielded to 24 people who answer Yes to sneakers more often."""
    study = write_study(tmp_path)
    survey.Study.from_toml(study).run(yes=True)
    fs = field_server(study, rng=random.Random(5))
    answers = {}
    try:
        for i in range(24):
            c = TestClient(fs.app)
            c.post("/start", data={"consent": "yes", "rid": f"h{i}"})
            page = c.post("/about", data={**ABOUT, "demo-age": str(20 + i)}).text
            says = "1" if ("sneaker" in page.lower()) == (i % 4 != 0) else "0"
            c.post("/questions", data={"item0": says, "attention": "Blue" if i != 23 else "Red"})
            answers[f"h{i}"] = int(says)
        rows = fs.store.answers()
    finally:
        fs.close()
    return study, rows


def by_hand(rows):
    kept = rows[rows["attention_ok"] == 1]
    mean = kept.groupby("message")["answer"].mean()
    return float(mean["sneakers"] - mean["boots"]), len(kept)


def test_fidelity_reads_the_fielded_answers_from_the_store(fielded):
    study, rows = fielded
    effect, n = by_hand(rows)
    res = survey.fidelity(str(study), a="sneakers", b="boots", n_boot=50, flips=199)
    assert res.human_effect.estimate == pytest.approx(effect)
    src = survey.open_source(str(study))
    assert src.humans.summary()["respondents"] == n == 23  # the one who failed the attention check: left out
    assert set(src.humans.attributes) >= {"age", "gender", "occupation", "income", "marital_status"}


def test_analyze_humans_without_a_file_reads_the_store(fielded, capsys):
    study, rows = fielded
    effect, _ = by_hand(rows)
    store = study.parent / "store.sqlite"
    code, out, err = run_cli(capsys, "analyze", store, "--a", "sneakers", "--b", "boots", "--humans", "--json")
    assert code == 0, err
    got = json.loads(out)["humans"]
    assert got["human_effect"]["estimate"] == pytest.approx(effect) and got["humans"]["respondents"] == 23


def test_analyze_humans_refuses_a_store_without_fielded_answers(tmp_path, capsys):
    study = write_study(tmp_path)
    survey.Study.from_toml(study).run(yes=True)
    code, out, err = run_cli(capsys, "analyze", tmp_path / "store.sqlite", "--humans")
    assert code == 2 and "no human answers" in err and "Traceback" not in err


def test_a_rerun_asks_the_models_about_the_fielded_respondents(fielded, capsys):
    study, rows = fielded
    survey.Study.from_toml(study).run(yes=True)  # the respondents, rendered as personas, are asked too
    table = survey.Study.from_toml(study).table()
    asked = {p for p in table["persona"] if p.startswith("human-")}
    assert asked == {f"human-{r}" for r in rows.loc[rows["attention_ok"] == 1, "respondent"]}
    code, out, err = run_cli(capsys, "analyze", study.parent / "store.sqlite", "--a", "sneakers", "--b", "boots",
                             "--humans", "--json")
    assert code == 0, err
    ppi = json.loads(out)["humans"]["ppi"]
    assert set(ppi) == {"sim"} and ppi["sim"]["estimate"] is not None


def test_fielded_answers_of_other_kinds_leave_the_analysis_of_the_store_alone(tmp_path):
    study = write_study(tmp_path, question='type = "choice"')
    survey.Study.from_toml(study).run(yes=True)
    fs = field_server(study)
    try:
        c = TestClient(fs.app)
        c.post("/start", data={"consent": "yes", "rid": "c1"})
        c.post("/about", data=ABOUT)
        assert c.post("/questions", data={"item0": "1", "attention": "Blue"}).status_code == 200
    finally:
        fs.close()
    src = survey.open_source(str(study))
    assert src.humans is None and len(src.table)  # a forced choice's rows are in the export, not a human file


def test_the_package_is_callable_as_survey_field():
    assert callable(survey.field) and survey.field.field_server is field_server


SEVERAL = """
[[questions]]
id = "intent"
type = "binary"

[[questions]]
id = "appeal"
type = "likert"
points = 5
"""


def test_every_question_of_a_study_is_fielded_and_read_per_question(tmp_path):
    if "questions" not in survey.StudySpec.model_fields:
        pytest.skip("the study file's [[questions]] is not in this checkout yet")
    study = write_study(tmp_path, questions=SEVERAL, design="within")
    survey.Study.from_toml(study).run(yes=True)
    fs = field_server(study, rng=random.Random(4))
    try:
        for i in range(6):
            c = TestClient(fs.app)
            c.post("/start", data={"consent": "yes", "rid": f"m{i}"})
            page = c.post("/about", data=ABOUT).text
            from respondent import answers_for

            assert "C0DE42" in c.post("/questions", data=answers_for(page)).text
        rows = fs.store.answers()
    finally:
        fs.close()
    assert sorted(set(rows["question"])) == ["appeal", "intent"] and len(rows) == 6 * 2 * 2
    src = survey.open_source(str(study))
    for qid, scale in (("intent", "binary"), ("appeal", "likert5")):
        people = src.for_question(qid).humans
        assert people.scale == scale and people.summary()["respondents"] == 6 and len(people.table) == 12


def test_a_store_whose_respondents_all_failed_the_attention_check_says_so(tmp_path, capsys):
    # before: "the store holds none fielded", though it held every respondent (all of them had failed the check)
    study = write_study(tmp_path)
    survey.Study.from_toml(study).run(yes=True)
    fs = field_server(study, rng=random.Random(5))
    try:
        for i in range(3):
            c = TestClient(fs.app)
            c.post("/start", data={"consent": "yes", "rid": f"h{i}"})
            c.post("/about", data={**ABOUT, "demo-age": str(30 + i)})
            c.post("/questions", data={"item0": "1", "attention": "Red"})
    finally:
        fs.close()
    code, out, err = run_cli(capsys, "analyze", tmp_path / "store.sqlite", "--humans")
    assert code == 2 and "holds 3 fielded responses, but none passed the attention check" in err, err
    with pytest.raises(survey.SurveyError, match="holds 3 fielded responses, but none passed"):
        survey.fidelity(str(study))
