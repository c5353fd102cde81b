"""Faults that the engine must tell apart, through the real SDK backends and the fake servers on 127.0.0.1:
a reply without choices (a flaky proxy: retried, never an answer), an account out of quota (stops the model
at once), a server that answers with web pages or garbage (a wrong URL: stops at the preflight, or within
seconds mid-run) and a server restart (ridden through). Outages and breakers run in simulated time
(tests/virtual_time.py): nothing waits on, or measures, the wall clock."""

from dataclasses import dataclass

import pytest
from fakes.dashscope_server import DashScopeFake
from fakes.mistral_server import MistralFake
from fakes.openai_server import OpenAIFake
from test_engine_providers import DKEY, MKEY, OKEY, by_prompt, rows, run_engine, write_study
from test_faults import failing_run
from virtual_time import VirtualTime

from survey.cli.run import _print_report
from survey.study.spec import load_study


@dataclass(frozen=True)
class Chat:
    """One chat path to a fake server: the backend, its fake, key and options."""

    name: str
    backend: str
    fake: type
    model_id: str
    key: str
    key_var: str
    url_option: str
    extra: tuple = ()

    def options(self, fake) -> dict:
        url = fake.base_url if self.url_option == "base_url" else fake.url
        return {self.url_option: url, **dict(self.extra)}


PATHS = [Chat("mistral", "mistral", MistralFake, "mistral-small-latest", MKEY, "MISTRAL_API_KEY", "server_url"),
         Chat("openai-aiohttp", "openai", OpenAIFake, "gpt-4o-mini", OKEY, "OPENAI_API_KEY", "base_url"),
         Chat("openai-sdk", "openai", OpenAIFake, "gpt-4o-mini", OKEY, "OPENAI_API_KEY", "base_url",
              (("http", "sdk"),)),
         Chat("dashscope", "dashscope", DashScopeFake, "qwen-plus", DKEY, "DASHSCOPE_API_KEY", "base_url")]
by_path = pytest.mark.parametrize("chat", PATHS, ids=[c.name for c in PATHS])
TOTAL = 4 * 6  # personas x (2 messages x 3 paraphrases), one replicate


def study_for(tmp_path, chat, fake, monkeypatch, **kw):
    monkeypatch.setenv(chat.key_var, chat.key)
    return write_study(tmp_path, chat.backend, chat.model_id, chat.options(fake), r=1, **kw)


def after_served(fake, n):
    """A fault matcher that holds once the fake has answered ``n`` chat requests."""
    return lambda body: fake.served_total >= n


# ---- a reply without choices ----

@by_path
def test_a_reply_without_choices_is_retried_and_never_stored_as_an_answer(tmp_path, monkeypatch, chat):
    # before: each such reply was stored as the persona's answer, invalid, and never sent again
    with chat.fake(api_key=chat.key, lifetime=120) as fake:
        path = study_for(tmp_path, chat, fake, monkeypatch)
        fake.inject("empty_choices", times=8, match=after_served(fake, 1 if chat.backend == "dashscope" else 0))
        report, study = run_engine(path)
        m = report.models["m1"]
        df = rows(study)
        assert fake.faults["empty_choices"] == 8
        assert (m.stored, m.valid, m.invalid, m.failed) == (TOTAL, TOTAL, 0, 0)
        assert len(df) == TOTAL and (df.status == "ok").all() and df.answer.notna().all()
        served = by_prompt(fake.served)
        assert set(served.values()) == {1}  # one real answer per prompt, stored


@pytest.mark.parametrize("chat", PATHS[:2], ids=["mistral", "openai"])
def test_a_batch_line_without_choices_is_sent_again_not_stored_as_an_answer(tmp_path, monkeypatch, chat):
    with chat.fake(api_key=chat.key, lifetime=120) as fake:
        path = study_for(tmp_path, chat, fake, monkeypatch, batch=True)
        fake.inject("empty_choices", times=3, route="batch")
        report, study = run_engine(path)
        df = rows(study)
        assert (report.models["m1"].stored, report.models["m1"].invalid) == (TOTAL - 3, 0)
        failed = df[df.status == "failed"]
        assert len(failed) == 3 and failed.error.str.contains("without choices").all()  # owed, not answered
        run_engine(path)  # the rerun sends the three lines again
        df = rows(study)
        assert (df.status == "ok").all() and df.answer.notna().all() and len(df) == TOTAL


# ---- out of quota ----

QUOTA = [("openai-aiohttp", "insufficient_quota", "429 insufficient_quota"),
         ("mistral", "payment_required", "402 billing_error"),
         ("dashscope", "arrearage", "400 Arrearage")]


@pytest.mark.parametrize("name,kind,shown", QUOTA, ids=[q[0] for q in QUOTA])
def test_an_account_out_of_quota_stops_the_model_at_once_keeping_every_reply(tmp_path, monkeypatch, capsys, name,
                                                                                kind, shown):
    # before: OpenAI's insufficient_quota 429 was retried like a rate limit (8 attempts per query, for hours
    # at real backoff); DashScope's Arrearage failed every row one by one
    chat = next(c for c in PATHS if c.name == name)
    with chat.fake(api_key=chat.key, lifetime=120) as fake:
        path = study_for(tmp_path, chat, fake, monkeypatch, concurrency=4)
        fake.inject(kind, times=None, match=after_served(fake, 10))
        report, study = run_engine(path)
        m = report.models["m1"]
        assert fake.faults[kind] <= 4  # at most the requests in flight when the first one came back
        assert "billing" in m.stopped and shown in m.stopped and m.failed == 0
        df = rows(study)
        assert len(df) == m.stored >= 9 and (df.status == "ok").all()  # every reply that arrived is kept
        _print_report(report, study.store_path)
        (line,) = [x for x in capsys.readouterr().err.splitlines() if "stopped" in x]
        assert line.startswith("m1: stopped: HTTP") and "add credit or raise the limit" in line

        fake.rules.clear()  # paid: the rerun sends only what is missing
        again, _ = run_engine(path)
        assert again.models["m1"].stored == TOTAL - len(df) and len(rows(study)) == TOTAL
        queries = {p: n for p, n in by_prompt(fake.served).items() if p[1] != "Reply with Yes."}  # not DashScope's
        assert len(queries) == TOTAL and set(queries.values()) == {1}  # preflight: no reply paid twice


