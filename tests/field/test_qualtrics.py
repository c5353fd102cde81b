"""The Qualtrics export (survey.field.qualtrics): the survey file of shipped studies holds every question, label
and condition, and a Qualtrics response export of it, built here as Qualtrics writes one (three header rows,
ResponseId, question columns named by the export tags, embedded data columns), reads back through the wide
human-file import with no column mapping."""

from __future__ import annotations

import csv
import html
import json
import random
from pathlib import Path

import pytest
from cli_result import run_cli

from survey.data.humans import load_humans
from survey.field.qualtrics import export_instrument, qualtrics_survey
from survey.registry import load_perturbation_set
from survey.registry.personas import template_fields
from survey.study.field_spec import FieldSpec
from survey.study.spec import StudySpec, load_study

STUDIES = Path(__file__).resolve().parents[2] / "studies"
META = [("StartDate", "Start Date", '{"ImportId":"startDate","timeZone":"America/Denver"}'),
        ("EndDate", "End Date", '{"ImportId":"endDate","timeZone":"America/Denver"}'),
        ("Status", "Response Type", '{"ImportId":"status"}'),
        ("Progress", "Progress", '{"ImportId":"progress"}'),
        ("Duration (in seconds)", "Duration (in seconds)", '{"ImportId":"duration"}'),
        ("Finished", "Finished", '{"ImportId":"finished"}'),
        ("ResponseId", "Response ID", '{"ImportId":"_recordId"}'),
        ("DistributionChannel", "Distribution Channel", '{"ImportId":"distributionChannel"}')]


def _elements(qsf: dict, kind: str) -> list[dict]:
    return [e for e in qsf["SurveyElements"] if e["Element"] == kind]


def _questions(qsf: dict) -> dict[str, dict]:
    return {e["Payload"]["QuestionID"]: e["Payload"] for e in _elements(qsf, "SQ")}


def _export(tmp_path, study: str) -> tuple[dict, dict]:
    out = tmp_path / f"{study}.qsf"
    summary = export_instrument(STUDIES / f"{study}.toml", "qualtrics", out)
    return json.loads(out.read_text(encoding="utf-8")), summary


def _paraphrases(spec) -> dict[str, list]:
    out = {}
    for m in spec.messages:
        items = list(load_perturbation_set(spec.registry_ref(m.perturbations), spec.sets_dir).items)
        out[m.id] = items[:m.count] if m.count else items
    return out


def _flow_embedded(node) -> list[dict]:
    found = list(node.get("EmbeddedData", []))
    for child in node.get("Flow", []):
        found += _flow_embedded(child)
    return found


@pytest.mark.parametrize("study", ["humans", "likert"])
def test_the_survey_file_holds_every_question_label_and_condition(tmp_path, study):
    qsf, summary = _export(tmp_path, study)
    spec = load_study(STUDIES / f"{study}.toml")
    assert set(qsf) == {"SurveyEntry", "SurveyElements"}
    assert {e["Element"] for e in qsf["SurveyElements"]} == {"BL", "FL", "SO", "QC", "SQ"}
    questions = _questions(qsf)
    assert _elements(qsf, "QC")[0]["SecondaryAttribute"] == str(len(questions))
    in_blocks = [el["QuestionID"] for b in _elements(qsf, "BL")[0]["Payload"] for el in b["BlockElements"]]
    assert sorted(in_blocks) == sorted(questions)  # every question in one block, every block element a question
    flow_blocks = json.dumps(_elements(qsf, "FL")[0]["Payload"])
    assert all(f'"ID": "{b["ID"]}"' in flow_blocks for b in _elements(qsf, "BL")[0]["Payload"])
    tags = {q["DataExportTag"]: q for q in questions.values()}
    pset_fields = [f for f in template_fields(_persona_template(spec)) if f != "id"]
    assert set(pset_fields) <= set(tags)  # the demographics the persona template uses
    labels = dict(spec.question.response.labels)
    for m in spec.messages:  # the question about each message: its labels as choices, its scores as recodes
        q = tags[m.id]
        assert q["QuestionType"] == "MC" and "${e://Field/paraphrase}" in q["QuestionText"]
        shown = {q["RecodeValues"][k]: html.unescape(c["Display"]) for k, c in q["Choices"].items()}
        assert shown == {str(v): w for v, w in labels.items()}
    embedded = _flow_embedded(_elements(qsf, "FL")[0]["Payload"])
    conditions = {(e["Value"]) for e in embedded if e["Field"] == "condition"}
    assert conditions == {m.id for m in spec.messages}
    shown = {e["Value"] for e in embedded if e["Field"] == "perturbation"}
    texts = {html.unescape(e["Value"]) for e in embedded if e["Field"] == "paraphrase"}
    paraphrases = _paraphrases(spec)
    assert shown == {str(p.id) for items in paraphrases.values() for p in items}
    assert texts == {p.text for items in paraphrases.values() for p in items}
    assert summary["conditions"] == sum(len(v) for v in paraphrases.values())
    assert summary["answer_columns"] == [m.id for m in spec.messages]


