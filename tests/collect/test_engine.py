"""The engine against scripted in-process backends: retries, failures, resume, cancel, batch."""

import asyncio
import random
from collections import Counter

import pytest
from batch_jobs import keep_job
from virtual_time import VirtualTime

from survey.backends.base import BackendError, Capabilities, Query, Reply
from survey.collect.engine import Engine, ModelRun
from survey.data.store import Store
from survey.data.table import validate_table
from survey.errors import SurveyError
from survey.responses import response_type


def make_queries(n=4, m=3, r=2, model="fake"):
    return [Query("st", model, msg, f"{msg}-{j}", f"P{i}", k, system=f"persona {i}", user=f"{msg} {j}")
            for i in range(n) for msg in ("A", "B") for j in range(m) for k in range(r)]


class ScriptedBackend:
    """Replies 'Yes'/'No' by default; ``script[key]`` lists outcomes for successive calls. With
    ``hold_after``, calls after that many wait until cancelled; ``held`` is set when the first waits."""

    name = "fake"

    def __init__(self, script=None, hold_after=None):
        self.script = {k: list(v) for k, v in (script or {}).items()}
        self.calls = Counter()
        self.returned = 0
        self.started = 0
        self.hold_after = hold_after
        self.held: asyncio.Event | None = None  # made in the run's event loop

    async def complete(self, q: Query) -> Reply:
        self.calls[q.key] += 1
        self.started += 1
        if self.hold_after is not None and self.started > self.hold_after:
            self.held.set()
            await asyncio.Event().wait()  # until the run is cancelled
        steps = self.script.get(q.key)
        outcome = steps.pop(0) if steps else None
        if isinstance(outcome, BaseException):
            raise outcome
        text = outcome if isinstance(outcome, str) else ("Yes" if q.replicate % 2 == 0 else "No")
        self.returned += 1
        return Reply(text=text, model_id="fake-2025", prompt_tokens=10, completion_tokens=1,
                     logprobs={"Yes": -0.2, "No": -1.7})

    async def aclose(self):
        pass


class Sleeps:
    def __init__(self):
        self.delays = []

    async def __call__(self, d):
        self.delays.append(d)


def engine(store, **kw):
    kw.setdefault("sleep", Sleeps())
    return Engine(store, progress=False, base_delay=0.01, max_attempts=4, **kw)


def run(eng, *runs):
    return asyncio.run(eng.run(list(runs)))


def rate_limited(after=2.5):
    return BackendError("429 rate limited", retryable=True, status=429, retry_after=after)


