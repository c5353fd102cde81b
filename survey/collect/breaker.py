"""When one model's failures say that going on cannot help: the engine's circuit breaker.

Three kinds of trouble, judged per model:

- **No answer** (refused or dropped connections, timeouts): a server restarting for a few seconds or a
  minute is routine, so the breaker judges the *time* without any answer from the server, not a count.
  The model stops once nothing has answered for ``outage_seconds`` (and at least ``after`` requests in a
  row failed this way). A request that fails so while nothing was answered since the query's previous
  failure does not use up an attempt (an outage, not this query's trouble): an outage the run rides through
  leaves no failed rows, while a query whose connection alone keeps failing uses its attempts up. With the
  breaker off (``after`` 0) nothing judges the outage's length, so every failure uses an attempt.
- **Answers that are not the API's** (HTML, broken JSON, a reply of the wrong shape, an empty choice
  list): a flaky proxy sends a few, a wrong URL sends nothing else. The model stops once no usable reply
  came for ``garbage_seconds`` and at least ``after`` such answers arrived in a row.
- **Server errors** (HTTP 5xx to every request: an overloaded or broken server): a burst is ridden through,
  but a server that keeps answering 5xx would cost every query all its attempts, for hours. Judged like an
  outage: the model stops once no usable reply came for ``outage_seconds`` and at least ``after`` server
  errors arrived in a row. A 5xx does not use up an attempt while no reply came since the query's previous
  failure and other requests got 5xx too (the server's trouble); a query that alone gets 5xx uses them up.
- **Errors no retry can mend** (the account is out of credit or quota): the first one stops the model.

A stopped model's unsent queries stay missing (a rerun sends them); every reply that arrived is kept.
The clock is injectable so that tests judge time without waiting for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from survey.backends.base import NOT_THE_API, BackendError

NO_ANSWER = frozenset({"connection", "timeout"})  # the server did not answer at all
UNUSABLE = NOT_THE_API | {"empty_response"}  # an answer that holds no reply (a flaky proxy's empty choice list)


def server_error(err: BackendError) -> bool:
    """An HTTP 5xx answer: the server is there but cannot reply now."""
    return err.retryable and err.status is not None and err.status >= 500


@dataclass
class Breaker:
    """One model's failure record. ``success()`` after every stored reply, ``failure(err)`` after every failed
    request; ``stopped`` is the reason the model stopped (one line), None while it runs."""

    after: int  # at least this many failures in a row before time is judged (0: never stop on time)
    outage_seconds: float
    garbage_seconds: float
    clock: Callable[[], float]
    abort_after: int = 0  # consecutive non-retryable failures (e.g. a revoked key) that stop the model
    stopped: str | None = None
    answered_at: float = field(init=False)  # the last time the server answered anything (a reply or an HTTP error)
    replied_at: float = field(init=False)  # the last usable reply
    no_answer: int = 0  # requests in a row the server did not answer
    answers: int = 0  # every answer so far (replies and HTTP errors): "was anything answered since?"
    unusable: int = 0  # answers since the last usable reply that hold no reply
    server_errors: int = 0  # 5xx answers since the last usable reply
    replies: int = 0  # usable replies so far
    server_errors_seen: int = 0  # 5xx answers so far
    hard_failures: int = 0
    # backoffs in progress (asyncio.Timeout): stopping the model wakes them, or each would sleep on for up to
    # the backoff cap (a minute) before noticing, holding the run open after the model stopped
    waiting: set = field(default_factory=set)
    # the backoffs among them that wait out the server's trouble (no answer, 5xx, not the API's answer): a usable
    # reply after failures wakes them, or each would sleep on for up to the cap after the server came back
    waiting_out: set = field(default_factory=set)

    def __post_init__(self):
        self.answered_at = self.replied_at = self.clock()

    def success(self) -> None:
        if self.no_answer or self.unusable or self.server_errors:  # the server is back: retry now, not in a minute
            self._wake(self.waiting_out)
        self.answered_at = self.replied_at = self.clock()
        self.no_answer = self.unusable = self.server_errors = self.hard_failures = 0
        self.answers += 1
        self.replies += 1

    def failure(self, err: BackendError) -> str | None:
        """Record a failed request; the reason the model stops now, or None."""
        now = self.clock()
        if getattr(err, "stops_model", False):
            return self._stop(f"stopped: {err}")
        if err.code in NO_ANSWER:
            self.no_answer += 1
            silent = now - self.answered_at
            if self.after and self.no_answer >= self.after and silent >= self.outage_seconds:
                return self._stop(f"stopped: no answer from the server for {silent:.0f} s ({self.no_answer} requests "
                                  f"in a row failed; rerun to send the rest); last: {err}")
            return None
        self.answered_at, self.no_answer = now, 0
        self.answers += 1
        if err.code in UNUSABLE:
            self.unusable += 1
            without = now - self.replied_at
            if self.after and self.unusable >= self.after and without >= self.garbage_seconds:
                return self._stop(f"stopped: {self.unusable} answers in a row and no usable reply for {without:.0f} s: "
                                  f"the server does not answer like the API (a wrong URL?); last: {err}")
        if server_error(err):
            self.server_errors += 1
            self.server_errors_seen += 1
            without = now - self.replied_at
            if self.after and self.server_errors >= self.after and without >= self.outage_seconds:
                return self._stop(f"stopped: the server keeps answering HTTP {err.status} ({self.server_errors} "
                                  f"server errors in a row, no reply for {without:.0f} s; rerun to send the rest); "
                                  f"last: {err}")
        return None

    def mark(self) -> tuple[int, int]:
        """What a query remembers at its failure, for ``free_retry`` at its next one."""
        return self.replies, self.server_errors_seen

    def free_retry(self, err: BackendError, mark: tuple[int, int]) -> bool:
        """Whether this failed request should not use up one of its query's attempts: a 5xx while no request
        succeeded since the query's ``mark`` and others got 5xx too (the server's trouble, which the breaker
        judges by time). A query that alone gets 5xx, or a breaker that never stops (after 0), uses attempts."""
        replies, seen = mark
        return bool(self.after) and server_error(err) and self.replies == replies and self.server_errors_seen - seen > 1

    def gave_up(self, err: BackendError) -> str | None:
        """Record a query stored as failed; the reason the model stops now (too many hard failures), or None."""
        self.hard_failures = 0 if err.retryable else self.hard_failures + 1
        if self.abort_after and self.hard_failures >= self.abort_after:
            return self._stop(f"stopped after {self.abort_after} consecutive non-retryable failures; last: {err}")
        return None

    def _stop(self, reason: str) -> str:
        self.stopped = self.stopped or reason
        self._wake(self.waiting)
        return self.stopped

    @staticmethod
    def _wake(waits: set) -> None:
        for wait in waits:
            wait.reschedule(asyncio.get_running_loop().time())  # due now: the backoff ends at once
