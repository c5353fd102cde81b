"""Run a coroutine to completion from synchronous code, also when the caller's thread already runs an
event loop (Jupyter, IPython, an async web app): then the coroutine gets its own loop in a worker thread.

Ctrl-C reaches the coroutine as a cancellation in both cases, so code that stores results as they
arrive keeps them; the caller then sees KeyboardInterrupt.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")


def run_coroutine(coro: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(coro)``, or the same in a worker thread when this thread's event loop is running."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    return _run_in_worker(coro)


def _run_in_worker(coro: Coroutine[Any, Any, T]) -> T:
    result: Future = Future()
    started = threading.Event()
    handle: dict = {}

    async def main() -> T:
        handle["loop"], handle["task"] = asyncio.get_running_loop(), asyncio.current_task()
        started.set()
        return await coro

    def work() -> None:
        try:
            result.set_result(asyncio.run(main()))
        except BaseException as exc:  # noqa: BLE001 - handed to the calling thread as is
            result.set_exception(exc)
        finally:
            started.set()  # also when main() never started, so an interrupt never waits forever

    worker = threading.Thread(target=work, name="survey-event-loop", daemon=True)
    worker.start()
    try:
        return result.result()
    except KeyboardInterrupt:
        # The interrupt lands in this (the calling) thread: cancel the worker's task, let it finish
        # storing what it has, then report the interrupt like asyncio.run does.
        started.wait()
        if "task" in handle:
            handle["loop"].call_soon_threadsafe(handle["task"].cancel)
        worker.join()
        raise
