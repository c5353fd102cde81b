"""What a reader is told exists, exists: every module, function, class and file that the README, the guides
in docs/ and the shipped studies' comments name (a dotted ``survey.x.y``, a ``survey/...``, ``tests/...``,
``bench/...``, ``scripts/...`` or ``studies/...`` path, a ``tests/...py::test_name``) is found in the
repository. Code moves; this catches the page that did not move with it.

The front door stays a front door: the README is short, and no shipped study writes ``[question] mode``
(the older name of ``type``; ``mode`` also means exact or sample in ``[models.options]``)."""

from __future__ import annotations

import ast
import glob
import importlib
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README_MAX_LINES = 300

# `survey.stats.ab_tests.register`, not `my-survey.toml` nor `~/.cache/survey.db`
DOTTED = re.compile(r"(?<![\w./~-])survey(?:\.[A-Za-z_]\w*)+")
# `tests/cli/test_flags.py::test_x`, `survey/stats/`, `bench/plan.py`, `studies/humans*.toml`
PATH = re.compile(r"(?<![\w./~-])(?:survey|tests|bench|scripts|studies)/[\w./*-]*(?:::\w+)?")
# named as files the reader creates, not files of the repository: docs/providers.md's example backend
READER_WRITES = {"survey.backends.constant", "survey/backends/constant.py"}
FILE_SUFFIXES = (".sqlite", ".toml", ".csv", ".parquet", ".json", ".html", ".db", ".md", ".jsonl", ".yaml")


# a Markdown link to a page of the repository, with its optional #anchor
LINK = re.compile(r"\]\((?!https?:)([^)#\s]*)(?:#([^)\s]+))?\)")


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "studies").glob("*.toml"))]


def prose(path: Path) -> str:
    """The text a reader reads: a study file's comments, a page's whole text."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".toml":
        return "\n".join(line.split("#", 1)[1] for line in text.splitlines() if "#" in line)
    return text


def resolves(dotted: str) -> bool:
    """Whether ``survey.a.b.c`` imports as a module, or is a module's attribute (or an attribute's)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def path_exists(ref: str) -> bool:
    ref, _, test = ref.rstrip(".").partition("::")
    if "*" in ref:
        return bool(glob.glob(str(ROOT / ref)))
    path = ROOT / ref
    if not path.exists():
        return False
    if test:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == test
                   for node in ast.walk(tree))
    return True


def stale_references(paths: list[Path]) -> list[str]:
    stale = []
    for path in paths:
        text = prose(path)
        where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
        for name in sorted(set(DOTTED.findall(text))):
            if name.endswith(FILE_SUFFIXES) or name in READER_WRITES or resolves(name):
                continue
            stale.append(f"{where}: {name}")
        for ref in sorted(set(PATH.findall(text))):
            if ref not in READER_WRITES and not path_exists(ref):
                stale.append(f"{where}: {ref}")
    return stale


def anchors(page: Path) -> set[str]:
    """The #anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    heads = re.findall(r"^#+ (.+)$", text, re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}


def broken_links(paths: list[Path]) -> list[str]:
    broken = []
    for path in paths:
        for target, anchor in LINK.findall(path.read_text(encoding="utf-8")):
            page = (path.parent / target).resolve() if target else path
            if not page.exists():
                broken.append(f"{path.relative_to(ROOT)}: ({target})")
            elif anchor and page.suffix == ".md" and anchor not in anchors(page):
                broken.append(f"{path.relative_to(ROOT)}: ({target}#{anchor})")
    return broken


def test_every_link_between_the_pages_lands():
    broken = broken_links([ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    assert not broken, f"{len(broken)} link(s) to a page or heading that does not exist:\n" + "\n".join(broken)


def test_every_guide_the_code_names_exists():
    named = set()
    for folder in ("survey", "bench", "scripts", "tests", "studies"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".py", ".toml") and path.is_file():
                named |= set(re.findall(r"docs/[\w.-]+\.md", path.read_text(encoding="utf-8")))
    assert named and not [n for n in sorted(named) if not (ROOT / n).exists()]


def test_every_module_function_class_and_file_the_docs_name_exists():
    stale = stale_references(documents())
    assert not stale, f"{len(stale)} reference(s) to things that do not exist:\n" + "\n".join(stale)


def test_the_check_finds_what_is_missing(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("`survey.stats.compare`, `survey.embed.base.one_blas_thread`, tests/test_dbpa.py, survey/nowhere.py, "
            "tests/test_layers.py::test_nothing_here, studies/nothing*.toml; and what exists: survey.analyze, "
            "survey.stats.ab_tests, survey/cli/, tests/test_layers.py, studies/humans*.toml, bench/plan.py.", encoding="utf-8")
    assert [s.split(": ", 1)[1] for s in stale_references([page])] == [
        "survey.embed.base.one_blas_thread", "survey.stats.compare", "studies/nothing*.toml", "survey/nowhere.py",
        "tests/test_dbpa.py", "tests/test_layers.py::test_nothing_here"]


def test_the_readme_is_a_front_door():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; the manual belongs in docs/"
    commands = [line.split()[0:2] for line in lines if line.startswith("make ")]
    assert commands[:2] == [["make", "demo"], ["make", "test"]], "the first commands shown are make demo and make test"


@pytest.mark.parametrize("study", sorted((ROOT / "studies").glob("*.toml")), ids=lambda p: p.name)
def test_no_shipped_study_writes_the_older_name_mode(study):
    question = tomllib.loads(study.read_text(encoding="utf-8")).get("question", {})
    assert "mode" not in question, f"{study.name}: [question] mode is the older name of `type`; write type"
