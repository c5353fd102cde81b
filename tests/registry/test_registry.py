"""Persona and perturbation registries: shipped data, search order, validation errors with file:line."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from cli_result import run_cli

from survey.errors import SurveyError
from survey.registry import (
    DEFAULT_TEMPLATE,
    PROJECT_ROOT,
    PersonaSet,
    PerturbationSet,
    list_persona_sets,
    list_perturbation_sets,
    load_persona_set,
    load_perturbation_set,
    template_fields,
)

SEED_DIR = PROJECT_ROOT.parent / "shared" / "seeds"  # the papers, when the checkout sits beside them
SEED_004 = next(iter(sorted(SEED_DIR.glob("004_*.txt"))), None) if SEED_DIR.is_dir() else None

PAPER_TABLE_4 = [  # Helm & Priebe (2026), appendix A.2, typed in independently of scripts/make_shoppers.py
    "0 25 male|Software Engineer|high|single", "1 32 female|Nurse|medium|married",
    "2 45 non-binary|Graphic Designer|medium|divorced", "3 60 male|Retired Teacher|low|widowed",
    "4 28 female|Marketing Manager|high|single", "5 55 male|Construction Worker|medium|married",
    "6 37 non-binary|Social Worker|low|single", "7 42 female|Lawyer|high|divorced",
    "8 65 male|Retired Mechanic|low|widowed", "9 30 female|Chef|medium|single",
]


# ---- shipped data ----------------------------------------------------------------------------------

def test_shoppers_has_the_papers_rows_then_generated_ones():
    s = load_persona_set("shoppers")
    assert s.name == "shoppers" and len(s.personas) >= 100
    assert s.template == DEFAULT_TEMPLATE
    rows = [f"{p.id} {p.age} {p.gender}|{p.occupation}|{p.income}|{p.marital_status}" for p in s.personas[:10]]
    assert rows == PAPER_TABLE_4
    assert [p.id for p in s.personas] == [str(i) for i in range(len(s.personas))]
    for p in s.personas[10:]:
        assert isinstance(p.age, int) and 18 <= p.age <= 85
        assert p.gender in {"male", "female", "non-binary"}
        assert p.income in {"low", "medium", "high"}
        assert p.marital_status in {"single", "married", "divorced", "widowed"}
        assert p.occupation
    assert len({p.occupation for p in s.personas}) > 20  # the stated distribution is actually used


def test_system_prompt_is_the_papers():
    s = load_persona_set("shoppers")
    p = s.get("0")
    assert s.system_prompt(p) == ("You are roleplaying as a shopper. Your profile: Age 25, male, Software "
                                  "Engineer, income: high, marital status: single. Answer ONLY 'Yes' or 'No'. "
                                  "Do not explain.")
    assert template_fields(s.template) == ["age", "gender", "occupation", "income", "marital_status"]


def test_make_shoppers_reproduces_the_shipped_file_byte_for_byte(tmp_path):
    script = PROJECT_ROOT / "scripts" / "make_shoppers.py"
    check = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    out = tmp_path / "again.jsonl"
    subprocess.run([sys.executable, str(script), "--out", str(out)], check=True, capture_output=True)
    assert out.read_bytes() == (PROJECT_ROOT / "personas" / "shoppers.jsonl").read_bytes()
    other = tmp_path / "other.jsonl"
    subprocess.run([sys.executable, str(script), "--out", str(other), "--seed", "5"], check=True,
                   capture_output=True)
    assert other.read_bytes() != out.read_bytes()  # the seed matters, so the check above can fail
    assert subprocess.run([sys.executable, str(script), "--check", "--out", str(other)],
                          capture_output=True).returncode == 1


@pytest.mark.parametrize("name,count,first,last", [
    ("sneakers", 50, "I\u2019d like to buy a pair of sneakers.",
     "I\u2019m looking to shop for a pair of athletic casual shoes."),
    ("boots", 25, "I\u2019d like to buy a pair of boots.", "I\u2019m thinking about buying boots, specifically a pair."),
])
def test_paraphrase_sets_are_the_papers(name, count, first, last):
    s = load_perturbation_set(name)
    assert (s.name, s.message, len(s.items)) == (name, name, count)
    assert s.items[0].text == first and s.items[-1].text == last
    assert [p.id for p in s.items] == [f"{name}-{i:02d}" for i in range(1, count + 1)]
    assert s.description
    assert "'" not in "".join(s.texts)  # typographic apostrophes kept, never ASCII-fied


@pytest.mark.skipif(SEED_004 is None, reason="the paper's text is not beside the checkout")
def test_paraphrases_verbatim_against_the_seed_text():
    text = SEED_004.read_text(encoding="utf-8")
    for name, start, end in (("sneakers", "A.3 Sneaker", "A.4 Boot"), ("boots", "A.4 Boot", "Appendix B")):
        begin = text.index(f"\n{start}")
        section = text[begin:text.index(f"\n{end}", begin)]
        expected = re.findall(r"^-\n\d+\.\n(.+)$", section, flags=re.M)
        assert load_perturbation_set(name).texts == expected


def test_shipped_sets_are_listed(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert "shoppers" in list_persona_sets()
    assert {"sneakers", "boots"} <= set(list_perturbation_sets())


# ---- search order ----------------------------------------------------------------------------------

def test_current_directory_shadows_shipped_and_paths_work(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "personas").mkdir()
    (tmp_path / "personas" / "shoppers.jsonl").write_text('{"id": "x", "age": 1, "gender": "f", "occupation": "o", '
                                                         '"income": "low", "marital_status": "single"}\n')
    assert [p.id for p in load_persona_set("shoppers").personas] == ["x"]  # the local one, default template
    other = tmp_path / "elsewhere" / "mine.jsonl"
    other.parent.mkdir()
    other.write_text('{"template": "I am {name}."}\n{"id": 7, "name": "Ann"}\n')
    s = load_persona_set(str(other))
    assert s.name == "mine" and s.personas[0].id == "7" and s.system_prompt(s.personas[0]) == "I am Ann."
    with pytest.raises(SurveyError, match=r"unknown persona set 'nope'.*available: shoppers"):
        load_persona_set("nope")
    with pytest.raises(SurveyError, match="no such file"):
        load_perturbation_set("missing/thing.yaml")


# ---- validation errors name file, line and fix ----------------------------------------------------

HEADER = '{"template": "Age {age}, {job}."}\n'
PERSONA_CASES = [
    (HEADER + '{"id": "a", "age": 3, "job": "x"}\n\n{"id": "a", "age": 4, "job": "y"}\n', 4,
     "duplicate persona id 'a'"),
    (HEADER + '{"id": "a", "age": 3, "job": "x"}\n{"id": "b", "age": 4}\n', 3, "lacks job"),
    ('{"template": "Age {age} {foo}"}\n{"id": "a", "age": 3}\n', 1, r"placeholder \{foo\} is not an attribute"),
    ('{"template": "Age {}"}\n{"id": "a", "age": 3}\n', 1, "must be an attribute name"),
    ('{"template": "Age {age"}\n{"id": "a", "age": 3}\n', 1, "not a valid format string"),
    ('{"template": "x", "colour": "red"}\n{"id": "a"}\n', 1, "colour: Extra inputs.*remove this key"),
    ('{"id": "a", "age": 3}\n{"id": "b",\n', 2, "not valid JSON"),
    ('{"id": "a", "age": 3}\n[1, 2]\n', 2, "expected a JSON object"),
    ('{"id": "a b", "age": 3}\n', 1, "personas.id: String should match pattern.*ids use letters"),
    ('{"id": "a"}\n{"id": "b", "age": {"years": 3}}\n', 2, "attribute 'age' must be a string, number"),
    ('{"id": "a", "age": null}\n', 1, "not null"),
    ('{"id": "a", "job": "  "}\n', 1, "attribute 'job' is empty"),
    ('{"id": "a"}\n{"age": 1}\n', 2, "personas.id: Field required"),
]


@pytest.mark.parametrize("content,line,message", PERSONA_CASES)
def test_persona_errors_name_file_and_line(tmp_path, content, line, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(SurveyError) as info:
        load_persona_set(path)
    assert f"{path}:{line}: " in str(info.value)
    assert re.search(message, str(info.value)), str(info.value)


def test_empty_persona_file(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text(HEADER)
    with pytest.raises(SurveyError, match="no personas; add one JSON object per line"):
        load_persona_set(path)


YAML_CASES = [
    ("message: m\nparaphrases:\n  - id: p1\n    text: hello\n  - id: p1\n    text: there\n", 5,
     "duplicate paraphrase id 'p1'"),
    ("message: m\nparaphrases:\n  - id: p1\n    text: hello\n  - id: p2\n    text: hello\n", 6,
     "repeats the text of paraphrase #1"),
    ("message: m\nparaphrases:\n  - id: p1\n    text: ok\n  - id: p2\n    text:\n", 6, "at least 1 character"),
    ("message: m\nparaphrases:\n  - id: p1\n    text: ok\n  - idd: p2\n    text: x\n", 5, "idd: Extra inputs"),
    ("message: m\nparaphrases:\n  - text: ok\n", 3, "id: Field required.*add this field"),
    ("message: m\nparaphrases:\n  - id: p1\n    text: a: b\n", 4, "not valid YAML"),
    ("message: m m\nparaphrases:\n  - id: p1\n    text: ok\n", 1, "message: String should match pattern"),
    ("message: m\ndescription: d\n", 1, "paraphrases: Field required"),
    ("message: m\nparaphrases: []\n", 2, "at least 1 item"),
    ("- just\n- a list\n", None, "expected a mapping"),
    ("message: m\nname: other\nparaphrases:\n  - id: p1\n    text: ok\n", 2, "name: remove this key"),
]


@pytest.mark.parametrize("content,line,message", YAML_CASES)
def test_perturbation_errors_name_file_and_line(tmp_path, content, line, message):
    path = tmp_path / "bad.yaml"
    path.write_text(content)
    with pytest.raises(SurveyError) as info:
        load_perturbation_set(path)
    if line is not None:
        assert f"{path}:{line}: " in str(info.value)
    assert re.search(message, str(info.value)), str(info.value)


def test_yaml_scalars_stay_as_written(tmp_path):
    path = tmp_path / "m.yml"
    path.write_text("message: m\nparaphrases:\n  - id: 007\n    text: No\n  - id: '8'\n    text: yes, 3.0\n")
    s = load_perturbation_set(path)
    assert [(p.id, p.text) for p in s.items] == [("007", "No"), ("8", "yes, 3.0")]


def test_round_trip(tmp_path):
    for s, ext, load in ((load_persona_set("shoppers"), "jsonl", load_persona_set),
                         (load_perturbation_set("sneakers"), "yaml", load_perturbation_set)):
        path = tmp_path / f"copy.{ext}"
        path.write_text(s.dumps(), encoding="utf-8")
        again = load(path)
        assert again.model_dump(exclude={"name"}) == s.model_dump(exclude={"name"})


def test_models_validate_when_built_in_code():
    with pytest.raises(ValueError, match="duplicate persona id"):
        PersonaSet(name="x", template="{a}", personas=[{"id": "1", "a": 1}, {"id": 1, "a": 2}])
    with pytest.raises(ValueError, match="duplicate paraphrase id"):
        PerturbationSet(name="x", message="m", items=[{"id": "a", "text": "t"}, {"id": "a", "text": "u"}])


# ---- CLI -------------------------------------------------------------------------------------------

def test_cli_list_and_show(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "perturbations").mkdir()
    (tmp_path / "perturbations" / "broken.yaml").write_text("message: m\n")
    code, out, _ = run_cli(capsys, "perturbations", "list", "--json")
    rows = {r["name"]: r for r in json.loads(out)}
    assert code == 0 and rows["sneakers"]["count"] == 50 and rows["sneakers"]["origin"] == "shipped"
    assert rows["broken"]["origin"] == "local" and "paraphrases: Field required" in rows["broken"]["error"]
    code, out, _ = run_cli(capsys, "personas", "list", "--json")
    assert code == 0 and json.loads(out)[0]["count"] >= 100
    code, out, _ = run_cli(capsys, "personas", "show", "shoppers", "--json")
    data = json.loads(out)
    assert data["personas"][9] == {"id": "9", "age": 30, "gender": "female", "occupation": "Chef",
                                   "income": "medium", "marital_status": "single"}
    assert data["example_system_prompt"].startswith("You are roleplaying as a shopper. Your profile: Age 25")
    code, out, _ = run_cli(capsys, "perturbations", "show", "boots", "--json", "--similarity", "0.86")
    data = json.loads(out)
    assert data["count"] == 25 and data["near_duplicates"] == [{"a": "boots-09", "b": "boots-18",
                                                                "similarity": 0.8615}]
    code, out, _ = run_cli(capsys, "personas", "show", "shoppers")
    assert code == 0 and "Retired Mechanic" in out
    code, _, err = run_cli(capsys, "perturbations", "show", "broken")
    assert code == 2 and "broken.yaml:1: paraphrases: Field required" in err and "Traceback" not in err
