"""Carry out a run plan: one backend per model that still owes queries, all driven by the engine."""

from __future__ import annotations

import sys

from survey.backends import create_backend
from survey.collect.engine import Engine, ModelRun
from survey.collect.run_plan import Plan, backend_options
from survey.errors import SurveyError


def question_fields(study) -> dict:
    """The ModelRun fields a study's questions give: the primary's response type, each question's scale, and the
    type a batch result answers by its question and replicate."""
    by_id = {q.id: q for q in study.questions}
    return dict(response=study.question.response, response_for=study.question.response_for,
                scales={q.id: q.type for q in study.questions},
                response_of=lambda question, k: by_id[question].response_for(k),
                conversation=study.flow == "conversation")


async def collect(engine: Engine, plan: Plan) -> None:
    """Send what each model still owes (and resume its open batch jobs); always close the backends."""
    backends = []
    try:
        runs = []
        for m in plan.models:
            spec = m.spec
            engine.store.record_backend(plan.study.name, spec.name, spec.backend)  # the report prices by it
            if not m.missing and not m.open_jobs:
                continue
            try:
                backend = create_backend(spec.backend, spec.model_id, **backend_options(plan.study, spec))
            except SurveyError as exc:  # bad [models.options]: say which model of the study it is
                raise SurveyError(f"model '{spec.name}': {exc}") from exc
            backends.append(backend)
            runs.append(ModelRun(study=plan.study.name, name=spec.name, backend=backend, queries=m.queries,
                                 concurrency=spec.concurrency, rpm=spec.rpm, tpm=spec.tpm, batch=spec.batch,
                                 seq=m.seq, **question_fields(plan.study)))
        await engine.run(runs)
    finally:
        for b in backends:
            try:
                await b.aclose()
            except Exception as exc:  # noqa: BLE001 - closing must not hide the run's outcome
                print(f"warning: closing backend {getattr(b, 'name', b)} failed: {exc}", file=sys.stderr)
