"""A conversation-flow run (survey.study.flow): the design's queries grouped into conversations, each asked
turn by turn by one engine worker.

A turn is sent with the earlier turns as its history: the questions asked and the model's replies. A turn
whose reply is stored is never sent again; its stored reply is the context of the turns after it, so a
resumed run pays only for the missing turns. A turn that gets no reply (failed, or the model stopped)
ends its conversation for this run: the turns after it stay missing until a rerun asks them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Iterator

from survey.backends.base import Query
from survey.study.flow import conversation_key


class Conversation:
    """The turns of one persona x paraphrase x replicate, in the order asked."""

    def __init__(self, turns: list[Query], done: set[tuple], store):
        self.turns, self.done, self.store = turns, done, store

    @property
    def missing(self) -> int:
        return sum(q.key not in self.done for q in self.turns)

    async def ask(self, send: Callable[[Query], Awaitable[str | None]]) -> None:
        """Ask the missing turns in order; ``send`` stores one turn and returns its reply (None: none came)."""
        history: list[tuple[str, str]] = []
        for q in self.turns:
            if q.key in self.done:
                reply = self.store.reply_text(q.key)
            else:
                reply = await send(dataclasses.replace(q, history=tuple(history)))
            if reply is None:
                return  # no reply to put in the context: the later turns wait for a rerun
            history.append((q.user, reply))


class Conversations:
    """The conversations of a model's queries that still miss a turn (``len``: the turns to send)."""

    def __init__(self, queries, done: set[tuple], store):
        self.queries, self.done, self.store = queries, done, store
        self.stored = self.count = 0
        for conversation in self._all():
            missing = conversation.missing
            self.count += missing
            self.stored += len(conversation.turns) - missing

    def _all(self) -> Iterator[Conversation]:
        turns: list[Query] = []
        for q in self.queries:
            if turns and conversation_key(turns[0]) != conversation_key(q):
                yield Conversation(turns, self.done, self.store)
                turns = []
            turns.append(q)
        if turns:
            yield Conversation(turns, self.done, self.store)

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[Conversation]:
        return (c for c in self._all() if c.missing)
