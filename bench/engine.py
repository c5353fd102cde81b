"""Engine throughput against loopback fake provider servers that answer after 100 ms.

The real engine, the real store (SQLite, one commit per reply) and the real SDK backends (mistralai
for the mistral backend, openai for the openai backend) run at concurrency 64, so the bound is
64 / 0.1 s = 640 queries/s. Each fake server runs in its own process, so its CPU is not charged to the
engine. Prints, per backend, achieved queries/s, the ratio to the bound and this process's CPU time per
query (all threads: the mistral SDK runs its request hooks in a thread pool). The last line is the
mistral backend's ratio.

Goal: ratio >= 0.9 and <= 1 ms CPU per query.   Usage: python bench/engine.py [--queries N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from survey.backends.base import Query, Reply  # noqa: E402
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
    os.environ["MISTRAL_API_KEY"] = os.environ["OPENAI_API_KEY"] = KEY
    if kind == "mistral":
        return MistralBackend("mistral-small-latest", server_url=url, timeout=30)
    if kind == "openai":
        return OpenAIBackend("mistral-small-latest", base_url=f"{url}/v1", timeout=30)
    return NullBackend()


async def measure(kind: str, url: str | None, n: int, store_path: Path) -> tuple[float, float, int]:
    backend = make_backend(kind, url)
    with Store(store_path) as store:
        engine = Engine(store, progress=False, max_attempts=3)
        # warm-up: connections, imports, pydantic schemas
        await engine.run([ModelRun("bench", "m", backend, queries(2 * CONCURRENCY, "warm"), CONCURRENCY)])
        todo = queries(n, "main")
        cpu0, wall0 = time.process_time(), time.perf_counter()
        report = await engine.run([ModelRun("bench", "m", backend, todo, CONCURRENCY)])
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        await backend.aclose()
    stored = report.models["m"].stored
    if stored != n:
        raise SystemExit(f"only {stored} of {n} queries stored: {report.to_dict()}")
    return wall, cpu, stored


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=CONCURRENCY * 40)
    args = ap.parse_args()
    bound = CONCURRENCY / LATENCY
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        wall0, cpu0, n0 = asyncio.run(measure("null", None, args.queries, Path(tmp) / "null.sqlite"))
        for kind in ("openai", "mistral"):
            proc, url = start_server(f"fakes.{kind}_server")
            try:
                results[kind] = asyncio.run(measure(kind, url, args.queries, Path(tmp) / f"{kind}.sqlite"))
            finally:
                proc.stdin.close()  # the server stops when its stdin closes
                proc.wait(10)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} (other work shares the CPUs)")
    print(f"engine + store alone (no HTTP): {n0 / wall0:.1f} queries/s = {n0 / wall0 / bound:.3f} of the bound, "
          f"cpu {cpu0 / n0 * 1000:.3f} ms/query")
    for kind in ("openai", "mistral"):
        wall, cpu, n = results[kind]
        rate = n / wall
        print(f"{kind} SDK backend, {n} queries at concurrency {CONCURRENCY}, fake server {LATENCY * 1000:.0f} ms "
              f"away in another process: {rate:.1f} queries/s = {rate / bound:.3f} of a {bound:.0f} queries/s bound; "
              f"cpu per query {cpu / n * 1000:.3f} ms (goal <= 1 ms), of which the SDK + HTTP "
              f"~{(cpu / n - cpu0 / n0) * 1000:.3f} ms")
    wall, cpu, n = results["mistral"]
    print(f"ratio: {n / wall / bound:.3f}")


if __name__ == "__main__":
    main()
