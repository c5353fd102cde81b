"""What every fake provider server shares: an aiohttp app on 127.0.0.1 run in a background thread,
fault rules a test injects, per-cell request counters, deterministic answers and embeddings.

A *cell* is what the fake can see of one query: (model, system prompt, user prompt, seed). Tests use
``served[key]`` (successful answers) to prove that no stored cell was ever requested again, and
``requests[key]`` (every attempt, faults included) to prove retries happened.

Fault kinds (providers map them to their own wire format):
  rate_limit (429 + Retry-After), server_error (500), unavailable (503), timeout (hang ``delay`` s,
  counted as a fault), slow (answer after ``delay`` s, counted as served), malformed (200, broken JSON),
  text (200, a non-Yes/No reply, counted as served), content_filter, bad_key (401), invalid_param (400),
  disconnect (drop the connection), empty_choices (200, a reply whose choice list is empty: a flaky
  proxy), html (200, a web page: a wrong URL) and garbage (200, bytes that are not JSON). DashScope adds
  quota (Throttling.AllocationQuota) and arrearage, OpenAI insufficient_quota, Mistral payment_required.

``go_down()`` takes the server off the network (new connections are refused, requests on open
connections are dropped) and ``come_back()`` restarts it on the same port: a server restart;
``down_after = n`` takes it down by itself once it has served n answers.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from aiohttp import web

from .restarts import Restarts

Cell = tuple[str, str, str, "int | None"]


@dataclass
class Rule:
    kind: str
    times: int | None = 1  # None: every matching request, forever
    match: str | Callable[[dict], bool] | None = None  # substring of "system\nuser", or a predicate on the body
    route: str = "chat"  # chat, batch, embeddings
    retry_after: float | None = None
    delay: float = 30.0  # for timeout/slow
    text: str = "Maybe, it depends on the price."  # for the text fault

    def matches(self, route: str, body: dict, prompt: str) -> bool:
        if route != self.route or self.times == 0:
            return False
        if self.match is None:
            return True
        return self.match in prompt if isinstance(self.match, str) else bool(self.match(body))


def unit(*parts) -> float:
    """A deterministic number in (0, 1) from any values: the fake's only source of 'randomness'."""
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=8).digest()
    return (int.from_bytes(digest, "big") + 0.5) / 2.0**64


def answer_for(cell: Cell) -> tuple[str, float]:
    """The fake respondent: P(Yes) fixed per prompt, the draw fixed per (prompt, seed)."""
    model, system, user, seed = cell
    p_yes = 0.05 + 0.9 * unit("p", model, system, user)
    return ("Yes" if unit("a", model, system, user, seed) < p_yes else "No"), p_yes


def chat_cell(model: str, body: dict, seed_field: str) -> Cell:
    """The cell of a chat request body: its system and user messages and the seed field the provider uses."""
    msgs = body.get("messages", [])
    system = "".join(m.get("content", "") for m in msgs if m.get("role") == "system")
    user = "".join(m.get("content", "") for m in msgs if m.get("role") == "user")
    return (model, system, user, body.get(seed_field))


def jsonl(rows: list[dict]) -> bytes:
    """Rows as a JSON Lines file (batch input, output and error files)."""
    return b"".join(json.dumps(r).encode() + b"\n" for r in rows)


def query_cell(q) -> Cell:
    """The cell the fakes key a survey Query by: the model, both prompts and the seed the backend sends."""
    return (q.model_id, q.system, q.user, q.provider_seed)


def shopper_query(i: int = 0, *, model_id: str, product: str = "sneakers", model: str = "small", seed: int = 11,
                  **kw):
    """A survey Query of persona P{i} about paraphrase p{i}: prompts differ by ``i``, so the fakes key them apart."""
    from survey.backends.base import Query

    base = dict(study="st", model=model, message=product, perturbation=f"p{i}", persona=f"P{i}", replicate=0,
                system=f"You are shopper {i}.", user=f"Would you buy {product} {i}?", model_id=model_id,
                temperature=1.0, max_tokens=1, seed=seed)
    return Query(**(base | kw))


