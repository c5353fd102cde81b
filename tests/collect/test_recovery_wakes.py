"""A model recovers promptly after an outage: when a request succeeds after failures, the queries backing off
for that model are woken and retried at once, instead of each sleeping on for up to the backoff cap (a minute)
after the server came back (observed: a 15 s outage of an OpenAI-compatible server, a run of 40.5 s in all, about
25 s of it backing off after the server was back). While the server is still down, backoff is kept.

The run goes on an event loop whose clock is simulated: when nothing is ready to run, the loop jumps to its next
timer instead of waiting, so the engine's real ``asyncio.sleep`` backoffs and the ``asyncio.timeout`` that cuts them
short run in simulated seconds (no wall-clock wait or measure)."""

import asyncio
import random
import selectors

import pytest
from test_engine import ScriptedBackend, make_queries

from survey.backends.base import BackendError
from survey.collect.engine import Engine, ModelRun
from survey.data.store import Store


class SimulatedSelector(selectors.DefaultSelector):
    """Never waits for a timer: the loop's clock jumps forward by the time it would have slept."""

    def __init__(self):
        super().__init__()
        self.now = 0.0

    def select(self, timeout=None):
        if timeout is None:  # nothing scheduled: only outside work (e.g. an executor at shutdown) can wake the loop
            return super().select(None)
        self.now += timeout
        return super().select(0)


class SimulatedLoop(asyncio.SelectorEventLoop):
    def __init__(self):
        super().__init__(SimulatedSelector())

    def time(self):
        return self._selector.now


def run_simulated(coro):
    with asyncio.Runner(loop_factory=SimulatedLoop) as runner:
        return runner.run(coro)


def now() -> float:
    return asyncio.get_running_loop().time()


class Restart(ScriptedBackend):
    """Answers ``before`` calls, then refuses every connection (or answers HTTP 503) for ``seconds``."""

    def __init__(self, before, seconds, error):
        super().__init__()
        self.before, self.seconds, self.error = before, seconds, error
        self.down_at = None
        self.answered_at: list[float] = []
        self.refused_at: list[float] = []

    async def complete(self, q):
        if self.down_at is None and sum(self.calls.values()) >= self.before:
            self.down_at = now()
        if self.down_at is not None and now() < self.down_at + self.seconds:
            self.calls[q.key] += 1
            self.refused_at.append(now())
            raise self.error()
        self.answered_at.append(now())
        return await super().complete(q)


def refused():
    return ConnectionRefusedError("refused")


def unavailable():
    return BackendError("HTTP 503 service unavailable", retryable=True, status=503)


def collect(tmp_path, backend, qs, **kw):
    async def go():
        eng = Engine(store, progress=False, clock=now, rng=random.Random(7), **kw)  # real backoff: 1 s base, 60 s cap
        rep = await eng.run([ModelRun("st", "fake", backend, qs, concurrency=8)])
        return rep.models["fake"], now()

    with Store(tmp_path / "s.sqlite") as store:
        return run_simulated(go())


@pytest.mark.parametrize("error", [refused, unavailable], ids=["connection refused", "HTTP 503"])
def test_the_queries_backing_off_are_retried_as_soon_as_the_server_answers_again(tmp_path, error):
    qs = make_queries(n=4)  # 48 queries, 8 at a time
    backend = Restart(before=8, seconds=15, error=error)
    m, finished = collect(tmp_path, backend, qs)
    back = backend.down_at + 15
    assert m.stopped is None and (m.stored, m.failed) == (len(qs), 0)
    assert len(backend.refused_at) >= 8 and max(backend.refused_at) < back  # it was down, and not tried after
    first = min(t for t in backend.answered_at if t >= back)  # the first reply after the restart: a backoff's end
    # every query backing off then is retried at once: the rest of the run takes no simulated time (before: the
    # backoffs of up to a minute ran out one by one)
    assert finished - first < 1
    assert backend.returned == len(qs)  # nothing was asked twice once answered


def test_backoff_is_kept_while_the_server_is_still_down(tmp_path):
    # an outage longer than the backoff cap: every retry during it waited its backoff (nothing woke it early)
    qs = make_queries(n=1, m=2, r=2)  # 8 queries, all in flight at once
    backend = Restart(before=4, seconds=100, error=refused)
    m, _ = collect(tmp_path, backend, qs, breaker_after=0, max_attempts=100)
    assert m.stopped is None and m.stored == len(qs)
    per_second = len(backend.refused_at) / 100
    assert per_second < 1  # 4 queries retrying at backoffs of up to 60 s, not a storm of immediate retries
