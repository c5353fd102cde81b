"""survey.Study: plan, run (also inside a running event loop, and interrupted), read this study's table."""

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from gated_backend import Gate

import survey
from survey.api.study import Study
from survey.errors import SurveyError
from survey.study.spec import ModelSpec, StudySpec


def sim_spec(name="api-test", personas=4, perts=3, reps=2, latency=0.0, **extra) -> dict:
    options = {"mu": 0.45, "deltas": {"boots": -0.4}, "latency": latency}
    return {"name": name, "store": "store.sqlite", "replicates": reps,
            "personas": {"set": "shoppers", "count": personas},
            "messages": [{"id": "sneakers", "perturbations": "sneakers", "count": perts},
                         {"id": "boots", "perturbations": "boots", "count": perts}],
            "models": [{"name": "sim", "backend": "simulated", "seed": 7, "options": options}], **extra}


def store_rows(path: Path) -> int:
    try:
        with sqlite3.connect(path) as db:
            return db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def open_handles(path: Path) -> list[str]:
    fds = Path("/proc/self/fd")
    if not fds.exists():
        pytest.skip("needs /proc to list open files")
    out = []
    for fd in fds.iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith(str(path)):
            out.append(target)
    return out


def test_plan_run_rerun_and_table_of_this_study_only(tmp_path):
    study = Study(sim_spec(), base_dir=tmp_path)
    other = Study(sim_spec(name="other", personas=2), base_dir=tmp_path)  # same store file
    assert study.store_path == tmp_path / "store.sqlite"
    plan = study.dry_run()
    assert plan.to_send == 4 * 6 * 2 and plan.models[0].replies == 0 and not plan.paid
    run = study.run()  # free backend: no yes needed
    assert run.stored == 48 and run.failed == 0 and not run.interrupted and not run.incomplete
    assert run.to_dict()["run"]["stored"] == 48 and run.to_dict()["plan"]["to_send"] == 48
    assert other.run().stored == 24
    again = study.run()
    assert again.report is None and again.stored == 0 and again.to_dict()["run"] is None
    assert again.plan.models[0].replies == 48
    df = study.table()
    assert len(df) == 48 and set(df["study"]) == {"api-test"} and list(df["message"].unique()) == ["sneakers", "boots"]
    assert set(other.table()["study"]) == {"other"}
    assert open_handles(study.store_path) == []  # opened per operation, never left open


def test_spec_built_in_code_keeps_the_callers_base_dir(tmp_path):
    spec = StudySpec.model_validate(sim_spec())
    a, b = Study(spec, base_dir=tmp_path / "a"), Study.from_spec(spec, base_dir=tmp_path / "b")
    assert a.store_path == tmp_path / "a" / "store.sqlite" and b.store_path == tmp_path / "b" / "store.sqlite"
    assert spec.store_path == Path.cwd() / "store.sqlite"  # the caller's spec is not changed


def test_bad_dict_is_a_one_line_survey_error():
    with pytest.raises(SurveyError, match="replicates"):
        Study(sim_spec(replicates=0))
    with pytest.raises(SurveyError, match="StudySpec or a dict"):
        Study("studies/sim.toml")


def test_paid_models_need_yes_and_nothing_is_sent(tmp_path, monkeypatch):
    monkeypatch.setenv("MISTRAL_API_KEY", "never-sent")  # a dry run refuses a paid model without its key
    spec = StudySpec.model_validate(sim_spec())
    spec.models.append(ModelSpec(name="ministral", backend="mistral", model_id="ministral-8b-2512"))
    study = Study(spec, base_dir=tmp_path)
    assert study.dry_run().paid
    with pytest.raises(SurveyError, match="pass yes=True"):
        study.run()
    assert store_rows(study.store_path) == 0
    # models= leaves the paid model out: nothing paid to confirm
    assert study.run(models=["sim"]).stored == 48


def test_budget_and_batch_capability_are_checked_by_the_library(tmp_path):
    with pytest.raises(SurveyError, match="budget.max_queries = 10"):
        Study(sim_spec(budget={"max_queries": 10}), base_dir=tmp_path).run()
    data = sim_spec()
    data["models"][0]["batch"] = True
    with pytest.raises(SurveyError, match="backend 'simulated' has no batch API; set batch = false"):
        Study(data, base_dir=tmp_path).dry_run()


def test_run_inside_a_running_event_loop_and_arun(tmp_path):
    study = Study(sim_spec(), base_dir=tmp_path)

    async def notebook_cell():  # Jupyter runs cells inside its event loop
        run = study.run()
        again = await study.arun()
        return run, again

    run, again = asyncio.run(notebook_cell())
    assert run.stored == 48 and again.report is None and len(study.table()) == 48


def interrupt_when_held(gate: Gate) -> threading.Thread:
    """Send this process SIGINT (Ctrl-C) once the gated backend holds a query."""
    def watch():
        gate.held.wait()
        # to the main thread, as a terminal's Ctrl-C reaches it (sent to the process, this thread would take it)
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
    t = threading.Thread(target=watch, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("in_loop", [False, True])
def test_ctrl_c_returns_an_interrupted_run_and_keeps_every_reply(tmp_path, in_loop):
    study = Study(sim_spec(personas=10, perts=10), base_dir=tmp_path)  # 400 queries

    async def notebook_cell():
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as IPython's kernel does for a cell
        return study.run()

    with Gate(after=30) as gate:  # 30 answered, the 31st held until the interrupt: interrupted on any machine
        watcher = interrupt_when_held(gate)
        run = asyncio.run(notebook_cell()) if in_loop else study.run()
        watcher.join()
    assert run.interrupted and run.incomplete
    kept = store_rows(study.store_path)
    assert kept == 30 and run.stored == kept  # every reply received before the interrupt, and only those
    rest = study.run()
    assert not rest.interrupted and rest.report.models["sim"].skipped == kept and rest.stored == 400 - kept
    assert len(study.table()) == 400


def test_import_survey_is_lazy_and_every_export_resolves():
    code = "import sys, survey; print('pandas' in sys.modules, 'survey.collect.engine' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
    for name in survey.__all__:
        assert getattr(survey, name) is not None, name
        if callable(getattr(survey, name)):
            assert getattr(survey, name).__doc__, f"survey.{name} has no docstring"
    assert survey.Study is Study
    with pytest.raises(AttributeError):
        survey.no_such_name  # noqa: B018
