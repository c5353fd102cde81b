"""A simulated backend that answers ``after`` queries and then holds every further one until the run is
cancelled: tests of Ctrl-C send the interrupt once ``held`` is set, so the run is interrupted on every
machine, however fast or busy (a latency and a watcher polling the store raced: on a busy machine the
400-query run finished before the interrupt arrived).

In a test process: ``with Gate(after=40) as gate: ...; gate.held.wait()``. In a subprocess (the CLI):
``python tests/gated_backend.py AFTER FD survey-args...`` runs ``survey`` with the gate and writes one
byte to file descriptor FD when the first query is held.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading

HOLD_LIMIT = 600.0  # a safety net only: a held query that is never cancelled fails after this, never hangs


class Gate:
    """Patch SimulatedBackend.complete: the first ``after`` calls answer, later ones wait to be cancelled."""

    def __init__(self, after: int, on_held=None):
        self.after = after
        self.calls = 0
        self.held = threading.Event()
        self.on_held = on_held
        self._original = None

    def __enter__(self) -> Gate:
        from survey.backends.simulated import SimulatedBackend

        self._original = original = SimulatedBackend.complete
        gate = self

        async def complete(backend, query):
            gate.calls += 1
            if gate.calls > gate.after:
                if not gate.held.is_set():
                    gate.held.set()
                    if gate.on_held:
                        gate.on_held()
                await asyncio.sleep(HOLD_LIMIT)  # ended by the run's cancellation (Ctrl-C)
                raise RuntimeError("gated query held for the whole hold limit: the interrupt never came")
            return await original(backend, query)

        SimulatedBackend.complete = complete
        return self

    def __exit__(self, *exc) -> None:
        from survey.backends.simulated import SimulatedBackend

        SimulatedBackend.complete = self._original


def main() -> None:
    after, fd, args = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]

    def signal_held():
        os.write(fd, b"h")
        os.close(fd)

    from survey.cli import main as survey_main

    with Gate(after, signal_held):
        sys.argv = ["survey", *args]
        survey_main()


if __name__ == "__main__":
    main()
