"""The Qualtrics export of the numeric and checkbox kinds: a number is a text box validated between the
question's min and max, options ticked a multiple-answer multiple choice exported as the option numbers; a
Qualtrics response export of it (built as Qualtrics writes one, "Use choice text": a multiple answer's
variable names joined by commas) reads back through the wide human-file import with no column mapping."""

from __future__ import annotations

import csv
import html
import json
import random

import pytest
from field_study import write_study
from test_qualtrics import META, _elements, _flow_embedded, _questions

from survey.data.humans import load_humans
from survey.field.qualtrics import export_instrument
from survey.study.spec import load_study

NUMERIC = 'type = "numeric"\nmin = 0\nmax = 300\nunit = "US dollars"'
CHECKBOX = 'type = "checkbox"\noptions = ["comfortable", "stylish", "good <b>value</b>", "durable"]\nmax_choices = 2'
NONE_OK = 'type = "checkbox"\noptions = ["comfortable", "stylish", "durable"]\nmin_choices = 0\nmax_choices = 2'


def _export(tmp_path, question):
    study = write_study(tmp_path, question=question)
    export_instrument(study, "qualtrics", tmp_path / "s.qsf")
    return load_study(study), json.loads((tmp_path / "s.qsf").read_text(encoding="utf-8"))


def _answer(q: dict, rng: random.Random) -> str:
    """What Qualtrics writes for one respondent ("Use choice text": variable names when they are set)."""
    if q["QuestionType"] == "TE":
        limits = q["Validation"]["Settings"].get("ValidNumber")
        return str(rng.randint(int(limits["Min"]), int(limits["Max"]))) if limits else str(rng.randint(18, 80))
    naming = q.get("VariableNaming") or {k: html.unescape(c["Display"]) for k, c in q["Choices"].items()}
    if q["Selector"] != "MAVR":
        return naming[rng.choice(list(q["Choices"]))]
    settings = q["Validation"]["Settings"]
    exclusive = [k for k, c in q["Choices"].items() if c.get("ExclusiveAnswer")]
    if exclusive and rng.random() < 0.3:
        return naming[exclusive[0]]
    plain = [k for k in q["Choices"] if k not in exclusive]
    picked = sorted(rng.sample(plain, rng.randint(int(settings["MinChoices"]), int(settings["MaxChoices"]))), key=int)
    return ",".join(naming[k] for k in picked)


def _responses(qsf: dict, path, n: int, seed: int = 3) -> list[dict]:
    rng = random.Random(seed)
    blocks = {b["ID"]: b for b in _elements(qsf, "BL")[0]["Payload"]}
    questions = _questions(qsf)
    asked = [q for q in questions.values() if q["QuestionType"] != "DB"]
    fields = list(dict.fromkeys(e["Field"] for e in _flow_embedded(_elements(qsf, "FL")[0]["Payload"])))
    truth = []

    def walk(node, answers, data):
        if node["Type"] == "Block":
            for el in blocks[node["ID"]]["BlockElements"]:
                q = questions[el["QuestionID"]]
                if q["QuestionType"] != "DB":
                    answers[q["DataExportTag"]] = _answer(q, rng)
        elif node["Type"] == "EmbeddedData":
            data.update({e["Field"]: e.get("Value", "") for e in node["EmbeddedData"]})
        elif node["Type"] == "Randomizer":
            for child in rng.sample(node["Flow"], node["SubSet"]):
                walk(child, answers, data)
        else:
            for child in node.get("Flow", []):
                walk(child, answers, data)

    with path.open("w", newline="", encoding="utf-8-sig") as fh:
        w = csv.writer(fh)
        w.writerows([[m[0] for m in META] + [q["DataExportTag"] for q in asked] + fields,
                     [m[1] for m in META] + [html.unescape(q["QuestionText"]) for q in asked] + fields,
                     [m[2] for m in META] + [json.dumps({"ImportId": q["QuestionID"]}) for q in asked]
                     + [json.dumps({"ImportId": f}) for f in fields]])
        for i in range(n):
            answers, data = {}, {}
            walk(_elements(qsf, "FL")[0]["Payload"], answers, data)
            rid = f"R_{i:04d}abcDEF"
            w.writerow(["2026-11-27 01:00:00", "2026-11-27 01:05:00", "IP Address", "100", "300", "True", rid,
                        "anonymous"] + [answers.get(q["DataExportTag"], "") for q in asked]
                       + [data.get(f, "") for f in fields])
            truth.append({"rid": rid, "data": data, "answers": answers})
    return truth


def test_a_number_is_a_text_box_validated_between_min_and_max(tmp_path):
    spec, qsf = _export(tmp_path, NUMERIC)
    tags = {q["DataExportTag"]: q for q in _questions(qsf).values()}
    for m in spec.messages:
        q = tags[m.id]
        settings = q["Validation"]["Settings"]
        assert q["QuestionType"] == "TE" and q["Selector"] == "SL"
        assert settings["ContentType"] == "ValidNumber" and settings["ValidNumber"]["Min"] == "0"
        assert settings["ValidNumber"]["Max"] == "300" and "${e://Field/paraphrase}" in q["QuestionText"]


@pytest.mark.parametrize("question", [CHECKBOX, NONE_OK])
def test_boxes_are_a_multiple_answer_choice_exported_as_option_numbers(tmp_path, question):
    spec, qsf = _export(tmp_path, question)
    rtype = spec.question.response
    q = {q["DataExportTag"]: q for q in _questions(qsf).values()}[spec.messages[0].id]
    assert q["QuestionType"] == "MC" and q["Selector"] == "MAVR"
    shown = [html.unescape(c["Display"]) for c in q["Choices"].values()]
    assert shown[:rtype.k] == list(rtype.options)
    assert "&lt;b&gt;" in json.dumps(q["Choices"]) or "<b>" not in question
    assert [q["VariableNaming"][str(i)] for i in range(1, rtype.k + 1)] == [str(i) for i in range(1, rtype.k + 1)]
    assert q["Validation"]["Settings"]["MaxChoices"] == str(rtype.high)
    assert "1. comfortable" not in q["QuestionText"] and "Answer with" not in q["QuestionText"]
    if rtype.low == 0:
        assert shown[-1] == "None of these" and q["Choices"][str(rtype.k + 1)]["ExclusiveAnswer"] is True
        assert q["VariableNaming"][str(rtype.k + 1)] == "none"


@pytest.mark.parametrize("question", [NUMERIC, CHECKBOX, NONE_OK])
def test_a_qualtrics_export_of_the_new_kinds_reads_back(tmp_path, question):
    spec, qsf = _export(tmp_path, question)
    rtype = spec.question.response
    truth = _responses(qsf, tmp_path / "responses.csv", n=30)
    ids = [m.id for m in spec.messages]
    humans = load_humans(tmp_path / "responses.csv", rtype.scale, ids)  # no wide=, columns= nor id_column=
    t = humans.table.set_index("respondent")
    assert len(t) == 30
    for r in truth:
        row = t.loc[r["rid"]]
        message = r["data"]["condition"]
        said = r["answers"][message]
        assert row["message"] == message and row["perturbation"] == r["data"]["perturbation"]
        assert row["answer"] == rtype.parse(said)
        if rtype.kind == "checkbox":  # the option numbers Qualtrics wrote, as the bit set
            assert row["answer"] == (0 if said == "none" else sum(1 << (int(i) - 1) for i in said.split(",")))
