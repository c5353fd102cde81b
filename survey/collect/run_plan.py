"""What a run would do: per model, the queries, what is stored, what is missing, tokens and cost.

`survey run --dry-run` prints this; a real run checks the budget against it before sending anything.
The budget caps the whole study across runs: replies already stored (and their billed tokens)
plus what this run would send.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from survey.backends.base import Query
from survey.collect.design_state import (
    DesignQueries,
    MissingQueries,
    cell_query,
    job_masks,
    question_cells,
    stored_masks,
)
from survey.collect.pricing import cost, price_of
from survey.collect.question_tokens import turn_tokens
from survey.common.display import Display
from survey.data.store import Store
from survey.errors import SurveyError
from survey.stats.permutation import cannot_reject_note
from survey.study.design import QueryDesign, build_design, prompt_hash
from survey.study.spec import ModelSpec, StudySpec

DEFAULT_ALPHA = 0.05  # the level the analyses use unless told otherwise (--alpha)


@dataclass(repr=False)
class ModelPlan(Display):
    """One model's share of a plan: its queries, what is stored or missing, estimated tokens and cost."""

    spec: ModelSpec
    # Both are sized sequences whose queries are made when iterated (survey.collect.design_state); a list
    # also does (a sequential round's slice).
    queries: Sequence[Query] | DesignQueries
    missing: Sequence[Query] | MissingQueries  # not stored and not held by an open batch job: what this run sends
    replies: int = 0  # stored replies (valid or invalid) of this design
    invalid: int = 0
    failed: int = 0  # rows whose last call failed: sent again
    in_batch: int = 0  # held by open batch jobs: resumed, not resubmitted
    changed: int = 0  # stored replies whose prompt hash differs from the current study
    input_tokens: int = 0  # estimated, for the missing queries
    output_tokens: int = 0
    cost: float | None = 0.0
    spent: float | None = 0.0  # from the billed tokens of stored replies
    open_jobs: list[str] = field(default_factory=list)
    # question id -> queries, to_send, est_input_tokens, est_output_tokens (a study of several questions)
    per_question: dict[str, dict] = field(default_factory=dict)
    seq: Mapping[tuple, int] = field(default_factory=dict)  # query key -> place in the whole design (kept by a round's slice)

    def display_parts(self):
        d = self.to_dict()
        return (f"model {d['model']} ({d['backend']}): {d['to_send']} of {d['queries']} queries to send",
                [{k: d[k] for k in ("stored", "failed", "to_send", "est_cost_usd")}], [])

    def to_dict(self) -> dict:
        s = self.spec
        return {"model": s.name, "backend": s.backend, "model_id": s.model_id, "batch": s.batch,
                "queries": len(self.queries), "stored": self.replies, "invalid": self.invalid,
                "failed": self.failed, "in_open_batch_jobs": self.in_batch, "open_jobs": self.open_jobs,
                "to_send": len(self.missing), "changed_since_stored": self.changed,
                "est_input_tokens": self.input_tokens, "est_output_tokens": self.output_tokens,
                "est_cost_usd": self.cost, "spent_usd": self.spent, "paid": s.paid,
                "questions": self.per_question}


