"""Perturbation sets: perturbations/NAME.yaml, one message's semantically equivalent paraphrases.

File format (YAML, UTF-8):
    message: sneakers            # the message id the paraphrases express
    description: Purchase intent for sneakers (Helm & Priebe 2026, appendix A.3).
    paraphrases:
      - id: sneakers-01          # stable: the store keys responses by it; never renumber
        text: I’d like to buy a pair of sneakers.

Every scalar is read as the string written: YAML's implicit typing would turn `text: No` into
False and `id: 007` into 7, which silently changes what is sent to a model or how it is stored.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from survey.errors import SurveyError
from survey.registry.files import ID_PATTERN, available, located_error, resolve, set_name

EXTS = (".yaml", ".yml")
Id = Annotated[str, StringConstraints(pattern=ID_PATTERN, max_length=100)]
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class Perturbation(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: Id
    text: Text


class PerturbationSet(BaseModel):
    """A message id, what it is, and its paraphrases (`items`, written `paraphrases` in the file)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str
    message: Id
    description: str = ""
    items: list[Perturbation] = Field(alias="paraphrases", min_length=1)
    source: Path | None = Field(None, exclude=True)
    sha256: str | None = Field(None, exclude=True)  # of the file's bytes: the store records it per study

    @model_validator(mode="after")
    def _unique(self) -> PerturbationSet:
        ids: dict[str, int] = {}
        texts: dict[str, int] = {}
        for i, p in enumerate(self.items):
            if p.id in ids:
                raise PydanticCustomError(
                    "duplicate_id", "duplicate paraphrase id '{id}' (also paraphrase #{first}); give each a "
                    "unique id", {"id": p.id, "first": ids[p.id] + 1, "loc": ("paraphrases", i, "id")})
            if p.text in texts:
                raise PydanticCustomError(
                    "duplicate_text", "paraphrase '{id}' repeats the text of paraphrase #{first}; remove one",
                    {"id": p.id, "first": texts[p.text] + 1, "loc": ("paraphrases", i, "text")})
            ids[p.id] = texts[p.text] = i
        return self

    @property
    def texts(self) -> list[str]:
        return [p.text for p in self.items]

    def get(self, perturbation_id: str) -> Perturbation:
        for p in self.items:
            if p.id == perturbation_id:
                return p
        raise SurveyError(f"perturbation set '{self.name}' has no paraphrase '{perturbation_id}'")

    def dumps(self) -> str:
        """The set as YAML text; loading it gives back an equal set."""
        doc = {"message": self.message, "description": self.description,
               "paraphrases": [{"id": p.id, "text": p.text} for p in self.items]}
        return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, width=1000)


def _plain(node: yaml.Node, path: tuple, lines: dict[tuple, int]) -> Any:
    """A YAML node -> Python data with every scalar kept as its string, recording each value's line."""
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        out = {}
        for key_node, value_node in node.value:
            key = _plain(key_node, path + ("<key>",), {})
            out[key] = _plain(value_node, path + (key,), lines)
            lines[path + (key,)] = key_node.start_mark.line + 1
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_plain(item, path + (i,), lines) for i, item in enumerate(node.value)]
    return node.value


def read_perturbation_set(path: str | os.PathLike, name: str | None = None) -> PerturbationSet:
    """Parse and validate a perturbation YAML file; any error names the file and line and the fix."""
    path = Path(path)
    try:
        raw_bytes = path.read_bytes()
        node = yaml.compose(raw_bytes.decode("utf-8"), Loader=yaml.SafeLoader)
    except (OSError, UnicodeDecodeError) as exc:
        raise SurveyError(f"{path}: cannot read ({exc}); perturbation files are UTF-8 YAML") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        problem = getattr(exc, "problem", None) or str(exc)
        raise SurveyError(f"{where}: not valid YAML ({problem}); quote texts that contain ': ' or start "
                          "with a special character") from None
    lines: dict[tuple, int] = {}
    data = _plain(node, (), lines) if node is not None else None
    if not isinstance(data, dict):
        raise SurveyError(f"{path}: expected a mapping with message, description and paraphrases")

    for key in ("name", "source", "sha256"):  # set from the file itself; a key in the file would be ignored silently
        if key in data:
            raise SurveyError(f"{path}:{lines[(key,)]}: {key}: remove this key; a set is named after its file")

    def line_of(loc: tuple) -> int | None:
        for n in range(len(loc), 0, -1):
            if loc[:n] in lines:
                return lines[loc[:n]]
        return 1

    try:
        return PerturbationSet.model_validate({**data, "name": name or set_name(path), "source": path,
                                               "sha256": hashlib.sha256(raw_bytes).hexdigest()})
    except ValidationError as exc:
        raise located_error(exc, path, line_of, PerturbationSet) from None


def load_perturbation_set(name_or_path: str | os.PathLike,
                          study_dir: str | os.PathLike | None = None) -> PerturbationSet:
    """A perturbation set by name (./perturbations, then the project's) or by path to a .yaml file.

    ``study_dir``: the folder of the study naming the set; it is searched instead of the current directory.
    """
    return read_perturbation_set(resolve(name_or_path, "perturbations", EXTS, study_dir))


def list_perturbation_sets() -> list[str]:
    """Names of the perturbation sets on the search path, sorted."""
    return list(available("perturbations", EXTS))


def perturbation_set_paths() -> dict[str, Path]:
    """name -> file of every perturbation set on the search path (./perturbations shadows shipped)."""
    return available("perturbations", EXTS)
