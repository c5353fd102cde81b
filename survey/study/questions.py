"""Several questions per study: ``[[questions]]``, ``[analysis]``, ``flow`` and ``question_order``.

A study asks one ``[question]`` (id "q" unless it names one) or several ``[[questions]]``, each a
QuestionSpec with its own required ``id`` (the store's and the table's ``question`` key)::

    flow = "independent"        # each question in its own prompt after the persona and the paraphrase
    # flow = "conversation"     # one conversation per persona x paraphrase x replicate, earlier answers in context
    # question_order = "random" # conversation only: the order drawn per persona x paraphrase (recorded per row)

    [[questions]]
    id = "intent"
    type = "binary"

    [[questions]]
    id = "appeal"
    type = "likert"

    [analysis]
    primary = "intent"          # the pre-registered deciding question (tested at alpha unadjusted)
    family = "holm"             # or "bh": the adjustment over questions x pairs

The checks here run when the study is parsed, so a dry run refuses what a run would.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from survey.errors import pydantic_message
from survey.study.question import DEFAULT_QUESTION, QuestionSpec

FLOWS = ("independent", "conversation")


class AnalysisSpec(BaseModel):
    """``[analysis]``: which question decides, and how the family of questions x pairs is adjusted."""

    model_config = ConfigDict(extra="forbid")

    primary: str | None = Field(None, description="the id of the pre-registered deciding question; the others "
                                                  "are secondary")
    family: Literal["holm", "bh"] = Field("holm", description="the multiplicity adjustment over questions x pairs: "
                                                              "'holm' (family-wise error) or 'bh' (false discovery rate)")


def parse_question_tables(data: Any) -> Any:
    """The raw study dict, each ``[[questions]]`` entry checked on its own first, so that an error names the
    question by its id; ``[question]`` and ``[[questions]]`` together are refused."""
    if not isinstance(data, dict):
        return data
    many, one = data.get("questions"), data.get("question")
    if many is None:
        return data
    if not isinstance(many, list) or not many:
        raise ValueError("questions: give [[questions]] tables, each with an id and a type")
    if one is not None and not _same_as_listed(one, many):
        raise ValueError("give either one [question] or several [[questions]], not both: move the [question] "
                         "into [[questions]] with an id")
    for i, entry in enumerate(many, 1):
        if isinstance(entry, QuestionSpec):
            continue
        if not isinstance(entry, dict):
            raise ValueError(f"questions: entry {i} is not a table; write [[questions]] with id = ... and type = ...")
        if "id" not in entry:
            raise ValueError(f"questions: entry {i} (type '{entry.get('type', 'binary')}') needs an id, e.g. "
                             "id = \"intent\": it is the question's key in the store and the table")
        try:  # checked here to name the question; the study's validation builds it (a built one is not re-read)
            QuestionSpec.model_validate(entry)
        except ValidationError as exc:
            raise ValueError(f"question '{entry['id']}': {pydantic_message(exc, '', QuestionSpec)}") from None
    return {k: v for k, v in data.items() if k != "question"}


def _same_as_listed(one, many: list) -> bool:
    """A dumped study holds its primary question twice (``question`` and in ``questions``): that is no conflict."""
    dump = one.model_dump() if isinstance(one, QuestionSpec) else one
    return any((m.model_dump() if isinstance(m, QuestionSpec) else m) == dump for m in many)


def settle_questions(study) -> None:
    """``study.questions`` always a list, ``study.question`` its primary (the first when none is named); the
    ids unique, the primary one of them, the flow and order consistent with the questions and the models."""
    if not study.questions:
        study.questions = [study.question or QuestionSpec()]
    ids = [q.id for q in study.questions]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError(f"questions: duplicate id(s) {', '.join(dup)}; each question needs its own id")
    primary = study.analysis.primary
    if primary is not None and primary not in ids:
        raise ValueError(f"analysis.primary = '{primary}' names no question; the questions are {', '.join(ids)}")
    study.question = next(q for q in study.questions if q.id == (primary or ids[0]))
    if study.question_order is not None and study.flow != "conversation":
        raise ValueError(f"question_order = '{study.question_order}' orders the questions of a conversation; the "
                         f"study's flow is '{study.flow}' (each question in its own prompt): remove question_order "
                         "or set flow = \"conversation\"")
    if study.flow == "conversation":
        _check_conversation(study)
    if len(study.questions) > 1 and study.sequential is not None and primary is None:
        # the stopping rule reads one question's answers, and which one must be fixed before the data are seen
        raise ValueError(f"[sequential] stops on one question's answers: name it before the run with [analysis] "
                         f"primary = \"<id>\" (the questions are {', '.join(ids)})")


def _check_conversation(study) -> None:
    """A conversation asks every question about one paraphrase, turn by turn: no question that shows several
    messages at once, no batch jobs (a turn needs the reply before it), a backend that takes a conversation."""
    for q in study.questions:
        view = q.response.view
        if not view.per_message or "options" in getattr(q.response, "slots", ()):
            raise ValueError(f"flow = \"conversation\" asks every question about one paraphrase; question '{q.id}' "
                             f"(type '{q.type}') shows several messages at once: use flow = \"independent\"")
    from survey.backends import backend_capabilities

    for m in study.models:
        if m.batch:
            raise ValueError(f"model '{m.name}': flow = \"conversation\" asks turn by turn (each question after the "
                             "reply to the one before), which a batch job cannot: set batch = false")
        if not backend_capabilities(m.backend, m.options).conversation:
            raise ValueError(f"model '{m.name}': backend '{m.backend}' reads one prompt at a time (its exact mode "
                             "scores the first answer token after it) and cannot hold a conversation (earlier "
                             "questions and answers in context): use flow = \"independent\" or a chat backend "
                             "(openai, mistral, dashscope, simulated)")


def question_ids(study) -> list[str]:
    """The study's question ids in study order ("q" for a single unnamed [question])."""
    return [q.id for q in study.questions] or [DEFAULT_QUESTION]
