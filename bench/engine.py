"""Engine throughput against loopback fake provider servers that answer after 100 ms.

The real engine, the real store (SQLite, one commit per reply) and the real backends run at concurrency
64, so the bound is 64 / 0.1 s = 640 queries/s. Each fake server runs in its own process, so its CPU is
not charged to the client. Measured, in turns, ``--repeats`` times each:

- engine + store alone: a backend that only sleeps 100 ms (no HTTP);
- openai backend, ``http = "sdk"``: the official openai SDK (httpx2);
- openai backend, ``http = "aiohttp"`` (the default): the same body posted through aiohttp;
- mistral backend (mistralai SDK) and dashscope backend (dashscope SDK over aiohttp), one client each,
  reused for every request (as the backends do).

Prints, per configuration, achieved queries/s, the ratio to the bound and this process's CPU time per
query (all threads), each as min / median / max over the repeats, and the load average. The last line
is the median ratio of the openai backend's aiohttp path.

Goal (aiohttp path): ratio >= 0.9 and <= 0.6 ms CPU per query.
Usage: python bench/engine.py [--queries N] [--repeats R]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from survey.backends.base import Query, Reply  # noqa: E402
from survey.backends.dashscope import DashScopeBackend  # noqa: E402
from survey.backends.mistral import MistralBackend  # noqa: E402
from survey.backends.openai_compat import OpenAIBackend  # noqa: E402
from survey.collect.engine import Engine, ModelRun  # noqa: E402
from survey.data.store import Store  # noqa: E402

LATENCY = 0.1
CONCURRENCY = 64
KEY = "bench-key-not-secret"


def start_server(module: str = "fakes.mistral_server") -> tuple[subprocess.Popen, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "tests"))
    proc = subprocess.Popen([sys.executable, "-m", module, "--latency", str(LATENCY),
                             "--lifetime", "600", "--api-key", KEY],
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    if not line.startswith("URL "):
        proc.kill()
        raise SystemExit(f"fake server did not start: {line!r}")
    return proc, line[4:]


def queries(n: int, tag: str) -> list[Query]:
    system = ("You are roleplaying as a shopper. Your profile: Age 41, female, Teacher, income: medium, "
              "marital status: married. Answer ONLY 'Yes' or 'No'. Do not explain.")
    return [Query("bench", "m", tag, f"p{i % 50}", f"P{i // 50}", 0, system,
                  f'A person said: "I want to buy sneakers #{i}." Would you buy the product?',
                  model_id="mistral-small-latest", seed=1) for i in range(n)]


class NullBackend:
    """The same latency without HTTP or SDK: what the engine and the store cost on their own."""

    name = "null"

    async def complete(self, q: Query) -> Reply:
        await asyncio.sleep(LATENCY)
        return Reply(text="Yes", model_id="null", prompt_tokens=40, completion_tokens=1)

    async def aclose(self) -> None:
        pass


def make_backend(kind: str, url: str | None):
    os.environ["MISTRAL_API_KEY"] = os.environ["OPENAI_API_KEY"] = os.environ["DASHSCOPE_API_KEY"] = KEY
    if kind == "mistral":
        return MistralBackend("mistral-small-latest", server_url=url, timeout=30)
    if kind.startswith("openai"):
        return OpenAIBackend("mistral-small-latest", base_url=f"{url}/v1", timeout=30, http=kind.split("-")[1])
    if kind == "dashscope":
        return DashScopeBackend("mistral-small-latest", base_url=f"{url}/api/v1", timeout=30)
    return NullBackend()


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(kind: str, url: str | None, n: int, store_path: Path,
                  server_pid: int | None = None) -> tuple[float, float, int, float | None]:
    backend = make_backend(kind, url)
    with Store(store_path) as store:
        engine = Engine(store, progress=False, max_attempts=3)
        # warm-up: connections, imports, pydantic schemas
        await engine.run([ModelRun("bench", "m", backend, queries(2 * CONCURRENCY, "warm"), CONCURRENCY)])
        todo = queries(n, "main")
        server0 = process_cpu(server_pid) if server_pid else None
        cpu0, wall0 = time.process_time(), time.perf_counter()
        report = await engine.run([ModelRun("bench", "m", backend, todo, CONCURRENCY)])
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        server = process_cpu(server_pid) - server0 if server_pid else None
        await backend.aclose()
    stored = report.models["m"].stored
    if stored != n:
        raise SystemExit(f"{kind}: only {stored} of {n} queries stored: {report.to_dict()}")
    return wall, cpu, stored, server


LABELS = {"null": "engine + store alone (no HTTP)", "openai-sdk": "openai backend, http = \"sdk\"",
          "openai-aiohttp": "openai backend, http = \"aiohttp\"", "mistral": "mistral backend (SDK)",
          "dashscope": "dashscope backend (SDK)"}
SERVER = {"openai-sdk": "openai", "openai-aiohttp": "openai", "mistral": "mistral", "dashscope": "dashscope"}


def spread(values: list[float], fmt: str) -> str:
    lo, mid, hi = min(values), statistics.median(values), max(values)
    return " / ".join(format(v, fmt) for v in (lo, mid, hi))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=CONCURRENCY * 40)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", nargs="*", choices=list(LABELS), help="configurations to measure (default: all)")
    args = ap.parse_args()
    kinds = args.only or list(LABELS)
    bound = CONCURRENCY / LATENCY
    runs: dict[str, list[tuple[float, float, int, float | None]]] = {k: [] for k in kinds}
    loads = [os.getloadavg()[0]]
    servers = {}
    try:
        for name in sorted({SERVER[k] for k in kinds if k in SERVER}):
            servers[name] = start_server(f"fakes.{name}_server")
        with tempfile.TemporaryDirectory() as tmp:
            for rep in range(args.repeats):
                # alternate the order, so that neither path always runs right after the other
                order = kinds if rep % 2 == 0 else kinds[::-1]
                for i, kind in enumerate(order):
                    proc, url = servers[SERVER[kind]] if kind in SERVER else (None, None)
                    runs[kind].append(asyncio.run(measure(kind, url, args.queries, Path(tmp) / f"{kind}{rep}{i}.db",
                                                          proc.pid if proc else None)))
                loads.append(os.getloadavg()[0])
    finally:
        for proc, _ in servers.values():
            proc.stdin.close()  # the server stops when its stdin closes
            proc.wait(10)
    print(f"machine: {os.cpu_count()} cores, load average {min(loads):.2f}-{max(loads):.2f} during the runs (other "
          f"work shares the CPUs); {args.queries} queries at concurrency {CONCURRENCY} per run, fake servers "
          f"{LATENCY * 1000:.0f} ms away in other processes, bound {bound:.0f} queries/s; min / median / max of "
          f"{args.repeats} runs")
    for kind in kinds:
        rates = [n / wall for wall, _, n, _ in runs[kind]]
        cpus = [cpu / n * 1000 for _, cpu, n, _ in runs[kind]]
        server = [s / n * 1000 for _, _, n, s in runs[kind] if s is not None]
        print(f"{LABELS[kind]:<36} {spread(rates, '.0f')} queries/s = {spread([r / bound for r in rates], '.3f')} "
              f"of the bound; cpu per query {spread(cpus, '.3f')} ms"
              + (f" (the fake server's: {spread(server, '.3f')} ms)" if server else ""))
    last = "openai-aiohttp" if "openai-aiohttp" in kinds else kinds[-1]
    print(f"ratio: {statistics.median(n / wall / bound for wall, _, n, _ in runs[last]):.3f}")


if __name__ == "__main__":
    main()