@dataclass(repr=False)
class Plan(Display):
    """What a run would send (`Study.dry_run`, `survey run --dry-run`): per model, then totals.

    ``to_send``, ``cost`` (None when a model has no known price), ``paid``; ``check_budget()``
    raises when the study's budget would be exceeded; ``to_dict()`` is the --json output.
    """

    study: StudySpec
    design: QueryDesign
    models: list[ModelPlan]

    @property
    def to_send(self) -> int:
        return sum(len(m.missing) for m in self.models)

    @property
    def cost(self) -> float | None:
        costs = [m.cost for m in self.models]
        return None if any(c is None for c in costs) else sum(costs)

    @property
    def paid(self) -> bool:
        return any(m.spec.paid and m.missing for m in self.models)

    @property
    def context(self) -> dict:
        """What the study rests on (question, set files with sha256, texts, expected queries): the record
        a run keeps in the store (`Store.record_context`)."""
        from survey.study.context import study_context

        return study_context(self.design)

    @property
    def warnings(self) -> list[str]:
        """Design problems no run can fix: a message with so few paraphrases that the sign-flip test can
        never reject at alpha = 0.05 (two-sided: m <= 5, whose smallest p-value is 2/2^m)."""
        if not any(q.response.scored for q in self.study.questions):
            return []
        out = []
        for m in self.design.messages:
            note = cannot_reject_note(len(m.items), DEFAULT_ALPHA)
            if note:
                out.append(f"message '{m.id}' has {len(m.items)} paraphrases: {note}; add paraphrases")
        return out

    def display_parts(self):
        cost = "unknown" if self.cost is None else f"${self.cost:.2f}"
        rows = [{"model": m.spec.name, "backend": m.spec.backend, "queries": len(m.queries), "stored": m.replies,
                 "to send": len(m.missing), "est. cost": m.cost} for m in self.models]
        title = (f"Plan of study '{self.study.name}': {self.to_send} queries to send, estimated cost {cost}"
                 + (" (paid)" if self.paid else ""))
        return title, rows, self.warnings

    def to_dict(self) -> dict:
        d = self.design
        ctx = self.context
        sets = {"personas": {k: ctx["personas"][k] for k in ("set", "path", "sha256")},
                "messages": {m["id"]: {k: m[k] for k in ("set", "path", "sha256")} for m in ctx["messages"]}}
        return {"study": self.study.name, "store": str(self.study.store_path), "sets": sets,
                "personas": len(d.personas), "messages": {m.id: len(m.items) for m in d.messages},
                "replicates": self.study.replicates, "question": self.question_dict(),
                "questions": [{"id": q.id, "type": q.type} for q in self.study.questions], "flow": self.study.flow,
                "cells_per_model": d.n_cells,
                "queries_per_model": d.queries_per_model, "to_send": self.to_send,
                "est_cost_usd": self.cost, "budget": self.study.budget.model_dump(),
                "models": [m.to_dict() for m in self.models], "warnings": self.warnings}

    def question_dict(self) -> dict:
        """The (primary) question as a dry run shows it: its scale and, for a balanced scale, the reversed half."""
        q = self.study.question
        out = {"type": q.type, "order": q.order}
        if q.order == "both":
            out["reversed"] = {"replicates": "odd (1, 3, ...)", "template": q.response_for(1).template,
                               "answers": q.response_for(1).describe_values()}
        return out

    def check_budget(self) -> None:
        """Refuse, naming the cap and the numbers, a run that would exceed the study's budget."""
        b = self.study.budget
        if b.max_queries is not None:
            total = sum(m.replies for m in self.models) + self.to_send
            if total > b.max_queries:
                raise SurveyError(f"budget.max_queries = {b.max_queries} but the study needs {total} "
                                  f"({total - self.to_send} stored + {self.to_send} to send); "
                                  "raise the cap or shrink the design")
        if b.max_cost is not None:
            unknown = [m.spec.name for m in self.models if m.cost is None and m.missing]
            if unknown:
                raise SurveyError(f"budget.max_cost is set but model(s) {', '.join(unknown)} have no known "
                                  "price; set price_input and price_output (USD per 1M tokens) on them")
            spent = sum(m.spent or 0.0 for m in self.models)
            total = spent + (self.cost or 0.0)
            if total > b.max_cost:
                raise SurveyError(f"budget.max_cost = ${b.max_cost:.2f} but the study would cost about "
                                  f"${total:.2f} (${spent:.2f} spent + ${self.cost or 0:.2f} estimated); "
                                  "raise the cap or shrink the design")


def backend_options(study: StudySpec, spec: ModelSpec) -> dict:
    """A model's [models.options] as its backend gets them: options naming files (the backend's declared
    path options) resolved against the study file's folder, like the store."""
    from survey.backends import backend_capabilities

    paths = backend_capabilities(spec.backend, spec.options).path_options
    return {k: (str(study.resolve(v)) if k in paths and isinstance(v, str) else v) for k, v in spec.options.items()}


def check_models(design: QueryDesign) -> None:
    """Every model's options and params, checked without starting a backend (survey.backends.checks):
    a misspelt key or a per-message option for a message the study lacks is an error, not ignored."""
    from survey.backends.checks import check_backend_options

    messages = [m.id for m in design.messages]
    for spec in design.study.models:
        try:  # every question's: e.g. exact mode must score each one's answers
            check_backend_options(spec.backend, backend_options(design.study, spec), params=spec.params,
                                  messages=messages, responses=[q.response for q in design.questions])
        except SurveyError as exc:
            raise SurveyError(f"model '{spec.name}': {exc}") from exc


