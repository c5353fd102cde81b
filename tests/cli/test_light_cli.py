"""The command line's floor: --help, a command's --help and user errors import no numpy, pandas, scipy or
matplotlib (two seconds of CPU before anything happens); the help texts' copies match their originals."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from survey.cli import texts

HEAVY = ("numpy", "pandas", "scipy", "matplotlib", "pyarrow", "pydantic", "survey.stats")
ROOT = Path(__file__).resolve().parents[2]


def _imported_after(args: list[str]) -> dict:
    """Run ``survey ARGS`` in a fresh interpreter; which heavy modules it imported, and its exit code."""
    code = f"""
import json, sys
from survey.cli import main
try:
    main({args!r})
except SystemExit as exc:
    code = exc.code
else:
    code = 0
print(json.dumps({{"code": code, "heavy": [m for m in {HEAVY!r} if m in sys.modules]}}), file=sys.stderr)
"""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    return json.loads(out.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize("args", [
    ["--help"], ["analyze", "--help"], ["compare", "--help"], ["plan", "--help"], ["validate", "--help"],
    ["run", "--help"], ["dbpa", "--help"], ["report", "--help"], ["personas", "generate", "--help"],
    ["batch", "export", "--help"], ["simulate", "--help"], ["demo", "--help"],
])
def test_help_imports_nothing_heavy(args):
    res = _imported_after(args)
    assert res == {"code": 0, "heavy": []}


@pytest.mark.parametrize("args", [
    ["analyze", "--bogus"],                       # a bad flag
    ["analyze", "no-such-table.csv"],             # a missing file
    ["compare", "no-such-table.csv"],
    ["run", "no-such-study.toml", "--dry-run"],
    ["status", "no-such-store.sqlite"],
    ["dbpa", "no-such-table.csv"],
])
def test_user_errors_import_nothing_heavy(args):
    res = _imported_after(args)
    assert res["code"] == 2 and res["heavy"] == []


def test_import_survey_cli_is_light():
    code = ("import sys, survey.cli; print(' '.join(m for m in ('numpy', 'pandas', 'scipy', 'matplotlib') "
            "if m in sys.modules))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0 and out.stdout.strip() == ""


@pytest.mark.parametrize("name", sorted(texts.ORIGINALS))
def test_help_texts_match_their_originals(name):
    module, attr = texts.ORIGINALS[name]
    original = getattr(importlib.import_module(module), attr)
    copy = getattr(texts, name)
    assert (list(copy) if isinstance(copy, tuple) else copy) == \
        (list(original) if isinstance(original, (tuple, list)) else original)
