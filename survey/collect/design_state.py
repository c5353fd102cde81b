"""A model's share of a design without its queries in memory (used by survey.collect.run_plan).

A study of a million queries per model has only tens of thousands of cells (persona x paraphrase), and
every replicate of a cell has the same prompts. So the store is read per cell with aggregated SQL (the
replicates of each cell as the bits of one integer, per prompt hash), counts and token estimates are
sums over cells, and the queries themselves are made only when a run iterates them:

- ``DesignQueries``: every query of a model (``len`` without making them);
- ``MissingQueries``: those a run would send (not stored, not held by an open batch job);
- ``DesignIndex``: query key -> place in the whole design, computed from the key.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from itertools import islice

from survey.backends.base import Query, prompt_order_key
from survey.collect.tokens import prompt_tokens  # noqa: F401  (re-exported)
from survey.common.names import DEFAULT_QUESTION
from survey.study.design import QueryDesign, prompt_hash
from survey.study.spec import ModelSpec

Cell = tuple[str, str, str, str]  # (persona, message, perturbation, question): a row key without study, model, replicate
SQL_BITS = 62  # SUM(1 << replicate) stays within SQLite's signed 64-bit integers


def stored_masks(store, study: str, model: str, status: str, replicates: int) -> dict[Cell, dict[str | None, int]]:
    """Per cell and prompt hash, the replicates (bit k: replicate k) of the rows with ``status`` among
    replicates 0 .. replicates - 1."""
    out: dict[Cell, dict[str | None, int]] = {}
    where = "WHERE study = ? AND model = ? AND status = ? AND replicate >= 0 AND replicate < ?"
    args = (study, model, status, replicates)
    q = store.q  # "question", or "'q'" in a store from before the question axis (read-only)
    if replicates <= SQL_BITS:
        rows = store.db.execute(f"SELECT persona, message, perturbation, {q}, prompt_hash, SUM(1 << replicate) "
                                f"FROM responses {where} GROUP BY persona, message, perturbation, {q}, prompt_hash",
                                args)
        for persona, message, perturbation, question, digest, mask in rows:
            out.setdefault((persona, message, perturbation, question), {})[digest] = int(mask)
        return out
    for persona, message, perturbation, question, digest, k in store.db.execute(
            f"SELECT persona, message, perturbation, {q}, prompt_hash, replicate FROM responses {where}", args):
        by_hash = out.setdefault((persona, message, perturbation, question), {})
        by_hash[digest] = by_hash.get(digest, 0) | 1 << int(k)
    return out


def job_masks(jobs: list[dict], study: str, model: str, replicates: int) -> dict[Cell, int]:
    """Per cell, the replicates held by the open batch jobs (their custom ids are the row keys joined)."""
    out: dict[Cell, int] = {}
    for job in jobs:
        for cid in job["custom_ids"]:
            parts = cid.split("\x1f")
            if len(parts) not in (6, 7) or parts[0] != study or parts[1] != model or not parts[5].isdigit():
                continue
            k = int(parts[5])
            if k < replicates:
                cell = (parts[4], parts[2], parts[3], parts[6] if len(parts) == 7 else DEFAULT_QUESTION)
                out[cell] = out.get(cell, 0) | 1 << k
    return out


def cell_query(design: QueryDesign, spec: ModelSpec, settings: dict, persona: str, system: str,
               cell: tuple[str, str, str, dict], replicate: int = 0) -> Query:
    message, perturbation, user, extra = cell
    return Query(message=message, perturbation=perturbation, persona=persona, replicate=replicate,
                 system=system, user=user, **extra, **settings)


def question_cells(design: QueryDesign, spec: ModelSpec) -> list[tuple]:
    """Per question: (the question, its query settings, its cells in design order) for this model."""
    return [(q, design.settings(spec, q), design.cell_prompts(question=q)) for q in design.questions]


def changed_masks(design: QueryDesign, spec: ModelSpec, ok: dict[Cell, dict[str | None, int]]) -> Iterator[tuple]:
    """(cell, replicates) of the stored replies whose prompt hash is not the current query's, in design
    order; a cell's current hash is computed only when it has a stored reply with a hash."""
    if not ok:
        return
    per_question = question_cells(design, spec)
    for persona in design.personas:
        pid = str(persona.id)
        for question, settings, cells in per_question:
            system = None
            for cell in cells:
                by_hash = ok.get((pid, cell[0], cell[1], question.id))
                if not by_hash or all(h is None for h in by_hash):
                    continue
                system = system if system is not None else design.system_prompt(persona, question.response)
                current = prompt_hash(cell_query(design, spec, settings, pid, system, cell))
                mask = 0
                for digest, bits in by_hash.items():
                    if digest is not None and digest != current:
                        mask |= bits
                if mask:
                    yield (pid, cell[0], cell[1], question.id), mask


def bits(mask: int) -> Iterator[int]:
    """The set bits of ``mask``, lowest first."""
    k = 0
    while mask:
        if mask & 1:
            yield k
        mask >>= 1
        k += 1


