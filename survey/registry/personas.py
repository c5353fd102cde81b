"""Persona sets: personas/NAME.jsonl, one persona per line, with an optional header line.

File format (JSON Lines, UTF-8):
    {"template": "You are roleplaying as a shopper. Your profile: Age {age}, ...", "description": "..."}
    {"id": "0", "age": 25, "gender": "male", "occupation": "Software Engineer", ...}
    {"id": "1", ...}

The first line is the set's header when it has a "template" or "description" key and no "id"; without
a header the paper's shopper template is used. The template's {placeholders} name persona attributes
(or {id}); every persona must have every placeholder, checked when the set is loaded.
"""

from __future__ import annotations

import hashlib
import json
import os
import string
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from survey.errors import SurveyError
from survey.registry.files import ID_PATTERN, available, located_error, resolve, set_name

EXTS = (".jsonl",)
DEFAULT_TEMPLATE = ("You are roleplaying as a shopper. Your profile: Age {age}, {gender}, {occupation}, "
                    "income: {income}, marital status: {marital_status}. Answer ONLY 'Yes' or 'No'. "
                    "Do not explain.")


def _id_to_str(v: Any) -> Any:
    # JSON writers often emit numeric ids (the paper's personas are 0..9); ids are strings everywhere else.
    return str(v) if isinstance(v, int) and not isinstance(v, bool) else v


Id = Annotated[str, BeforeValidator(_id_to_str), StringConstraints(pattern=ID_PATTERN, max_length=100)]
Scalar = str | int | float | bool


def template_fields(template: str) -> list[str]:
    """The placeholder names of a system-prompt template, in order of first use.

    Only named placeholders are allowed ({age}, optionally {age!s} or {age:>3}); positional {} and
    attribute or index access ({a.b}, {a[0]}) are rejected because personas are flat records.
    """
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise ValueError(f"the template is not a valid format string ({exc}); "
                         "write a literal brace as {{ or }}") from None
    names: list[str] = []
    for _, field, spec, _ in parsed:
        if field is None:
            continue
        if not field.isidentifier():
            raise ValueError(f"template placeholder {{{field}}} must be an attribute name such as {{age}}; "
                             "write a literal brace as {{ or }}")
        if spec and "{" in spec:
            raise ValueError(f"template placeholder {{{field}:{spec}}} may not nest placeholders")
        if field not in names:
            names.append(field)
    return names


class Persona(BaseModel):
    """A persona: an id plus flat demographic attributes (age, gender, ...), readable as attributes."""

    model_config = ConfigDict(extra="allow", frozen=True)
    __pydantic_extra__: dict[str, Any]  # checked below: one clear error beats one per union member

    id: Id

    @model_validator(mode="after")
    def _check_attributes(self) -> Persona:
        for key, value in self.attributes.items():
            if not key.isidentifier():
                raise ValueError(f"attribute name '{key}' must be a word such as marital_status "
                                 "(letters, digits, _) so a template can use it")
            if not isinstance(value, Scalar):
                raise ValueError(f"attribute '{key}' must be a string, number or true/false, "
                                 f"not {'null' if value is None else type(value).__name__}; give a value or split it into attributes")
            if isinstance(value, str) and not value.strip():
                raise ValueError(f"attribute '{key}' is empty; give it a value or remove it")
        return self

    @property
    def attributes(self) -> dict[str, Scalar]:
        """All attributes except the id, in file order."""
        return dict(self.__pydantic_extra__ or {})

    def to_record(self) -> dict[str, Scalar]:
        return {"id": self.id, **self.attributes}


class PersonaSetHeader(BaseModel):
    model_config = ConfigDict(extra="forbid")
    template: str = DEFAULT_TEMPLATE
    description: str = ""
    target: dict | None = None  # the target margins a set was built to (survey personas generate --target)


