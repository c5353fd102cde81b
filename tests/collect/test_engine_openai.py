"""Whole runs of the openai backend through the engine against the fake OpenAI-compatible server:
faults mid-run, exact scores, a SIGKILLed `survey run` resumed, batch jobs interrupted after submission,
and the API key kept out of everything the run writes."""

import asyncio
import json
import signal
import time

import pytest
from fakes.common import answer_for
from fakes.openai_server import OpenAIFake
from test_engine_providers import Sleeps, by_prompt, only, rows, run_engine, survey_cli, write_study

from survey.collect.engine import Engine
from survey.collect.run_plan import make_plan
from survey.collect.runner import collect
from survey.collect.store import Store
from survey.data.table import validate_table
from survey.responses import BINARY
from survey.study.design import build_design
from survey.study.spec import load_study

KEY = "sk-openai-integration-5ecret-4b1c"


def openai_study(tmp_path, fake, *, top_logprobs=5, **kw):
    path = write_study(tmp_path, "openai", "gpt-4o-mini-latest", {"base_url": fake.base_url, "timeout": 0.5}
                       | kw.pop("options", {}), **kw)
    if top_logprobs:
        path.write_text(path.read_text().replace("seed = 3\n", f"seed = 3\ntop_logprobs = {top_logprobs}\n"))
    return path


