"""Inputs that must not silently change a study: where its sets come from, what the store records."""

import hashlib
import json
from pathlib import Path

import pytest
from shoe_study import shoe_study_toml

from survey.api.study import Study
from survey.data.store import Store
from survey.errors import SurveyError
from survey.kinds.binary.parsing import PAPER_QUESTION
from survey.registry import load_persona_set
from survey.registry.files import SHIPPED_ROOT
from survey.study.design import build_design

STRAY = '{"id": "stray", "age": 1, "gender": "f", "occupation": "o", "income": "low", "marital_status": "single"}\n'
STUDY = shoe_study_toml("inputs", "store.sqlite", replicates=1, personas=3, paraphrases=3) + """[[models]]
name = "sim"
backend = "simulated"
seed = 1
"""


def write_study(folder: Path, text: str = STUDY) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "study.toml"
    path.write_text(text)
    return path


@pytest.fixture
def stray_cwd(tmp_path, monkeypatch):
    """A working directory holding a stray ./personas/shoppers.jsonl and ./perturbations/sneakers.yaml."""
    cwd = tmp_path / "elsewhere"
    (cwd / "personas").mkdir(parents=True)
    (cwd / "personas" / "shoppers.jsonl").write_text(STRAY)
    (cwd / "perturbations").mkdir()
    (cwd / "perturbations" / "sneakers.yaml").write_text(
        "message: sneakers\nparaphrases:\n  - id: stray-1\n    text: Stray.\n  - id: stray-2\n    text: Two.\n")
    monkeypatch.chdir(cwd)
    return cwd


def test_a_stray_set_in_the_working_directory_does_not_change_a_study(tmp_path, stray_cwd):
    assert [p.id for p in load_persona_set("shoppers").personas] == ["stray"]  # no study: ./personas first
    study = Study.from_toml(write_study(tmp_path / "project"))
    design = build_design(study.spec)
    assert [p.id for p in design.personas] == ["0", "1", "2"]
    assert design.persona_set.source == SHIPPED_ROOT / "personas" / "shoppers.jsonl"
    assert [p.id for p in design.messages[0].items] == ["sneakers-01", "sneakers-02", "sneakers-03"]
    assert study.dry_run().to_dict()["personas"] == 3


def test_a_study_finds_sets_in_its_own_folder_then_the_shipped_ones(tmp_path, stray_cwd):
    project = tmp_path / "project"
    (project / "personas").mkdir(parents=True)
    (project / "personas" / "shoppers.jsonl").write_text(STRAY.replace("stray", "mine"))
    (project / "data").mkdir()
    (project / "data" / "few.jsonl").write_text(STRAY.replace("stray", "few"))
    design = build_design(Study.from_toml(write_study(project, STUDY.replace("count = 3\n", "", 1))).spec)
    assert [p.id for p in design.personas] == ["mine"] and design.persona_set.source == project / "personas" / "shoppers.jsonl"
    assert design.messages[0].items[0].id == "sneakers-01"  # not in the study's folder: the shipped set
    by_path = STUDY.replace('set = "shoppers"\ncount = 3', 'set = "data/few.jsonl"')
    assert [p.id for p in build_design(Study.from_toml(write_study(project, by_path)).spec).personas] == ["few"]
    nowhere = STUDY.replace('set = "shoppers"', 'set = "stray-only"')
    (stray_cwd / "personas" / "stray-only.jsonl").write_text(STRAY)
    with pytest.raises(SurveyError, match=r"unknown persona set 'stray-only' \(looked in .*project/personas then"):
        build_design(Study.from_toml(write_study(project, nowhere)).spec)


# ---- the store records what a run rests on ----------------------------------------------------------

def test_a_run_records_the_set_files_their_sha256_and_the_texts_used(tmp_path, stray_cwd):
    study = Study.from_toml(write_study(tmp_path / "project"))
    plan = study.dry_run()
    shipped = SHIPPED_ROOT / "personas" / "shoppers.jsonl"
    digest = hashlib.sha256(shipped.read_bytes()).hexdigest()
    assert plan.to_dict()["sets"]["personas"] == {"set": "shoppers", "path": str(shipped), "sha256": digest}
    with Store(study.store_path) as store:
        assert store.context("inputs") is None  # a dry run records nothing
    study.run()
    with Store(study.store_path, create=False) as store:
        ctx = store.context("inputs")
    assert ctx["personas"]["sha256"] == digest and ctx["personas"]["ids"] == ["0", "1", "2"]
    assert ctx["question"] == {"id": "q", "type": "binary", "template": PAPER_QUESTION, "max_tokens": 1}
    sneakers = ctx["messages"][0]
    assert sneakers["id"] == "sneakers" and sneakers["path"] == str(SHIPPED_ROOT / "perturbations" / "sneakers.yaml")
    assert [p["id"] for p in sneakers["paraphrases"]] == ["sneakers-01", "sneakers-02", "sneakers-03"]
    assert sneakers["paraphrases"][0]["text"] == "I’d like to buy a pair of sneakers."
    assert ctx["models"] == [{"name": "sim", "backend": "simulated", "model_id": "", "temperature": 1.0,
                              "max_tokens": 1, "seed": 1, "logprobs": False, "top_logprobs": 0, "params": {},
                              "expected_queries": 18}]
    json.dumps(ctx)  # plain JSON


