"""Whole runs through the engine, the real SDK backends and the fake servers: faults mid-run, resume,
a SIGKILLed `survey run`, batch jobs interrupted after submission, and the API key kept out of
everything the run writes. The tests marked ``by_provider`` run for Mistral and for the openai backend.

The fake counts requests per cell (model, system, user, seed). The design gives every replicate the
model's seed, so replicates of one prompt share a fake cell: "served once per stored row" reads
``served[prompt] == replicates``.
"""

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
from fakes.dashscope_server import DashScopeFake
from fakes.mistral_server import MistralFake
from fakes.openai_server import OpenAIFake
from shoe_study import shoe_study_toml

from survey.collect.engine import Engine
from survey.collect.run_plan import make_plan
from survey.collect.runner import collect
from survey.data.store import Store
from survey.data.table import validate_table
from survey.study.design import build_design
from survey.study.spec import load_study

ROOT = Path(__file__).resolve().parents[2]
MKEY = "mk-integration-5ecret-7d1f"
DKEY = "sk-integration-5ecret-9e2a"
OKEY = "sk-openai-integration-5ecret-4b1c"


@dataclass(frozen=True)
class Provider:
    """A backend that talks to a fake server: what the shared run tests need to know about it."""

    backend: str
    fake: type
    model_id: str
    key: str
    key_var: str
    url_option: str  # the backend option naming the server
    reported: str  # the model id the fake reports back
    filtered: str  # a word of the content filter's error

    def options(self, fake) -> dict:
        return {self.url_option: fake.base_url if self.url_option == "base_url" else fake.url}


PROVIDERS = [Provider("mistral", MistralFake, "mistral-small-latest", MKEY, "MISTRAL_API_KEY", "server_url",
                      "mistral-small-2509", "moderation"),
             Provider("openai", OpenAIFake, "gpt-4o-mini-latest", OKEY, "OPENAI_API_KEY", "base_url",
                      "gpt-4o-mini-2025-08-07", "content_filter")]
by_provider = pytest.mark.parametrize("prov", PROVIDERS, ids=[p.backend for p in PROVIDERS])


def write_study(tmp_path, backend, model_id, options, *, personas=4, per=3, r=2, batch=False, concurrency=8,
                name="prov"):
    opts = ", ".join(f"{k} = {json.dumps(v)}" for k, v in options.items())
    text = shoe_study_toml(name, "store.sqlite", replicates=r, personas=personas, paraphrases=per) + f"""[[models]]
name = "m1"
backend = "{backend}"
model_id = "{model_id}"
seed = 3
concurrency = {concurrency}
batch = {str(batch).lower()}
options = {{ {opts} }}
"""
    path = tmp_path / "study.toml"
    path.write_text(text)
    return path


class Sleeps:
    """Backoff sleeps are recorded (to check Retry-After) and shortened (to keep the test fast)."""

    def __init__(self):
        self.delays = []

    async def __call__(self, d):
        self.delays.append(d)
        await asyncio.sleep(0)


def run_engine(study_path, **kw):
    study = load_study(study_path)
    with Store(study.store_path) as store:
        kw = {"base_delay": 0.01, "max_delay": 0.05, "poll_interval": 0.01, "sleep": Sleeps()} | kw
        eng = Engine(store, progress=False, **kw)
        asyncio.run(collect(eng, make_plan(study, store)))
        return eng.report, study


def rows(study):
    with Store(study.store_path) as store:
        if study.name not in store.studies():
            return pd.DataFrame()
        return store.to_long_table(study.name, include_failed=True)


def by_prompt(counter):
    out = Counter()
    for (_model, system, user, _seed), n in counter.items():
        out[(system, user)] += n
    return out


def only(persona_word, pert_word):
    """A fault matcher for one (persona, perturbation) prompt."""
    return lambda body: _prompt(body).count(persona_word) and pert_word in _prompt(body)


def _prompt(body):
    msgs = body.get("messages") or (body.get("input") or {}).get("messages", [])
    return "\n".join(m["content"] for m in msgs)