def check_rating(study: StudySpec) -> None:
    """A study whose replies are rated after the run (ssr): its embedder must be able to rate them (the local
    model's wheel installed, a provider's key set), or the run would pay for replies and then stop."""
    from survey.embed import check_embedder_ready

    for question in study.questions:
        if question.response.rated_text:
            check_embedder_ready(question.rating["embedder"])


def make_plan(study: StudySpec, store: Store, design: QueryDesign | None = None,
              models: list[str] | None = None) -> Plan:
    """The plan of a run (see Plan); models' options and the rating's embedder are checked first
    (`check_models`, `check_rating`), so a dry run refuses what the run would refuse."""
    design = design or build_design(study)
    check_models(design)
    check_rating(study)
    specs = [study.model(name) for name in models] if models else study.models
    return Plan(study, design, [_model_plan(study, design, spec, store) for spec in specs])


def check_keys(plan: Plan) -> None:
    """The API key of every model with queries to send (or batch jobs to resume): a dry run refuses with the
    line the run would stop with when it creates the backend (survey.collect.runner), before any request.
    Not part of ``make_plan``: an offline batch file (survey.collect.offline_batch) is made without a key."""
    from survey.backends.checks import check_backend_key

    for m in plan.models:
        if not m.missing and not m.open_jobs:
            continue  # the run creates no backend for it
        try:
            check_backend_key(m.spec.backend, backend_options(plan.study, m.spec))
        except SurveyError as exc:
            raise SurveyError(f"model '{m.spec.name}': {exc}") from exc


def _model_plan(study: StudySpec, design: QueryDesign, spec: ModelSpec, store: Store) -> ModelPlan:
    """One model's plan, cell by cell (survey.collect.design_state): the store read with aggregated SQL,
    no query made; ``queries`` and ``missing`` make theirs when a run iterates them."""
    r = study.replicates
    full = (1 << r) - 1
    ok = stored_masks(store, study.name, spec.name, "ok", r)
    failed = {cell: _union(by_hash) for cell, by_hash in
              stored_masks(store, study.name, spec.name, "failed", r).items()}
    jobs = store.batch_jobs(study.name, spec.name, open_only=True)
    in_jobs = job_masks(jobs, study.name, spec.name, r)
    queries = DesignQueries(design, spec)
    plan = ModelPlan(spec, queries, [], open_jobs=[j["job_id"] for j in jobs], seq=queries.design_index)
    partial: dict[tuple, int] = {}  # cell -> replicates still missing, where not all are
    per_question = question_cells(design, spec)
    tokens = turn_tokens(design, spec, per_question)
    counts = {q.id: dict.fromkeys(("queries", "to_send", "est_input_tokens", "est_output_tokens"), 0)
              for q, _, _ in per_question}
    for persona in design.personas:
        pid = str(persona.id)
        for question, settings, cells in per_question:
            system = design.system_prompt(persona, question.response)
            count = counts[question.id]
            for cell in cells:
                key = (pid, cell[0], cell[1], question.id)
                todo = full
                by_hash = ok.get(key)
                if by_hash:
                    done = _union(by_hash)
                    plan.replies += done.bit_count()
                    if any(h is not None for h in by_hash):
                        current = prompt_hash(cell_query(design, spec, settings, pid, system, cell))
                        plan.changed += sum(m.bit_count() for h, m in by_hash.items() if h not in (None, current))
                    todo &= ~done
                held = in_jobs.get(key, 0) & todo
                if held:
                    plan.in_batch += held.bit_count()
                    todo &= ~held
                plan.failed += (failed.get(key, 0) & todo).bit_count()
                if todo != full:
                    partial[key] = todo
                n = todo.bit_count()
                count["queries"] += r
                count["to_send"] += n
                count["est_input_tokens"] += n * tokens(system, question, cell)
                count["est_output_tokens"] += n * design.max_tokens(spec, question)
    plan.per_question = counts
    plan.input_tokens = sum(c["est_input_tokens"] for c in counts.values())
    plan.output_tokens = sum(c["est_output_tokens"] for c in counts.values())
    plan.missing = MissingQueries(design, spec, partial, sum(c["to_send"] for c in counts.values()))
    price = price_of(spec)
    plan.cost = cost(price, plan.input_tokens, plan.output_tokens)
    summary = next((s for s in store.summary(study.name) if s["model"] == spec.name), None)
    if summary:
        plan.invalid = summary["invalid"]
        plan.spent = cost(price, summary["prompt_tokens"], summary["completion_tokens"])
    return plan


def _union(by_hash: dict) -> int:
    out = 0
    for mask in by_hash.values():
        out |= mask
    return out