def test_the_dry_run_names_the_set_files(tmp_path, stray_cwd, capsys):
    from survey.cli import main

    path = write_study(tmp_path / "project")
    main(["run", str(path), "--dry-run"])
    out = capsys.readouterr().out
    assert f"persona set shoppers: {SHIPPED_ROOT / 'personas' / 'shoppers.jsonl'} (sha256 " in out
    assert f"message boots: perturbation set boots: {SHIPPED_ROOT / 'perturbations' / 'boots.yaml'} (sha256 " in out


# ---- a changed prompt after a run is refused, with a way out ----------------------------------------

def copy_sets(project: Path) -> None:
    for kind, name in (("personas", "shoppers.jsonl"), ("perturbations", "sneakers.yaml"),
                       ("perturbations", "boots.yaml")):
        (project / kind).mkdir(parents=True, exist_ok=True)
        (project / kind / name).write_bytes((SHIPPED_ROOT / kind / name).read_bytes())


@pytest.fixture
def ran(tmp_path):
    """A study with its own copies of the sets, run once."""
    project = tmp_path / "project"
    copy_sets(project)
    path = write_study(project)
    run = Study.from_toml(path).run()
    assert run.stored == 18
    return path


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize("change, named", [
    (("study.toml", "seed = 1\n", 'seed = 1\n[question]\ntemplate = "Would you? {perturbation}"\n'),
     r"changed: the question template \(was .*now 'Would you\? \{perturbation\}'\)"),
    (("personas/shoppers.jsonl", '"age": 32, "gender": "female", "occupation": "Nurse"',
      '"age": 33, "gender": "female", "occupation": "Nurse"'),
     r"changed: the persona text of 1 \(set shoppers: .*project/personas/shoppers.jsonl\)"),
    (("perturbations/boots.yaml", "text: I’d like to buy a pair of boots.", "text: I’d like boots."),
     r"changed: the paraphrase text of boots-01 \(message boots, set boots: .*boots.yaml\)"),
    (("study.toml", "seed = 1\n", "seed = 1\ntemperature = 0.5\n"),
     r"changed: model sim's settings \(temperature 1.0 -> 0.5\)"),
])
def test_a_changed_prompt_is_refused_naming_what_changed(ran, change, named):
    file, old, new = change
    edit(ran.parent / file, old, new)
    study = Study.from_toml(ran)
    for call in (study.dry_run, study.run):
        with pytest.raises(SurveyError, match=named) as err:
            call()
        assert "--rename-stored" in str(err.value) and "--drop-changed" in str(err.value)
    assert len(study.table()) == 18  # nothing deleted


def test_drop_changed_recollects_only_the_changed_rows(ran):
    edit(ran.parent / "perturbations/boots.yaml", "text: I’d like to buy a pair of boots.", "text: I’d like boots.")
    study = Study.from_toml(ran)
    plan = study.dry_run(drop_changed=True)
    assert plan.to_send == 3 and len(study.table()) == 18  # planned as if dropped; nothing deleted
    run = study.run(drop_changed=True)
    assert run.stored == 3 and study.dry_run().to_send == 0  # no longer refused
    with Store(study.store_path, create=False) as store:
        ctx = store.context("inputs")
    assert ctx["messages"][1]["paraphrases"][0]["text"] == "I’d like boots."


def test_rename_stored_keeps_the_old_rows_as_their_own_study(ran):
    edit(ran, "seed = 1\n", "seed = 1\ntemperature = 0.5\n")
    study = Study.from_toml(ran)
    assert study.dry_run(rename_stored="inputs-t1").to_send == 18
    run = study.run(rename_stored="inputs-t1")
    assert run.stored == 18
    with Store(study.store_path, create=False) as store:
        assert store.studies() == ["inputs", "inputs-t1"]
        assert store.context("inputs-t1")["models"][0]["temperature"] == 1.0
        assert store.context("inputs")["models"][0]["temperature"] == 0.5
        assert len(store.to_long_table("inputs-t1")) == 18
        with pytest.raises(SurveyError, match="already has a study 'inputs'"):
            store.rename_study("inputs-t1", "inputs")