def test_faults_exact_counts_and_resume_without_double_send(tmp_path):
    qs = make_queries()
    assert len(qs) == 48
    k = [q.key for q in qs]
    hard = BackendError("content filter", retryable=False, code="content_filter")
    script = {
        k[0]: [rate_limited(), rate_limited(), "Yes"],            # two 429s then a reply
        k[1]: [BackendError("503", retryable=True, status=503), "No"],
        k[2]: [TimeoutError(), "Yes"],                            # raw timeouts retry too
        k[3]: [ConnectionResetError("reset"), "No"],
        k[4]: [hard],                                              # non-retryable: one call, failed row
        k[5]: [BackendError("500", retryable=True, status=500)] * 4,  # exhausts max_attempts=4
        k[6]: ["Maybe"], k[7]: ["I would rather not say"], k[8]: [""],  # garbage: stored, invalid
        k[9]: [ValueError("bug in backend")],                     # unexpected: recorded, not retried
    }
    backend = ScriptedBackend(script)
    with Store(tmp_path / "s.sqlite") as store:
        eng = engine(store)
        rep = run(eng, ModelRun("st", "fake", backend, qs, concurrency=5))
        m = rep.models["fake"]
        assert (m.stored, m.failed, m.invalid, m.valid) == (45, 3, 3, 42)
        assert m.retries == 2 + 1 + 1 + 1 + 3
        assert m.calls == sum(backend.calls.values()) == 48 + m.retries
        assert backend.calls[k[5]] == 4 and backend.calls[k[4]] == 1 and backend.calls[k[9]] == 1
        # Retry-After honoured: the two waits on k[0] are at least 2.5 s
        assert sum(d >= 2.5 for d in eng.sleep.delays) == 2
        codes = {c for (c, _msg) in m.errors}
        assert codes == {"content_filter", "500", "internal"}
        df = store.to_long_table()
        assert len(df) == 45 and validate_table(df).shape[0] == 45
        assert store.db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 48  # no cell lost
        row = df[(df.persona == "P0") & (df.message == "A") & (df.perturbation == "A-0") & (df.replicate == 0)]
        assert int(row["attempts"].iloc[0]) == 3 and row["model_id"].iloc[0] == "fake-2025"

        # Rerun: only the 3 failed rows are sent; nothing stored is requested again.
        before = Counter(backend.calls)
        rep2 = run(engine(store), ModelRun("st", "fake", backend, qs, concurrency=5))
        sent_again = {key for key in backend.calls if backend.calls[key] != before[key]}
        assert sent_again == {k[4], k[5], k[9]}
        assert rep2.models["fake"].skipped == 45 and rep2.models["fake"].stored == 3
        assert store.db.execute("SELECT COUNT(*) FROM responses WHERE status = 'ok'").fetchone()[0] == 48

        # Third run: everything is stored, no call at all.
        before = sum(backend.calls.values())
        rep3 = run(engine(store), ModelRun("st", "fake", backend, qs))
        assert sum(backend.calls.values()) == before and rep3.models["fake"].calls == 0


def test_p_yes_from_logprobs_is_stored(tmp_path):
    qs = make_queries(1, 2, 1)
    with Store(tmp_path / "s.sqlite") as store:
        run(engine(store), ModelRun("st", "fake", ScriptedBackend(), qs))
        p = store.to_long_table()["p_yes"]
        import math
        expected = math.exp(-0.2) / (math.exp(-0.2) + math.exp(-1.7))
        assert p.tolist() == pytest.approx([expected] * len(qs))


def test_text_mode_keeps_text_and_leaves_answer_empty(tmp_path):
    qs = make_queries(1, 2, 1)
    backend = ScriptedBackend({q.key: ["Yes, I love them."] for q in qs})
    with Store(tmp_path / "s.sqlite") as store:
        rep = run(engine(store), ModelRun("st", "fake", backend, qs, response=response_type("text")))
        df = store.to_long_table()
        assert df["answer"].isna().all() and (df["response"] == "Yes, I love them.").all()
        # free text is the datum: counted as text, never as invalid, and no P(Yes) is read from it
        m = rep.models["fake"]
        assert (m.scale, m.stored, m.text, m.valid, m.invalid) == ("text", len(qs), len(qs), 0, 0)
        assert df["p_yes"].isna().all() and (df["scale"] == "text").all()


def test_a_study_keeps_its_response_type(tmp_path):
    qs = make_queries(1, 2, 1)
    with Store(tmp_path / "s.sqlite") as store:
        run(engine(store), ModelRun("st", "fake", ScriptedBackend(), qs[:2]))
        backend = ScriptedBackend()
        with pytest.raises(SurveyError, match="holds 'binary' replies, not 'text'"):
            run(engine(store), ModelRun("st", "fake", backend, qs, response=response_type("text")))
        assert not backend.calls  # refused before anything was sent


def test_backoff_grows_and_respects_retry_after():
    eng = Engine(None, base_delay=1.0, max_delay=8.0, progress=False)
    for attempt in range(1, 8):
        assert 0 <= eng.backoff(attempt) <= min(8.0, 2 ** (attempt - 1))
    assert all(eng.backoff(1, retry_after=30) >= 30 for _ in range(20))


