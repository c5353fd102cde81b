"""What both registries share: where sets are found, and errors that point at a file and line.

Search order for a set NAME (first hit wins, so a user's own file shadows a shipped one):
  1. for a study: personas/NAME.jsonl or perturbations/NAME.yaml (.yml) in the study file's folder;
     for a command without a study (`survey personas show NAME`, load_persona_set(NAME)): the same
     folders in the current directory;
  2. the shipped sets `shoppers`, `sneakers` and `boots`: the same folders in the project's source
     tree (a checkout or an editable install), else the copies an installed wheel carries in
     survey/registry/builtin/ (setup.py copies them there at build time).
A study never looks in the current directory: a stray ./personas/shoppers.jsonl must not replace
the set a study was written against (a shipped study run in place writes its store under the current
directory, but still reads its sets from its own folder: study_base_dir, study_sets_dir). An argument
that contains a path separator or ends in the set's extension is taken as a path instead (for a study, relative to its folder; without a study, an
existing file named exactly as the argument is a path too).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from pydantic import ValidationError

from survey.common.names import ID_PATTERN, ID_RULE, NAME_RE  # noqa: F401  (re-exported)
from survey.errors import SurveyError, allowed_keys, did_you_mean, error_text

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent
_BUILTIN_ROOT = Path(__file__).resolve().parent / "builtin"


def _shipped_root() -> Path:
    """The folder holding the shipped personas/, perturbations/ and studies/.

    The source tree when the package runs from one (its files are the ones to edit), else the
    package data of an installed wheel.
    """
    if (PROJECT_ROOT / "pyproject.toml").is_file() and (PROJECT_ROOT / "personas").is_dir():
        return PROJECT_ROOT
    return _BUILTIN_ROOT


SHIPPED_ROOT = _shipped_root()


def is_shipped_study(study_file: Path) -> bool:
    """Whether a study file is one of the shipped examples, run in place (in the checkout or the wheel)."""
    folder = Path(study_file).resolve().parent
    return folder in ((SHIPPED_ROOT / "studies").resolve(), (_BUILTIN_ROOT / "studies").resolve())


def study_base_dir(study_file: Path) -> Path:
    """The folder a study file's relative store path resolves against: its own folder.

    A shipped study run in place (`survey demo`, `survey run <checkout>/studies/sim.toml`) writes under
    the current folder instead, so its store never lands inside the package or the checkout
    (`survey init` copies the examples into a folder of the user's, where they write beside themselves).
    Its set names still resolve from its own folder (study_sets_dir), never from the current one.
    """
    return Path.cwd() if is_shipped_study(study_file) else Path(study_file).resolve().parent


def study_sets_dir(study_file: Path) -> Path:
    """The folder a study file's set names and set paths resolve against: always its own folder."""
    return Path(study_file).resolve().parent


MAX_ERRORS = 5  # one readable line; the first few errors are enough to start fixing

# Fixes for pydantic's generic messages, keyed by its error type.
_FIXES = {
    "missing": "add this field",
    "extra_forbidden": "remove this key or check its spelling",
    "string_type": "write it as a string (quote it)",
    "string_too_short": "give it a non-empty value",
    "string_pattern_mismatch": ID_RULE,
    "list_type": "write a list",
    "too_short": "add at least one entry",
    "dict_type": "write a mapping of key: value",
    "model_type": "write an object of key: value pairs",
}


def search_dirs(kind: str, study_dir: str | os.PathLike | None = None) -> list[Path]:
    """The folders searched for sets of `kind` ('personas' or 'perturbations'), in order.

    ``study_dir``: the folder of the study that names the set; it replaces the current directory.
    """
    dirs: list[Path] = []
    first = Path(study_dir) if study_dir is not None else Path.cwd()
    for d in (first / kind, SHIPPED_ROOT / kind):
        if d.resolve() not in [x.resolve() for x in dirs]:
            dirs.append(d)
    return dirs


def available(kind: str, exts: tuple[str, ...], study_dir: str | os.PathLike | None = None) -> dict[str, Path]:
    """name -> file for every set of `kind` on the search path; earlier folders shadow later ones."""
    found: dict[str, Path] = {}
    for d in search_dirs(kind, study_dir):
        if not d.is_dir():
            continue
        for path in sorted(d.iterdir()):
            if path.suffix in exts and path.is_file() and path.stem not in found:
                found[path.stem] = path
    return dict(sorted(found.items()))


def resolve(name_or_path: str | os.PathLike, kind: str, exts: tuple[str, ...],
            study_dir: str | os.PathLike | None = None) -> Path:
    """A set name or a path -> the file to load (see the module docstring for the search order).

    ``study_dir``: the folder of the study naming the set. Then a relative path resolves against it
    and a name is looked up there and in the shipped sets, never in the current directory.
    """
    text = os.fspath(name_or_path)
    path = Path(text).expanduser()
    looks_like_path = path.suffix in exts or os.sep in text or "/" in text
    if study_dir is not None and looks_like_path and not path.is_absolute():
        path = Path(study_dir) / path
    if path.is_file() and (study_dir is None or looks_like_path):
        return path
    if looks_like_path:
        raise SurveyError(f"{path}: no such file; give an existing {'/'.join(exts)} file or a set name")
    for d in search_dirs(kind, study_dir):
        for ext in exts:
            if (d / f"{text}{ext}").is_file():
                return d / f"{text}{ext}"
    names = ", ".join(available(kind, exts, study_dir)) or "none"
    where = " then ".join(str(d) for d in search_dirs(kind, study_dir))
    raise SurveyError(f"unknown {kind.removesuffix('s')} set '{text}' (looked in {where}); available: {names}; "
                      "check the spelling or give a path")


def set_name(path: Path) -> str:
    """A set is named after its file; the name must be usable as an id."""
    if not NAME_RE.match(path.stem):
        raise SurveyError(f"{path}: the file name '{path.stem}' is not a valid set name; {ID_RULE}")
    return path.stem


def located_error(exc: ValidationError, path: Path, line_of: Callable[[tuple], int | None],
                  model=None) -> SurveyError:
    """A pydantic error -> one SurveyError line naming the file, line, field and fix of each problem.

    Validators that know a better location (e.g. the second of two duplicate ids) put it in the
    error context as ``loc``; otherwise the pydantic location is used. With ``model`` (the pydantic
    class validated) a misspelt key gets the closest allowed name.
    """
    parts = []
    errors = exc.errors()
    for err in errors[:MAX_ERRORS]:
        ctx = err.get("ctx") or {}
        loc = tuple(ctx.get("loc", err.get("loc", ())))
        line = line_of(loc)
        where = f"{path}:{line}" if line else str(path)
        field = ".".join(str(x) for x in loc if not isinstance(x, int)) or "(set)"
        msg = error_text(err)
        fix = _FIXES.get(err.get("type", ""))
        if err.get("type") == "extra_forbidden" and model is not None and loc:
            close = did_you_mean(str(loc[-1]), allowed_keys(model, loc[:-1]))
            fix = f"did you mean '{close}'? otherwise remove this key" if close else fix
        parts.append(f"{where}: {field}: {msg}" + (f" ({fix})" if fix else ""))
    if len(errors) > MAX_ERRORS:
        parts.append(f"... and {len(errors) - MAX_ERRORS} more")
    return SurveyError("; ".join(parts))


def write_atomic(path: Path, text: str, *, force: bool = False) -> Path:
    """Write text so that a crash never leaves a half-written set; refuse to overwrite unless forced."""
    path = Path(path)
    if path.exists() and not force:
        raise SurveyError(f"{path} already exists; choose another --out or pass --force to overwrite it")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it owner-only; a set is a shared file like any other
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
