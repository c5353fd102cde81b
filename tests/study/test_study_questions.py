"""Several questions per study: the study file ([[questions]], [analysis], flow, question_order), what it
refuses (one line each, exit 2 from the command line), and the design the questions make."""

import json

import pytest
from cli_result import run_cli
from shoe_study import shoe_study_toml

from survey.errors import SurveyError
from survey.study.design import build_design
from survey.study.spec import load_study

SIM = """
[[models]]
name = "sim"
backend = "simulated"
seed = 5
"""
TWO = """
[[questions]]
id = "intent"
type = "binary"

[[questions]]
id = "appeal"
type = "likert"
points = 5
"""


def study(tmp_path, body: str = TWO, top: str = "", models: str = SIM, personas: int = 3, per: int = 2,
          r: int = 2):
    path = tmp_path / "study.toml"
    path.write_text(top + shoe_study_toml("qs", "store.sqlite", replicates=r, personas=personas, paraphrases=per)
                    + body + models)
    return path


def test_questions_are_a_list_and_the_primary_is_the_question(tmp_path):
    s = load_study(study(tmp_path))
    assert [q.id for q in s.questions] == ["intent", "appeal"] and s.question.id == "intent"
    assert (s.flow, s.question_order, s.analysis.primary, s.analysis.family) == ("independent", None, None, "holm")
    s = load_study(study(tmp_path, TWO + '[analysis]\nprimary = "appeal"\nfamily = "bh"\n'))
    assert s.question.id == "appeal" and s.analysis.family == "bh"


def test_a_single_question_is_q_unless_it_names_one(tmp_path):
    s = load_study(study(tmp_path, '[question]\ntype = "likert"\n'))
    assert [q.id for q in s.questions] == ["q"] and s.question is s.questions[0]
    s = load_study(study(tmp_path, '[question]\nid = "intent"\n'))
    assert [q.id for q in s.questions] == ["intent"]
    s = load_study(study(tmp_path, ""))
    assert [q.id for q in s.questions] == ["q"] and s.question.type == "binary"


BAD = {
    "duplicate ids": (TWO.replace('"appeal"', '"intent"'), "", "questions: duplicate id(s) intent"),
    "primary names no question": (TWO + '[analysis]\nprimary = "believable"\n', "",
                                  "analysis.primary = 'believable' names no question; the questions are intent, appeal"),
    "an option of another kind": (TWO.replace('type = "binary"', 'type = "binary"\npoints = 7'), "",
                                  "question 'intent': points only apply to"),
    "both [question] and [[questions]]": ('[question]\ntype = "binary"\n' + TWO, "",
                                          "give either one [question] or several [[questions]], not both"),
    "a question without an id": ('[[questions]]\ntype = "binary"\n', "", "questions: entry 1 (type 'binary') needs an id"),
    "a bad id": ('[[questions]]\nid = "my intent"\n', "", "question 'my intent': id: question id 'my intent' must be"),
    "question_order without a conversation": (TWO, 'question_order = "random"\n',
                                              "question_order = 'random' orders the questions of a conversation"),
    "a conversation on a backend that scores one prompt": (
        TWO, 'flow = "conversation"\n', "model 'loc': backend 'local' reads one prompt at a time (its exact mode"),
    "a conversation with a question of several messages": (
        TWO + '[[questions]]\nid = "fav"\ntype = "pick"\n', 'flow = "conversation"\n',
        "question 'fav' (type 'pick2') shows several messages at once"),
    "odd replicates for a balanced scale": (TWO.replace("points = 5", 'points = 5\norder = "both"'), "",
                                            "question 'appeal': question.order = 'both' asks odd replicates"),
    "sequential on several questions without a primary": (
        TWO + '[sequential]\nmax_pairs = 2\nround_pairs = 1\n', "",
        "[sequential] stops on one question's answers: name it before the run with [analysis] primary"),
}
LOCAL = '\n[[models]]\nname = "loc"\nbackend = "local"\n'


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_is_one_line_naming_the_question(tmp_path, capsys, case):
    body, top, message = BAD[case]
    models = LOCAL if "backend that scores" in case else SIM
    path = study(tmp_path, body, top, models, r=1 if "balanced" in case else 2)
    with pytest.raises(SurveyError) as exc:
        load_study(path)
    assert message in str(exc.value) and "\n" not in str(exc.value)
    code, out, err = run_cli(capsys, "run", path, "--dry-run", "--json")
    assert code == 2 and message in json.loads(out)["error"] and "Traceback" not in err


def test_every_question_is_checked_before_anything_is_bought(tmp_path, capsys):
    """A check that read only the primary question once passed a study whose second question could not run."""
    path = study(tmp_path, TWO + '[[questions]]\nid = "fav"\ntype = "choice"\n[[messages]]\nid = "sandals"\n'
                 'perturbations = "sandals"\ncount = 2\n')
    code, out, err = run_cli(capsys, "run", path, "--dry-run")
    assert code == 2 and "question 'fav': type = 'choice' compares two messages in one prompt" in err