class PersonaSet(BaseModel):
    """A named list of personas with the template that turns each into a system prompt."""

    model_config = ConfigDict(extra="forbid")

    name: str
    template: str = Field(DEFAULT_TEMPLATE, min_length=1)
    description: str = ""
    target: dict | None = None  # built to target margins: their source file, sha256, margins and quotas
    personas: list[Persona] = Field(min_length=1)
    source: Path | None = Field(None, exclude=True)  # the file it was loaded from, if any
    sha256: str | None = Field(None, exclude=True)  # of that file's bytes: the store records it per study

    @field_validator("template")
    @classmethod
    def _parse_template(cls, v: str) -> str:
        template_fields(v)
        return v

    @model_validator(mode="after")
    def _check_set(self) -> PersonaSet:
        first: dict[str, int] = {}
        for i, p in enumerate(self.personas):
            if p.id in first:
                raise PydanticCustomError(
                    "duplicate_id", "duplicate persona id '{id}' (also persona #{first}); give each persona "
                    "a unique id", {"id": p.id, "first": first[p.id] + 1, "loc": ("personas", i, "id")})
            first[p.id] = i
        fields = [f for f in template_fields(self.template) if f != "id"]
        for f in fields:
            if not any(f in p.attributes for p in self.personas):
                have = sorted({k for p in self.personas for k in p.attributes})
                raise PydanticCustomError(
                    "unknown_placeholder", "template placeholder {field} is not an attribute of any "
                    "persona (attributes: {have}); fix the template or add the attribute",
                    {"field": "{" + f + "}", "have": ", ".join(have), "loc": ("template",)})
        for i, p in enumerate(self.personas):
            missing = [f for f in fields if f not in p.attributes]
            if missing:
                raise PydanticCustomError(
                    "missing_attribute", "persona '{id}' lacks {missing}, which the template uses; add it",
                    {"id": p.id, "missing": ", ".join(missing), "loc": ("personas", i)})
        return self

    @property
    def placeholders(self) -> list[str]:
        return template_fields(self.template)

    @property
    def attribute_names(self) -> list[str]:
        """Every attribute used by some persona, in order of first appearance."""
        names: dict[str, None] = {}
        for p in self.personas:
            names.update(dict.fromkeys(p.attributes))
        return list(names)

    def system_prompt(self, persona: Persona) -> str:
        """The persona's system prompt: the template filled with its attributes (and {id})."""
        return self.template.format_map({**persona.attributes, "id": persona.id})

    def get(self, persona_id: str) -> Persona:
        for p in self.personas:
            if p.id == persona_id:
                return p
        raise SurveyError(f"persona set '{self.name}' has no persona '{persona_id}'")

    def dumps(self) -> str:
        """The set as JSONL text, header first; loading it gives back an equal set."""
        header = {"template": self.template, "description": self.description}
        if self.target is not None:
            header["target"] = self.target
        lines = [json.dumps(header, ensure_ascii=False)]
        lines += [json.dumps(p.to_record(), ensure_ascii=False) for p in self.personas]
        return "\n".join(lines) + "\n"


def read_persona_set(path: str | os.PathLike, name: str | None = None) -> PersonaSet:
    """Parse and validate a persona JSONL file; any error names the file and line and the fix."""
    path = Path(path)
    try:
        raw_bytes = path.read_bytes()
        text = raw_bytes.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SurveyError(f"{path}: cannot read ({exc}); persona files are UTF-8 JSON Lines") from None
    header: dict[str, Any] = {}
    header_line = None
    records: list[Any] = []
    lines: list[int] = []  # file line of each persona record
    for lineno, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise SurveyError(f"{path}:{lineno}: not valid JSON ({exc.msg} at column {exc.colno}); "
                              "write one JSON object per line") from None
        if not isinstance(obj, dict):
            raise SurveyError(f"{path}:{lineno}: expected a JSON object like {{\"id\": \"0\", \"age\": 25}}, "
                              f"got {type(obj).__name__}")
        if not records and header_line is None and "id" not in obj and ({"template", "description"} & set(obj)):
            header, header_line = obj, lineno
            continue
        records.append(obj)
        lines.append(lineno)

    def line_of(loc: tuple) -> int | None:
        if len(loc) >= 2 and loc[0] == "personas" and isinstance(loc[1], int) and loc[1] < len(lines):
            return lines[loc[1]]
        return header_line or (lines[0] if lines and loc != ("personas",) else None)

    try:
        meta = PersonaSetHeader.model_validate(header)
        return PersonaSet(name=name or set_name(path), template=meta.template, description=meta.description,
                          target=meta.target, personas=records, source=path, sha256=hashlib.sha256(raw_bytes).hexdigest())
    except ValidationError as exc:
        if not records:
            raise SurveyError(f"{path}: no personas; add one JSON object per line, e.g. "
                              '{"id": "0", "age": 25, "gender": "male"}') from None
        raise located_error(exc, path, line_of, PersonaSetHeader) from None


def load_persona_set(name_or_path: str | os.PathLike, study_dir: str | os.PathLike | None = None) -> PersonaSet:
    """A persona set by name (./personas, then the project's personas/) or by path to a .jsonl file.

    ``study_dir``: the folder of the study naming the set; it is searched instead of the current directory.
    """
    return read_persona_set(resolve(name_or_path, "personas", EXTS, study_dir))


def list_persona_sets() -> list[str]:
    """Names of the persona sets on the search path, sorted."""
    return list(available("personas", EXTS))


def persona_set_paths() -> dict[str, Path]:
    """name -> file of every persona set on the search path (a name in ./personas shadows a shipped one)."""
    return available("personas", EXTS)