def test_openai_run_with_faults_mid_run_exact_rows_scores_and_no_cell_sent_twice(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with OpenAIFake(api_key=KEY, latency=0.002, lifetime=120) as fake:
        path = openai_study(tmp_path, fake)
        fake.inject("rate_limit", times=3, retry_after=2)
        fake.inject("server_error", times=2)
        fake.inject("unavailable", times=2)
        fake.inject("malformed", times=2)
        fake.inject("disconnect", times=1)
        fake.inject("timeout", times=1, delay=5)
        fake.inject("text", times=2, match=only("Nurse", "sneakers"))
        fake.inject("content_filter", times=None, match=only("Software Engineer", "boots"))
        sleeps = Sleeps()
        report, study = run_engine(path, sleep=sleeps)

        total = 4 * 6 * 2
        df = rows(study)
        assert len(df) == total and df[["persona", "message", "perturbation", "replicate"]].drop_duplicates().shape[0] == total
        failed = df[df.status == "failed"]
        assert len(failed) == 6 and set(failed.persona) == {"0"} and set(failed.message) == {"boots"}
        assert fake.faults["content_filter"] == 6  # a non-retryable error is never retried
        assert failed.error.str.contains("content_filter").all()
        ok = df[df.status == "ok"]
        assert len(ok) == total - 6 and ok.answer.isna().sum() == 2
        assert set(ok.model_id) == {"gpt-4o-mini-2025-08-07"} and (ok.prompt_tokens > 0).all()
        # exact mode: every reply carries the first token's top log-probabilities and the score from them
        design = {q.key: q for q in build_design(study).queries(study.models[0])}
        for r in ok.itertuples():
            q = design[(study.name, "m1", r.message, r.perturbation, r.persona, r.replicate)]
            p = answer_for(("gpt-4o-mini-latest", q.system, q.user, q.provider_seed))[1]
            assert r.p_yes == pytest.approx(0.99 * p / (0.99 * p + 0.97 * (1 - p)))
        m = report.models["m1"]
        assert (m.stored, m.failed, m.invalid) == (total - 6, 6, 2)

        served = by_prompt(fake.served)
        assert sum(served.values()) == total - 6 and set(served.values()) == {2}
        injected = sum(n for k, n in fake.faults.items() if k != "text")
        assert sum(fake.requests.values()) == sum(fake.served.values()) + injected
        assert m.calls == sum(fake.requests.values())  # SDK retries off: one engine attempt, one request
        assert max(sleeps.delays) >= 2.0  # Retry-After: 2 reached the engine through the SDK

        before = sum(fake.requests.values())
        report2, _ = run_engine(path)  # resume: only the 6 failed rows go out again
        assert sum(fake.requests.values()) - before == 6
        assert by_prompt(fake.served) == served and report2.models["m1"].skipped == total - 6

    with Store(study.store_path) as store:
        table = store.to_long_table(study.name)
    validate_table(table)
    assert len(table) == total - 6


def test_a_server_without_logprobs_stores_answers_without_scores(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with OpenAIFake(logprobs_style="none", lifetime=120) as fake:
        report, study = run_engine(openai_study(tmp_path, fake, r=1))
    df = rows(study)
    assert len(df) == 24 and (df.status == "ok").all() and df.p_yes.isna().all() and df.answer.notna().all()
    assert capsys.readouterr().err.count("sent no log-probabilities") == 1


def test_openai_batch_interrupted_after_submit_resumes_the_job(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with OpenAIFake(api_key=KEY, batch_polls=10**6, lifetime=120) as fake:
        path = openai_study(tmp_path, fake, batch=True)
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
        assert df[df.status == "ok"].p_yes.notna().all()

        report, _ = run_engine(path)  # the failed line goes out again, in a new job of one line
        assert fake.jobs_created == 2 and report.models["m1"].stored == 1
        assert (rows(study).status == "ok").all()
        assert sum(by_prompt(fake.served).values()) == 48  # each cell answered exactly once overall


def test_sigkill_mid_run_then_resume_loses_nothing(tmp_path):
    with OpenAIFake(api_key=KEY, latency=0.01, lifetime=300) as fake:
        path = write_study(tmp_path, "openai", "gpt-4o-mini", {"base_url": fake.base_url}, personas=20, per=5,
                           r=1, concurrency=4)
        total = 20 * 10
        proc = survey_cli("run", str(path), "--yes", "--json", env_key=KEY, key_var="OPENAI_API_KEY",
                          background=True)
        deadline = time.monotonic() + 60
        while sum(fake.served.values()) < 40 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        proc.stdout.close()
        proc.stderr.close()
        assert proc.returncode == -signal.SIGKILL
        study = load_study(path)
        first = rows(study)
        assert 0 < len(first) < total, "kill the run mid-way: make the study bigger if this fails"
        assert (first.status == "ok").all()

        done = survey_cli("run", str(path), "--yes", "--json", env_key=KEY, key_var="OPENAI_API_KEY")
        assert done.returncode == 0, done.stderr
        df = rows(study)
        assert len(df) == total and (df.status == "ok").all()

        prompt_of = {q.key: (q.system, q.user) for q in build_design(study).queries(study.models[0])}
        stored_first = {prompt_of[(study.name, "m1", r.message, r.perturbation, r.persona, r.replicate)]
                        for r in first.itertuples()}
        served, requested = by_prompt(fake.served), by_prompt(fake.requests)
        assert len(served) == total
        assert all(served[p] == 1 and requested[p] == 1 for p in stored_first)
        twice = {p for p, n in served.items() if n > 1}
        assert len(twice) <= 4 and max(served.values()) <= 2 and not twice & stored_first


def test_the_key_never_reaches_the_store_logs_or_exports(tmp_path):
    from click.testing import CliRunner

    from survey.cli import cli

    wrong = "sk-wrong-" + KEY[::-1]
    with OpenAIFake(api_key=KEY, lifetime=120) as fake:
        path = openai_study(tmp_path, fake, r=1)
        fake.inject("content_filter", times=None, match=only("Nurse", "boots"))
        fake.inject("rate_limit", times=2, retry_after=0.01)
        res = survey_cli("run", str(path), "--yes", env_key=KEY, key_var="OPENAI_API_KEY")
        assert res.returncode == 1, res.stderr  # content-filtered rows failed: the study is incomplete
        outputs = [res.stdout, res.stderr]
        (tmp_path / "w").mkdir()  # a wrong key: the preflight stops the run with the 401, key not echoed
        res = survey_cli("run", str(openai_study(tmp_path / "w", fake, r=1)), "--yes", "--json", env_key=wrong,
                         key_var="OPENAI_API_KEY")
        outputs += [res.stdout, res.stderr]
        assert "401" in res.stdout
    runner = CliRunner()
    store = tmp_path / "store.sqlite"
    for args in (["export", str(store), "--out", str(tmp_path / "t.csv"), "--include-failed"],
                 ["export", str(store), "--out", str(tmp_path / "t.parquet")],
                 ["status", str(store), "--json"]):
        res = runner.invoke(cli, args, env={"OPENAI_API_KEY": KEY})
        assert res.exit_code == 0, res.output
        outputs.append(res.output)
    assert "content_filter" in "".join(outputs)  # the error rows were reported
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert {"store.sqlite", "t.csv", "t.parquet"} <= {p.name for p in files}
    for secret in (KEY, wrong):
        for text in outputs:
            assert secret not in text
        for p in files:
            assert secret.encode() not in p.read_bytes(), p


def test_exact_score_is_the_response_types_score_of_the_stored_logprobs(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with OpenAIFake(logprobs_style="vllm", lifetime=120) as fake:
        _, study = run_engine(openai_study(tmp_path, fake, r=1, top_logprobs=5))
    df = rows(study)
    for r in df.itertuples():
        lp = json.loads(r.logprobs)
        assert lp[" No"] == -9999.0 and r.p_yes == pytest.approx(BINARY.score_from_logprobs(lp))
