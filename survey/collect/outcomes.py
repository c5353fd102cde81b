"""What the engine makes of a call's outcome (survey.collect.engine): any exception as a BackendError, an empty
stated distribution as a transient failure, a batch custom id back to its row key."""

from __future__ import annotations

from survey.backends.base import BackendError, Query, Reply
from survey.common.names import DEFAULT_QUESTION


def empty_statement(q: Query, reply: Reply) -> BackendError | None:
    """An empty reply to a stated-distribution question holds nothing to parse (a flaky server, a reply cut
    before its first character): a transient failure, retried, never stored as the persona's invalid answer.
    A reply with text that is no valid distribution is an invalid answer (survey.responses.stated)."""
    if q.response_type.elicit != "distribution" or (reply.text or "").strip():
        return None
    return BackendError("an empty reply to a stated-distribution question (nothing to parse; retried)",
                        retryable=True, code="empty_response")


def as_backend_error(exc: BaseException) -> BackendError:
    """Map anything a backend raised to a BackendError: timeouts and connection trouble retry."""
    if isinstance(exc, BackendError):
        return exc
    if isinstance(exc, TimeoutError):
        return BackendError("request timed out", retryable=True, code="timeout")
    if isinstance(exc, (ConnectionError, OSError)):
        return BackendError(f"connection error: {exc}", retryable=True, code="connection")
    return BackendError(f"{type(exc).__name__}: {exc}", retryable=False, code="internal")


def first_error(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc


def split_custom_id(cid: str) -> tuple:
    """A batch custom id back to its row key (a one-question study's ids leave out the question "q")."""
    parts = cid.split("\x1f")
    return (*parts[:5], int(parts[5]), parts[6] if len(parts) > 6 else DEFAULT_QUESTION)
