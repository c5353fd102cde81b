"""Thread limits shared by numeric code (statistics, embeddings) and the embedded models' thread count."""

from __future__ import annotations

import contextlib
import os
import time


def one_blas_thread():
    """Limit BLAS to one thread for small matrix products.

    On 2 shared cores, multi-threaded OpenBLAS spends most of its time waiting on the other
    thread: embedding 48 short texts took 31 s with 2 threads and 1.8 s with one, and the power
    grid 40.5 s against 8.7 s (measured on the dev machine under load). Without threadpoolctl this
    is a no-op.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")


# -- threads of the embedded models (llama.cpp) on shared cores ----------------------------------------

def available_cores() -> int:
    """The cores this process may run on (its CPU affinity), else the machine's count."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _cpu_stat() -> tuple[float, float] | None:
    """(busy, idle) CPU seconds of the whole machine since boot, from /proc/stat; None elsewhere."""
    try:
        with open("/proc/stat") as fh:
            fields = [int(x) for x in fh.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    hz = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    busy = sum(fields[:8]) - idle  # user nice system idle iowait irq softirq steal: all but idle, iowait
    return busy / hz, idle / hz


def _own_cpu() -> float:
    t = os.times()
    return t.user + t.system


class AutoThreads:
    """How many threads a llama.cpp context should use on cores other processes share, revised as it runs.

    ggml's threads meet at a spinning barrier after every operation, so two threads are about twice as
    fast as one on two free cores, but several times slower when another process holds one of them
    (docs/local-model.md, Threads). So: ``most`` threads (2) when that many cores are free, else 1.
    At the start "free" is the allowed cores minus the 1-minute load average. Then every ``interval``
    seconds ``revise`` measures, from /proc/stat and this process's own CPU time, the cores other
    processes used and the cores left idle: more than half a core used by others drops to one thread
    at once; one thread goes back to ``most`` only when the rest stay idle (hysteresis).
    """

    def __init__(self, most: int = 2, interval: float = 5.0, *, cores: int | None = None,
                 load: float | None = None, clock=time.monotonic, stat=_cpu_stat, own=_own_cpu):
        self.cores = cores or available_cores()
        self.most = max(1, min(most, self.cores))
        load = os.getloadavg()[0] if load is None and hasattr(os, "getloadavg") else (load or 0.0)
        self.threads = self.most if self.cores - load >= self.most - 0.5 else 1
        self.interval, self._clock, self._stat, self._own = interval, clock, stat, own
        self._mark = self._sample()
        self.switches = 0

    def _sample(self):
        return self._clock(), self._stat(), self._own()

    def revise(self) -> int | None:
        """The new thread count when it should change now, else None (cheap: call it between passes)."""
        if self.most == 1:
            return None
        now = self._clock()
        if now - self._mark[0] < self.interval:
            return None
        then, self._mark = self._mark, self._sample()
        (t0, s0, c0), (t1, s1, c1) = then, self._mark
        if s0 is None or s1 is None or t1 <= t0:
            return None
        wall = t1 - t0
        others = max(0.0, (s1[0] - s0[0]) - (c1 - c0)) / wall  # cores busy with other processes
        idle = max(0.0, s1[1] - s0[1]) / wall  # cores nobody used
        new = self.threads
        if self.threads > 1 and others > self.cores - self.most + 0.5:
            new = 1
        elif self.threads == 1 and idle >= self.most - 1.25 and others < self.cores - self.most + 0.25:
            new = self.most
        if new == self.threads:
            return None
        self.threads, self.switches = new, self.switches + 1
        return new
