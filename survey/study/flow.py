"""How a study's questions are asked: the order of its queries and, for a conversation, of its turns.

- ``flow = "independent"``: for each persona, each question in its own prompt, then its cells, then the
  replicates. Every question shares the persona's system prompt (and, in a concept test whose templates
  start alike, the paraphrase), so a backend that reuses a prompt prefix (the local model) pays for it once.
- ``flow = "conversation"``: for each persona, each (message, paraphrase) cell and replicate, one
  conversation: its questions in turn, each asked after the earlier questions and the model's replies
  (the engine fills ``Query.history`` as the replies arrive, survey.collect.conversations). The order is the
  study's (``question_order = "fixed"``) or drawn per persona x paraphrase (``"random"``, seeded by the
  study, persona and paraphrase); each query records its ``position``.
- A scale asked in both directions (``order = "both"``) reverses odd replicates, question by question.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import numpy as np

from survey.backends.base import Query


def conversation_order(study, persona: str, message: str, perturbation: str) -> list[int]:
    """The indices of the study's questions in the order one persona x paraphrase's conversations ask them."""
    n = len(study.questions)
    if study.question_order != "random":
        return list(range(n))
    digest = hashlib.sha256(f"question-order\x1f{study.name}\x1f{persona}\x1f{message}\x1f{perturbation}"
                            .encode()).digest()
    return [int(i) for i in np.random.default_rng(int.from_bytes(digest[:16], "little")).permutation(n)]


def design_queries(design, model) -> Iterator[Query]:
    """Every query of one model in design order (see the module docstring)."""
    if design.study.flow == "conversation":
        yield from _conversation_queries(design, model)
        return
    for persona in design.personas:
        pid = str(persona.id)
        for question in design.questions:
            common = design.settings(model, question)
            if question.order == "both":
                yield from _balanced(design, persona, pid, question, common)
                continue
            system = design.system_prompt(persona, question.response)
            for message, perturbation, user, extra in design.cell_prompts(question=question):
                for k in range(design.study.replicates):
                    yield Query(message=message, perturbation=perturbation, persona=pid, replicate=k,
                                system=system, user=user, **extra, **common)


def _balanced(design, persona, pid: str, question, common: dict) -> Iterator[Query]:
    """A scale asked in both directions: each replicate with its direction's question and answers."""
    ways = [question.response_for(k) for k in (0, 1)]
    cells = [design.cell_prompts(question.template_for(k), question, ways[k]) for k in (0, 1)]
    systems = [design.system_prompt(persona, rtype) for rtype in ways]
    for c in range(len(cells[0])):
        for k in range(design.study.replicates):
            way = k % 2
            message, perturbation, user, extra = cells[way][c]
            yield Query(message=message, perturbation=perturbation, persona=pid, replicate=k, system=systems[way],
                        user=user, **extra, **{**common, "response": ways[way], "direction": ways[way].direction})


def turn_prompts(design, question) -> tuple[list[list[tuple]], list]:
    """A question's cells per direction (forward, reversed): (message, perturbation, user, extra); and the
    response types of the two directions."""
    ways = [question.response_for(k) for k in (0, 1)]
    return [design.cell_prompts(question.template_for(k), question, ways[k]) for k in (0, 1)], ways


def _conversation_queries(design, model) -> Iterator[Query]:
    study = design.study
    prompts = [turn_prompts(design, q) for q in design.questions]
    commons = [design.settings(model, q) for q in design.questions]
    for persona in design.personas:
        pid = str(persona.id)
        # a conversation's system prompt: shared by its questions (several), else the one question's direction
        systems = [design.system_prompt(persona, w) for w in prompts[0][1]]
        for c, (message, perturbation, _, _) in enumerate(prompts[0][0][0]):
            order = conversation_order(study, pid, message, perturbation)
            for k in range(study.replicates):
                for position, i in enumerate(order):
                    question = design.questions[i]
                    (cells, ways), way = prompts[i], (1 if question.order == "both" and k % 2 else 0)
                    _, _, user, extra = cells[way][c]
                    common = commons[i] if not way else {**commons[i], "response": ways[1]}
                    direction = ways[way].direction if question.order == "both" else None
                    yield Query(message=message, perturbation=perturbation, persona=pid, replicate=k,
                                system=systems[way if not design.several else 0], user=user, **extra, **common,
                                position=position, direction=direction)


def conversation_key(q: Query) -> tuple:
    """The conversation a query belongs to: (persona, message, perturbation, replicate)."""
    return (q.persona, q.message, q.perturbation, q.replicate)
