"""When the collection engine retries, waits, polls and gives up: one options object, checked once."""

from __future__ import annotations

from dataclasses import dataclass

from survey.errors import SurveyError


@dataclass(frozen=True)
class RetryPolicy:
    """When the engine retries, waits, polls and gives up, checked once: ``max_attempts`` per query with
    exponential backoff from ``base_delay`` to ``max_delay`` seconds, a ``request_timeout`` (None: none), batch
    polling every ``poll_interval`` growing to ``max_poll_interval`` seconds, ``abort_after`` consecutive hard
    failures (e.g. a bad key) that stop a model, and the circuit breaker (survey.collect.breaker): a model stops
    when nothing answered for ``outage_seconds``, or nothing usable came for ``garbage_seconds``, each after at
    least ``breaker_after`` failures in a row (and at least twice its concurrency, so one burst of in-flight
    requests is not enough; 0 switches the breaker off)."""

    max_attempts: int = 8
    base_delay: float = 1.0
    max_delay: float = 60.0
    request_timeout: float | None = 300.0
    poll_interval: float = 10.0
    max_poll_interval: float = 120.0
    abort_after: int = 50
    breaker_after: int = 20
    outage_seconds: float = 120.0
    garbage_seconds: float = 10.0

    def __post_init__(self):
        if self.max_attempts < 1 or self.abort_after < 1 or self.breaker_after < 0:
            raise SurveyError(f"max_attempts and abort_after must be at least 1, breaker_after at least 0 (0: no "
                              f"breaker); got {self.max_attempts}, {self.abort_after} and {self.breaker_after}")
        waits = {"base_delay": self.base_delay, "max_delay": self.max_delay, "poll_interval": self.poll_interval,
                 "max_poll_interval": self.max_poll_interval, "outage_seconds": self.outage_seconds,
                 "garbage_seconds": self.garbage_seconds}
        negative = [k for k, v in waits.items() if not v >= 0]
        if negative or (self.request_timeout is not None and not self.request_timeout > 0):
            raise SurveyError(f"{(negative or ['request_timeout'])[0]} must be a non-negative number of seconds "
                              "(request_timeout a positive one, or None)")


__all__ = ["RetryPolicy"]