class DesignQueries:
    """Every query of one model in design order, made when iterated; ``len`` needs none of them."""

    def __init__(self, design: QueryDesign, spec: ModelSpec):
        self.design, self.spec = design, spec
        self._index: DesignIndex | None = None

    @property
    def design_index(self) -> DesignIndex:
        """Key -> place of each of these queries (the engine counts stored replies with it)."""
        if self._index is None:
            self._index = DesignIndex(self.design, self.spec)
        return self._index

    def __len__(self) -> int:
        return self.design.queries_per_model

    def __bool__(self) -> bool:
        return len(self) > 0

    def __iter__(self) -> Iterator[Query]:
        return self.design.queries(self.spec)


class MissingQueries:
    """The queries a run would send, in design order, made when iterated: every replicate of a cell
    except those in ``partial`` (cell -> the replicates still missing, for cells with something stored
    or held by a batch job)."""

    def __init__(self, design: QueryDesign, spec: ModelSpec, partial: dict[Cell, int], count: int):
        self.design, self.spec, self.partial, self.count = design, spec, partial, count

    def __len__(self) -> int:
        return self.count

    def __bool__(self) -> bool:
        return self.count > 0

    def __iter__(self) -> Iterator[Query]:
        if not self.count:
            return
        partial = self.partial
        for q in self.design.queries(self.spec):
            mask = partial.get((q.persona, q.message, q.perturbation, q.question))
            if mask is None or mask >> q.replicate & 1:
                yield q


class Pending:
    """The queries of a lazily made design that are not stored (``done``), made one at a time as the
    engine sends them; ``count`` of them."""

    def __init__(self, queries, done: set[tuple], count: int):
        self.queries, self.done, self.count = queries, done, count

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[Query]:
        return (q for q in self.queries if q.key not in self.done)


class DesignIndex(Mapping):
    """Query key -> its place in the whole design (survey.study.flow's order), computed from the key instead of
    held for every query. Independent flow: persona, question, cell, replicate; a conversation: persona, cell,
    replicate, the question's position in that persona x paraphrase's order."""

    def __init__(self, design: QueryDesign, spec: ModelSpec):
        self.study, self.model, self.replicates = design.study.name, spec.name, design.study.replicates
        self.spec, self.design = design.study, design
        self.conversation = design.study.flow == "conversation"
        self.personas = [str(p.id) for p in design.personas]
        self.questions = [q.id for q in design.questions]
        self.cells = [[(c[0], c[1]) for c in design.cell_prompts(question=q)] for q in design.questions]
        self._persona = {p: i for i, p in enumerate(self.personas)}
        self._question = {q: i for i, q in enumerate(self.questions)}
        self._cell = [{c: i for i, c in enumerate(cells)} for cells in self.cells]
        self._offset = [sum(len(c) for c in self.cells[:i]) for i in range(len(self.cells))]
        self._per_persona = sum(len(c) for c in self.cells)

    def __getitem__(self, key) -> int:
        from survey.common.names import DEFAULT_QUESTION

        try:
            study, model, message, perturbation, persona, k, *rest = key
        except (TypeError, ValueError):
            raise KeyError(key) from None
        question = rest[0] if len(rest) == 1 else DEFAULT_QUESTION if not rest else None
        qi, pi = self._question.get(question), self._persona.get(persona)
        ci = self._cell[qi].get((message, perturbation)) if qi is not None else None
        if (study != self.study or model != self.model or pi is None or ci is None or isinstance(k, bool)
                or not isinstance(k, int) or not 0 <= k < self.replicates):
            raise KeyError(key)
        if self.conversation:
            from survey.study.flow import conversation_order

            n = len(self.questions)
            position = conversation_order(self.spec, persona, message, perturbation).index(qi)
            return ((pi * len(self.cells[0]) + ci) * self.replicates + k) * n + position
        return (pi * self._per_persona + self._offset[qi] + ci) * self.replicates + k

    def __len__(self) -> int:
        return len(self.personas) * self._per_persona * self.replicates

    def __iter__(self) -> Iterator[tuple]:
        for q in self.design.queries(self.design.study.model(self.model)):
            yield q.key


PROMPT_ORDER_WINDOW = 100_000  # queries sorted at a time: a design of millions is still never all in memory


class PromptOrdered:
    """``queries`` sorted by prompt (system, then user; replicates keep their order), ``window`` at a time:
    for a backend that reuses the work of a shared prompt prefix (Capabilities.prompt_order)."""

    def __init__(self, queries, window: int = PROMPT_ORDER_WINDOW):
        self.queries, self.window = queries, window

    def __len__(self) -> int:
        return len(self.queries)

    def __iter__(self) -> Iterator[Query]:
        it = iter(self.queries)
        while chunk := list(islice(it, self.window)):
            yield from sorted(chunk, key=prompt_order_key)