def test_an_account_out_of_credit_stops_the_run_at_the_preflight(tmp_path, monkeypatch):
    chat = PATHS[3]  # DashScope's preflight is a 1-token reply, so it meets the account's state
    with chat.fake(api_key=chat.key, lifetime=60) as fake:
        fake.inject("arrearage", times=None)
        err, eng = failing_run(study_for(tmp_path, chat, fake, monkeypatch))
        assert err is not None and "\n" not in str(err) and "model 'm1' cannot run" in str(err)
        assert "Arrearage" in str(err) and "billing" in str(err)
        assert fake.total == 1 and eng.report.models == {}  # one request, not one per query


# ---- web pages and garbage ----

@by_path
@pytest.mark.parametrize("kind", ["html", "garbage"])
def test_a_server_that_answers_with_web_pages_or_garbage_stops_the_run_at_the_preflight(tmp_path, monkeypatch,
                                                                                          chat, kind):
    # before: the openai SDK's preflight failed with an AttributeError that did not stop the run, Mistral's
    # took the 200 for an answer; then every query was retried 8 times or failed on its own
    with chat.fake(api_key=chat.key, lifetime=60) as fake:
        for route in ("chat", "models"):
            fake.inject(kind, times=None, route=route)
        path = study_for(tmp_path, chat, fake, monkeypatch)
        err, eng = failing_run(path)
        assert err is not None, "the run went ahead against a server that is not the API"
        msg = str(err)
        assert "\n" not in msg and msg.startswith("model 'm1' cannot run:") and f"options.{chat.url_option}" in msg
        assert ("web page (HTML)" if kind == "html" else "not JSON") in msg
        assert fake.total == 2 and eng.report.models == {}  # the preflight and its second chance
        assert rows(load_study(path)).empty


@pytest.mark.parametrize("chat", PATHS[:2], ids=["mistral", "openai"])
def test_garbage_mid_run_stops_the_model_within_seconds_keeping_every_reply(tmp_path, monkeypatch, chat):
    # the preflight passes; after 6 answers every chat reply is a web page (a proxy sent elsewhere)
    with chat.fake(api_key=chat.key, lifetime=120) as fake:
        path = study_for(tmp_path, chat, fake, monkeypatch, concurrency=4)
        fake.inject("html", times=None, match=after_served(fake, 6))
        vt = VirtualTime()
        report, study = run_engine(path, sleep=vt.sleep, clock=vt.clock, base_delay=1, max_delay=60)
        m = report.models["m1"]
        assert "does not answer like the API" in m.stopped and "web page (HTML)" in m.stopped
        assert 10 <= vt.latest < 60  # seconds of simulated time, not 8 attempts per query of growing backoff
        assert fake.faults["html"] <= 40 and m.failed == 0
        assert len(rows(study)) == m.stored >= 6 and (rows(study).status == "ok").all()


# ---- a server restart ----

@pytest.mark.parametrize("chat", PATHS[:2], ids=["mistral", "openai"])
def test_a_ten_second_server_restart_is_ridden_through(tmp_path, monkeypatch, chat):
    # before: 20 consecutive connection failures (at least twice the concurrency) stopped the model, whatever
    # the time: here the limit was 32, and the server stays down until 48 requests failed and 10 s passed
    vt = VirtualTime()
    went_down, failed = [], []

    async def sleep(seconds):
        if fake.down:
            went_down.append(vt.clock())
            failed.append(seconds)
        await vt.sleep(seconds)
        if fake.down and len(failed) >= 48 and vt.latest >= went_down[0] + 10:
            fake.come_back()

    with chat.fake(api_key=chat.key, lifetime=120) as fake:
        path = study_for(tmp_path, chat, fake, monkeypatch, personas=16, concurrency=16)
        total = 4 * TOTAL
        fake.down_after = 12  # the server goes down once it has answered 12 queries
        # each task keeps its own simulated clock, so a task the event loop happens to favour on a busy machine
        # could back off 1 + 2 + ... + 60 s alone and reach the breaker's 120 s before the others had failed 48
        # times; with waits of at most 2 s no task gets there before the server is back, however tasks interleave
        report, study = run_engine(path, sleep=sleep, clock=vt.clock, base_delay=1, max_delay=2)
        m = report.models["m1"]
        assert fake.restarts == 1 and went_down and vt.latest >= went_down[0] + 10  # it was down 10 s
        assert m.calls - total >= 48  # failed requests: more than used to trip the breaker
        assert m.stopped is None and (m.stored, m.failed) == (total, 0)
        assert (rows(study).status == "ok").all()
        assert set(by_prompt(fake.served).values()) == {1}  # nothing asked twice once answered
