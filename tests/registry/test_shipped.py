"""Where the shipped sets and studies are found: the source tree here, package data in a wheel."""

from pathlib import Path

from survey.registry import files
from survey.study.spec import load_study

REPO = Path(__file__).resolve().parent.parent.parent


def test_a_checkout_uses_its_own_folders():
    assert files.SHIPPED_ROOT == REPO
    assert files.SHIPPED_ROOT / "personas" in files.search_dirs("personas")


def test_a_study_resolves_paths_against_its_folder(tmp_path):
    study = tmp_path / "s" / "study.toml"
    assert files.study_base_dir(study) == study.parent == files.study_sets_dir(study)


def test_a_shipped_study_run_in_place_writes_under_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for shipped in (files._BUILTIN_ROOT / "studies" / "demo.toml", REPO / "studies" / "demo.toml"):
        assert files.study_base_dir(shipped) == tmp_path
    assert load_study(REPO / "studies" / "sim.toml").store_path == tmp_path / "sim.sqlite"
    assert load_study(REPO / "studies" / "demo.toml").store_path == tmp_path / "reports" / "demo" / "store.sqlite"
    assert load_study(REPO / "studies" / "likert.toml").store_path == tmp_path / "reports" / "likert" / "store.sqlite"
