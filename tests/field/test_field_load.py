"""Load: 200 respondents answering at once over real HTTP (aiohttp against uvicorn), and the server killed
with SIGKILL in the middle of that load, then restarted: no committed response lost, none stored twice, the
balance counters right."""

import asyncio
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import aiohttp
from field_study import ABOUT, write_study

from survey.field.server import bound_port, field_server, uvicorn_server

N = 200
DYING = Path(__file__).with_name("dying_server.py")
ITEM = re.compile(r'name="(item\d+)" value="([^"]*)"')


class Respondent:
    """One person's browser: its own cookies; every step retried when the server is gone, once it is back."""

    def __init__(self, rid: str, server):
        self.rid, self.server = rid, server
        self.done = False
        self.refused = None

    async def step(self, session, method, path, data=None):
        while True:
            await self.server.up.wait()
            try:
                async with session.request(method, self.server.base + path, data=data, allow_redirects=False) as r:
                    return r.status, r.headers.get("location"), await r.text()
            except (TimeoutError, aiohttp.ClientConnectionError):
                self.server.retried += 1
                await self.server.down_seen()

    async def run(self):
        jar = aiohttp.CookieJar(unsafe=True)  # cookies are not per port: a restart on another port keeps them
        timeout = aiohttp.ClientTimeout(total=120)
        async with aiohttp.ClientSession(cookie_jar=jar, timeout=timeout) as s:
            status, where, text = await self.step(s, "POST", "/start", {"consent": "yes", "PROLIFIC_PID": self.rid})
            if status != 303:  # e.g. the session was stored but the server died before its cookie was sent
                self.refused = status
                return
            if where == "about":
                await self.step(s, "POST", "/about", ABOUT)
            status, where, page = await self.step(s, "GET", "/questions")
            if status == 200:
                answers = {name: value for name, value in ITEM.findall(page)}  # the last option of each
                status, where, _ = await self.step(s, "POST", "/questions", {**answers, "attention": "Blue"})
            if where == "done" or (status == 303 and where == "done"):
                status, _, text = await self.step(s, "GET", "/done")
                self.done = status == 200 and "C0DE42" in text
                if self.done:
                    self.server.acked()


class InThread:
    """uvicorn in a thread (its own event loop), as `survey field` runs it."""

    def __init__(self, study):
        self.retried = 0
        self.fs = field_server(study)
        self.server = uvicorn_server(self.fs, "127.0.0.1", 0)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.up = asyncio.Event()

    def __enter__(self):
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:  # wait on uvicorn's own flag (polled: it has no event)
            assert self.thread.is_alive() and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.01)
        self.base = f"http://127.0.0.1:{bound_port(self.server)}"
        return self

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join()
        self.fs.close()

    async def down_seen(self):
        raise AssertionError("the in-thread server dropped a connection")

    def acked(self):
        pass


def stored(store):
    with sqlite3.connect(store) as db:
        answers = db.execute("SELECT respondent, COUNT(*) FROM field_answers GROUP BY respondent").fetchall()
        sessions = db.execute("SELECT condition, status FROM field_sessions").fetchall()
    return dict(answers), sessions


def test_200_concurrent_respondents_are_all_stored_once(tmp_path):
    study = write_study(tmp_path)

    async def main(server):
        server.up.set()
        people = [Respondent(f"p{i:03d}", server) for i in range(N)]
        await asyncio.gather(*(p.run() for p in people))
        return people

    with InThread(study) as server:
        people = asyncio.run(main(server))
    assert all(p.done for p in people)
    answers, sessions = stored(tmp_path / "store.sqlite")
    assert len(answers) == N and set(answers.values()) == {1}  # 200 stored, 0 lost, 0 duplicated
    per = Counter(c for c, s in sessions if s == "complete")
    assert sum(per.values()) == N and max(per.values()) - min(per.values()) <= 1  # balanced: 33 or 34 of 6
    print(f"{N} respondents at once: {len(answers)} stored, completes per condition {sorted(per.values())}")