def test_the_design_crosses_the_questions(tmp_path):
    s = load_study(study(tmp_path, personas=3, per=2, r=2))
    design = build_design(s)
    queries = list(design.queries(s.models[0]))
    assert len(queries) == design.queries_per_model == 3 * (2 + 2) * 2 * 2
    assert {q.question for q in queries} == {"intent", "appeal"}
    assert len({q.key for q in queries}) == len(queries)  # the question is part of the key
    by_question = {qid: [q for q in queries if q.question == qid] for qid in ("intent", "appeal")}
    assert len(by_question["intent"]) == len(by_question["appeal"]) == 24
    assert {q.scale for q in by_question["appeal"]} == {"likert5"}
    # one system prompt per persona for every question (a local model reuses its cache), each question
    # carrying its own answer instruction
    for persona in {q.persona for q in queries}:
        assert len({q.system for q in queries if q.persona == persona}) == 1
    assert by_question["intent"][0].user.endswith("Answer ONLY 'Yes' or 'No'. Do not explain.")
    assert by_question["appeal"][0].user.endswith("Answer ONLY with a whole number from 1 to 5. Do not explain.")
    assert "Yes' or 'No'" not in queries[0].system


def test_a_conversation_asks_every_question_per_paraphrase_in_a_recorded_order(tmp_path):
    s = load_study(study(tmp_path, TWO + '[[questions]]\nid = "believable"\ntype = "binary"\n',
                         'flow = "conversation"\nquestion_order = "random"\n', personas=4, per=3, r=2))
    queries = list(build_design(s).queries(s.models[0]))
    assert len(queries) == 4 * 6 * 2 * 3
    conversations = {}
    for q in queries:
        conversations.setdefault((q.persona, q.message, q.perturbation, q.replicate), []).append(q)
    assert len(conversations) == 4 * 6 * 2
    orders = set()
    for turns in conversations.values():
        assert [q.position for q in turns] == [0, 1, 2]  # consecutive, in the order asked
        assert sorted(q.question for q in turns) == ["appeal", "believable", "intent"]
        orders.add(tuple(q.question for q in turns))
    assert len(orders) > 1  # drawn per persona x paraphrase
    replicates = {}  # the same order for every replicate of a persona x paraphrase
    for (persona, message, perturbation, _), turns in conversations.items():
        replicates.setdefault((persona, message, perturbation), set()).add(tuple(q.question for q in turns))
    assert all(len(v) == 1 for v in replicates.values())
    again = list(build_design(s).queries(s.models[0]))
    assert [(q.key, q.position) for q in again] == [(q.key, q.position) for q in queries]  # seeded


def test_dry_run_counts_queries_and_tokens_per_question(tmp_path, capsys):
    code, out, err = run_cli(capsys, "run", study(tmp_path), "--dry-run", "--json")
    assert code == 0, err
    plan = json.loads(out)
    counts = plan["models"][0]["questions"]
    assert {q: c["queries"] for q, c in counts.items()} == {"intent": 24, "appeal": 24}
    assert sum(c["est_input_tokens"] for c in counts.values()) == plan["models"][0]["est_input_tokens"]
    assert counts["intent"]["est_output_tokens"] == 24 * 1 and counts["appeal"]["est_output_tokens"] == 24 * 3
    assert [q["id"] for q in plan["questions"]] == ["intent", "appeal"] and plan["flow"] == "independent"
    code, out, err = run_cli(capsys, "run", study(tmp_path), "--dry-run")
    assert code == 0 and "per question" in out and "system prompt (every question)" in out


def test_the_shared_prefix_is_counted_once_where_the_backend_reuses_it(tmp_path, capsys):
    """Independent flow on a backend that reuses a prompt prefix (the local model) pays for the persona's
    system prompt once per paraphrase; a conversation sends the earlier turns again with each question."""
    def appeal_tokens(models, top=""):
        code, out, err = run_cli(capsys, "run", study(tmp_path, TWO, top, models), "--dry-run", "--json")
        assert code == 0, err
        return json.loads(out)["models"][0]["questions"]

    whole = appeal_tokens(SIM)
    reused = appeal_tokens('\n[[models]]\nname = "loc"\nbackend = "local"\n')
    assert reused["intent"]["est_input_tokens"] == whole["intent"]["est_input_tokens"]
    assert reused["appeal"]["est_input_tokens"] < 0.75 * whole["appeal"]["est_input_tokens"]
    talk = appeal_tokens(SIM, 'flow = "conversation"\n')
    assert talk["intent"]["est_input_tokens"] == whole["intent"]["est_input_tokens"]
    assert talk["appeal"]["est_input_tokens"] > whole["appeal"]["est_input_tokens"] + whole["intent"][
        "est_input_tokens"] / 2
