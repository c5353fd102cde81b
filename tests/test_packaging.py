"""`pip install .` gives a working package: the wheel carries the built-in sets, studies and templates.

The wheel is built offline (--no-build-isolation, the venv's setuptools) from a copy of the source
tree, installed without its dependencies into a fresh venv that sees the project venv's packages
through a .pth line placed after its own site-packages, and driven from a folder outside the repo.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from shoe_study import shoe_messages_toml

REPO = Path(__file__).resolve().parent.parent
SKIP = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "reports",
                              "*.sqlite*", ".pytest_cache", ".ruff_cache", "*.gguf", "tests")

STUDY = """
name = "pkg-check"
store = "store.sqlite"
replicates = 2

[personas]
set = "shoppers"
count = 10

""" + shoe_messages_toml() + """
[[models]]
name = "sim"
backend = "simulated"
seed = 3

[models.options]
deltas = { boots = -0.8 }
"""


def _run(cmd: list, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{cmd} exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(venv python, environment, working folder outside the repo) with the wheel installed."""
    tmp = tmp_path_factory.mktemp("packaging")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONNOUSERSITE="1")
    source = tmp / "source"  # a copy, so the build writes no build/ or egg-info into the checkout
    shutil.copytree(REPO, source, ignore=SKIP)
    _run([sys.executable, "-m", "pip", "wheel", source, "--no-deps", "--no-build-isolation", "--no-index",
          "-w", tmp / "wheels"], tmp, env)
    [wheel] = (tmp / "wheels").glob("survey-*.whl")

    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv], tmp, env)
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", wheel], tmp, env)
    own = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp, env)
               .stdout.strip())
    # The dependencies come from the project venv, searched after the fresh venv's own packages. A
    # plain path line does not run that folder's .pth files, so its editable `survey` stays inactive.
    (own / "zz_project_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    work = tmp / "work"
    work.mkdir()
    return python, env, work


def _json(proc: subprocess.CompletedProcess):
    return json.loads(proc.stdout)


@pytest.mark.slow
def test_the_wheel_is_imported_from_the_fresh_venv(installed):
    python, env, work = installed
    where = _run([python, "-c", "import survey; print(survey.__file__)"], work, env).stdout.strip()
    assert Path(where).is_relative_to(python.parent.parent)
    builtin = Path(where).parent / "registry" / "builtin"
    assert (builtin / "personas" / "shoppers.jsonl").is_file()
    for counts in sorted((REPO / "studies" / "data").glob("*.csv")):  # the human counts the studies name
        assert (builtin / "studies" / "data" / counts.name).is_file()
    assert (Path(where).parent / "reporting" / "templates" / "report.html.j2").is_file()


@pytest.mark.slow
def test_built_in_sets_and_a_simulated_study_run_outside_the_repo(installed):
    python, env, work = installed
    survey = python.parent / "survey"
    shown = _json(_run([survey, "perturbations", "show", "sneakers", "--json"], work, env))
    assert shown["count"] == 50 and len(shown["paraphrases"]) == 50
    assert "builtin" in shown["path"] and not Path(shown["path"]).is_relative_to(REPO)

    (work / "study.toml").write_text(STUDY)
    ran = _json(_run([survey, "run", "study.toml", "--yes", "--json"], work, env))
    assert ran["run"]["stored"] == 10 * 12 * 2 and ran["run"]["failed"] == 0
    analysis = _json(_run([survey, "analyze", "store.sqlite", "--json"], work, env))
    [result] = analysis["results"]
    assert (result["model"], result["a"], result["b"], result["n_personas"]) == ("sim", "sneakers", "boots", 10)
    assert all(0 <= t["pvalue"] <= 1 for t in result["tests"].values())
    _run([survey, "report", "store.sqlite", "--out", "rep"], work, env)
    assert "<html" in (work / "rep" / "index.html").read_text().lower()


@pytest.mark.slow
def test_a_shipped_study_keeps_its_store_out_of_the_installed_package(installed):
    python, env, work = installed
    demo = _json(_run([python.parent / "survey", "demo", "--study", "studies/sim.toml", "--out", "demo",
                       "--json"], work, env))
    assert (work / demo["report"]).is_file()
    assert (work / "sim.sqlite").is_file()  # a shipped study run in place writes under the current folder
    package = Path(_run([python, "-c", "import survey; print(survey.__file__)"], work, env).stdout.strip()).parent
    assert not list(package.rglob("*.sqlite"))


@pytest.mark.slow
def test_init_copies_the_examples_the_wheel_ships(installed):
    python, env, work = installed
    survey = python.parent / "survey"
    done = _json(_run([survey, "init", "examples", "--sets", "--json"], work, env))
    assert sorted(Path(p).name for p in done["studies"]) == sorted(p.name for p in (REPO / "studies").glob("*.toml"))
    assert (work / "examples" / "personas" / "shoppers.jsonl").is_file()
    ran = _json(_run([survey, "run", "examples/sim.toml", "--yes", "--json"], work, env))
    assert ran["run"]["failed"] == 0 and (work / "examples" / "sim.sqlite").is_file()
