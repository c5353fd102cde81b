"""The package's layers point one way (pyproject.toml's import-linter contract): cli -> reporting and
freetext -> plots -> the Study facade (survey.api) -> collect -> study spec, backends, registry -> embed
-> stats -> data -> responses -> common -> errors, with no arrow back up and no circle. And the
statistics do no I/O: reading files, stores and registries belongs to survey.data and above."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
        "sys.argv = ['lint-imports']; lint_imports_command()"]


def _lint(cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(LINT, cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(cwd), "PATH": "/usr/bin:/bin"})


def test_the_layers_contract_is_kept():
    pytest.importorskip("importlinter")
    res = _lint(ROOT)
    assert res.returncode == 0 and "6 kept, 0 broken" in res.stdout, res.stdout + res.stderr


def test_the_contract_catches_an_arrow_back_up(tmp_path):
    pytest.importorskip("importlinter")
    copy = tmp_path / "repo"
    shutil.copytree(ROOT / "survey", copy / "survey", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    bad = copy / "survey" / "stats" / "effect.py"
    bad.write_text(bad.read_text() + "\n\ndef _up():\n    from survey.reporting import build_report  # noqa\n")
    res = _lint(copy)
    assert res.returncode != 0 and "survey.stats is not allowed to import survey.reporting" in res.stdout


# what a module that reads or writes files, stores or registry sets calls
IO = re.compile(r"\bopen\(|\.read_text\(|\.write_text\(|\.read_bytes\(|read_csv\(|read_parquet\(|sqlite3|"
                r"load_source\(|load_long_table\(|load_persona_set\(|load_perturbation_set\(|\.savefig\(")


def test_statistics_do_no_io():
    found = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
             for path in sorted((ROOT / "survey" / "stats").rglob("*.py"))
             for n, line in enumerate(path.read_text().splitlines(), 1)
             if IO.search(line) and not line.lstrip().startswith(("#", '"', "'"))]
    assert not found, "\n".join(found)
