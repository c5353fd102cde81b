"""Offline batches: a model's missing queries as an OpenAI batch file, and its results back into the store.

vLLM's offline runner reads and writes the OpenAI Batch API's JSONL, so a GPU box runs a whole study
without a server:

    survey batch export study.toml --model qwen --out requests.jsonl      # export_batch(...)
    python -m vllm.entrypoints.openai.run_batch -i requests.jsonl -o results.jsonl --model Qwen/Qwen3-8B
    survey batch import study.toml --model qwen results.jsonl             # import_batch(...)

The model entry must use ``backend = "openai"`` (its request bodies are OpenAI's; ``preset = "vllm"``
marks it self-hosted). Import goes through the engine's own batch path: the file becomes a finished
batch job of the store (id ``file-<sha256 prefix>``, kept on every row it answered), so replies are
parsed and scored exactly as in a run, a stored reply is never overwritten, lines of other models or
studies are ignored, and importing the same file twice stores nothing new.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from survey.backends.base import BackendError, Capabilities, Query, Reply
from survey.errors import SurveyError


@dataclass
class BatchExport:
    """What `export_batch` wrote: ``queries`` request lines to ``path`` (None: nothing was missing)."""

    model: str
    path: str | None
    queries: int
    stored: int  # already answered in the store: not exported
    in_open_jobs: int  # held by open provider batch jobs: not exported

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class BatchImport:
    """What `import_batch` did with a results file."""

    model: str
    job_id: str  # the store's record of the file: every imported row carries it in batch_job
    lines: int  # result lines in the file
    stored: int  # new replies stored
    invalid: int  # of those, answers that are not a label of the question (kept, with their raw text)
    failed: int  # lines that report an error: stored as failed rows, sent again by a run or the next export
    already: int  # lines whose query was already answered: left as they were
    foreign: int  # lines for other models, studies or designs: ignored
    missing: int  # queries of this model still without a reply after the import

    def to_dict(self) -> dict:
        return asdict(self)


def _openai_model(study, model: str):
    spec = study.spec.model(model)
    if spec.backend != "openai":
        raise SurveyError(f"model '{model}' uses backend '{spec.backend}'; batch files hold OpenAI-compatible "
                          "requests, so give it backend = \"openai\" (preset = \"vllm\" for a vLLM box)")
    return spec


def export_batch(study, model: str, out: str | Path) -> BatchExport:
    """Write the queries model ``model`` of ``study`` (a survey.api.Study) still owes as an OpenAI
    batch file (``custom_id``, ``method``, ``url``, ``body``), for vLLM's ``run-batch`` or any Batch API.
    Stored replies and queries held by open batch jobs are left out; nothing is written when none remain."""
    from survey.backends.openai_batch import request_body, request_lines
    from survey.backends.openai_compat import OpenAIOptions, thinking_off
    from survey.backends.provider import parse_options

    spec = _openai_model(study, model)
    preset = parse_options(OpenAIOptions, "openai", dict(spec.options)).preset
    (plan,) = study._read_plan([model]).models  # a batch file is made without the API key: not checked
    result = BatchExport(model, None, len(plan.missing), plan.replies, plan.in_batch)
    if plan.missing:
        bodies = [request_body(q, spec.model_id, thinking_off=thinking_off(preset, q.model_id or spec.model_id))
                  for q in plan.missing]
        path = Path(out)
        path.write_bytes(request_lines(plan.missing, bodies))
        result.path = str(path)
    return result


class _ResultsFile:
    """A finished batch job whose results come from a file: the engine's batch path stores them."""

    name = "results-file"
    capabilities = Capabilities(paid=False, needs_model_id=False, batch=True)

    def __init__(self, job_id: str, results: dict[str, Reply | BackendError]):
        self.job_id = job_id
        self.results = results

    async def complete(self, query: Query) -> Reply:
        raise BackendError("a results file answers no direct queries", retryable=False, code="offline")

    async def submit_batch(self, queries: list[Query]) -> str:
        raise BackendError("a results file submits nothing", retryable=False, code="offline")

    async def batch_status(self, job_id: str) -> str:
        if job_id != self.job_id:
            raise BackendError(f"job {job_id} is not this results file", retryable=False, code="offline")
        return "SUCCESS"

    async def fetch_batch(self, job_id: str) -> dict[str, Reply | BackendError]:
        return self.results

    async def aclose(self) -> None:
        return None


