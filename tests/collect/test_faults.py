"""Faults around a run, through the real SDK backends and the fake servers: the preflight request
stops a wrong port, a scheme-less URL, a bad key or a doubled /v1 before any query; the circuit
breaker stops a model whose connection keeps failing while the other models finish; SIGTERM stops a
`survey run` like Ctrl-C, keeping every reply and printing the summary."""

import asyncio
import signal
import socket
import threading

import pytest
from fakes.common import complete_once
from fakes.dashscope_server import DashScopeFake
from fakes.mistral_server import MistralFake
from gated_backend import Gate
from test_engine_providers import DKEY, MKEY, Sleeps, by_prompt, rows, run_engine, survey_cli, write_study
from virtual_time import VirtualTime

from survey.backends import create_backend
from survey.backends.base import BackendError, Query
from survey.backends.mistral import MistralBackend
from survey.cli.run import _print_report
from survey.collect.engine import Engine
from survey.collect.run_plan import make_plan
from survey.collect.runner import collect
from survey.data.store import Store
from survey.errors import SurveyError
from survey.study.design import build_design
from survey.study.spec import load_study


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def failing_run(path):
    """Run the study through collect() with fast backoff; return (error, engine). No error: None."""
    study = load_study(path)
    with Store(study.store_path) as store:
        eng = Engine(store, progress=False, base_delay=0.01, max_delay=0.05, sleep=Sleeps())
        try:
            asyncio.run(collect(eng, make_plan(study, store)))
        except SurveyError as exc:
            return exc, eng
    return None, eng


@pytest.fixture
def count_preflights(monkeypatch):
    calls = []
    real = MistralBackend.preflight

    async def counted(self):
        calls.append(self.options.server_url)
        return await real(self)

    monkeypatch.setattr(MistralBackend, "preflight", counted)
    return calls


# ---- preflight ----

def test_wrong_port_stops_the_run_before_any_query(tmp_path, monkeypatch, count_preflights):
    # before: 48 queries x 8 attempts each, every row stored as failed after minutes of backoff
    monkeypatch.setenv("MISTRAL_API_KEY", MKEY)
    url = f"http://127.0.0.1:{free_port()}"
    path = write_study(tmp_path, "mistral", "mistral-small-latest", {"server_url": url})
    err, eng = failing_run(path)
    assert err is not None, "the run went ahead against a port where nothing listens"
    msg = str(err)
    assert "\n" not in msg and "model 'm1'" in msg and url in msg and "server_url" in msg
    assert sum(m.calls for m in eng.report.models.values()) == 0  # not one query was sent
    assert len(count_preflights) == 2  # the preflight and its one second chance, nothing more
    assert rows(load_study(path)).empty