def _persona_template(spec) -> str:
    from survey.registry import load_persona_set

    return spec.personas.template or load_persona_set(spec.registry_ref(spec.personas.set), spec.sets_dir).template


def _respond(qsf: dict, rng: random.Random) -> tuple[dict, dict]:
    """One respondent walking the survey flow as Qualtrics runs it: (answers by question id as choice text,
    embedded data set). Randomizers present one element at random."""
    blocks = {b["ID"]: b for b in _elements(qsf, "BL")[0]["Payload"]}
    questions = _questions(qsf)
    answers: dict[str, str] = {}
    data: dict[str, str] = {}
    order: list[str] = []

    def walk(node):
        kind = node["Type"]
        if kind == "Block":
            for el in blocks[node["ID"]]["BlockElements"]:
                q = questions[el["QuestionID"]]
                order.append(q["DataExportTag"])
                if q["QuestionType"] == "MC":
                    answers[q["QuestionID"]] = html.unescape(rng.choice(list(q["Choices"].values()))["Display"])
                elif q["QuestionType"] == "TE":
                    answers[q["QuestionID"]] = str(rng.randint(18, 80))
        elif kind == "EmbeddedData":
            data.update({e["Field"]: e.get("Value", "") for e in node["EmbeddedData"]})
        elif kind == "Randomizer":
            for child in rng.sample(node["Flow"], node["SubSet"]):
                walk(child)
        else:  # Root, Group: in order
            for child in node.get("Flow", []):
                walk(child)

    walk(_elements(qsf, "FL")[0]["Payload"])
    return answers, data, order


def qualtrics_csv(qsf: dict, path: Path, n: int, seed: int = 1) -> list[dict]:
    """A response export as Qualtrics writes it ("Use choice text"): column names, question texts,
    ImportId records, then one row per respondent; returns what each respondent saw and answered."""
    rng = random.Random(seed)
    questions = [q for q in _questions(qsf).values() if q["QuestionType"] != "DB"]
    fields = list(dict.fromkeys(e["Field"] for e in _flow_embedded(_elements(qsf, "FL")[0]["Payload"])))
    header = [m[0] for m in META] + [q["DataExportTag"] for q in questions] + fields
    texts = [m[1] for m in META] + [html.unescape(q["QuestionText"]) for q in questions] + fields
    imports = ([m[2] for m in META] + [json.dumps({"ImportId": q["QuestionID"]}) for q in questions]
               + [json.dumps({"ImportId": f}) for f in fields])
    truth = []
    with path.open("w", newline="", encoding="utf-8-sig") as fh:
        w = csv.writer(fh)
        w.writerows([header, texts, imports])
        for i in range(n):
            answers, data, order = _respond(qsf, rng)
            rid = f"R_{i:04d}abcDEF"
            w.writerow(["2026-11-27 01:00:00", "2026-11-27 01:05:00", "IP Address", "100", "300", "True", rid,
                        "anonymous"] + [answers.get(q["QuestionID"], "") for q in questions]
                       + [data.get(f, "") for f in fields])
            truth.append({"rid": rid, "data": data, "order": order,  # the questions' tags, as shown
                          "answers": {q["DataExportTag"]: answers.get(q["QuestionID"]) for q in questions}})
    return truth


@pytest.mark.parametrize("study", ["humans", "likert"])
def test_a_qualtrics_export_reads_back_with_no_column_mapping(tmp_path, study):
    qsf, _ = _export(tmp_path, study)
    spec = load_study(STUDIES / f"{study}.toml")
    path = tmp_path / "responses.csv"
    truth = qualtrics_csv(qsf, path, n=40)
    ids = [m.id for m in spec.messages]
    humans = load_humans(path, spec.question.type, ids)  # neither wide=, columns= nor id_column=
    rtype = spec.question.response
    t = humans.table.set_index("respondent")
    assert len(t) == 40 and set(humans.messages) == set(ids)
    for r in truth:
        row = t.loc[r["rid"]]
        message = r["data"]["condition"]
        assert row["message"] == message
        assert row["perturbation"] == r["data"]["perturbation"]
        assert row["answer"] == rtype.parse(r["answers"][message])
    fields = [f for f in template_fields(_persona_template(spec)) if f != "id"]
    records = humans.persona_records(fields)  # every respondent renders as a persona of the set
    assert {rec["id"] for rec in records} == {"human-" + r["rid"] for r in truth}
    by_id = {rec["id"]: rec for rec in records}
    for r in truth:
        assert all(str(by_id["human-" + r["rid"]][f]) == r["answers"][f] for f in fields)


def test_consent_and_attention_check_come_from_the_field_table(tmp_path):
    spec = load_study(STUDIES / "likert.toml")
    spec.field = FieldSpec(consent="We <ask> briefly.", attention_question="Choose Blue.",
                           attention_options=["Red", "Blue"], attention_answer="Blue")
    qsf, _ = qualtrics_survey(spec)
    tags = {q["DataExportTag"]: q for q in _questions(qsf).values()}
    assert tags["consent_text"]["QuestionType"] == "DB" and "&lt;ask&gt;" in tags["consent_text"]["QuestionText"]
    assert [c["Display"] for c in tags["attention"]["Choices"].values()] == ["Red", "Blue"]
    first_block = _elements(qsf, "FL")[0]["Payload"]["Flow"][1]["ID"]
    consent_block = next(b for b in _elements(qsf, "BL")[0]["Payload"] if b["ID"] == first_block)
    assert consent_block["Description"] == "Consent"