def test_consecutive_hard_failures_stop_the_model(tmp_path):
    qs = make_queries()
    bad_key = BackendError("401 invalid api key", retryable=False, status=401)
    backend = ScriptedBackend({q.key: [bad_key] for q in qs})
    with Store(tmp_path / "s.sqlite") as store:
        rep = run(engine(store, abort_after=5), ModelRun("st", "fake", backend, qs, concurrency=1))
        m = rep.models["fake"]
        assert m.failed == 5 and sum(backend.calls.values()) == 5 and "invalid api key" in m.stopped


class Outage(ScriptedBackend):
    """Refuses every connection while the simulated clock is inside [start, start + seconds); ``start`` is the
    moment of the ``after``-th call (None: no outage yet)."""

    def __init__(self, vt, after, seconds):
        super().__init__()
        self.vt, self.after, self.seconds, self.start = vt, after, seconds, None
        self.refused = 0

    async def complete(self, q):
        if self.start is None and sum(self.calls.values()) >= self.after:
            self.start = self.vt.clock()
        if self.start is not None and self.vt.clock() < self.start + self.seconds:
            self.calls[q.key] += 1
            self.refused += 1
            raise ConnectionRefusedError("refused")
        return await super().complete(q)


def outage_engine(store, vt, **kw):
    # the engine's real backoff (1 s base, 60 s cap, 8 attempts), in simulated time
    return Engine(store, progress=False, sleep=vt.sleep, clock=vt.clock, rng=random.Random(7), **kw)


@pytest.mark.parametrize("seconds", [10, 60])
def test_a_server_restart_is_ridden_through_without_a_failed_row(tmp_path, seconds):
    # before: 20 connection failures in a row stopped the model whatever the time (a 10 s restart at
    # concurrency 4 tripped it after about 3 s); now the breaker judges the time nothing answered
    vt = VirtualTime()
    qs = make_queries(n=10)
    backend = Outage(vt, after=30, seconds=seconds)
    with Store(tmp_path / "s.sqlite") as store:
        m = run(outage_engine(store, vt), ModelRun("st", "fake", backend, qs, concurrency=4)).models["fake"]
        assert backend.refused >= 20 and vt.latest >= seconds  # the outage happened, and lasted
        assert m.stopped is None and (m.stored, m.failed) == (len(qs), 0)  # no query used up its attempts
        assert backend.returned == len(qs)  # each query answered once: nothing paid twice
        assert max(vt.delays) <= 60 * 1.1


def test_the_breaker_stops_a_model_nothing_answers_for_outage_seconds(tmp_path):
    vt = VirtualTime()
    qs = make_queries()
    with Store(tmp_path / "s.sqlite") as store:
        backend = Outage(vt, after=5, seconds=float("inf"))  # the server never comes back
        m = run(outage_engine(store, vt, breaker_after=5), ModelRun("st", "fake", backend, qs, concurrency=8)
                ).models["fake"]
        assert "stopped: no answer from the server for" in m.stopped and "rerun to send the rest" in m.stopped
        assert 120 <= vt.latest < 120 + 2 * 60 * 1.1  # stopped soon after the outage window, not hours later
        assert backend.refused >= 16  # at least twice the concurrency failed in a row
        # the five replies before the outage are kept; nothing else was recorded as failed: it is all still owed
        assert (m.stored, m.failed) == (5, 0) and store.db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 5
        blips = ScriptedBackend({q.key: [TimeoutError()] for q in qs})  # every query times out once
        m = run(engine(store, breaker_after=2), ModelRun("st", "fake", blips, qs, concurrency=1)).models["fake"]
        assert m.stopped is None and m.stored == 48 - 5  # a success in between resets the count
    assert Engine(None).breaker_after == 20 and Engine(None).outage_seconds == 120  # the documented defaults