def read_results(path: str | Path) -> tuple[bytes, dict[str, Reply | BackendError]]:
    """The file's bytes and its results by custom_id; a line that is not a batch result is a SurveyError."""
    from survey.backends.openai_batch import parse_result_line

    data = Path(path).read_bytes()
    results: dict[str, Reply | BackendError] = {}
    for n, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise SurveyError(f"{path}: line {n} is not JSON ({exc})") from None
        if not isinstance(row, dict) or "custom_id" not in row or not ({"response", "error"} & set(row)):
            hint = " (this is a requests file: import the file run-batch wrote)" if isinstance(row, dict) \
                and "body" in row else ""
            raise SurveyError(f"{path}: line {n} is not a batch result with custom_id and response{hint}")
        custom_id, result = parse_result_line(row)
        results[str(custom_id)] = result
    return data, results


def import_batch(study, model: str, results: str | Path) -> BatchImport:
    """Store the replies of a batch results file (vLLM run-batch's output, or a Batch API output or error
    file) for model ``model`` of ``study``, through the engine's batch path: parsed and scored as in a
    run, never overwriting a stored reply. Returns the counts (`BatchImport`)."""
    from survey.collect.engine import Engine, ModelRun
    from survey.collect.runner import question_fields
    from survey.common.event_loop import run_coroutine
    from survey.data.store import Store

    spec = _openai_model(study, model)
    data, parsed = read_results(results)
    full = study._read_plan([model])  # refuses stored rows collected with another prompt (needs no key)
    (plan,) = full.models
    by_id = {q.custom_id: q for q in plan.queries}
    job_id = "file-" + hashlib.sha256(data).hexdigest()[:16]
    outcome = BatchImport(model, job_id, len(parsed), 0, 0, 0, 0, sum(cid not in by_id for cid in parsed), 0)

    async def ingest() -> None:
        with Store(study.store_path) as store:  # opened in the thread that runs the loop (SQLite wants that)
            done = store.done_keys(study.name, model)
            jobs = store.batch_jobs(study.name, model)
            if any(j["job_id"] == job_id and j["ingested"] for j in jobs):
                outcome.already = sum(cid in by_id for cid in parsed)
                return
            others = [j["job_id"] for j in jobs if not j["ingested"] and j["job_id"] != job_id]
            if others:
                raise SurveyError(f"model '{model}' has open batch job(s) {', '.join(others)}; finish them with "
                                  "`survey run` before importing a results file")
            ours = [cid for cid in parsed if cid in by_id and by_id[cid].key not in done]
            outcome.already = sum(cid in by_id for cid in parsed) - len(ours)
            if ours:
                if not any(j["job_id"] == job_id for j in jobs):  # else: an import that was cut short
                    store.add_batch_job(job_id, study.name, model, ours, status="SUCCESS")
                store.record_backend(study.name, model, spec.backend)
                store.record_context(study.name, full.context)
                engine = Engine(store, progress=False, poll_interval=0.0)
                report = await engine.run([ModelRun(study.name, model, _ResultsFile(job_id, parsed),
                                                    [by_id[cid] for cid in ours], batch=True,
                                                    **question_fields(study.spec))])
                rep = report.models[model]
                outcome.stored, outcome.invalid, outcome.failed = rep.stored, rep.invalid, rep.failed
            outcome.missing = len(plan.queries) - len(store.done_keys(study.name, model))

    run_coroutine(ingest())
    return outcome

