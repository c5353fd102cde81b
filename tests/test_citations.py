"""Code, docs and shipped data cite papers by author and title, never internal pointers.

A user has neither the project's seed files, nor its internal method notes, nor its issue tracker,
so pointers to them mean nothing outside the team. Cite e.g. "Helm & Priebe (2026), appendix C".
"""

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCOPE = ["survey", "docs", "bench", "scripts", "studies", "personas", "perturbations", "anchors", "tests", "README.md"]
POINTERS = re.compile(
    r"seeds/"                          # the seed papers' text files
    r"|\bSPEC\b"                       # the internal method notes: "SPEC §1", "SPEC.md", "the SPEC's"
    r"|(?i:\bissues?[ -]?#?\d)",       # issue numbers: "issue 7", "Issue-2", "issue #3"
)


def tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--", *SCOPE], cwd=REPO, capture_output=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [REPO / name for name in out.decode().split("\0") if name]


def test_no_internal_pointers():
    found = []
    for path in tracked_files():
        if path == Path(__file__).resolve() or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # binary fixtures
        for number, line in enumerate(text.splitlines(), 1):
            if POINTERS.search(line):
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()[:100]}")
    assert not found, "cite the paper (author, title) instead of:\n" + "\n".join(found)


def test_the_pattern_catches_each_kind_of_pointer():
    for text in ("see seeds/004 appendix C", "SPEC §1", "SPEC.md", "issue 7 §2", "Issue-2 ground truth",
                 "(issue #12)"):
        assert POINTERS.search(text), text
    for text in ("Helm & Priebe (2026), appendix C", "StudySpec", "the study spec", "known issues",
                 "RFC 9110 §10.2.3"):
        assert not POINTERS.search(text), text