class Subprocess:
    """`survey field STUDY --port 0 --json` as a separate process that kills itself with SIGKILL right after its
    ``kill_after``-th committed response (dying_server.py), before answering it; a watcher thread starts it
    again (the plain command) once it is dead."""

    def __init__(self, study, kill_after: int):
        self.study, self.kill_after = study, kill_after
        self.up = asyncio.Event()
        self.killed = asyncio.Event()
        self.retried = 0
        self.stderr = []
        self.tokens = []
        self.returncodes = []

    def start(self, *prefix):
        args = [*prefix, "field", str(self.study), "--port", "0", "--json"]
        self.proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        line = self.proc.stdout.readline()
        assert line, self.proc.stderr.read()
        info = json.loads(line)
        self.tokens.append(info["token"])
        self.base = f"http://127.0.0.1:{info['port']}"

    def begin(self):
        self.loop = asyncio.get_running_loop()
        self.start(str(DYING), str(self.kill_after))
        self.up.set()
        self.watcher = threading.Thread(target=self.watch, daemon=True)
        self.watcher.start()

    def watch(self):
        self.returncodes.append(self.proc.wait())
        self.loop.call_soon_threadsafe(self.up.clear)
        self.loop.call_soon_threadsafe(self.killed.set)
        self.stderr.append(self.proc.stderr.read())
        self.start("-m", "survey")  # the restart: same store, another port
        self.loop.call_soon_threadsafe(self.up.set)

    def stop(self, sig=signal.SIGINT):
        self.watcher.join()
        self.proc.send_signal(sig)
        out, err = self.proc.communicate(timeout=60)
        self.stderr.append(err)

    def acked(self):
        pass

    async def down_seen(self):
        await self.killed.wait()


def test_sigkill_mid_load_loses_no_committed_response(tmp_path):
    study = write_study(tmp_path)
    server = Subprocess(study, kill_after=60)

    async def main():
        server.begin()
        people = [Respondent(f"k{i:03d}", server) for i in range(N)]
        await asyncio.gather(*(p.run() for p in people))
        return people

    people = asyncio.run(main())
    try:
        assert server.returncodes == [-signal.SIGKILL]
        assert server.retried > 0  # at least the respondent whose answers were committed as the server died
        answers, sessions = stored(tmp_path / "store.sqlite")
        done = {p.rid for p in people if p.done}
        # every response a respondent saw confirmed is stored, once; nothing is stored that was not confirmed
        assert set(answers) == done and set(answers.values()) == {1}
        # those turned away lost their cookie with the killed server; everyone else finished
        refused = [p for p in people if not p.done]
        assert all(p.refused == 409 for p in refused) and len(done) + len(refused) == N
        assert len(done) >= N - 30
        # the counters: every session counted once, assignment balanced across the restart
        assigned = Counter(c for c, s in sessions if s != "quota_full")
        assert sum(assigned.values()) == len(sessions) == N  # one session per respondent, none lost
        assert max(assigned.values()) - min(assigned.values()) <= 1
        print(f"SIGKILL after {server.kill_after} confirmed: {len(done)} stored and confirmed, {len(refused)} turned "
              f"away (session stored, cookie lost), {server.retried} requests cut by the kill and sent again, "
              f"sessions per condition {sorted(assigned.values())}")
        import urllib.request

        req = urllib.request.Request(server.base + "/admin/export.csv",
                                     headers={"Authorization": f"Bearer {server.tokens[-1]}"})
        with urllib.request.urlopen(req) as r:  # the restarted server serves what the store holds
            assert len(r.read().decode().strip().splitlines()) == len(done) + 1
    finally:
        server.stop()
    logs = "\n".join(server.stderr)
    assert not any(p.rid in logs for p in people) and not any(t in logs for t in server.tokens)
