"""What every bench/ script measures with: CPU time of this process (time.process_time: all its threads,
user + system), the same number of repeats on both sides, and the median of the repeats; the load average
beside the figures, since other work on shared cores still slows CPU-bound code (cache, frequency)."""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable


def cpu_repeats(fn: Callable[[], object], repeats: int) -> tuple[list[float], object]:
    """CPU seconds of each of ``repeats`` calls of ``fn``, and the last call's result."""
    times, out = [], None
    for _ in range(repeats):
        t0 = time.process_time()
        out = fn()
        times.append(time.process_time() - t0)
    return times, out


def median_cpu(fn: Callable[[], object], repeats: int) -> tuple[float, object]:
    """The median CPU seconds of ``repeats`` calls, and the last call's result."""
    times, out = cpu_repeats(fn, repeats)
    return statistics.median(times), out


def spread(values: list[float], fmt: str = ".3f") -> str:
    """min / median / max, as the docs quote them."""
    return " / ".join(format(v, fmt) for v in (min(values), statistics.median(values), max(values)))


def load() -> str:
    """The 1-minute load average, to print beside a figure."""
    return f"{os.getloadavg()[0]:.2f}"


if __name__ == "__main__":
    # The helpers' own cost: the median CPU time of a fixed piece of work, so a reader can see the timer's floor.
    seconds, _ = median_cpu(lambda: sum(i * i for i in range(200_000)), repeats=5)
    print(f"load: {load()}")
    print(f"seconds: {seconds:.4f}")
