"""Collect a study in rounds of paraphrase pairs and stop each model once its sequential test decides.

Round k buys, for every persona and replicate, the first m_k paraphrase pairs of messages a and b (pair j
is paraphrase j of each in design order); other messages are bought in full with the first round. After
each round the stopping rule (survey.stats.sequential) runs on each model's table; a model that rejected,
or stopped for futility, gets no more rounds. Each model's decision and path (look, pairs, statistic,
boundary, spent alpha) are stored in the store's ``sequential`` table, replaced after every round.

A study of several questions buys every question for each round's pairs (a query's question does not
change whether it is in the round), and the rule reads only the primary question's rows (``[analysis]
primary``, required then: the deciding question is fixed before the data); the other questions are
analysed as fixed designs on what was bought.

Batch backends: each round is one plan, so one batch job per round; the engine stores its job id and a
resumed run picks the open job up instead of resubmitting it.
"""

from __future__ import annotations

from dataclasses import replace

from survey.collect.run_plan import Plan
from survey.data.sequential_paths import read_paths, record_path
from survey.data.sources import Source
from survey.errors import SurveyError
from survey.stats.sequential.design import SequentialDesign


def messages_and_pairs(plan: Plan) -> tuple[str, str, list[tuple[str, str]]]:
    """The two messages and their pairs in design order, at most max_pairs."""
    spec = plan.study.sequential
    msgs = {m.id: m for m in plan.design.messages}
    ids = list(msgs)
    a = spec.a or (ids[0] if ids else None)
    b = spec.b or (ids[1] if len(ids) > 1 else None)
    for name in (a, b):
        if name not in msgs:
            raise SurveyError(f"[sequential]: message '{name}' is not in the study; it has {', '.join(ids)}")
    if a == b:
        raise SurveyError("[sequential]: a and b must be two different messages")
    pairs = list(zip([str(p.id) for p in msgs[a].items], [str(p.id) for p in msgs[b].items], strict=False))
    return a, b, pairs[:spec.max_pairs]


def _primary_rows(source: Source, study) -> Source:
    """The rows the stopping rule reads: the primary question's (all rows for a study of one question)."""
    if len(study.questions) < 2:
        return source
    return source.for_question(study.question.id)


def _round_plan(plan: Plan, models: set[str], keep) -> Plan:
    return replace(plan, models=[replace(m, queries=[q for q in m.queries if keep(q)],
                                         missing=[q for q in m.missing if keep(q)])
                                 for m in plan.models if m.spec.name in models])


async def collect_in_rounds(engine, plan: Plan, collect) -> dict[str, dict]:
    """Buy ``plan`` round by round (``collect(engine, plan)`` buys one round); model -> final result."""
    from survey.stats.sequential import replay

    spec = plan.study.sequential
    a, b, pairs = messages_and_pairs(plan)
    if not pairs:
        raise SurveyError(f"[sequential]: messages '{a}' and '{b}' have no paraphrase pairs")
    design = SequentialDesign(**{**spec.model_dump(exclude={"a", "b"}), "max_pairs": len(pairs),
                                 "round_pairs": min(spec.round_pairs, len(pairs))})
    rank = {(msg, pid): j for j, pair in enumerate(pairs) for msg, pid in zip((a, b), pair, strict=True)}
    store, study = engine.store, plan.study.name
    results = {m: doc for m, doc in read_paths(store, study).items() if doc["decision"] in ("reject", "futility")}
    active = {m.spec.name for m in plan.models} - set(results)
    # A resumed run starts again at round 1: stored rounds send nothing, and the engine finishes any open
    # batch job first whatever round it holds (its replies land by their custom ids), never resubmitting it.
    total = None  # the rounds' reports added up: the engine's own report covers its last round only
    for upto in design.looks():
        if not active:
            break

        def keep(q, upto=upto):
            j = rank.get((q.message, q.perturbation))
            return j < upto if j is not None else q.message not in (a, b)
        await collect(engine, _round_plan(plan, active, keep))  # rows keep their place in the whole design (ModelPlan.seq)
        report = getattr(engine, "report", None)
        if report is not None:
            total = report if total is None else total.add(report)
            engine.report = total
        if report is not None and report.incomplete:
            break  # interrupted or failed: a rerun resumes from the stored rows
        source = _primary_rows(Source.of(store.to_long_table(study)), plan.study)
        res = replay(source, a, b, design, models=sorted(active))
        for model, r in res.items():
            doc = {**r.to_dict(), "a": a, "b": b}
            results[model] = doc
            record_path(store, study, model, doc)
            if r.result.decision in ("reject", "futility"):
                active.discard(model)
    return results
