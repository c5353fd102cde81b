"""`survey init`: a home for the shipped examples, so a newcomer runs them outside the checkout.

The example studies (studies/*.toml) are copied flat into a folder of the user's; with ``sets=True`` the
shipped persona and paraphrase sets go beside them in personas/ and perturbations/, where the copied
studies find them first (survey.registry.files: a study's own folder shadows the shipped sets). A copied
study writes its store beside itself, inside that folder. Nothing the user already has is rewritten: a
file that exists with other content stops the whole copy before anything is written; a file identical
to the shipped one is left as it is (so running it twice is harmless).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from survey.common.display import Display
from survey.errors import SurveyError
from survey.registry.files import SHIPPED_ROOT

DEFAULT_FOLDER = "survey-examples"
# folder of the shipped tree -> (file types that ship from it, the subfolder they are copied into)
_STUDIES = ("studies", (".toml",), "")
_SETS = (("personas", (".jsonl",), "personas"), ("perturbations", (".yaml", ".yml"), "perturbations"))


@dataclass(repr=False)
class InitResult(Display):
    """What `init` did: the folder, the files it copied and the ones already there, unchanged."""

    folder: Path
    copied: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)

    def studies(self) -> list[Path]:
        return [p for p in self.copied + self.unchanged if p.suffix == ".toml"]

    def to_dict(self) -> dict:
        return {"folder": str(self.folder), "copied": [str(p) for p in self.copied],
                "unchanged": [str(p) for p in self.unchanged], "studies": [str(p) for p in self.studies()]}

    def display_parts(self) -> tuple[str, list[dict], list[str]]:
        title = f"survey init: {len(self.copied)} file(s) copied into {self.folder}"
        rows = [{"file": str(p.relative_to(self.folder)), "status": "copied"} for p in self.copied]
        rows += [{"file": str(p.relative_to(self.folder)), "status": "already there, unchanged"}
                 for p in self.unchanged]
        return title, rows, []


def _shipped_files(sets: bool) -> list[tuple[Path, Path]]:
    """(shipped file, its path relative to the target folder) for everything `init` copies."""
    pairs = []
    for folder, exts, into in (_STUDIES, *(_SETS if sets else ())):
        source = SHIPPED_ROOT / folder
        for path in sorted(source.iterdir()) if source.is_dir() else []:
            if path.is_file() and path.suffix in exts:
                pairs.append((path, Path(into, path.name)))
    if not pairs:
        raise SurveyError(f"no shipped example studies found in {SHIPPED_ROOT / 'studies'}; reinstall survey")
    return pairs


def init(folder: str | os.PathLike = DEFAULT_FOLDER, *, sets: bool = False) -> InitResult:
    """Copy the shipped example studies (and with ``sets=True`` the persona and paraphrase sets) into
    ``folder`` (created if missing; default ./survey-examples). Raises SurveyError, naming every file, when
    a file there already exists with other content; nothing is written then."""
    target = Path(folder).expanduser()
    if target.exists() and not target.is_dir():
        raise SurveyError(f"{target} is a file; give a folder to copy the examples into")
    pairs = [(src, target / rel) for src, rel in _shipped_files(sets)]
    clash = [dest for src, dest in pairs if dest.exists() and (not dest.is_file() or dest.read_bytes() != src.read_bytes())]
    if clash:
        raise SurveyError(f"{len(clash)} file(s) already exist with other content: "
                          f"{', '.join(str(p) for p in clash)}; nothing was copied. Move them away or give "
                          "another folder (survey init FOLDER)")
    result = InitResult(target)
    for src, dest in pairs:
        if dest.exists():
            result.unchanged.append(dest)
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        with open(dest, "xb") as fh:  # "x": never replace a file that appeared meanwhile
            fh.write(src.read_bytes())
        result.copied.append(dest)
    return result
