"""Inputs that must not silently change a study: where its sets come from, what the store records."""

from pathlib import Path

import pytest

from survey.errors import SurveyError
from survey.registry import load_persona_set
from survey.registry.files import SHIPPED_ROOT
from survey.study.design import build_design
from survey.study.study import Study

STRAY = '{"id": "stray", "age": 1, "gender": "f", "occupation": "o", "income": "low", "marital_status": "single"}\n'
STUDY = """
name = "inputs"
store = "store.sqlite"
replicates = 1
[personas]
set = "shoppers"
count = 3
[[messages]]
id = "sneakers"
perturbations = "sneakers"
count = 3
[[messages]]
id = "boots"
perturbations = "boots"
count = 3
[[models]]
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
