"""The breaker against a server that answers HTTP 5xx: a burst is ridden through, a server that keeps
answering 5xx stops the model after ``outage_seconds`` without a reply (in simulated time), instead of
costing every query all its attempts for hours."""

from test_engine import Outage, ScriptedBackend, make_queries, outage_engine, run
from virtual_time import VirtualTime

from survey.backends.base import BackendError
from survey.collect.engine import ModelRun
from survey.data.store import Store


def http(status):
    return BackendError(f"HTTP {status}: upstream unavailable", retryable=True, status=status)


class ServerErrors(Outage):
    """Answers HTTP ``status`` to every request while the simulated clock is inside the outage window."""

    def __init__(self, vt, after, seconds, status=503):
        super().__init__(vt, after, seconds)
        self.status = status

    async def complete(self, q):
        try:
            return await super().complete(q)
        except ConnectionRefusedError:
            raise http(self.status) from None


def rows(store):
    return store.db.execute("SELECT status, COUNT(*) FROM responses GROUP BY status").fetchall()


def test_a_server_that_keeps_answering_5xx_stops_the_model_with_the_cause(tmp_path):
    # before: each query was retried 8 times (about a minute of backoff each) and stored as failed, query
    # after query, for as long as the study lasted; now the model stops after 2 minutes without a reply
    for status in (500, 502, 503):
        vt = VirtualTime()
        qs = make_queries()
        backend = ServerErrors(vt, after=5, seconds=float("inf"), status=status)
        with Store(tmp_path / f"{status}.sqlite") as store:
            m = run(outage_engine(store, vt), ModelRun("st", "fake", backend, qs, concurrency=8)).models["fake"]
            assert m.stopped.startswith(f"stopped: the server keeps answering HTTP {status}")
            assert "rerun to send the rest" in m.stopped and "\n" not in m.stopped
            assert 120 <= vt.latest < 120 + 2 * 60 * 1.1  # soon after the window, not hours later
            assert backend.refused >= 20  # at least max(20, 2 x concurrency) server errors in a row
            # the five replies before are kept; nothing was stored as failed: the rest is still owed
            assert (m.stored, m.failed) == (5, 0) and rows(store) == [("ok", 5)]


def test_a_burst_of_5xx_is_ridden_through_without_a_failed_row(tmp_path):
    for seconds in (10, 60):
        vt = VirtualTime()
        qs = make_queries(n=10)
        backend = ServerErrors(vt, after=30, seconds=seconds)
        with Store(tmp_path / f"{seconds}.sqlite") as store:
            m = run(outage_engine(store, vt), ModelRun("st", "fake", backend, qs, concurrency=4)).models["fake"]
            assert backend.refused >= 20 and vt.latest >= seconds  # the burst happened, and lasted
            assert m.stopped is None and (m.stored, m.failed) == (len(qs), 0)
            assert backend.returned == len(qs)


def test_a_query_that_alone_gets_5xx_uses_its_attempts_up(tmp_path):
    # only the whole server's trouble is free: one query the server cannot answer fails after its attempts
    # (a rerun sends it) while the others are stored, at any concurrency, and the model goes on
    for concurrency in (1, 4):
        vt = VirtualTime()
        qs = make_queries(n=4)
        bad = qs[0].key
        backend = ScriptedBackend({bad: [http(500)] * 100})
        with Store(tmp_path / f"{concurrency}.sqlite") as store:
            m = run(outage_engine(store, vt), ModelRun("st", "fake", backend, qs, concurrency=concurrency)
                    ).models["fake"]
            assert (m.stored, m.failed, m.stopped) == (len(qs) - 1, 1, None) and backend.calls[bad] == 8



