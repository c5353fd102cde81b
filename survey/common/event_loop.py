"""Run a coroutine to completion from synchronous code, also when the caller's thread already runs an
event loop (Jupyter, IPython, an async web app): then the coroutine gets its own loop in a worker thread.

Ctrl-C reaches the coroutine as a cancellation in both cases, so code that stores results as they
arrive keeps them; the caller then sees KeyboardInterrupt. With ``sigterm=True`` SIGTERM (docker stop,
systemd, ``timeout``) does the same in the main thread and the caller sees `Terminated`: the handler
is installed only while the coroutine runs, and the previous one is restored after. A worker-thread
loop leaves signals alone (only the main thread may set handlers; the notebook owns them).
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")


class Terminated(KeyboardInterrupt):
    """SIGTERM stopped the coroutine (like Ctrl-C, which raises KeyboardInterrupt)."""


def run_coroutine(coro: Coroutine[Any, Any, T], *, sigterm: bool = False) -> T:
    """``asyncio.run(coro)``, or the same in a worker thread when this thread's event loop is running.

    ``sigterm``: in the main thread, SIGTERM cancels the coroutine like Ctrl-C and raises `Terminated`.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        if sigterm and threading.current_thread() is threading.main_thread():
            return _run_until_sigterm(coro)
        return asyncio.run(coro)
    return _run_in_worker(coro)


def _run_until_sigterm(coro: Coroutine[Any, Any, T]) -> T:
    handle: dict = {}

    async def main() -> T:
        handle["task"] = asyncio.current_task()
        if handle.get("terminated"):  # the signal came before the task existed
            raise asyncio.CancelledError
        return await coro

    with asyncio.Runner() as runner:
        loop = runner.get_loop()

        def on_sigterm(signum, frame) -> None:
            if not handle.get("terminated"):  # a second SIGTERM must not cut the cleanup short
                handle["terminated"] = True
                if "task" in handle:
                    loop.call_soon_threadsafe(handle["task"].cancel)

        previous = signal.getsignal(signal.SIGTERM)
        try:
            # The loop's own handler also sets its wakeup fd: a signal (SIGTERM, or the Ctrl-C that asyncio's
            # runner handles) arriving just as the loop starts waiting wakes it, instead of going unseen until
            # the next timer, which could be a request timeout minutes away.
            loop.add_signal_handler(signal.SIGTERM, on_sigterm, signal.SIGTERM, None)
        except NotImplementedError:  # Windows: no wakeup fd for signals; a plain handler
            signal.signal(signal.SIGTERM, on_sigterm)
        try:
            result = runner.run(main())
        except asyncio.CancelledError:
            if handle.get("terminated"):
                raise Terminated("terminated by SIGTERM") from None
            raise
        finally:
            try:
                loop.remove_signal_handler(signal.SIGTERM)  # also clears the wakeup fd
            except NotImplementedError:
                pass
            signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)
            coro.close()  # never awaited when the signal came first: no "never awaited" warning
        if handle.get("terminated"):  # the coroutine swallowed the cancellation: still report it
            raise Terminated("terminated by SIGTERM")
        return result


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