def complete_once(backend, q):
    """One backend call in a fresh event loop, closing the backend afterwards."""
    async def go():
        try:
            return await backend.complete(q)
        finally:
            await backend.aclose()
    return asyncio.run(go())


def run_batch(backend, queries, polls: int = 3):
    """Submit a batch, read its status ``polls`` times, fetch its results and close: (job_id, statuses, results)."""
    async def go():
        job_id = await backend.submit_batch(queries)
        statuses = [await backend.batch_status(job_id) for _ in range(polls)]
        results = await backend.fetch_batch(job_id)
        await backend.aclose()
        return job_id, statuses, results
    return asyncio.run(go())


def resubmitted_batch_ids(backend, queries):
    """Job ids of submitting ``queries``, the same queries again, then all but the last: (first, again, other)."""
    async def go():
        first = await backend.submit_batch(queries)
        again = await backend.submit_batch(queries)
        other = await backend.submit_batch(queries[:-1])
        await backend.aclose()
        return first, again, other
    return asyncio.run(go())


def injected_error(fake, backend, q, kind: str, **inject):
    """The BackendError one call of ``q`` raises after ``fake`` is told to fail with ``kind``."""
    import pytest

    from survey.backends.base import BackendError

    fake.inject(kind, **inject)
    with pytest.raises(BackendError) as info:
        complete_once(backend, q)
    return info.value


def top_tokens(p_yes: float, k: int) -> list[tuple[str, float]]:
    """First-token candidates with log-probabilities, most likely first."""
    cands = [("Yes", math.log(0.97 * p_yes)), ("No", math.log(0.97 * (1 - p_yes))),
             (" Yes", math.log(0.02 * p_yes)), ("Maybe", math.log(0.01))]
    cands.sort(key=lambda c: -c[1])
    return cands[:max(k, 1)]


def token_id(token: str) -> int:
    return int(unit("tok", token) * 32000)


