"""The instrument a study becomes for people: its demographic questions (from the persona set's template),
its conditions (which messages and paraphrases a respondent sees) and the items of one respondent's form.

Everything here is decided by the server from the study file; nothing a respondent posts chooses it.
"""

from __future__ import annotations

import itertools
import random
import re
from dataclasses import dataclass, field
from typing import Any

from survey.errors import SurveyError

CHOICE_LEVELS_MAX = 12  # more levels than this: a text box with suggestions instead of radio buttons
WITHIN_ORDERS_MAX = 24  # up to 4 messages every order is a balanced condition; more: random orders


def questions_of(spec) -> list[tuple[str, Any]]:
    """(id, QuestionSpec) of every question of the study (a validated StudySpec always lists them: its one
    ``[question]`` too, with id "q")."""
    return [(q.id, q) for q in spec.questions]


@dataclass(frozen=True)
class Demographic:
    """One persona attribute asked of a respondent: radio buttons for a few levels, a number box for a
    numeric attribute, a text box (with the set's levels suggested) for many."""

    name: str
    levels: tuple[str, ...]
    numeric: bool

    @property
    def label(self) -> str:
        return self.name.replace("_", " ").capitalize()

    @property
    def widget(self) -> str:
        return "number" if self.numeric else "radio" if len(self.levels) <= CHOICE_LEVELS_MAX else "text"

    def read(self, raw: str | None) -> Any:
        """The posted value, checked: a level for radio buttons, a whole number, or short text. ValueError
        says what is wrong (shown to the respondent)."""
        value = (raw or "").strip()
        if not value:
            raise ValueError(f"please answer: {self.label}")
        if self.numeric:
            if not re.fullmatch(r"\d{1,4}", value):
                raise ValueError(f"{self.label}: give a whole number")
            return int(value)
        if self.widget == "radio" and value not in self.levels:
            raise TamperedForm(f"'{value}' is not an answer to {self.name}")
        if len(value) > 100:
            raise ValueError(f"{self.label}: at most 100 characters")
        return value


class TamperedForm(Exception):
    """A post that the server's own form cannot produce: a field it did not ask, a value it did not offer."""


def demographics(persona_set, template: str | None = None) -> list[Demographic]:
    """The persona template's fields (the study's own template when it has one), with the set's levels."""
    from survey.registry.personas import template_fields

    out = []
    for name in template_fields(template or persona_set.template):
        if name == "id":
            continue
        values = [p.attributes[name] for p in persona_set.personas if name in p.attributes]
        numeric = bool(values) and all(isinstance(v, int) and not isinstance(v, bool) for v in values)
        levels = tuple(dict.fromkeys(str(v) for v in values))
        out.append(Demographic(name, tuple(sorted(levels, key=int)) if numeric else levels, numeric))
    return out


def human_wording(template: str, **slots: str) -> str:
    """A model's question as people read it: lines holding the options' slots dropped (the options are shown
    as cards), the slots filled, and sentences that tell a model how to format its reply ("Answer ONLY ...")
    left out (the buttons say how to answer)."""
    lines = [ln for ln in template.splitlines() if not any("{" + s + "}" in ln for s in ("first", "second", "options"))]
    text = "\n".join(lines).format_map({k: v for k, v in slots.items()})
    sentences = re.split(r"(?<=[.?!])\s+", text.strip())
    kept = [s for s in sentences if not re.match(r"(Answer|Reply|Respond)\b", s)]
    return " ".join(kept or sentences)


@dataclass(frozen=True)
class Option:
    message: str
    perturbation: str
    text: str


@dataclass(frozen=True)
class Item:
    """One question as one respondent sees it: ``n`` its place in the form (the inputs' names), ``options``
    the paraphrases it shows (one for a question about one message; several, in the order shown, for kinds
    that show the messages together; MaxDiff: one set)."""

    n: int
    question: str
    rtype: Any
    prompt: str
    options: tuple[Option, ...]
    position: int  # the item's place among this question's items for this respondent

    @property
    def name(self) -> str:
        return f"item{self.n}"


