"""Anchor sets: anchors/NAME.yaml, one statement per scale point for semantic-similarity rating.

File format (YAML, UTF-8), e.g. the shipped anchors/purchase_intent.yaml:
    description: How likely the respondent is to buy the product, 1 (certainly not) to 5 (certainly).
    points: 5
    sets:                          # one or more; a reply's distributions over the sets are averaged
      - id: plain
        statements:                # one per point, lowest first
          - I would definitely not buy it.
          - ...

Maier et al. (2025), "Measuring synthetic consumer purchase intent using semantic-similarity ratings",
rate a free-text reply by its similarity to such statements and average over several sets of them.
Names resolve like perturbation sets: the study's folder (anchors/), then the shipped ones.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Annotated

import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, model_validator

from survey.errors import SurveyError, error_text
from survey.registry.files import ID_PATTERN, available, resolve, set_name

EXTS = (".yaml", ".yml")
Statement = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class AnchorStatements(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: Annotated[str, StringConstraints(pattern=ID_PATTERN, max_length=100)]
    statements: list[Statement] = Field(min_length=2)


class AnchorSet(BaseModel):
    """A scale's anchor statements: ``points`` statements per set, lowest point first."""

    model_config = ConfigDict(extra="forbid")
    name: str
    description: str = ""
    points: int = Field(ge=2, le=11)
    sets: list[AnchorStatements] = Field(min_length=1)
    source: Path | None = Field(None, exclude=True)
    sha256: str | None = Field(None, exclude=True)

    @model_validator(mode="after")
    def _one_statement_per_point(self) -> AnchorSet:
        for s in self.sets:
            if len(s.statements) != self.points:
                raise ValueError(f"set '{s.id}' has {len(s.statements)} statements for {self.points} points; give "
                                 "one statement per point, lowest first")
            if len(set(s.statements)) != len(s.statements):
                raise ValueError(f"set '{s.id}' repeats a statement; each point needs its own")
        ids = [s.id for s in self.sets]
        if len(set(ids)) != len(ids):
            raise ValueError(f"set ids must be unique; got {ids}")
        return self

    @property
    def statements(self) -> list[list[str]]:
        return [list(s.statements) for s in self.sets]


def read_anchor_set(path: str | os.PathLike) -> AnchorSet:
    """Parse and validate an anchor YAML file; an error names the file and the fix."""
    path = Path(path)
    try:
        raw = path.read_bytes()
        data = yaml.load(raw.decode("utf-8"), Loader=yaml.BaseLoader)  # every scalar read as the string written
    except (OSError, UnicodeDecodeError) as exc:
        raise SurveyError(f"{path}: cannot read ({exc}); anchor files are UTF-8 YAML") from None
    except yaml.YAMLError as exc:  # one line, as for perturbation files: the file, the line, the problem
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        problem = getattr(exc, "problem", None) or " ".join(str(exc).split())
        raise SurveyError(f"{where}: not valid YAML ({problem}); quote statements that contain ': '") from None
    if not isinstance(data, dict) or "sets" not in data or "points" not in data:
        raise SurveyError(f"{path}: expected a mapping with points and sets (each an id and its statements)")
    try:
        return AnchorSet.model_validate({**data, "name": set_name(path), "source": path,
                                         "sha256": hashlib.sha256(raw).hexdigest()})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first["loc"])
        msg = error_text(first)
        if first.get("type") == "string_type" and isinstance(first.get("input"), dict):  # YAML read `a: b` as a mapping
            msg += "; quote statements that contain ': '"
        raise SurveyError(f"{path}: {where + ': ' if where else ''}{msg}") from None


def load_anchor_set(name_or_path: str | os.PathLike, study_dir: str | os.PathLike | None = None) -> AnchorSet:
    """An anchor set by name (anchors/ of the study's folder, then the shipped ones) or by path."""
    return read_anchor_set(resolve(name_or_path, "anchors", EXTS, study_dir))


def list_anchor_sets() -> list[str]:
    return list(available("anchors", EXTS))


def anchors_with_points(name_or_path: str | os.PathLike, study_dir: str | os.PathLike | None, points: int) -> AnchorSet:
    """load_anchor_set, refusing a set whose number of statements is not the question's number of points."""
    anchors = load_anchor_set(name_or_path, study_dir)
    if anchors.points != points:
        raise SurveyError(f"anchor set '{anchors.name}' ({anchors.source}) has {anchors.points} points; the question "
                          f"has {points}: set points = {anchors.points} or choose anchors with {points} statements")
    return anchors