@by_provider
def test_run_with_faults_mid_run_exact_rows_and_no_cell_sent_twice(tmp_path, monkeypatch, prov):
    monkeypatch.setenv(prov.key_var, prov.key)
    with prov.fake(api_key=prov.key, latency=0.002) as fake:
        path = write_study(tmp_path, prov.backend, prov.model_id, prov.options(fake) | {"timeout": 3})
        fake.inject("rate_limit", times=3, retry_after=2)
        fake.inject("server_error", times=2)
        fake.inject("unavailable", times=2)
        fake.inject("malformed", times=2)
        fake.inject("disconnect", times=1)
        fake.inject("timeout", times=1, delay=600)  # far beyond the 3 s timeout
        fake.inject("text", times=2, match=only("Nurse", "sneakers"))  # persona 1, every sneakers item
        fake.inject("content_filter", times=None, match=only("Software Engineer", "boots"))  # a whole cell row set
        sleeps = Sleeps()
        report, study = run_engine(path, sleep=sleeps)

        total = 4 * 6 * 2
        df = rows(study)
        assert len(df) == total and df[["persona", "message", "perturbation", "replicate"]].drop_duplicates().shape[0] == total
        failed = df[df.status == "failed"]
        # persona 0 (Software Engineer) x 3 boots items x 2 replicates: content filter, not retried
        assert len(failed) == 6 and set(failed.persona) == {"0"} and set(failed.message) == {"boots"}
        assert fake.faults["content_filter"] == 6  # a non-retryable error is never retried
        assert set(failed.error.str.contains(prov.filtered)) == {True}
        ok = df[df.status == "ok"]
        assert len(ok) == total - 6 and ok.answer.isna().sum() == 2
        assert set(ok.model_id) == {prov.reported} and (ok.prompt_tokens > 0).all()
        m = report.models["m1"]
        assert (m.stored, m.failed, m.invalid) == (total - 6, 6, 2)

        # every reply the fake sent was stored, and no prompt was answered more than r times
        served = by_prompt(fake.served)
        assert sum(served.values()) == total - 6 and set(served.values()) == {2}
        injected = sum(n for k, n in fake.faults.items() if k != "text")
        assert sum(fake.requests.values()) == sum(fake.served.values()) + injected
        assert m.calls == sum(fake.requests.values())  # SDK retries off: one engine attempt, one request
        assert max(sleeps.delays) >= 2.0  # Retry-After: 2 reached the engine through the SDK

        # resume: only the 6 failed rows are sent again (and fail again); nothing stored is re-sent
        before = sum(fake.requests.values())
        report2, _ = run_engine(path)
        assert sum(fake.requests.values()) - before == 6
        assert by_prompt(fake.served) == served
        assert report2.models["m1"].skipped == total - 6

    with Store(study.store_path) as store:
        table = store.to_long_table(study.name)
    validate_table(table)
    assert len(table) == total - 6


def test_dashscope_run_with_returned_error_codes(tmp_path, monkeypatch):
    monkeypatch.setenv("DASHSCOPE_API_KEY", DKEY)
    with DashScopeFake(api_key=DKEY) as fake:
        path = write_study(tmp_path, "dashscope", "qwen3-8b", {"base_url": fake.base_url, "timeout": 5}, r=1)
        fake.inject("rate_limit", times=2, retry_after=1)
        fake.inject("quota", times=2)
        fake.inject("throttling", times=1)
        fake.inject("server_error", times=2)
        fake.inject("malformed", times=1)
        fake.inject("content_filter", times=None, match=only("Nurse", "boots"))
        report, study = run_engine(path)
        df = rows(study)
        assert len(df) == 24
        failed = df[df.status == "failed"]
        assert len(failed) == 3 and set(failed.persona) == {"1"}
        assert set(failed.error.str.contains("DataInspectionFailed")) == {True}
        served = by_prompt(fake.served)
        assert sum(served.values()) == 21 and set(served.values()) == {1}
        assert fake.last_parameters["enable_thinking"] is False


@by_provider
def test_batch_interrupted_after_submit_resumes_the_job(tmp_path, monkeypatch, prov):
    monkeypatch.setenv(prov.key_var, prov.key)
    with prov.fake(api_key=prov.key, batch_polls=10**6) as fake:
        path = write_study(tmp_path, prov.backend, prov.model_id, prov.options(fake), batch=True)
        fake.inject("server_error", route="batch", match=only("Nurse", "boots"))  # one line fails once
        study = load_study(path)

        async def interrupted():
            with Store(study.store_path) as store:
                eng = Engine(store, progress=False, poll_interval=0.01, max_poll_interval=0.01)
                task = asyncio.create_task(collect(eng, make_plan(study, store)))
                while not store.batch_jobs(study.name):  # the job id is stored before the first poll
                    await asyncio.sleep(0.01)
                await asyncio.sleep(0.05)
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task

        asyncio.run(interrupted())
        assert fake.jobs_created == 1 and rows(study).empty
        with Store(study.store_path) as store:
            (job,) = store.batch_jobs(study.name, open_only=True)
        assert job["n_queries"] == 48

        fake.batch_polls = 1  # the provider finishes the job while we were away
        report, _ = run_engine(path)
        assert fake.jobs_created == 1  # resumed by id, never resubmitted
        assert report.models["m1"].batch_jobs == [job["job_id"]]
        df = rows(study)
        assert len(df) == 48 and (df.status == "failed").sum() == 1
        assert set(df.batch_job.dropna()) == {job["job_id"]}

        report, _ = run_engine(path)  # the failed line goes out again, in a new job of one line
        assert fake.jobs_created == 2 and report.models["m1"].stored == 1
        assert (rows(study).status == "ok").all()
        assert sum(by_prompt(fake.served).values()) == 48  # each cell answered exactly once overall


