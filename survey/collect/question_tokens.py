"""Prompt-token estimates of a study's queries, question by question, for dry runs and budgets.

- One question, or several asked independently by a backend that sends each prompt whole: each query's
  system and user prompt.
- Several questions asked independently by a backend that reuses a shared prompt prefix (the local model's
  KV cache, Capabilities.prompt_order): the prefix a question shares with the study's first question on the
  same paraphrase (the system prompt, and the paraphrase when the templates start alike) is counted once,
  with the first question.
- A conversation: each turn sends the whole conversation so far, so a turn's prompt is the system prompt, the
  earlier questions, the replies to them (at most their max_tokens each) and its own question.
"""

from __future__ import annotations

from os.path import commonprefix

from survey.collect.tokens import CHARS_PER_TOKEN, prompt_tokens


def turn_tokens(design, spec, per_question):
    """A function (system prompt, question, cell) -> the estimated prompt tokens of that query."""
    from survey.backends import backend_capabilities

    first = {(c[0], c[1]): c[2] for c in per_question[0][2]} if per_question else {}
    if design.study.flow == "conversation":
        return _conversation(design, spec, per_question)
    reuse = design.several and backend_capabilities(spec.backend, spec.options).prompt_order
    first_id = per_question[0][0].id if per_question else None

    def tokens(system: str, question, cell) -> int:
        full = prompt_tokens(system, cell[2])
        lead = first.get((cell[0], cell[1]))
        if not reuse or question.id == first_id or lead is None:
            return full
        shared = len(system) + len(commonprefix([lead, cell[2]]))
        return max(1, full - shared // CHARS_PER_TOKEN)

    return tokens


def _conversation(design, spec, per_question):
    """In a conversation of fixed order, question i's turn carries questions 0..i-1 and their replies; in a
    random order, a question's expected place is the middle, so it carries on average half the others."""
    users = {q.id: {(c[0], c[1]): c[2] for c in cells} for q, _, cells in per_question}
    replies = {q.id: design.max_tokens(spec, q) for q, _, _ in per_question}
    ids = [q.id for q, _, _ in per_question]
    fixed = design.study.question_order != "random"

    def tokens(system: str, question, cell) -> int:
        i = ids.index(question.id)
        before = ids[:i] if fixed else [x for x in ids if x != question.id]
        weight = 1.0 if fixed else 0.5
        earlier = sum(len(users[x].get((cell[0], cell[1]), "")) // CHARS_PER_TOKEN + replies[x] + 8 for x in before)
        return prompt_tokens(system, cell[2]) + round(weight * earlier)

    return tokens
