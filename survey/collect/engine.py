"""The collection engine: send what is missing, store each reply the moment it arrives.

Per model: bounded concurrency (worker tasks), request and token rate limits (aiolimiter's leaky
bucket), exponential backoff with full jitter on retryable errors, at least Retry-After when the
provider says so. Non-retryable errors are stored on their row and summarised. Cancellation
(Ctrl-C) loses nothing that was received: every reply is committed before the next is awaited.

Batch-capable backends with ``batch=True`` go through the provider's batch API instead; the job id
is committed before the first poll, and a rerun resumes open jobs instead of resubmitting.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields

from aiolimiter import AsyncLimiter

from survey.backends.base import (
    Backend,
    BackendError,
    Query,
    Reply,
    capabilities_of,
    id_key,
    preflight,
    stops_run,
)
from survey.collect.breaker import NO_ANSWER, UNUSABLE, Breaker, server_error
from survey.collect.outcomes import (  # noqa: F401  (re-exported: callers import them here)
    as_backend_error,
    empty_statement,
    first_error,
    split_custom_id,
)
from survey.collect.reports import ModelReport, RunReport  # noqa: F401  (re-exported: callers import them here)
from survey.collect.retry_policy import RetryPolicy
from survey.collect.tokens import CHARS_PER_TOKEN, estimate_tokens  # noqa: F401  (re-exported)
from survey.common.names import DEFAULT_QUESTION
from survey.common.options import options_from
from survey.data.store import TERMINAL_BATCH, Store
from survey.errors import SurveyError
from survey.responses import BINARY, ResponseType
from survey.study.design import prompt_hash


@dataclass
class ModelRun:
    """One model's share of a run: its backend, the queries it still owes and its limits."""

    study: str
    name: str
    backend: Backend
    queries: list[Query]
    concurrency: int = 8
    rpm: float | None = None
    tpm: float | None = None
    batch: bool = False
    response: ResponseType = BINARY  # the study's question type: parses replies, scores first-token logprobs
    seq: dict[tuple, int] | None = None  # query key -> place in the whole design; None: the order of ``queries``
    # replicate -> the response type it was asked with (a balanced scale reverses odd replicates); None: ``response``
    response_for: Callable[[int], ResponseType] | None = None
    # several questions: question id -> its response type's scale name (recorded per question before sending)
    # and (question id, replicate) -> the response type a batch result without its query answers
    scales: dict[str, str] | None = None
    response_of: Callable[[str, int], ResponseType] | None = None
    conversation: bool = False  # flow = "conversation": the queries are turns, asked in order (survey.study.flow)


