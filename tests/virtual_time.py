"""Simulated time for the engine: its ``clock`` reads simulated seconds and its ``sleep`` moves them forward
instead of waiting, so a test of a 10-second outage or a 2-minute breaker runs in milliseconds and never
depends on how busy the machine is.

Each asyncio task keeps its own time (a context variable), as concurrent workers sleep side by side: four
workers backing off one second each have spent one second, not four. Requests take no simulated time.
``latest`` is the furthest any task has got; ``at(t, action)`` runs ``action`` once some task reaches ``t``
(e.g. a fake server coming back after a restart).
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools

_ids = itertools.count()


class VirtualTime:
    def __init__(self):
        self._now = contextvars.ContextVar(f"virtual_time_{next(_ids)}", default=0.0)
        self.latest = 0.0
        self.delays: list[float] = []
        self._timers: list[tuple[float, object]] = []

    def clock(self) -> float:
        return self._now.get()

    def at(self, moment: float, action) -> None:
        """Run ``action()`` (in the sleeping task) once some task's clock has reached ``moment``."""
        self._timers.append((moment, action))

    async def sleep(self, seconds: float) -> None:
        self.delays.append(seconds)
        now = self._now.get() + seconds
        self._now.set(now)
        self.latest = max(self.latest, now)
        due = [(t, a) for t, a in self._timers if t <= now]
        self._timers = [(t, a) for t, a in self._timers if t > now]
        for _, action in due:
            action()
        await asyncio.sleep(0)