def test_within_subjects_shows_every_message_and_reads_back_paired(tmp_path):
    spec = load_study(STUDIES / "humans.toml")
    spec.field = FieldSpec(design="within")
    qsf, summary = qualtrics_survey(spec)
    assert summary["design"] == "within" and summary["conditions"] == 6
    path = tmp_path / "responses.csv"
    truth = qualtrics_csv(qsf, path, n=20)
    ids = [m.id for m in spec.messages]
    humans = load_humans(path, "binary", ids)
    assert humans.design(*ids) == "within" and len(humans.table) == 40
    t = humans.table.set_index(["respondent", "message"])
    paraphrases = _paraphrases(spec)
    for r in truth:
        j = int(r["data"]["paraphrase_number"]) - 1
        for m in ids:
            assert t.loc[(r["rid"], m), "answer"] == {"Yes": 1, "No": 0}[r["answers"][m]]
            assert r["data"][f"{m}_perturbation"] == str(paraphrases[m][j].id)
    orders = {tuple(tag for tag in r["order"] if tag in ids) for r in truth}
    assert orders == {tuple(ids), tuple(reversed(ids))}  # both orders occur


@pytest.mark.skipif("questions" not in StudySpec.model_fields, reason="the study file has no [[questions]] yet")
def test_several_questions_are_each_exported(tmp_path):
    text = (STUDIES / "likert.toml").read_text(encoding="utf-8").replace("[question]", "[[questions]]\nid = \"buy\"")
    text += "\n[[questions]]\nid = \"react\"\ntype = \"text\"\n\n[[questions]]\nid = \"fav\"\ntype = \"choice\"\n"
    path = tmp_path / "multi.toml"
    path.write_text(text.replace('store = "reports/likert/store.sqlite"', f'store = "{tmp_path}/s.sqlite"'),
                    encoding="utf-8")
    qsf, summary = qualtrics_survey(_with_sets(path))
    tags = {q["DataExportTag"]: q for q in _questions(qsf).values()}
    assert summary["questions"] == ["buy", "react", "fav"]
    assert {"sneakers", "boots", "sneakers_react", "boots_react", "fav"} <= set(tags)
    assert tags["sneakers_react"]["QuestionType"] == "TE" and tags["fav"]["QuestionType"] == "MC"
    truth = qualtrics_csv(qsf, tmp_path / "responses.csv", n=12)  # the primary question's answers read back
    humans = load_humans(tmp_path / "responses.csv", "likert5", ["sneakers", "boots"])
    t = humans.table.set_index("respondent")
    assert [t.loc[r["rid"], "answer"] for r in truth] == [int(r["answers"][r["data"]["condition"]]) for r in truth]


def _with_sets(path: Path):
    spec = load_study(path)
    spec._sets_dir = STUDIES
    return spec


@pytest.mark.parametrize("study, message", [("maxdiff", "best and worst"), ("rank", "a ranking")])
def test_kinds_qualtrics_cannot_read_back_are_refused_in_one_line(tmp_path, capsys, study, message):
    code, out, err = run_cli(capsys, "field", STUDIES / f"{study}.toml", "--export", "qualtrics",
                             "--out", tmp_path / "x.qsf")
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.qsf").exists()


def test_an_unknown_format_is_one_line(tmp_path, capsys):
    code, out, err = run_cli(capsys, "field", STUDIES / "likert.toml", "--export", "txt",
                             "--out", tmp_path / "x.qsf")
    assert code == 2 and "unknown export format 'txt'" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.qsf").exists()


@pytest.mark.parametrize("where", ["missing/x.qsf", "folder", "file/x.qsf"])
def test_unwritable_out_is_one_line(tmp_path, capsys, where):
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_text("", encoding="utf-8")
    code, out, err = run_cli(capsys, "field", STUDIES / "likert.toml", "--export", "qualtrics",
                             "--out", tmp_path / where, "--json")
    assert code == 2 and err == ""
    assert set(json.loads(out)) == {"error"}


def test_the_command_says_what_it_wrote(tmp_path, capsys):
    code, out, err = run_cli(capsys, "field", STUDIES / "likert.toml", "--export", "Qualtrics",
                             "--out", tmp_path / "s.qsf")
    assert code == 0 and "answer columns sneakers, boots" in out and (tmp_path / "s.qsf").exists()
    code, out, err = run_cli(capsys, "field", STUDIES / "humans.toml", "--export", "qualtrics",
                             "--out", tmp_path / "h.qsf", "--json")
    result = json.loads(out)
    assert code == 0 and result["answer_columns"] == ["immigration-costs", "immigration-benefits"]
    assert result["conditions"] == 12 and result["questions"] == ["q"] and err == ""