def test_a_query_the_server_keeps_dropping_fails_while_others_are_answered(tmp_path):
    # an attempt is free only in an outage; a query whose connection alone keeps dropping uses up
    # its attempts and is stored as failed (a rerun sends it), instead of being retried for ever
    class Interleaved(ScriptedBackend):  # each call lets the other workers run (no wall time involved)
        async def complete(self, q):
            await asyncio.sleep(0)
            return await super().complete(q)

    vt = VirtualTime()
    qs = make_queries(n=4)
    bad = qs[0].key
    backend = Interleaved({bad: [ConnectionResetError("reset")] * 100})
    with Store(tmp_path / "s.sqlite") as store:
        m = run(engine(store, sleep=vt.sleep, clock=vt.clock), ModelRun("st", "fake", backend, qs, concurrency=4)
                ).models["fake"]
        assert (m.stored, m.failed, m.stopped) == (len(qs) - 1, 1, None) and 4 <= backend.calls[bad] <= 6


def test_cancel_keeps_every_received_reply(tmp_path):
    qs = make_queries(n=10)
    backend = ScriptedBackend(hold_after=30)  # 30 replies, then held: cancelled mid-run on any machine

    async def go(store):
        eng = engine(store)
        backend.held = asyncio.Event()
        task = asyncio.create_task(eng.run([ModelRun("st", "fake", backend, qs, concurrency=4)]))
        await backend.held.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return eng

    with Store(tmp_path / "s.sqlite") as store:
        eng = asyncio.run(go(store))
        stored = store.db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
        assert eng.report.interrupted
        assert stored == backend.returned == 30
        backend.hold_after = None
        # resume: every query ends up stored exactly once, none sent twice after its reply
        before = Counter(backend.calls)
        done = store.done_keys("st")
        run(engine(store), ModelRun("st", "fake", backend, qs, concurrency=4))
        assert all(backend.calls[k] == before[k] for k in done)
        assert store.db.execute("SELECT COUNT(*) FROM responses WHERE status = 'ok'").fetchone()[0] == len(qs)


class FakeBatch(ScriptedBackend):
    """A provider batch API kept in memory across runs: jobs, polls, results."""

    capabilities = Capabilities(batch=True)

    def __init__(self, polls_until_done=2, drop=(), fail=()):
        super().__init__()
        self.jobs, self.submits, self.polls = {}, [], Counter()
        self.polls_until_done, self.drop, self.fail = polls_until_done, set(drop), set(fail)

    async def submit_batch(self, queries):
        return keep_job(self.jobs, self.submits, queries)

    async def batch_status(self, job_id):
        self.polls[job_id] += 1
        return "SUCCESS" if self.polls[job_id] > self.polls_until_done else "RUNNING"

    async def fetch_batch(self, job_id):
        out = {}
        for q in self.jobs[job_id]:
            if q.key in self.drop:
                continue
            if q.key in self.fail:
                out[q.custom_id] = BackendError("bad request", retryable=False, code="invalid")
            else:
                out[q.custom_id] = Reply(text="Yes" if q.replicate == 0 else "no.", prompt_tokens=12,
                                         completion_tokens=1)
        out["somebody-else\x1fx"] = Reply(text="Yes")  # ids we never asked for are ignored
        return out


