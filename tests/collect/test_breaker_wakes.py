"""A model the breaker stops ends now: queries waiting out a backoff are woken, instead of each sleeping on for
up to a minute (the engine's backoff cap) before they notice (observed: a server answering with web pages
mid-run, stopped after 11 s without a usable reply, held the run for 36 s)."""

import asyncio

from test_engine import ScriptedBackend, make_queries

from survey.backends.base import BackendError
from survey.collect.engine import Engine, ModelRun
from survey.data.store import Store


class EndlessBackoff:
    """A backoff that never ends by itself: the run can finish only if the breaker cuts it short."""

    def __init__(self):
        self.entered = 0

    async def __call__(self, seconds):
        self.entered += 1
        await asyncio.Event().wait()


def billing_error():
    return BackendError("HTTP 429 insufficient_quota: out of credit", retryable=False, status=429,
                        code="insufficient_quota", stops_model=True)


def test_a_query_backing_off_is_woken_when_the_breaker_stops_the_model(tmp_path):
    qs = make_queries(n=2)
    k = [q.key for q in qs]
    # the first worker's query fails retryably and backs off; the second worker's meets a billing error
    backend = ScriptedBackend({k[0]: [BackendError("HTTP 500", retryable=True, status=500)], k[1]: [billing_error()]})
    backoff = EndlessBackoff()
    with Store(tmp_path / "s.sqlite") as store:
        engine = Engine(store, progress=False, sleep=backoff)

        async def go():  # the guard only turns the old hang into a failure; a passing run takes milliseconds
            return await asyncio.wait_for(engine.run([ModelRun("st", "fake", backend, qs, concurrency=2)]), 120)

        m = asyncio.run(go()).models["fake"]
        assert backoff.entered == 1 and "insufficient_quota" in m.stopped
        assert (m.stored, m.failed) == (0, 0)  # both queries stay missing: a rerun sends them
        assert sum(backend.calls.values()) == 2  # the woken query was not sent again
        assert store.db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 0
