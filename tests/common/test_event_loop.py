"""run_coroutine: asyncio.run outside an event loop, a worker thread with its own loop inside one."""

import asyncio
import threading

import pytest

from survey.common.event_loop import run_coroutine


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
