"""Every instruction a user reads after `survey init` works from where init puts the files.

The commands come from the shipped studies' comments (a `survey ...` in backticks, or an indented line) and
from the README's and the guides' shell blocks that use the example studies; each source runs in its own
folder made by `survey init`, in order, as a user would type it, and every command exits 0. Studies on the
embedded llama.cpp models run on a stand-in that answers as simulated respondents (fakes.local_standin), and
semantic-similarity rating embeds with a word-hash stand-in for MiniLM, and `survey field` is answered by
simulated people in-process (fakes.people) instead of serving until Ctrl-C: the paths, names and flags are what
is checked here, not the models or the people.
"""

from __future__ import annotations

import importlib
import re
import shlex
from pathlib import Path

import pytest
from fakes.embedder import WordHashEmbedder
from fakes.people import answer_as_people

import survey
from survey import backends
from survey.cli import main
from survey.collect import similarity_rating

ROOT = Path(__file__).resolve().parents[2]
STUDIES = sorted(p.stem for p in (ROOT / "studies").glob("*.toml"))
FOLDER = "survey-examples"
SKIPPED = (". ", "source ", "export ")  # activating the environment, setting a key: not survey's instructions
# a command that needs the embedded models' weights or a network; none of the example studies' instructions may
NAMES_A_STUDY = re.compile(r"(?<![\w/.-])(?:" + "|".join(map(re.escape, STUDIES)) + r")\.toml\b")


def study_commands(name: str) -> list[str]:
    """The commands a shipped study's comments give, in order: `survey ...` spans and indented lines."""
    commands = []
    for line in (ROOT / "studies" / f"{name}.toml").read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            continue
        text = line[1:]
        spans = re.findall(r"`(survey [^`]+)`", text) or re.findall(r"^\s{2,}(survey .+)$", text)
        for span in spans:
            commands += [c.strip() for c in span.split("&&")]
    return [c for c in commands if len(shlex.split(c)) > 2 or "--" in c or "." in c]  # `survey report` alone is prose


def fenced_blocks(text: str) -> list[tuple[str, list[str]]]:
    """(language, lines) of every fenced block of a Markdown page."""
    blocks, lang, lines = [], None, []
    for line in text.splitlines():
        if line.startswith("```"):
            if lang is None:
                lang, lines = line[3:].strip(), []
            else:
                blocks.append((lang, lines))
                lang = None
        elif lang is not None:
            lines.append(line)
    return blocks


def shell_blocks() -> list[tuple[str, list[str]]]:
    """(page, commands) of every shell block in the README and docs/ that uses the example studies."""
    found = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for number, (lang, lines) in enumerate(fenced_blocks(page.read_text(encoding="utf-8"))):
            block = "\n".join(lines)
            if lang not in ("bash", "sh", "") or not (
                    "survey init" in block or f"cd {FOLDER}" in block or NAMES_A_STUDY.search(block)):
                continue
            commands = [c.strip() for ln in lines for c in ln.split(" # ")[0].split("&&")]
            found.append((f"{page.relative_to(ROOT)}#{number}", [c for c in commands if c]))
    return found


def runs(commands: list[str]) -> list[tuple[str, ...]]:
    """The commands cut before each `survey run`: one study run and what reads its store."""
    groups: list[list[str]] = []
    for command in commands:
        if command.startswith("survey run ") or not groups:
            groups.append([])
        groups[-1].append(command)
    return [tuple(g) for g in groups]


STUDY_SOURCES = [(f"studies/{n}.toml", study_commands(n)) for n in STUDIES if study_commands(n)]
# a guide's block that only repeats studies' own instructions, run for run, runs with them (it costs seconds each)
REPEATS = [(page, commands) for page, commands in shell_blocks()
           if set(runs(commands)) <= {group for _, c in STUDY_SOURCES for group in runs(c)}]
SOURCES = STUDY_SOURCES + [block for block in shell_blocks() if block not in REPEATS]


@pytest.fixture
def stand_ins(monkeypatch):
    monkeypatch.setitem(backends.BACKENDS, "local", "fakes.local_standin:SimulatedLocalBackend")
    # `survey field` serves until Ctrl-C: here simulated people answer it in-process, then it stops
    monkeypatch.setattr(importlib.import_module("survey.field"), "field", answer_as_people)
    monkeypatch.setattr(similarity_rating, "create_embedder", lambda name: WordHashEmbedder())


def run(capsys, command: str) -> None:
    argv = shlex.split(command)
    assert argv[0] == "survey", f"not a survey command: {command}"
    try:
        main(argv[1:])
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    out, err = capsys.readouterr()
    assert code == 0, f"`{command}` exited {code}: {err.strip()[-500:] or out.strip()[-500:]}"


def test_the_instructions_are_found():
    sources = dict(SOURCES)
    assert {"studies/sim.toml", "studies/pick.toml", "studies/humans.toml"} <= set(sources)
    assert any(page.startswith("README.md#") for page in sources)
    assert [page.split("#")[0] for page, _ in REPEATS] == ["README.md", "docs/humans.md", "docs/question-kinds.md"]
    assert not [c for _, commands in SOURCES for c in commands if "studies/" in c], "init copies studies flat"


@pytest.mark.parametrize(("source", "commands"), SOURCES, ids=[s for s, _ in SOURCES])
def test_each_instruction_runs_from_where_init_puts_the_files(source, commands, tmp_path, monkeypatch, capsys,
                                                               stand_ins):
    monkeypatch.chdir(tmp_path)
    if not any(c.startswith("survey init") for c in commands):  # a study's comments: the user already ran init
        survey.init(FOLDER)
        monkeypatch.chdir(tmp_path / FOLDER)
    for command in commands:
        if command.startswith(SKIPPED):
            continue
        if command.startswith("cd "):
            monkeypatch.chdir(Path.cwd() / shlex.split(command)[1])
            continue
        run(capsys, command)