# ---- subprocess runs: the real `survey run` CLI ----

def survey_cli(*args, env_key=None, key_var="MISTRAL_API_KEY", timeout=600, **popen):
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({key_var: env_key} if env_key else {})
    env["PYTHONPATH"] = str(ROOT)
    cmd = [sys.executable, "-m", "survey", *args]
    if popen.pop("background", False):
        return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, **popen)
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd=ROOT)


@by_provider
def test_crash_test_sigkill_mid_run_then_resume(tmp_path, prov):
    # 40 requests answered, then every one held: the kill comes mid-run on any machine, fast or busy
    with prov.fake(api_key=prov.key, hold_after=40) as fake:
        path = write_study(tmp_path, prov.backend, prov.model_id, prov.options(fake), personas=20, per=5, r=1,
                           concurrency=4)
        total = 20 * 10
        proc = survey_cli("run", str(path), "--yes", "--json", env_key=prov.key, key_var=prov.key_var,
                          background=True)
        held = fake.wait_held(4, alive=lambda: proc.poll() is None)  # each of the 4 workers waits for a reply
        proc.send_signal(signal.SIGKILL)
        proc.wait(600)
        proc.stdout.close()
        proc.stderr.close()
        assert held and proc.returncode == -signal.SIGKILL
        fake.release()
        study = load_study(path)
        first = rows(study)
        assert len(first) == 40 and (first.status == "ok").all()  # every reply received was committed

        done = survey_cli("run", str(path), "--yes", "--json", env_key=prov.key, key_var=prov.key_var)
        assert done.returncode == 0, done.stderr
        df = rows(study)
        assert len(df) == total and (df.status == "ok").all()

        prompt_of = {q.key: (q.system, q.user) for q in build_design(study).queries(study.models[0])}
        stored_first = {prompt_of[(study.name, "m1", r.message, r.perturbation, r.persona, r.replicate, "q")]
                        for r in first.itertuples()}
        served, requested = by_prompt(fake.served), by_prompt(fake.requests)
        assert len(served) == total
        # each row stored before the kill was requested exactly once, and never again on resume
        assert all(served[p] == 1 and requested[p] == 1 for p in stored_first)
        # the 4 requests held at the kill were never answered, so no reply was paid for twice
        assert max(served.values()) == 1


@by_provider
def test_secrets_never_reach_the_store_logs_or_exports(tmp_path, prov):
    from click.testing import CliRunner

    from survey.cli import cli

    wrong = "mk-wrong-" + prov.key[::-1]
    with prov.fake(api_key=prov.key) as fake:
        path = write_study(tmp_path, prov.backend, prov.model_id, prov.options(fake), r=1)
        fake.inject("content_filter", times=None, match=only("Nurse", "boots"))
        fake.inject("rate_limit", times=2, retry_after=0.01)
        res = survey_cli("run", str(path), "--yes", env_key=prov.key, key_var=prov.key_var)
        assert res.returncode == 1, res.stderr  # content-filtered rows failed: the study is incomplete
        outputs = [res.stdout, res.stderr]
        # a wrong key: every row fails with the provider's 401, and that key is not echoed either
        (tmp_path / "w").mkdir()
        res = survey_cli("run", str(write_study(tmp_path / "w", prov.backend, prov.model_id, prov.options(fake),
                                                r=1)), "--yes", "--json", env_key=wrong, key_var=prov.key_var)
        outputs += [res.stdout, res.stderr]
        assert "401" in res.stdout
    runner = CliRunner()
    store = tmp_path / "store.sqlite"
    for args in (["export", str(store), "--out", str(tmp_path / "t.csv"), "--include-failed"],
                 ["export", str(store), "--out", str(tmp_path / "t.parquet")],
                 ["status", str(store), "--json"], ["status", str(tmp_path / "w" / "store.sqlite")]):
        res = runner.invoke(cli, args, env={prov.key_var: prov.key})
        assert res.exit_code == 0, res.output
        outputs.append(res.output)
    assert prov.filtered in "".join(outputs)  # the error rows were reported
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert {"store.sqlite", "t.csv", "t.parquet"} <= {p.name for p in files}
    for secret in (prov.key, wrong):
        for text in outputs:
            assert secret not in text
        for p in files:
            assert secret.encode() not in p.read_bytes(), p