@dataclass
class Instrument:
    """The study as a questionnaire: questions, messages (id -> paraphrases), conditions and demographics."""

    study: Any
    questions: list[tuple[str, Any]]
    messages: dict[str, list[Any]]  # id -> perturbations (.id, .text)
    demographics: list[Demographic]
    design: str = "between"
    conditions: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, study, design=None) -> Instrument:
        """The instrument of a StudySpec, its sets loaded as `survey run` loads them."""
        from survey.study.design import build_design

        design = design or build_design(study)
        fspec = study.field
        msgs = {m.id: list(m.items) for m in design.messages}
        inst = cls(study, questions_of(study), msgs, demographics(design.persona_set, study.personas.template),
                   fspec.design if fspec else "between")
        inst.conditions = inst._conditions()
        return inst

    @property
    def together(self) -> list[tuple[str, Any]]:
        """The questions whose reply compares the messages shown together (forced choice, pick, MaxDiff)."""
        return [(qid, q) for qid, q in self.questions if not q.response.view.per_message]

    @property
    def per_message(self) -> list[tuple[str, Any]]:
        return [(qid, q) for qid, q in self.questions if q.response.view.per_message]

    @property
    def paraphrases(self) -> int:
        return max(len(items) for items in self.messages.values())

    def _conditions(self) -> list[str]:
        """The balanced conditions, as keys: between-subjects "MESSAGE/PARAPHRASE"; within-subjects
        "M1>M2>.../J" (an order of the messages and the paraphrase index J), every order when there are
        few messages, else only J (the order then drawn at random)."""
        if self.design == "between" and self.per_message:
            return [f"{m}/{p.id}" for m, items in self.messages.items() for p in items]
        ids = list(self.messages)
        orders = list(itertools.permutations(ids)) if len(ids) <= 4 else [None]
        return [(">".join(o) if o else "*") + f"/{j}" for o in orders for j in range(self.paraphrases)]

    def least_used(self, counts) -> list[str]:
        """The conditions to assign next, from the respondents each has (``counts``): between-subjects the
        least-used message first, then its least-used paraphrase (messages stay balanced when their
        paraphrase counts differ); within-subjects the least-used order and paraphrase."""
        def key(c: str):
            if self.design == "between" and self.per_message:
                message = c.rpartition("/")[0]
                return (sum(counts.get(o, 0) for o in self.conditions if o.rpartition("/")[0] == message),
                        counts.get(c, 0))
            return (counts.get(c, 0),)

        best = min(key(c) for c in self.conditions)
        return [c for c in self.conditions if key(c) == best]

    def assignment(self, condition: str, rng: random.Random) -> dict:
        """What a respondent of ``condition`` sees: the messages in order (message, perturbation id) and the
        paraphrase index used for kinds that show every message; arrangements of the together kinds drawn
        from ``rng`` and kept, so the form is the same when reloaded."""
        head, _, tail = condition.rpartition("/")
        if "/" not in condition:
            raise SurveyError(f"not a condition: {condition}")
        if self.design == "between" and self.per_message:
            items = self.messages[head]
            j = next(i for i, p in enumerate(items) if str(p.id) == tail)
            order = [head]
        else:
            j = int(tail)
            order = head.split(">") if head != "*" else rng.sample(list(self.messages), len(self.messages))
        shown = [[m, str(self.messages[m][j % len(self.messages[m])].id)] for m in order]
        every = [[m, str(items[j % len(items)].id)] for m, items in self.messages.items()]
        together = {}
        for qid, q in self.together:
            sets = self._sets(q, j)
            together[qid] = [[every[i] for i in rng.sample(s, len(s))] for s in sets]
        return {"shown": shown, "together": together}

    def _sets(self, question, j: int) -> list[list[int]]:
        """The sets of message indices a together kind shows: all messages at once, or MaxDiff's blocks."""
        k = len(self.messages)
        arrange = getattr(question.response, "arrangements", None)
        if arrange is None:
            return [list(range(k))]
        blocks = {tuple(sorted(b)) for b in arrange(k, self.study.name, j)}
        return [list(b) for b in sorted(blocks)]

    def items(self, assignment: dict) -> list[Item]:
        """The form's items, in order: each message shown with its per-message questions, then the kinds
        that compare the messages."""
        out: list[Item] = []
        text = {(m, str(p.id)): p.text for m, items in self.messages.items() for p in items}
        for pos, (m, pid) in enumerate(assignment["shown"]):
            for qid, q in self.per_message:
                prompt = human_wording(q.resolved_template, perturbation=text[(m, pid)])
                out.append(Item(len(out), qid, q.response, prompt, (Option(m, pid, text[(m, pid)]),), pos))
        for qid, q in self.together:
            for pos, shown in enumerate(assignment["together"].get(qid, [])):
                options = tuple(Option(m, pid, text[(m, pid)]) for m, pid in shown)
                out.append(Item(len(out), qid, q.response, human_wording(q.resolved_template), options, pos))
        return out