def test_wrong_port_from_the_command_line_is_one_line_and_exit_2(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    res = survey_cli("run", str(write_study(tmp_path, "mistral", "mistral-small-latest", {"server_url": url})),
                     "--yes", env_key=MKEY)
    assert res.returncode == 2, res.stdout + res.stderr
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith("error: model 'm1'") and url in line and "Traceback" not in res.stderr


def test_url_without_a_scheme_is_one_clear_error_and_no_request(tmp_path, monkeypatch):
    monkeypatch.setenv("MISTRAL_API_KEY", MKEY)
    with MistralFake(api_key=MKEY) as fake:
        bare = fake.url.removeprefix("http://")
        path = write_study(tmp_path, "mistral", "mistral-small-latest", {"server_url": bare})
        err, eng = failing_run(path)
        assert err is not None, "a scheme-less server_url was accepted"
        assert "\n" not in str(err) and f"'http://{bare}'" in str(err) and "server_url" in str(err)
        assert fake.total == 0 and eng.report.models == {}
    with pytest.raises(SurveyError, match="base_url: 'localhost:8080/api/v1' is not an http"):
        create_backend("dashscope", "qwen3-8b", base_url="localhost:8080/api/v1", api_key_env="MISTRAL_API_KEY")


def test_bad_key_stops_at_once_after_one_request(tmp_path, monkeypatch):
    monkeypatch.setenv("MISTRAL_API_KEY", "mk-wrong-key-0000")
    with MistralFake(api_key=MKEY) as fake:
        path = write_study(tmp_path, "mistral", "mistral-small-latest", {"server_url": fake.url})
        err, _ = failing_run(path)
        assert err is not None and "401" in str(err) and "$MISTRAL_API_KEY" in str(err)
        assert fake.total == 1 and fake.routes_hit == {"models": 1}  # before: 48 chat requests, all 401
        assert "mk-wrong-key-0000" not in str(err)


def test_a_v1_suffix_the_sdk_adds_itself_is_named_as_the_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("MISTRAL_API_KEY", MKEY)
    with MistralFake(api_key=MKEY) as fake:
        path = write_study(tmp_path, "mistral", "mistral-small-latest", {"server_url": fake.url + "/v1"})
        err, _ = failing_run(path)
        assert err is not None and "404" in str(err)
        assert "drop the /v1 suffix from server_url: the SDK adds it" in str(err)
        assert f'server_url = "{fake.url}"' in str(err) and "/v1/v1/models/mistral-small-latest" in str(err)
        assert sum(fake.requests.values()) == 0


def test_an_unknown_model_id_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("MISTRAL_API_KEY", MKEY)
    with MistralFake(api_key=MKEY) as fake:
        fake.unknown_models.add("mistral-smal")
        err, _ = failing_run(write_study(tmp_path, "mistral", "mistral-smal", {"server_url": fake.url}))
        assert err is not None and "check model_id 'mistral-smal'" in str(err)
        assert sum(fake.requests.values()) == 0


def test_transient_preflight_trouble_does_not_stop_the_run(tmp_path, monkeypatch):
    monkeypatch.setenv("MISTRAL_API_KEY", MKEY)
    with MistralFake(api_key=MKEY) as fake:
        fake.inject("server_error", route="models")  # the server is there, only busy
        report, study = run_engine(write_study(tmp_path, "mistral", "mistral-small-latest",
                                               {"server_url": fake.url}, r=1))
        assert report.models["m1"].stored == 24 and fake.routes_hit["models"] == 1


def test_dashscope_preflight_names_the_url_and_the_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("DASHSCOPE_API_KEY", DKEY)
    url = f"http://127.0.0.1:{free_port()}/api/v1"
    err, _ = failing_run(write_study(tmp_path, "dashscope", "qwen3-8b", {"base_url": url}))
    assert err is not None and url in str(err) and "base_url" in str(err)
    with DashScopeFake(api_key=DKEY) as fake:
        (tmp_path / "b").mkdir()
        err, _ = failing_run(write_study(tmp_path / "b", "dashscope", "qwen3-8b", {"base_url": fake.url}))
        assert err is not None and "404" in str(err) and "base_url must end in /api/v1" in str(err)
        (tmp_path / "c").mkdir()
        report, _ = run_engine(write_study(tmp_path / "c", "dashscope", "qwen3-8b", {"base_url": fake.base_url},
                                           r=1))
        assert report.models["m1"].stored == 24
        assert sum(fake.requests.values()) == 24 + 1  # the queries plus one 1-token preflight


def test_a_404_on_a_query_says_what_was_requested_and_what_to_check(monkeypatch):
    monkeypatch.setenv("MISTRAL_API_KEY", MKEY)
    q = Query(study="s", model="m", message="a", perturbation="p", persona="x", replicate=0, system="",
              user="Buy?", model_id="mistral-small-latest")
    with MistralFake(api_key=MKEY) as fake:
        with pytest.raises(BackendError) as info:
            complete_once(create_backend("mistral", "mistral-small-latest", server_url=fake.url + "/v1"), q)
    msg = str(info.value)  # before: "HTTP 404: 404: Not Found"
    assert f"POST {fake.url}/v1/v1/chat/completions" in msg and "drop the /v1 suffix" in msg
    assert info.value.status == 404 and not info.value.retryable


# ---- circuit breaker ----

def test_breaker_stops_a_model_nothing_answers_for_two_minutes_while_another_completes(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MISTRAL_API_KEY", MKEY)
    with MistralFake(api_key=MKEY) as fake:
        path = write_study(tmp_path, "mistral", "mistral-small-latest", {"server_url": fake.url}, r=1)
        path.write_text(path.read_text() + f"""
[[models]]
name = "flaky"
backend = "mistral"
model_id = "flaky-model"
seed = 3
concurrency = 1
options = {{ server_url = "{fake.url}" }}
""")
        # the preflight passes (the server is up), then every chat request of flaky-model is dropped
        fake.inject("disconnect", times=None, match=lambda body: body.get("model") == "flaky-model")
        vt = VirtualTime()  # the breaker judges 2 minutes without an answer, in simulated time
        report, study = run_engine(path, breaker_after=5, sleep=vt.sleep, clock=vt.clock, base_delay=1, max_delay=60)
        flaky, ok = report.models["flaky"], report.models["m1"]
        assert 5 <= flaky.calls < 24  # before the breaker: 24 queries x 8 attempts
        assert "stopped: no answer from the server for" in flaky.stopped and 120 <= vt.latest < 250
        assert flaky.failed == 0 and flaky.stored == 0  # nothing recorded as failed: all of it is still owed
        assert (ok.stored, ok.failed, ok.stopped) == (24, 0, None)
        assert report.incomplete
        _print_report(report, study.store_path)
        out = capsys.readouterr()
        assert "flaky: stopped: no answer from the server" in out.err and "rerun to resume" in out.out

        fake.rules.clear()  # the connection is back: a rerun sends what flaky still owes
        again, _ = run_engine(path, breaker_after=5)
        assert again.models["flaky"].stored == 24 and "m1" not in again.models  # m1 owes nothing
        assert len(rows(study)) == 48 and (rows(study).status == "ok").all()


# ---- SIGTERM ----

def test_sigterm_mid_run_keeps_every_reply_prints_the_summary_and_resumes(tmp_path):
    # 40 requests answered, then every one held: SIGTERM comes mid-run on any machine, fast or busy
    with MistralFake(api_key=MKEY, hold_after=40) as fake:
        path = write_study(tmp_path, "mistral", "mistral-small-latest", {"server_url": fake.url}, personas=20,
                           per=5, r=1, concurrency=4)
        total = 20 * 10
        proc = survey_cli("run", str(path), "--yes", env_key=MKEY, background=True, text=True)
        held = fake.wait_held(4, alive=lambda: proc.poll() is None)  # each of the 4 workers waits for a reply
        served_before = set(by_prompt(fake.served))
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=600)
        assert held and proc.returncode == 143, err  # before: killed by the signal (-15), no summary
        assert "interrupted by SIGTERM:" in out and "rerun to resume" in out and "m1" in out
        fake.release()

        study = load_study(path)
        first = rows(study)
        assert len(first) == 40 and (first.status == "ok").all()
        prompt_of = {q.key: (q.system, q.user) for q in build_design(study).queries(study.models[0])}
        stored_first = {prompt_of[(study.name, "m1", r.message, r.perturbation, r.persona, r.replicate, "q")]
                        for r in first.itertuples()}
        assert stored_first == served_before  # every reply received before the signal was kept

        done = survey_cli("run", str(path), "--yes", env_key=MKEY)
        assert done.returncode == 0, done.stderr
        assert len(rows(study)) == total
        served, requested = by_prompt(fake.served), by_prompt(fake.requests)
        assert all(served[p] == 1 and requested[p] == 1 for p in stored_first)
        assert max(served.values()) == 1  # the held requests were never answered: nothing paid twice


def sigterm_when_held(gate) -> threading.Thread:
    """Send this process SIGTERM once the gated backend holds a query."""
    def watch():
        gate.held.wait()
        # to the main thread, as a terminal's Ctrl-C reaches it (sent to the process, this thread would take it)
        signal.pthread_kill(threading.main_thread().ident, signal.SIGTERM)
    t = threading.Thread(target=watch, daemon=True)
    t.start()
    return t


def test_study_run_treats_sigterm_like_ctrl_c_and_restores_the_handler(tmp_path):
    from survey.api.study import Study

    spec = {"name": "sim", "store": "store.sqlite", "replicates": 1,
            "personas": {"set": "shoppers", "count": 10},
            "messages": [{"id": "sneakers", "perturbations": "sneakers", "count": 10},
                         {"id": "boots", "perturbations": "boots", "count": 10}],
            "models": [{"name": "sim", "backend": "simulated"}]}
    study = Study(spec, base_dir=tmp_path)

    class Unhandled(Exception):
        pass

    def guard(signum, frame):  # without the run's own handler SIGTERM would end pytest itself
        raise Unhandled("SIGTERM reached the handler outside the run")

    before = signal.signal(signal.SIGTERM, guard)
    try:
        with Gate(after=30) as gate:  # 30 answered, the 31st held until the signal: interrupted on any machine
            watcher = sigterm_when_held(gate)
            run = study.run()
            watcher.join()
        assert signal.getsignal(signal.SIGTERM) is guard  # installed only while the run lasted
    finally:
        signal.signal(signal.SIGTERM, before)
    assert run.interrupted and run.report.signal == "SIGTERM" and run.to_dict()["run"]["signal"] == "SIGTERM"
    kept = len(study.table())
    assert kept == 30 and run.stored == kept
    rest = study.run()
    assert not rest.interrupted and rest.stored == 200 - kept