def test_the_cli_refuses_a_changed_prompt_and_offers_the_way_out(ran, capsys):
    from survey.cli import main

    edit(ran, "seed = 1\n", "seed = 1\ntemperature = 0.5\n")
    for args in (["--dry-run"], []):
        with pytest.raises(SystemExit) as exc:
            main(["run", str(ran), *args])
        err = capsys.readouterr().err
        assert exc.value.code == 2 and "18 stored replies were collected with another prompt" in err
    main(["run", str(ran), "--drop-changed", "--json"])
    assert json.loads(capsys.readouterr().out)["run"]["stored"] == 18


# ---- one paraphrase: refused before anything is paid for --------------------------------------------

def test_a_message_with_one_paraphrase_is_refused_at_dry_run_and_run(tmp_path):
    path = write_study(tmp_path / "project", STUDY.replace('perturbations = "boots"\ncount = 3',
                                                           'perturbations = "boots"\ncount = 1'))
    study = Study.from_toml(path)
    for call in (study.dry_run, study.run):
        with pytest.raises(SurveyError, match=r"message 'boots' has 1 paraphrase .*set count >= 2"):
            call()
    text = path.read_text() + '[question]\ntype = "text"\n'
    path.write_text(text.replace("seed = 1\n", "seed = 1\n", 1))
    assert Study.from_toml(path).dry_run().to_send == 12  # free text (DBPA) needs no pairs


def test_a_store_without_the_context_record_still_refuses_naming_the_rows(ran):
    import sqlite3

    with sqlite3.connect(ran.parent / "store.sqlite") as db:  # a store written before the record existed
        db.execute("DELETE FROM contexts")
    edit(ran.parent / "perturbations/boots.yaml", "text: I’d like to buy a pair of boots.", "text: I’d like boots.")
    with pytest.raises(SurveyError, match=r"3 stored replies .*\(model sim: 3; personas 0, 1, 2; paraphrases "
                                          r"boots-01\); this store has no record of the prompts"):
        Study.from_toml(ran).run(models=["sim"])


# ---- unknown option keys are errors, found by a dry run ---------------------------------------------

@pytest.mark.parametrize("options, error", [
    ('options = { deltas = { boot = -0.4 } }',  # a typo of the message id 'boots'
     r"model 'sim': simulated backend options: deltas: unknown message\(s\) boot; the study's messages are sneakers, boots"),
    ('options = { mu = 0.4, kapa = 3 }', r"model 'sim': simulated backend options: kapa"),
    ('options = { mu = 4.5 }', r"model 'sim': simulated backend options: mu"),
    ('params = { top_p = 0.9 }', r"model 'sim': simulated backend: unknown params top_p \(it accepts: none\)"),
])
def test_a_bad_backend_option_is_an_error_at_dry_run_and_run(tmp_path, options, error):
    study = Study.from_toml(write_study(tmp_path / "project", STUDY + options + "\n"))
    for call in (study.dry_run, study.run):
        with pytest.raises(SurveyError, match=error):
            call()
    with Store(study.store_path) as store:
        assert store.studies() == []  # nothing was sent


def test_options_of_every_shipped_backend_are_checked_without_starting_it(monkeypatch):
    from survey.backends.checks import check_backend_options

    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)  # no key needed: no client is made
    check_backend_options("mistral", {"server_url": "http://127.0.0.1:9"}, params={"top_p": 0.5})
    check_backend_options("local", {"gguf": "/nonexistent/model.gguf", "mode": "sample"}, params={"top_p": 0.5})
    check_backend_options("dashscope", {"workspace": "w"}, params={"enable_thinking": False})
    for backend, options, params, error in (
            ("mistral", {"server_ulr": "http://x"}, {}, "mistral backend options: server_ulr"),
            ("mistral", {}, {"topp": 3}, "mistral backend: unknown params topp"),
            ("local", {"mode": "exactly"}, {}, "local backend options: mode"),
            ("local", {}, {"temprature": 1}, r"local backend: unknown params temprature \(it accepts: top_p\)"),
            ("dashscope", {"base_ur": "x"}, {}, "dashscope backend options: base_ur")):
        with pytest.raises(SurveyError, match=error):
            check_backend_options(backend, options, params=params)


def test_the_report_study_section_names_every_set_file(ran):
    from types import SimpleNamespace

    from survey.reporting.context import study_view

    study = Study.from_toml(ran)
    with Store(study.store_path, create=False) as store:
        ctx = store.context("inputs")
    view = study_view(study.table(), ctx, SimpleNamespace(kind="store", study="inputs"))
    boots = ran.parent / "perturbations" / "boots.yaml"
    digest = hashlib.sha256(boots.read_bytes()).hexdigest()[:12]
    # the set's name, its origin and its hash; no absolute path of the machine that ran the study
    assert view["messages"][1]["set"] == f"boots: local file, sha256 {digest}…"
    assert view["persona_set"].startswith("shoppers (local file, sha256 ")
