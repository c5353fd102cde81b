"""Target-margin files: the shares of a market's levels per attribute, as TOML or CSV.

    # margins.toml                          # margins.csv
    [target.gender]                         attribute,level,share
    male = 0.49                             gender,male,0.49
    female = 0.51                           gender,female,0.51
    [target.age]                            age,18-34,0.3
    "18-34" = 0.3                           age,35-54,0.4
    "35-54" = 0.4                           age,55+,0.3
    "55+" = 0.3

A numeric attribute's levels are bins (``LO-HI``, ``LO+``, ``-HI``) as in a segment definition. Each
attribute's shares must sum to 1 (within 0.01; they are then rescaled to sum to 1 exactly). Every error
names the file, the line and the fix. This module only reads and checks the file; survey.registry.targets
turns it into the statistics' ``Target`` (this layer sits below the statistics and cannot build one).
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from survey.errors import SurveyError

SHARE_TOLERANCE = 0.01  # the same tolerance as survey.stats.segments.Target
EXTS = (".toml", ".csv")
_ATTRIBUTE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
CSV_HEADER = ("attribute", "level", "share")
EXAMPLE_TOML = "[target.gender]\nmale = 0.49\nfemale = 0.51"


@dataclass(frozen=True)
class TargetFile:
    """What a target file says: ``margins`` attribute -> {level: share} (each attribute's shares sum to 1),
    ``path`` as given, ``sha256`` of the file's bytes (a persona set built to it records both)."""

    margins: dict[str, dict[str, float]]
    path: str
    sha256: str

    def to_dict(self) -> dict:
        return {"source": self.path, "sha256": self.sha256, "margins": self.margins}


def read_target_file(path: str | Path) -> TargetFile:
    """Read and check a target file (.toml or .csv); a SurveyError names the line and the fix."""
    path = Path(path)
    if path.suffix.lower() not in EXTS:
        raise SurveyError(f"{path}: a target file is .toml ([target.gender] male = 0.49) or .csv "
                          "(attribute,level,share); rename it or convert it")
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8-sig")
    except FileNotFoundError:
        raise SurveyError(f"{path}: no such target file; check the path") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SurveyError(f"{path}: cannot read ({exc}); a target file is UTF-8 text") from None
    rows = _toml_rows(text, path) if path.suffix.lower() == ".toml" else _csv_rows(text, path)
    margins = _check(rows, path)
    return TargetFile(margins, str(path), hashlib.sha256(raw).hexdigest())


# A row: (attribute, level, share value as read, line of the share, line of the attribute)
Row = tuple[str, str, object, int, int]


def _toml_rows(text: str, path: Path) -> list[Row]:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SurveyError(f"{path}: not valid TOML ({exc}); a target looks like:\n{EXAMPLE_TOML}") from None
    lines = text.splitlines()
    extra = [k for k in doc if k != "target"]
    if extra:
        raise SurveyError(f"{path}:{_top_line(lines, extra[0])}: unknown key '{extra[0]}'; a target file holds only "
                          f"[target.ATTRIBUTE] tables, e.g.\n{EXAMPLE_TOML}")
    target = doc.get("target")
    if not isinstance(target, dict) or not target:
        raise SurveyError(f"{path}: no [target.ATTRIBUTE] table; give shares per level, e.g.\n{EXAMPLE_TOML}")
    rows: list[Row] = []
    for attr, shares in target.items():
        header = _header_line(lines, attr)
        if not isinstance(shares, dict):
            raise SurveyError(f"{path}:{header}: target.{attr} must be a table of level = share, e.g. "
                              f"[target.{attr}] then one `level = 0.5` per line")
        if not shares:
            raise SurveyError(f"{path}:{header}: [target.{attr}] lists no level; add `level = share` lines")
        for level, share in shares.items():
            rows.append((attr, str(level), share, _line_of(lines, level, after=header), header))
    return rows


def _header_line(lines: list[str], attr: str) -> int:
    """The line of [target.ATTR] (quotes and spaces allowed), or of ``attr =`` in a [target] table."""
    pattern = re.compile(r'^\s*\[\s*target\s*\.\s*["\']?' + re.escape(attr) + r'["\']?\s*\]')
    for i, line in enumerate(lines, 1):
        if pattern.match(line):
            return i
    return _line_of(lines, attr)


def _top_line(lines: list[str], key: str) -> int:
    """The line of a top-level ``key = ...`` or ``[key]`` / ``[key.sub]`` table."""
    table = re.compile(r'^\s*\[+\s*["\']?' + re.escape(key) + r'["\']?\s*[].]')
    return next((i for i, line in enumerate(lines, 1) if table.match(line)), 0) or _line_of(lines, key)


def _line_of(lines: list[str], key: str, after: int = 0) -> int:
    """The first line at or after ``after`` that assigns ``key`` (bare or quoted); 0 when not found."""
    pattern = re.compile(r'^\s*(?:"' + re.escape(key) + r'"|\'' + re.escape(key) + r'\'|' + re.escape(key)
                         + r')\s*=')
    for i, line in enumerate(lines[after:], after + 1):
        if pattern.match(line):
            return i
    return after


def _csv_rows(text: str, path: Path) -> list[Row]:
    rows: list[Row] = []
    header_seen = False
    for lineno, fields in enumerate(csv.reader(io.StringIO(text)), 1):
        if not fields or all(not f.strip() for f in fields) or fields[0].lstrip().startswith("#"):
            continue
        fields = [f.strip() for f in fields]
        if not header_seen:
            if tuple(f.lower() for f in fields) != CSV_HEADER:
                raise SurveyError(f"{path}:{lineno}: the first line must be the header attribute,level,share; "
                                  f"got {','.join(fields)}")
            header_seen = True
            continue
        if len(fields) != 3:
            raise SurveyError(f"{path}:{lineno}: expected 3 fields (attribute,level,share), got {len(fields)}; "
                              "quote a level that holds a comma")
        rows.append((fields[0], fields[1], fields[2], lineno, lineno))
    if not header_seen or not rows:
        raise SurveyError(f"{path}: no target rows; write the header attribute,level,share and one line per "
                          "level, e.g. gender,male,0.49")
    return rows


def _check(rows: list[Row], path: Path) -> dict[str, dict[str, float]]:
    margins: dict[str, dict[str, float]] = {}
    first_line: dict[tuple[str, str], int] = {}
    attr_line: dict[str, int] = {}
    for attr, level, value, line, header in rows:
        where = f"{path}:{line}" if line else str(path)
        if not _ATTRIBUTE.match(attr):
            raise SurveyError(f"{path}{f':{header}' if header else ''}: attribute '{attr}' must be a persona attribute name (letters, digits, _), "
                              "such as gender or marital_status")
        if not level.strip():
            raise SurveyError(f"{where}: {attr} has an empty level; name the level (male, 18-34, ...)")
        if (attr, level) in first_line:
            raise SurveyError(f"{where}: {attr} = {level} is given twice (also line {first_line[attr, level]}); "
                              "keep one")
        first_line[attr, level] = line
        attr_line.setdefault(attr, header)
        share = _share(value)
        if share is None:
            raise SurveyError(f"{where}: the share of {attr} = {level} must be a number from 0 to 1 "
                              f"(e.g. 0.49, not 49%); got {value!r}")
        margins.setdefault(attr, {})[level] = share
    for attr, shares in margins.items():
        total = math.fsum(shares.values())
        if abs(total - 1) > SHARE_TOLERANCE:
            line = attr_line[attr]
            raise SurveyError(f"{path}{f':{line}' if line else ''}: the shares of {attr} sum to {total:.4g}; they "
                              f"must sum to 1 (within {SHARE_TOLERANCE}): fix a share or add the missing level")
        margins[attr] = {level: s / total for level, s in shares.items()}
    return margins


def _share(value) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        share = float(value)
    except (TypeError, ValueError):
        return None
    return share if math.isfinite(share) and 0 <= share <= 1 else None


__all__ = ["TargetFile", "read_target_file"]
