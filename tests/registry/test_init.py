"""`survey init`: the shipped examples get a home outside the checkout, and a shipped study's store never
lands inside the package or the checkout (it used to: `survey demo --study likert` from an editable install
wrote reports/likert/store.sqlite into the checkout, and the README's `survey run studies/sim.toml` only
worked from the checkout's root)."""

import json
import os
from pathlib import Path

import pytest
from cli_result import run_cli

import survey
from survey.registry.files import SHIPPED_ROOT
from survey.study.design import build_design
from survey.study.spec import load_study

REPO = Path(__file__).resolve().parents[2]
SKIP = {".git", "__pycache__", ".pytest_cache", ".ruff_cache", ".venv"}
STUDIES = sorted(p.name for p in (REPO / "studies").glob("*.toml"))  # every shipped example


def listing(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``root`` (bytecode caches aside) -> (size, mtime): what a command may not change."""
    out = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP]
        for name in files:
            stat = (Path(folder) / name).stat()
            out[os.path.relpath(Path(folder) / name, root)] = (stat.st_size, stat.st_mtime_ns)
    return out


def test_init_then_run_outside_the_checkout_writes_nothing_into_it(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = listing(REPO)
    code, out, err = run_cli(capsys, "init", "--json")
    assert code == 0, err
    done = json.loads(out)
    folder = tmp_path / "survey-examples"
    assert Path(done["folder"]) == Path("survey-examples") and done["unchanged"] == []
    assert sorted(Path(p).name for p in done["studies"]) == STUDIES
    assert sorted(p.name for p in folder.iterdir()) == STUDIES  # no sets unless asked
    for name in STUDIES:
        assert (folder / name).read_bytes() == (SHIPPED_ROOT / "studies" / name).read_bytes()
    code, out, err = run_cli(capsys, "run", folder / "sim.toml", "--yes", "--json")
    assert code == 0, err
    ran = json.loads(out)["run"]
    assert ran["stored"] == 30 * 20 * 2 * 3 and ran["failed"] == 0
    assert (folder / "sim.sqlite").is_file()  # beside the copied study
    # a shipped study run in place (here the checkout's own sim.toml) writes under the current folder
    code, _, err = run_cli(capsys, "run", REPO / "studies" / "sim.toml", "--yes", "--json")
    assert code == 0, err
    assert (tmp_path / "sim.sqlite").is_file()
    assert listing(REPO) == before


def test_a_shipped_study_reads_its_stores_and_sets_from_the_right_folders(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "personas").mkdir()
    (tmp_path / "personas" / "shoppers.jsonl").write_text('{"id": "stray", "name": "Stray", "age": 30}\n')
    for name, store in (("demo", "reports/demo/store.sqlite"), ("likert", "reports/likert/store.sqlite"),
                        ("sim", "sim.sqlite")):
        spec = load_study(SHIPPED_ROOT / "studies" / f"{name}.toml")
        assert spec.store_path == tmp_path / store
        assert not spec.store_path.is_relative_to(REPO)
    # the store goes under the current folder, the sets still come from the shipped ones, never ./personas
    design = build_design(load_study(SHIPPED_ROOT / "studies" / "sim.toml"))
    assert design.persona_set.source == SHIPPED_ROOT / "personas" / "shoppers.jsonl"


def test_init_with_sets_copies_them_and_the_copied_studies_use_them(capsys, tmp_path):
    target = tmp_path / "mine"
    code, out, err = run_cli(capsys, "init", target, "--sets")
    assert code == 0, err
    assert f"copied {target / 'personas' / 'shoppers.jsonl'}" in out and f"survey run {target / 'sim.toml'}" in out
    assert (target / "perturbations" / "sneakers.yaml").read_bytes() == \
        (SHIPPED_ROOT / "perturbations" / "sneakers.yaml").read_bytes()
    design = build_design(load_study(target / "sim.toml"))
    assert design.persona_set.source == target / "personas" / "shoppers.jsonl"
    assert design.messages[0].perturbation_set.source == target / "perturbations" / "sneakers.yaml"


def test_init_never_rewrites_what_the_user_has(capsys, tmp_path):
    target = tmp_path / "ex"
    first = survey.init(target)
    assert [p.name for p in first.copied] == STUDIES and f"{len(STUDIES)} file(s) copied" in repr(first)
    again = survey.init(target)  # identical files: left as they are, nothing to do
    assert again.copied == [] and [p.name for p in again.unchanged] == STUDIES
    (target / "sim.toml").write_text("# my own study\n")
    (target / "likert.toml").unlink()
    code, out, err = run_cli(capsys, "init", target)
    assert code == 2 and err.count("\n") == 1
    assert str(target / "sim.toml") in err and "nothing was copied" in err
    assert (target / "sim.toml").read_text() == "# my own study\n" and not (target / "likert.toml").exists()
    code, out, _ = run_cli(capsys, "init", target, "--json")
    assert code == 2 and str(target / "sim.toml") in json.loads(out)["error"]
    (tmp_path / "afile").write_text("x")
    code, _, err = run_cli(capsys, "init", tmp_path / "afile")
    assert code == 2 and "is a file" in err


def test_the_readme_quick_tour_starts_with_init():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index("## Five-minute tour")
    tour = text[start:text.index("\n## ", start + 1)]
    assert "survey init" in tour and "studies/" not in tour


@pytest.mark.parametrize("shown", ["InitResult", "init"])
def test_the_api_exports_init(shown):
    assert shown in survey.__all__
