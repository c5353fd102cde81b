"""The study file: a TOML document parsed into pydantic models (the design of Helm & Priebe 2026).

A study names the personas, the messages with their perturbation sets, the question, the models
and the replicates; `survey run` turns it into stored responses. Relative paths in a study (the
store, persona/perturbation files) resolve against the folder of the study file, so a study
runs the same from any working directory.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from survey.common.limits import Seed
from survey.errors import SurveyError, pydantic_message
from survey.registry.files import NAME_RE as _ID  # one id rule for studies and registry sets
from survey.registry.files import study_base_dir, study_sets_dir
from survey.study.field_spec import FieldSpec
from survey.study.question import QuestionSpec
from survey.study.questions import AnalysisSpec, parse_question_tables, settle_questions
from survey.study.segments import SegmentsSpec, TargetSpec
from survey.study.sequential import SequentialSpec


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _check_id(value: str, what: str) -> str:
    if not _ID.match(value):
        raise ValueError(f"{what} '{value}' must be letters, digits, '_', '-' or '.', starting with a "
                         "letter or digit (it becomes a key in the store and the table)")
    return value


class PersonaSpec(_Strict):
    """`[personas]`: which persona set, how many, and an optional system prompt template."""

    set: str = Field(description="persona set name (personas/NAME.*) or a path to a persona file")
    count: int | None = Field(None, ge=1, description="how many personas; all of the set when absent")
    sample_seed: Seed | None = Field(
        None, description="draw `count` personas at random with this seed instead of taking the first")
    template: str | None = Field(
        None, description="system prompt template overriding the set's, e.g. for free-text answers")


class MessageSpec(_Strict):
    """One `[[messages]]` entry: a message given as its set of perturbations (paraphrases)."""

    id: str | None = Field(None, description="the message's id in the table; default: the set's message id")
    perturbations: str = Field(description="perturbation set name (perturbations/NAME.*) or a path")
    count: int | None = Field(None, ge=1, description="use the first `count` perturbations; all when absent")

    @field_validator("id")
    @classmethod
    def _valid_id(cls, v: str | None) -> str | None:
        return v if v is None else _check_id(v, "message id")


class ModelSpec(_Strict):
    """One `[[models]]` entry: the backend and model id, sampling settings, limits and prices."""

    name: str = Field(description="the model's name in the store and the table, e.g. 'ministral-8b'")
    backend: str = Field(description="simulated, local, mistral or dashscope")
    model_id: str = Field("", description="the provider's model id, e.g. 'ministral-8b-2512'")
    temperature: float = Field(1.0, ge=0, le=2)
    max_tokens: int | None = Field(None, ge=1, description="default 1 (binary) or the question's max_tokens (text)")
    seed: int | None = None
    logprobs: bool = False
    top_logprobs: int = Field(0, ge=0, le=20)
    params: dict[str, Any] = Field(default_factory=dict,
                                   description="extra provider parameters, e.g. enable_thinking = false")
    options: dict[str, Any] = Field(default_factory=dict,
                                    description="backend options, e.g. api_key_env, server_url, mode")
    batch: bool = Field(False, description="use the provider's batch API (backends that have one)")
    concurrency: int = Field(8, ge=1, le=1024)
    rpm: float | None = Field(None, gt=0, description="requests per minute limit")
    tpm: float | None = Field(None, gt=0, description="tokens per minute limit (prompt + max_tokens)")
    price_input: float | None = Field(None, ge=0, description="USD per 1M input tokens (overrides the backend's list price)")
    price_output: float | None = Field(None, ge=0, description="USD per 1M output tokens (overrides the backend's list price)")

    @field_validator("name")
    @classmethod
    def _valid_name(cls, v: str) -> str:
        return _check_id(v, "model name")

    @field_validator("backend")
    @classmethod
    def _known_backend(cls, v: str) -> str:
        from survey.backends import BACKENDS

        if v not in BACKENDS:
            raise ValueError(f"unknown backend '{v}'; choose one of {', '.join(BACKENDS)}")
        return v

    @model_validator(mode="after")
    def _needs_model_id(self) -> ModelSpec:
        from survey.backends import backend_capabilities

        try:
            needs_model_id = backend_capabilities(self.backend).needs_model_id
        except SurveyError as exc:  # a registered backend whose module does not import
            raise ValueError(str(exc)) from exc
        if needs_model_id and not self.model_id:
            raise ValueError(f"model '{self.name}': set model_id to the provider's id "
                             f"(backend '{self.backend}' needs one)")
        if self.top_logprobs and not self.logprobs:
            self.logprobs = True  # asking for top-k implies asking for logprobs
        return self

    @property
    def paid(self) -> bool:
        """Queries cost money (the backend says so): runs ask before sending and estimate a price."""
        from survey.backends import backend_capabilities

        return backend_capabilities(self.backend, self.options).paid


class HumansSpec(_Strict):
    """`humans = "answers.csv"` or `[humans]`: the human answers beside the personas (survey.data.humans)."""

    file: str = Field(description="human answers (.csv, long or Qualtrics-style wide); relative to the study file")
    ask: bool = Field(True, description="also ask the models about each respondent, rendered as a persona from "
                                        "their attributes (persona ids 'human-<respondent>'): the predictions "
                                        "that prediction-powered inference about humans needs")
    wide: bool | None = Field(None, description="one row per respondent (Qualtrics); default: wide when the file "
                                                "has no 'message' column")
    id_column: str | None = Field(None, description="wide files: the respondent id column (default ResponseId)")
    columns: dict[str, str] | None = Field(None, description="wide files: answer column -> message id")
    compare: list[str] | None = Field(None, min_length=2, max_length=2,
                                      description="the two messages the comparison with the humans uses, A then B "
                                                  "(default: the two the humans saw; needed when they saw more), "
                                                  "fixed before the answers are seen")


class BudgetSpec(_Strict):
    """`[budget]`: caps a run refuses to exceed, counted over the whole study (stored + to send)."""

    max_queries: int | None = Field(None, ge=1, description="refuse a run whose total queries exceed this")
    max_cost: float | None = Field(None, gt=0, description="refuse a run whose estimated USD cost exceeds this")


class StudySpec(_Strict):
    """A whole study file: name, store, replicates, personas, messages, question, models, budget.

    Build it in code with ``StudySpec(name=..., personas=PersonaSpec(...), ...)`` or from a dict with
    ``StudySpec.model_validate(...)``; `survey.Study` plans and runs it.
    """

    name: str = Field(description="study name: a key in the store, so a store can hold several studies")
    store: str = Field(description="SQLite store path; relative paths resolve against the study file's folder")
    replicates: int = Field(1, ge=1, description="r: independent queries per (persona, perturbation)")
    personas: PersonaSpec
    messages: list[MessageSpec] = Field(min_length=1)
    # after validation: the primary question (the first when [analysis] names none); `questions` holds them all
    question: QuestionSpec | None = Field(None, description="the study's one question ([question]; id 'q' "
                                                            "unless it names one)")
    questions: list[QuestionSpec] = Field(default_factory=list, description="several questions ([[questions]], "
                                          "each with an id); always the full list after validation")
    flow: Literal["independent", "conversation"] = Field(
        "independent", description="independent: each question in its own prompt after the persona and the "
                                   "paraphrase; conversation: one conversation per persona x paraphrase x replicate")
    question_order: Literal["fixed", "random"] | None = Field(
        None, description="conversation flow: the questions in study order (fixed) or in an order drawn per persona "
                          "x paraphrase (random); recorded per row as `position`")
    analysis: AnalysisSpec = Field(default_factory=AnalysisSpec)
    models: list[ModelSpec] = Field(min_length=1)
    budget: BudgetSpec = Field(default_factory=BudgetSpec)
    sequential: SequentialSpec | None = Field(
        None, description="buy the pairs of two messages in rounds and stop when the sequential test decides")
    segments: SegmentsSpec | None = Field(
        None, description="analyse the answers per segment of personas: by = an attribute or bins, or named filters")
    target: TargetSpec | None = Field(
        None, description="weight the personas to a target market's margins (a file, or inline per attribute)")
    humans: HumansSpec | None = Field(
        None, description="human answers to the same messages (a file name, or a [humans] table): fidelity and "
                          "prediction-powered inference about people")
    field: FieldSpec | None = Field(
        None, description="fielding to people (`survey field`): consent, attention check, completion code, design")
    # The folder relative paths resolve against: the study file's folder (load_study), else the cwd.
    _base_dir: Path | None = PrivateAttr(None)
    # The folder set names resolve against, when it differs from _base_dir (a shipped study run in place
    # writes its store under the cwd but reads its sets from its own folder).
    _sets_dir: Path | None = PrivateAttr(None)

    @field_validator("name")
    @classmethod
    def _valid_name(cls, v: str) -> str:
        return _check_id(v, "study name")

    @model_validator(mode="before")
    @classmethod
    def _question_tables(cls, data: Any) -> Any:
        return parse_question_tables(data)

    @model_validator(mode="after")
    def _questions(self) -> StudySpec:
        settle_questions(self)  # first: the checks below read self.question and self.questions
        return self

    @model_validator(mode="after")
    def _sequential_fits_the_question(self) -> StudySpec:
        # refused here, so that a dry run refuses it too: a run once bought the first round, then stopped.
        # [sequential] stops on the primary question (several questions must name it: settle_questions)
        view = self.question.response.view
        if self.sequential is not None and self.question.response.rated_text:
            raise ValueError("[sequential] tests after each round, but semantic-similarity ratings are computed "
                             "after the run: remove [sequential] or ask a likert/rating question")
        if self.sequential is not None and not (view.points and view.per_message):
            what = ("free-text replies have no score to test" if not view.points else
                    "a forced-choice reply already compares both messages; `survey analyze` tests it")
            raise ValueError(f"[sequential] buys paraphrase pairs of two separately asked messages in rounds; "
                             f"question type '{self.question.type}' cannot be bought that way ({what}): remove "
                             "[sequential]")
        return self

    @model_validator(mode="after")
    def _pick_shows_every_message(self) -> StudySpec:
        for q in self.questions:
            try:
                q.show_messages(len(self.messages))  # pick one of k: k is the number of messages
            except ValueError as exc:
                raise ValueError(self.about(q, str(exc))) from None
        return self

    @model_validator(mode="after")
    def _both_directions_balanced(self) -> StudySpec:
        both = [q for q in self.questions if q.order == "both"]
        if both and self.replicates % 2:
            raise ValueError(self.about(both[0], "")+ f"question.order = 'both' asks odd replicates with the scale reversed, so each cell needs "
                             f"as many of each: set replicates to an even number (it is {self.replicates})")
        return self

    @model_validator(mode="after")
    def _unique(self) -> StudySpec:
        for what, ids in (("messages", [m.id for m in self.messages if m.id]), ("models", [m.name for m in self.models])):
            dup = sorted({x for x in ids if ids.count(x) > 1})
            if dup:
                raise ValueError(f"{what}: duplicate name(s) {', '.join(dup)}; each must be unique")
        return self

    @field_validator("humans", mode="before")
    @classmethod
    def _humans_file(cls, v: Any) -> Any:
        return {"file": v} if isinstance(v, str) else v

    def about(self, question: QuestionSpec, text: str) -> str:
        """``text`` prefixed with the question it is about when the study has several."""
        return f"question '{question.id}': {text}" if len(self.questions) > 1 else text

    def load_humans(self):
        """The study's human answers (survey.data.humans.Humans), checked against its messages and scale;
        None when the study names none."""
        if self.humans is None:
            return None
        from survey.data.humans import load_humans
        from survey.registry.files import SHIPPED_ROOT

        h = self.humans  # human answers are to the primary question (a human file holds one answer per message)
        ids = [m.id or Path(m.perturbations).stem for m in self.messages]
        if h.file.startswith("benchmark:"):  # built on this machine, not shipped (survey.registry.benchmarks)
            from survey.registry.benchmarks import benchmark_file

            people = load_humans(benchmark_file(h.file), self.question.response, ids)
        else:
            path = self.resolve(h.file)
            if not path.exists() and (SHIPPED_ROOT / "studies" / h.file).exists():  # a shipped study from a wheel
                path = SHIPPED_ROOT / "studies" / h.file
            people = load_humans(path, self.question.response, ids, wide=h.wide, columns=h.columns,
                                 id_column=h.id_column)
        unseen = [m for m in h.compare or [] if m not in people.messages]
        if unseen or (h.compare and h.compare[0] == h.compare[1]):
            from survey.errors import SurveyError

            raise SurveyError(f"[humans] compare = {h.compare}: name two different messages the humans saw "
                              f"({', '.join(people.messages)})")
        return people

    def resolve(self, path: str) -> Path:
        """A path from the study file, relative to the study's folder unless absolute."""
        p = Path(path).expanduser()
        return p if p.is_absolute() else (self._base_dir or Path.cwd()) / p

    @property
    def store_path(self) -> Path:
        return self.resolve(self.store)

    @property
    def sets_dir(self) -> Path:
        """The folder whose personas/ and perturbations/ are searched first for the sets this study names."""
        return self._sets_dir or self.resolve(".")

    def registry_ref(self, ref: str) -> str:
        """A set name stays a name; something that looks like a path resolves against the study folder."""
        if "/" in ref or "\\" in ref or Path(ref).suffix:
            p = Path(ref).expanduser()
            return str(p if p.is_absolute() else self.sets_dir / p)
        return ref

    def model(self, name: str) -> ModelSpec:
        for m in self.models:
            if m.name == name:
                return m
        raise SurveyError(f"study '{self.name}' has no model '{name}'; it has "
                          f"{', '.join(m.name for m in self.models)}")


def parse_study(data: dict, source: str = "study", base_dir: Path | None = None,
                sets_dir: Path | None = None) -> StudySpec:
    try:
        study = StudySpec.model_validate(data)
    except ValidationError as exc:
        raise SurveyError(pydantic_message(exc, source, StudySpec)) from exc
    if base_dir is not None:
        study._base_dir = base_dir
    if sets_dir is not None and sets_dir != base_dir:
        study._sets_dir = sets_dir
    return study


def load_study(path: str | Path) -> StudySpec:
    """Read and validate a study TOML file; errors name the file, the field and the fix."""
    path = Path(path)
    if not path.exists():
        raise SurveyError(f"{path}: no such study file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SurveyError(f"{path}: not valid TOML ({exc})") from exc
    except UnicodeDecodeError as exc:
        raise SurveyError(f"{path}: not UTF-8 text ({exc})") from exc
    return parse_study(data, str(path), base_dir=study_base_dir(path), sets_dir=study_sets_dir(path))
