"""run_coroutine: asyncio.run outside an event loop, a worker thread with its own loop inside one."""

import asyncio
import os
import signal
import threading

import pytest

from survey.common.event_loop import Terminated, run_coroutine


async def where() -> tuple[str, int]:
    await asyncio.sleep(0)
    return threading.current_thread().name, id(asyncio.get_running_loop())


async def fail():
    raise ValueError("from the coroutine")


def test_without_a_running_loop_it_runs_in_this_thread():
    assert run_coroutine(where())[0] == threading.current_thread().name


def test_inside_a_running_loop_it_gets_its_own_loop_in_a_worker_thread():
    async def cell():
        outer = id(asyncio.get_running_loop())
        name, inner = run_coroutine(where())
        return outer, name, inner

    outer, name, inner = asyncio.run(cell())
    assert name == "survey-event-loop" and inner != outer


@pytest.mark.parametrize("in_loop", [False, True])
def test_errors_reach_the_caller(in_loop):
    async def cell():
        return run_coroutine(fail())

    with pytest.raises(ValueError, match="from the coroutine"):
        asyncio.run(cell()) if in_loop else run_coroutine(fail())


async def sigterm_handler_now():
    return signal.getsignal(signal.SIGTERM)


def test_sigterm_handler_only_in_the_main_thread_and_only_while_the_coroutine_runs():
    before = signal.getsignal(signal.SIGTERM)
    assert run_coroutine(sigterm_handler_now(), sigterm=True) is not before
    assert signal.getsignal(signal.SIGTERM) is before  # restored

    async def cell():  # a notebook's loop: the run goes to a worker thread, signals are left alone
        return run_coroutine(sigterm_handler_now(), sigterm=True)

    assert asyncio.run(cell()) is before
    assert run_coroutine(sigterm_handler_now()) is before  # not asked for: not installed


def test_sigterm_cancels_the_coroutine_which_cleans_up_and_the_caller_sees_terminated():
    cleaned = []

    async def work():
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.sleep(30)
        finally:
            cleaned.append(True)

    with pytest.raises(Terminated):
        run_coroutine(work(), sigterm=True)
    assert cleaned == [True] and issubclass(Terminated, KeyboardInterrupt)  # handled like Ctrl-C


def interrupted_while_waiting(signum) -> list:
    """Run a coroutine that waits on a far timer and gets ``signum`` just as its loop starts waiting: what it saw
    (was a wakeup fd set, and was its wait cancelled or slept through)."""
    outcome = []
    waiting = threading.Event()

    def send():
        waiting.wait()
        signal.pthread_kill(threading.main_thread().ident, signum)

    async def work():
        wakeup = signal.set_wakeup_fd(-1)  # what the run set; put back at once
        signal.set_wakeup_fd(wakeup)
        outcome.append(wakeup != -1)
        threading.Thread(target=send, daemon=True).start()
        waiting.set()
        try:
            await asyncio.sleep(120)
            outcome.append("slept through")
        except asyncio.CancelledError:
            outcome.append("cancelled")
            raise

    with pytest.raises(KeyboardInterrupt):  # Terminated for SIGTERM
        run_coroutine(work(), sigterm=True)
    return outcome


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_that_comes_as_the_loop_starts_waiting_still_wakes_it(signum):
    # A signal that arrives while the loop enters its wait for a far timer is only seen when the loop wakes:
    # without a wakeup fd it slept on until the timer (a Ctrl-C ignored for a whole request timeout, in about
    # half of such rounds). With one, the signal's byte wakes the loop at once.
    for _ in range(3):
        assert interrupted_while_waiting(signum) == [True, "cancelled"]
    assert signal.set_wakeup_fd(-1) == -1  # none left behind