class Engine:
    def __init__(self, store: Store, *, policy: RetryPolicy | None = None, progress: bool = True,
                 sleep: Callable[[float], Awaitable] = asyncio.sleep, clock: Callable[[], float] = time.monotonic,
                 rng: random.Random | None = None, **keywords):
        """``policy``: when to retry, wait, poll and give up (RetryPolicy; or its fields as keywords)."""
        self.store = store
        self.policy = options_from(RetryPolicy, policy, keywords, where="Engine")
        for f in dataclass_fields(RetryPolicy):  # read as engine.max_attempts, ... by the collection loop
            setattr(self, f.name, getattr(self.policy, f.name))
        self.progress = progress
        self.sleep = sleep
        self.clock = clock  # judges outages; a test passes a fake one that its sleep advances
        self.rng = rng or random.Random()
        self.report = RunReport()
        self._seq: dict[str, dict[tuple, int]] = {}  # model -> query key -> position in the design

    async def run(self, runs: list[ModelRun]) -> RunReport:
        """Run every model concurrently; the report is live in ``self.report`` even if cancelled."""
        from survey.common.progress import RunProgress

        self.report = RunReport()
        for run in runs:  # before anything is sent: a question's replies must all be of one response type
            for question, scale in (run.scales or {DEFAULT_QUESTION: run.response.scale}).items():
                self.store.record_scale(run.study, scale, question)
        await self.preflight(runs)
        start = time.perf_counter()
        try:
            with RunProgress(enabled=self.progress) as bar:
                async with asyncio.TaskGroup() as tg:
                    for run in runs:
                        rep = self.report.models[run.name] = ModelReport(run.name, planned=len(run.queries),
                                                                         scale=run.response.scale)
                        tg.create_task(self._run_model(run, rep, bar))
        except asyncio.CancelledError:
            self.report.interrupted = True
            raise
        except BaseExceptionGroup as group:  # show the user the error, not the task plumbing
            raise first_error(group) from None
        finally:
            self.report.seconds = time.perf_counter() - start
        return self.report

    async def preflight(self, runs: list[ModelRun]) -> None:
        """One cheap request per model before any query: a wrong URL, port or key stops the run here
        with one line, instead of failing every query after all its retries."""
        async def check(run: ModelRun) -> str | None:
            for attempt in (1, 2):  # a refused connection gets one second chance
                try:
                    await preflight(run.backend)
                    return None
                except Exception as exc:  # noqa: BLE001 - classified below
                    err = as_backend_error(exc)
                if not stops_run(err):
                    return None  # 429, 5xx, slow: the server is there; the engine retries queries
                if not err.retryable:
                    break
                if attempt == 1:
                    await self.sleep(self.backoff(1))
            return f"model '{run.name}' cannot run: {err}"

        failures = [f for f in await asyncio.gather(*(check(run) for run in runs)) if f]
        if failures:
            more = f" (and {len(failures) - 1} more model(s))" if len(failures) > 1 else ""
            raise SurveyError(failures[0] + more)

    async def _run_model(self, run: ModelRun, rep: ModelReport, bar) -> None:
        done = self.store.done_keys(run.study, run.name)
        self._seq[run.name] = run.seq or {q.key: i for i, q in enumerate(run.queries)}
        if run.conversation:  # turns asked in order, each after the replies before it
            from survey.collect.conversations import Conversations

            todo = Conversations(run.queries, done, self.store)
            rep.skipped = todo.stored
            await self._run_direct(run, todo, rep, bar.add(run.name, len(todo)))
            return
        index = getattr(run.queries, "design_index", None)  # a whole design made lazily (survey.collect.design_state)
        if index is not None and not run.batch:  # sent as made: a design of millions is never in memory
            from survey.collect.design_state import Pending

            rep.skipped = sum(1 for key in done if key in index)
            todo = Pending(run.queries, done, len(run.queries) - rep.skipped)
            await self._run_direct(run, self._ordered(run, todo), rep, bar.add(run.name, len(todo)))
            return
        todo = [q for q in run.queries if q.key not in done]  # a stored reply is never sent again
        rep.skipped = len(run.queries) - len(todo)
        if run.batch:
            await self._run_batch(run, todo, rep, bar)
        else:
            await self._run_direct(run, self._ordered(run, todo), rep, bar.add(run.name, len(todo)))

    @staticmethod
    def _ordered(run: ModelRun, todo):
        """Sorted by prompt for a backend that reuses shared prefixes; else as the design made them."""
        if not capabilities_of(run.backend).prompt_order:
            return todo
        from survey.collect.design_state import PromptOrdered

        return PromptOrdered(todo)

    # -- one request at a time -------------------------------------------------------------

    async def _run_direct(self, run: ModelRun, todo, rep: ModelReport, task) -> None:
        req_limit = AsyncLimiter(run.rpm, 60) if run.rpm else None
        tok_limit = AsyncLimiter(run.tpm, 60) if run.tpm else None
        queue = iter(todo)  # shared by the workers: the order given (design or prompt order) kept up to concurrency
        after = max(self.breaker_after, 2 * run.concurrency) if self.breaker_after else 0
        breaker = Breaker(after, self.outage_seconds, self.garbage_seconds, self.clock, abort_after=self.abort_after)

        async def worker() -> None:
            for q in queue:
                if rep.stopped:
                    return
                if isinstance(q, Query):
                    await self._query(run, q, rep, task, req_limit, tok_limit, breaker)
                else:  # a conversation: its turns in order, each after the replies before it
                    await q.ask(lambda turn: self._query(run, turn, rep, task, req_limit, tok_limit, breaker))

        async with asyncio.TaskGroup() as tg:
            for _ in range(min(run.concurrency, len(todo))):
                tg.create_task(worker())

    async def _query(self, run, q: Query, rep: ModelReport, task, req_limit, tok_limit,
                     breaker: Breaker) -> str | None:
        """Send one query until it is stored; returns the reply's text, or None when it got none (failed, or
        left missing for a rerun)."""
        attempts = tries = 0  # tries: requests sent; attempts: those that count against max_attempts
        answers_before = breaker.answers  # the server's answers when this query last failed (or was first sent)
        mark = breaker.mark()
        while True:
            if tries and breaker.stopped:  # the breaker tripped while this query waited to retry
                return  # it stays missing: a rerun sends it
            attempts += 1
            tries += 1
            if req_limit:
                await req_limit.acquire()
            if tok_limit:
                await tok_limit.acquire(min(estimate_tokens(q), run.tpm))
            rep.calls += 1
            try:
                # asyncio.timeout, not wait_for: the call stays in this task, so no reply can arrive
                # and then be dropped by a cancellation before it is stored.
                async with asyncio.timeout(self.request_timeout):
                    reply = await run.backend.complete(q)
            except Exception as exc:  # noqa: BLE001 - every failure becomes a row or a retry
                err = as_backend_error(exc)
            else:
                err = empty_statement(q, reply)
            if err is None:
                self._store_reply(run, q, reply, rep, tries)
                breaker.success()
                task.advance(ok=True)
                return reply.text or ""
            if (stop := breaker.failure(err)) is not None:
                rep.stopped = rep.stopped or stop
                return  # the query stays missing: a rerun sends it
            if breaker.after and err.code in NO_ANSWER and breaker.answers == answers_before:
                attempts -= 1  # nothing answered since: an outage, whose length the breaker judges (if it is on)
            elif breaker.free_retry(err, mark):
                attempts -= 1  # every request gets 5xx: the server's trouble, whose length the breaker judges
            answers_before, mark = breaker.answers, breaker.mark()
            if err.retryable and attempts < self.max_attempts:
                rep.retries += 1
                # the server's trouble ends with its first usable reply; a Retry-After is the provider's to end
                outage = err.retry_after is None and (err.code in NO_ANSWER or err.code in UNUSABLE
                                                      or server_error(err))
                await self._wait_to_retry(self.backoff(tries, err.retry_after), breaker, outage)
                continue
            self._store_error(q, err, rep, tries)
            task.advance(ok=False)
            if (stop := breaker.gave_up(err)) is not None:
                rep.stopped = rep.stopped or stop
            return None

    async def _wait_to_retry(self, delay: float, breaker: Breaker, outage: bool = False) -> None:
        """Back off before a retry; cut short when the breaker stops the model (the query then stays missing)
        and, for an ``outage`` (the server's trouble), when another request of the model gets a usable reply."""
        wait = None
        try:
            async with asyncio.timeout(None) as wait:
                breaker.waiting.add(wait)
                if outage:
                    breaker.waiting_out.add(wait)
                await self.sleep(delay)
        except TimeoutError:
            pass  # woken by the breaker
        finally:
            breaker.waiting.discard(wait)
            breaker.waiting_out.discard(wait)

    def backoff(self, attempt: int, retry_after: float | None = None) -> float:
        """Full-jitter exponential backoff; never shorter than the provider's Retry-After."""
        delay = self.rng.uniform(0, min(self.max_delay, self.base_delay * 2 ** min(attempt - 1, 30)))
        if retry_after is not None and retry_after > 0:
            delay = max(delay, retry_after * (1 + 0.1 * self.rng.random()))
        return delay

    def _store_reply(self, run: ModelRun, q: Query | None, reply: Reply, rep: ModelReport, attempts: int,
                     batch_job: str | None = None, key: tuple | None = None) -> None:
        rtype = self._asked_with(run, q, key)
        extra = {**rtype.reply_extra, **reply.extra}  # checkbox: its option names
        if rtype.elicit == "distribution":  # a stated distribution (survey.responses.stated), stored as exact mode's
            answer, p_yes, stated = rtype.read(reply.text, id_key(key or q.key))
            extra.update(stated)
        else:
            answer = rtype.parse(reply.text)
            p_yes = reply.p_yes if reply.p_yes is not None else rtype.score_from_logprobs(reply.logprobs)
            if p_yes is not None and "distribution" not in extra and not rtype.p_yes_says_all:
                extra["distribution"] = rtype.distribution_from_logprobs(reply.logprobs)
            elif p_yes is None and reply.logprobs and (note := rtype.logprobs_note(reply.logprobs)):
                extra["expected_note"] = note  # e.g. "1" on a 0-10 scale: "1" or the start of "10"
        if q is not None:
            extra.update(q.shown)  # forced choice: what was shown second; a balanced scale: its direction
        elif run.response_for is not None:
            extra["direction"] = rtype.direction
        new = self.store.record(
            key or q.key, status="ok", prompt_hash=prompt_hash(q) if q else None,
            requested_model=q.model_id if q else None, reported_model=reply.model_id,
            response=reply.text, answer=answer, logprobs=reply.logprobs, p_yes=p_yes,
            prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens,
            attempts=attempts, batch_job=batch_job, extra=extra or None, position=q.position if q else None,
            seq=self._seq.get(run.name, {}).get(key or q.key))
        if new:
            rep.stored += 1
            if not rtype.scored:
                rep.text += 1
            elif answer is None:
                rep.invalid += 1
            else:
                rep.valid += 1

    @staticmethod
    def _asked_with(run: ModelRun, q: Query | None, key: tuple | None) -> ResponseType:
        """The response type a reply answers: the query's own (a reversed scale maps its answers back), or for
        a batch result without its query the one its replicate was asked with."""
        if q is not None:
            return q.response_type if q.response is not None else run.response
        if run.response_of is not None and key is not None:
            return run.response_of(key[6] if len(key) > 6 else DEFAULT_QUESTION, int(key[5]))
        if run.response_for is not None and key is not None:
            return run.response_for(int(key[5]))
        return run.response

    def _store_error(self, q: Query | None, err: BackendError, rep: ModelReport, attempts: int,
                     batch_job: str | None = None, key: tuple | None = None) -> None:
        code = err.code or (str(err.status) if err.status else None)
        self.store.record(key or q.key, status="failed", prompt_hash=prompt_hash(q) if q else None,
                          requested_model=q.model_id if q else None, attempts=attempts,
                          error=str(err), error_code=code, batch_job=batch_job, position=q.position if q else None,
                          seq=self._seq.get(rep.model, {}).get(key or q.key))
        rep.failed += 1
        rep.errors[(code, str(err))] += 1

    # -- batch jobs --------------------------------------------------------------------------

    async def _run_batch(self, run: ModelRun, todo: list[Query], rep: ModelReport, bar) -> None:
        if not capabilities_of(run.backend).batch:  # declared by the backend class (BatchBackend)
            raise SurveyError(f"model '{run.name}': backend {type(run.backend).__name__} has no batch API; "
                              "set batch = false")
        open_jobs = self.store.batch_jobs(run.study, run.name, open_only=True)
        pending = {cid for job in open_jobs for cid in job["custom_ids"]}
        fresh = [q for q in todo if q.custom_id not in pending]  # never resubmit what a job holds
        by_id = {q.custom_id: q for q in todo}
        jobs = [job["job_id"] for job in open_jobs]
        task = bar.add(run.name, len(todo))
        if fresh:
            task.status("submitting")
            try:
                # Not retried: a submit that timed out may have created the job; rerun to try again.
                job_id = await run.backend.submit_batch(fresh)
            except Exception as exc:  # noqa: BLE001
                err = as_backend_error(exc)
                rep.stopped = f"batch submission failed: {err}"
                rep.errors[(err.code or "submit", str(err))] += len(fresh)
                return
            self.store.add_batch_job(job_id, run.study, run.name, [q.custom_id for q in fresh])
            jobs.append(job_id)
        rep.batch_jobs = jobs
        for job_id in jobs:
            await self._finish_job(run, job_id, by_id, rep, task)

    async def _finish_job(self, run: ModelRun, job_id: str, by_id: dict, rep: ModelReport, task) -> None:
        interval = self.poll_interval
        while True:
            status = (await self._retrying(lambda: run.backend.batch_status(job_id))).upper()
            self.store.update_batch_job(job_id, status=status)
            task.status(f"job {job_id}: {status}")
            if status in TERMINAL_BATCH:
                break
            await self.sleep(interval)
            interval = min(self.max_poll_interval, interval * 1.5)
        job = next(j for j in self.store.batch_jobs(run.study, run.name) if j["job_id"] == job_id)
        try:
            results = await self._retrying(lambda: run.backend.fetch_batch(job_id))
        except Exception as exc:  # noqa: BLE001 - a failed job may have no output at all
            err = as_backend_error(exc)
            results = {}
            self.store.update_batch_job(job_id, error=str(err))
        for cid, res in results.items():
            if cid not in job["custom_ids"]:
                continue  # not ours: never let a provider write rows we did not ask for
            q = by_id.get(cid)
            key = q.key if q else split_custom_id(cid)
            if isinstance(res, BackendError):
                self._store_error(q, res, rep, 1, batch_job=job_id, key=key)
                task.advance(ok=False)
            else:
                self._store_reply(run, q, res, rep, 1, batch_job=job_id, key=key)
                task.advance(ok=True)
        rep.unanswered += len(set(job["custom_ids"]) - set(results))
        self.store.update_batch_job(job_id, ingested=True)  # its unanswered ids become missing again

    async def _retrying(self, call):
        """Polling and downloading are free, so retry them on retryable errors like requests."""
        attempts = 0
        while True:
            attempts += 1
            try:
                return await call()
            except Exception as exc:  # noqa: BLE001
                err = as_backend_error(exc)
                if not err.retryable or attempts >= self.max_attempts:
                    raise err from exc
                await self.sleep(self.backoff(attempts, err.retry_after))