def fake_embedding(text: str, dim: int) -> list[float]:
    """A unit vector fixed by the text's hash: equal texts embed equally, others look unrelated."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
    vec = np.random.default_rng(seed).standard_normal(dim)
    return (vec / np.linalg.norm(vec)).round(7).tolist()


class FakeServer(Restarts):
    """Base of the provider fakes. Use as a context manager, or start()/stop().

    latency: seconds every chat answer waits (settable while running). api_key: when set, requests
    must carry ``Authorization: Bearer <api_key>`` or get the provider's 401. lifetime: the server
    stops by itself after this many seconds (a safety net for a leaked server, beyond pytest's own timeout:
    a test on a busy machine must never outlive its server). max_requests: a bound on total requests, after which
    every request gets a non-retryable 410, so a runaway client loop cannot spin forever.
    hold_after: answer this many chat requests, then hold every further one until ``release()``; a test
    waits for ``wait_held(n)`` before it interrupts a run, so the run is mid-way on any machine.
    """

    name = "fake"

    def __init__(self, *, latency: float = 0.0, api_key: str | None = None, lifetime: float = 1800.0,
                 max_requests: int = 200_000, port: int = 0, first_tokens: dict[str, float] | None = None,
                 hold_after: int | None = None):
        self.latency = latency
        self.hold_after = hold_after
        self._admitted = 0  # chat requests let through while hold_after is set
        self._held = 0  # chat requests ever held
        self._held_changed = threading.Condition()
        self._release: asyncio.Event | None = None
        # a rating-scale respondent: first token -> probability, instead of the Yes/No one (answer_for)
        self.first_tokens = first_tokens
        self.api_key = api_key
        self.lifetime = lifetime
        self.max_requests = max_requests
        self.port = port
        self.rules: list[Rule] = []
        self.requests: Counter = Counter()  # cell -> attempts that reached the fake (faults included)
        self.served: Counter = Counter()  # cell -> successful answers sent
        self.routes_hit: Counter = Counter()  # route -> requests
        self.faults: Counter = Counter()  # fault kind -> times injected
        self.total = 0
        self.served_total = 0
        self.down = False  # off the network (go_down/come_back)
        self.down_after: int | None = None  # go down by itself after this many served answers
        self.restarts = 0
        self._runner = self._site = None
        self.expired = False
        self.exhausted = False
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._error: BaseException | None = None

    PAGES = {"html": ("text/html", b"<!DOCTYPE html>\n<html><head><title>Welcome</title></head>"
                                   b"<body><h1>It works!</h1></body></html>\n"),
             "garbage": ("application/octet-stream", b"\x00\x17garbage 4f7a \xff\xfe not json")}

    # ---- configuration (called from the test thread) ----
    def inject(self, kind: str, times: int | None = 1, match=None, route: str = "chat", **kw) -> Rule:
        """Make the next ``times`` requests matching ``match`` on ``route`` fail with ``kind``."""
        rule = Rule(kind, times, match, route, **kw)
        with self._lock:
            self.rules.append(rule)
        return rule

    def wait_held(self, n: int = 1, alive: Callable[[], bool] = lambda: True, limit: float = 600.0) -> bool:
        """Block until ``n`` chat requests are held; False if ``alive()`` turns false first (the client
        died) or after ``limit`` seconds (a safety net: a test must not hang)."""
        waited = 0.0
        with self._held_changed:
            while self._held < n:
                if not alive() or waited >= limit:
                    return False
                self._held_changed.wait(1.0)
                waited += 1.0
        return True

    def release(self) -> None:
        """Stop holding: answer every held and later request."""
        with self._lock:
            self.hold_after = None
        if self._loop is not None and self._release is not None:
            self._loop.call_soon_threadsafe(self._release.set)

    async def _hold_if_due(self) -> None:
        with self._lock:
            if self.hold_after is None or self._admitted < self.hold_after:
                self._admitted += 1
                return
        with self._held_changed:
            self._held += 1
            self._held_changed.notify_all()
        await self._release.wait()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def answer(self, cell: Cell) -> tuple[str, Callable[[int], list[tuple[str, float]]]]:
        """The reply text of a cell and its top-k first-token candidates (``top(k)``, most likely first)."""
        if self.first_tokens is None:
            text, p_yes = answer_for(cell)
            return text, lambda k: top_tokens(p_yes, k)
        model, system, user, seed = cell
        u, cumulative, text = unit("a", model, system, user, seed), 0.0, ""
        for token, p in self.first_tokens.items():
            cumulative += p
            text = token
            if u < cumulative:
                break
        top = sorted(((t, math.log(p)) for t, p in self.first_tokens.items()), key=lambda c: -c[1])
        return text, lambda k: top[:max(k, 1)]

    # ---- provider hooks ----
    def add_routes(self, app: web.Application) -> None:
        raise NotImplementedError

    errors: dict[str, tuple[int, dict]] = {}  # fault kind -> (HTTP status, JSON body) in the provider's shape

    def error_response(self, rule: Rule) -> web.Response:
        """The provider's error for a fault: ``errors[kind]``, with Retry-After when the rule sets one; the
        html and garbage faults are 200 answers that are not the API's."""
        if rule.kind in self.PAGES:
            content_type, page = self.PAGES[rule.kind]
            return web.Response(body=page, content_type=content_type)
        status, body = self.errors[rule.kind]
        headers = {"Retry-After": f"{rule.retry_after:g}"} if rule.retry_after is not None else None
        return web.json_response(body, status=status, headers=headers)

    # ---- shared request flow ----
    def _admit(self, request: web.Request, route: str) -> web.Response | None:
        """Count the request, enforce the request bound and the API key."""
        with self._lock:
            self.total += 1
            self.routes_hit[route] += 1
            if self.total > self.max_requests:
                self.exhausted = True
                return web.json_response({"message": "fake server request bound reached", "code": "Gone"},
                                         status=410)
        if self.api_key is not None and request.headers.get("Authorization") != f"Bearer {self.api_key}":
            return self.error_response(Rule("bad_key"))
        return None

    def take_fault(self, route: str, body: dict, prompt: str) -> Rule | None:
        with self._lock:
            for rule in self.rules:
                if rule.matches(route, body, prompt):
                    if rule.times is not None:
                        rule.times -= 1
                    self.faults[rule.kind] += 1
                    return rule
        return None

    def count(self, cell: Cell, served: bool) -> None:
        with self._lock:
            (self.served if served else self.requests)[cell] += 1

    async def chat_flow(self, request: web.Request, body: dict, cell: Cell,
                        ok: Callable[[str | None], dict], malformed: bytes) -> web.StreamResponse:
        """One chat request: latency, fault or success. ``ok(text)`` builds the provider's 200 body
        (text None = the deterministic Yes/No answer)."""
        self.count(cell, served=False)
        await self._hold_if_due()
        if self.latency:
            await asyncio.sleep(self.latency)
        rule = self.take_fault("chat", body, f"{cell[1]}\n{cell[2]}")
        text = None
        if rule is not None:
            if rule.kind == "timeout":
                await asyncio.sleep(rule.delay)  # the client gives up first; not a served answer
                return web.json_response(ok(None))
            if rule.kind == "malformed":
                return web.Response(body=malformed, content_type="application/json")
            if rule.kind == "disconnect":
                if request.transport is not None:
                    request.transport.abort()
                raise asyncio.CancelledError  # aiohttp drops the connection without a response
            if rule.kind == "slow":
                await asyncio.sleep(rule.delay)
            elif rule.kind == "text":
                text = rule.text
            elif rule.kind == "empty_choices":  # a 200 that holds no answer: not served
                return web.json_response(self.without_choices(ok(None)))
            else:
                return self.error_response(rule)
        self.count(cell, served=True)
        response = web.json_response(ok(text))
        with self._lock:
            self.served_total += 1
            down = self.down_after is not None and self.served_total >= self.down_after and not self.down
        if down:
            self.down_after = None
            self._go_down_soon()
        return response

    @staticmethod
    def without_choices(body: dict) -> dict:
        """A success body with its choice list emptied (providers with another shape override this)."""
        return {**body, "choices": []}

    # ---- lifecycle ----
    def start(self) -> FakeServer:
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(ready,), daemon=True, name=f"{self.name}-server")
        self._thread.start()
        if not ready.wait(300):
            raise RuntimeError(f"{self.name} fake server did not start")
        if self._error is not None:
            raise RuntimeError(f"{self.name} fake server failed: {self._error}") from self._error
        return self

    def _run(self, ready: threading.Event) -> None:
        self._loop = asyncio.new_event_loop()
        try:
            self._loop.run_until_complete(self._serve(ready))
        except BaseException as exc:  # report start-up failures to start()
            self._error = exc
            ready.set()
        finally:
            self._loop.close()

    async def _serve(self, ready: threading.Event) -> None:
        app = web.Application(client_max_size=512 * 1024**2, middlewares=[self._while_down])
        self.add_routes(app)
        # handler_cancellation: a client that timed out stops its hanging handler, so shutdown is quick
        runner = self._runner = web.AppRunner(app, access_log=None, handler_cancellation=True, shutdown_timeout=1.0)
        await runner.setup()
        self._site = web.TCPSite(runner, "127.0.0.1", self.port, backlog=1024)
        await self._site.start()
        self.port = runner.addresses[0][1]
        self._stop = asyncio.Event()
        self._release = asyncio.Event()
        ready.set()
        try:
            await asyncio.wait_for(self._stop.wait(), self.lifetime)
        except TimeoutError:
            self.expired = True
        finally:
            await runner.cleanup()

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None and self._thread and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(15)

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def serve_forever(cls: type[FakeServer], description: str) -> None:
    """Command-line mode for benchmarks: parse the options, run in this process, print the URL, stop
    when stdin closes (the parent died or finished) or after ``lifetime``."""
    import argparse
    import sys

    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--latency", type=float, default=0.0)
    ap.add_argument("--lifetime", type=float, default=600.0)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--api-key")
    args = ap.parse_args()
    server = cls(latency=args.latency, lifetime=args.lifetime, port=args.port, api_key=args.api_key,
                 max_requests=10**9)
    server.start()
    print(f"URL {server.url}", flush=True)
    try:
        sys.stdin.read()
    except KeyboardInterrupt:
        pass
    server.stop()