def test_batch_interrupted_after_submit_resumes_the_same_job(tmp_path):
    qs = make_queries()
    backend = FakeBatch(polls_until_done=3, drop={qs[0].key}, fail={qs[1].key})

    async def interrupted_run(store):
        main = asyncio.current_task()

        async def interrupting_sleep(d):  # the run is cancelled (Ctrl-C) during its first poll wait
            main.cancel()
            await asyncio.sleep(3600)

        await Engine(store, progress=False, sleep=interrupting_sleep).run(
            [ModelRun("st", "fake", backend, qs, batch=True)])

    with Store(tmp_path / "s.sqlite") as store:
        with pytest.raises(asyncio.CancelledError):
            asyncio.run(interrupted_run(store))
        jobs = store.batch_jobs("st", "fake", open_only=True)
        assert [j["job_id"] for j in jobs] == ["job-1"] and jobs[0]["status"] == "RUNNING"
        assert len(jobs[0]["custom_ids"]) == 48
        assert store.db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 0

        # Rerun: resumes job-1, never resubmits; ingests 46 replies + 1 failure, 1 unanswered.
        rep = run(engine(store), ModelRun("st", "fake", backend, qs, batch=True))
        m = rep.models["fake"]
        assert backend.submits == ["job-1"]
        assert (m.stored, m.failed, m.unanswered, m.batch_jobs) == (46, 1, 1, ["job-1"])
        assert m.valid == 46  # "no." parses as No
        assert store.batch_jobs("st", "fake", open_only=True) == []
        assert store.db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 47
        assert store.db.execute("SELECT COUNT(DISTINCT batch_job) FROM responses").fetchone()[0] == 1

        # Next run submits only what is missing: the dropped and the failed query.
        backend.drop, backend.fail = set(), set()
        rep = run(engine(store), ModelRun("st", "fake", backend, qs, batch=True))
        assert backend.submits == ["job-1", "job-2"]
        assert sorted(q.key for q in backend.jobs["job-2"]) == sorted([qs[0].key, qs[1].key])
        assert store.db.execute("SELECT COUNT(*) FROM responses WHERE status = 'ok'").fetchone()[0] == 48
        assert backend.calls == Counter()  # the batch path never used the per-request API

        # Nothing left: no submission at all.
        run(engine(store), ModelRun("st", "fake", backend, qs, batch=True))
        assert backend.submits == ["job-1", "job-2"]


def test_batch_needs_a_batch_backend(tmp_path):
    with Store(tmp_path / "s.sqlite") as store, pytest.raises(SurveyError, match="no batch API"):
        run(engine(store), ModelRun("st", "fake", ScriptedBackend(), make_queries(1, 2, 1), batch=True))


def test_rate_limits_reach_the_limiters(tmp_path, monkeypatch):
    """rpm and tpm become per-minute buckets; each query acquires 1 request and its token estimate."""
    import survey.collect.engine as engine_mod

    made = []

    class RecordingLimiter:
        def __init__(self, max_rate, time_period):
            self.max_rate, self.time_period, self.amounts = max_rate, time_period, []
            made.append(self)

        async def acquire(self, amount=1):
            assert amount <= self.max_rate  # aiolimiter rejects more than its capacity
            self.amounts.append(amount)

    monkeypatch.setattr(engine_mod, "AsyncLimiter", RecordingLimiter)
    qs = make_queries(2, 2, 1)
    script = {qs[0].key: [rate_limited(0.1), "Yes"]}
    with Store(tmp_path / "s.sqlite") as store:
        run(engine(store), ModelRun("st", "fake", ScriptedBackend(script), qs, rpm=120, tpm=5))
    rpm, tpm = made
    assert (rpm.max_rate, rpm.time_period, tpm.max_rate, tpm.time_period) == (120, 60, 5, 60)
    assert rpm.amounts == [1] * (len(qs) + 1)  # a retry is a request too
    assert tpm.amounts == [5] * (len(qs) + 1)  # estimates above the bucket are clamped to it
    assert engine_mod.estimate_tokens(qs[0]) == (len(qs[0].system) + len(qs[0].user)) // 4 + 8 + 1


def test_with_the_breaker_off_a_server_that_never_comes_back_uses_up_the_attempts(tmp_path):
    # before: with breaker_after=0 a connection failure in an outage was free, so nothing ever ended the run
    vt = VirtualTime()
    qs = make_queries(n=1, m=1, r=1)  # 2 queries
    backend = Outage(vt, after=0, seconds=float("inf"))

    async def sleep(seconds):  # ends the old endless retrying with a failure, at once
        assert len(vt.delays) < 1000, "retried for ever"
        await vt.sleep(seconds)

    with Store(tmp_path / "s.sqlite") as store:
        eng = Engine(store, progress=False, sleep=sleep, clock=vt.clock, rng=random.Random(7), breaker_after=0,
                     max_attempts=4)
        m = run(eng, ModelRun("st", "fake", backend, qs, concurrency=2)).models["fake"]
        assert (m.stored, m.failed, m.stopped) == (0, 2, None)
        assert backend.refused == 2 * 4  # each query used its 4 attempts, as a 5xx does with the breaker off
