"""Threads of the embedded model: cells/s with one and two llama.cpp threads, on quiet cores and with the
other core busy, and the automatic choice (survey.common.threads.AutoThreads) in both situations.

Workload: bench/local.py's persona-major shopper cells on SmolLM2 (``--model gemma3-270m`` for Gemma),
exact mode, KV reuse on, one replicate. "Busy" starts one more process spinning on a core (a Python
busy loop) for the measurement, as another job on a shared 2-core machine would; "quiet" is the machine
as it is (other people's jobs included: the load average is printed). Each (situation, threads) runs
on a freshly loaded model after a warm-up query. Also checked: P(Yes|Yes or No) of every cell is the
same with one and two threads.

The one bench/ script timed in wall seconds (rates in cells/s): threads change how long a run waits, which CPU
time cannot show (two threads on two cores take about the CPU of one for half the wait).

Last line: ``ratio: X`` = cells/s of the automatic choice on the busy machine / fixed two threads there
(the baseline: what two threads cost when a core is taken).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from local import cells  # noqa: E402 - bench/local.py, next to this file

from survey.backends import Query, create_backend  # noqa: E402


def measure(model: str, threads: int | None, queries: list[Query]) -> tuple[float, list[float], int, int]:
    """(cells/s, P(Yes) per cell, the thread count at the end, thread switches)."""
    backend = create_backend("local", model, n_threads=threads)
    backend.complete_sync(Query("warm", "m", "x", "x", "x", 0, "You are a shopper.", "Hello?"))
    t0 = time.perf_counter()
    p = [backend.complete_sync(q).p_yes for q in queries]
    dt = time.perf_counter() - t0
    rt = backend.runtime
    auto = rt.auto_threads
    out = (len(queries) / dt, p, rt.n_threads, auto.switches if auto else 0)
    backend.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--personas", type=int, default=3)
    ap.add_argument("--perturbations", type=int, default=8)
    ap.add_argument("--busy-cells", type=int, default=6, help="cells measured on the busy machine (two "
                    "threads there run at about 0.1 cells/s)")
    args = ap.parse_args()
    queries = cells(args.personas, args.perturbations)
    rates: dict[tuple[str, str], float] = {}
    probs = {}
    for situation in ("quiet", "busy"):
        spinner = None
        if situation == "busy":
            spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            time.sleep(1.0)
        todo = queries if situation == "quiet" else queries[:args.busy_cells]
        try:
            for threads in (1, 2, None):
                load = os.getloadavg()[0]
                rate, p, final, switches = measure(args.model, threads, todo)
                label = "auto" if threads is None else str(threads)
                rates[(situation, label)] = rate
                probs[(situation, label)] = p
                extra = f" (ended at {final} thread(s), {switches} switch(es))" if threads is None else ""
                print(f"{situation:5s} threads {label:4s}: {rate:5.2f} cells/s over {len(todo)} cells, "
                      f"load average {load:.2f}{extra}")
        finally:
            if spinner is not None:
                spinner.kill()
                spinner.wait()
    diff = max(abs(a - b) for a, b in zip(probs[("quiet", "1")], probs[("quiet", "2")], strict=True))
    print(f"max |P(Yes) 1 thread - 2 threads| = {diff:.2e}")
    print(f"quiet: 2 threads / 1 thread = {rates[('quiet', '2')] / rates[('quiet', '1')]:.2f}; "
          f"busy: 2 threads / 1 thread = {rates[('busy', '2')] / rates[('busy', '1')]:.2f}; "
          f"auto / 1 thread: quiet {rates[('quiet', 'auto')] / rates[('quiet', '1')]:.2f}, "
          f"busy {rates[('busy', 'auto')] / rates[('busy', '1')]:.2f}")
    print(f"ratio: {rates[('busy', 'auto')] / rates[('busy', '2')]:.2f}")


if __name__ == "__main__":
    main()
