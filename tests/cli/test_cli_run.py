"""`survey run / export / status` end to end on the simulated backend, plus the paid-run guards."""

import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from cli_result import run_cli

from survey.data.table import read_table

ROOT = Path(__file__).resolve().parents[2]


def small_sim(tmp_path, extra="", personas=8, perts=6, reps=2, latency=0.0):
    text = (ROOT / "studies" / "sim.toml").read_text()
    text = text.replace("count = 30", f"count = {personas}").replace("count = 20", f"count = {perts}")
    text = text.replace("replicates = 3", f"replicates = {reps}")
    text = text.replace("invalid_rate = 0.01", f"invalid_rate = 0.05\nlatency = {latency}")
    path = tmp_path / "study.toml"
    path.write_text(text + extra)
    return path


cli = run_cli


def test_run_export_analyze_end_to_end(tmp_path, capsys):
    study = small_sim(tmp_path)
    code, out, _ = cli(capsys, "run", study, "--dry-run", "--json")
    plan = json.loads(out)
    assert code == 0 and plan["queries_per_model"] == 8 * 12 * 2 and plan["to_send"] == 192
    assert plan["models"][0]["stored"] == 0

    code, out, _ = cli(capsys, "run", study, "--yes", "--json")
    res = json.loads(out)
    assert code == 0 and res["run"]["stored"] == 192 and res["run"]["failed"] == 0
    store = tmp_path / "sim.sqlite"  # relative to the study file, not the cwd
    assert store.exists()

    code, out, _ = cli(capsys, "run", study, "--json")  # nothing missing: nothing sent, no prompt
    assert code == 0 and json.loads(out)["run"] is None

    for name in ("t.csv", "t.parquet"):
        code, out, _ = cli(capsys, "export", store, "--out", tmp_path / name, "--json")
        assert code == 0 and json.loads(out)["rows"] == 192
        df = read_table(tmp_path / name)
        assert len(df) == 192 and list(df["message"].unique()) == ["sneakers", "boots"]
        assert df["answer"].isna().sum() == json.loads(out)["invalid"]
    code, out, _ = cli(capsys, "analyze", tmp_path / "t.csv", "--json")
    assert code == 0 and json.loads(out)["results"][0]["n_personas"] == 8

    code, out, _ = cli(capsys, "status", store, "--json")
    st = json.loads(out)
    assert code == 0 and st["models"][0]["replies"] == 192 and st["batch_jobs"] == []

    code, out, _ = cli(capsys, "run", study, "--dry-run")
    assert code == 0 and "192" in out

    code, _, err = cli(capsys, "status", store, "--study", "nope")
    assert code == 2 and "has no study 'nope'; it has sim-sneakers-boots" in err


def test_free_text_replies_are_counted_as_text_not_invalid(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")  # the tables' headers on one line (at 80: one record a row)
    study = small_sim(tmp_path, personas=2, perts=2, reps=1)
    study.write_text(study.read_text().replace('type = "binary"', 'type = "text"'))
    code, out, _ = cli(capsys, "run", study, "--yes")
    header = next(line for line in out.splitlines() if "stored" in line)
    assert code == 0 and " text " in header and " invalid " in header  # a text column; invalid stays 0
    code, out, _ = cli(capsys, "run", study, "--dry-run", "--json")
    assert json.loads(out)["models"][0]["invalid"] == 0
    store = tmp_path / "sim.sqlite"
    code, out, _ = cli(capsys, "status", store, "--json")
    m = json.loads(out)["models"][0]
    assert (m["scale"], m["replies"], m["text"], m["valid"], m["invalid"]) == ("text", 8, 8, 0, 0)
    code, out, _ = cli(capsys, "status", store)
    assert code == 0 and " text " in next(line for line in out.splitlines() if "replies" in line)
    code, out, _ = cli(capsys, "export", store, "--out", tmp_path / "t.csv")
    assert code == 0 and "(0 invalid answers)" in out
    assert (read_table(tmp_path / "t.csv", min_perturbations=0)["scale"] == "text").all()


def test_status_of_an_empty_store_says_so(tmp_path, capsys):
    from survey.data.store import Store

    study = small_sim(tmp_path)
    assert cli(capsys, "run", study, "--dry-run")[0] == 0  # a dry run creates no store
    assert not (tmp_path / "sim.sqlite").exists()
    Store(tmp_path / "sim.sqlite").close()  # a store with its tables and no reply
    code, out, _ = cli(capsys, "status", tmp_path / "sim.sqlite")
    assert code == 0 and "no replies stored yet" in out


PAID = """
[[models]]
name = "ministral"
backend = "mistral"
model_id = "ministral-8b-2512"
"""


def test_paid_run_needs_yes_without_a_terminal(tmp_path, capsys, monkeypatch):
    study = small_sim(tmp_path, PAID)  # [[models]] after [budget] still appends to the models array
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    monkeypatch.setenv("MISTRAL_API_KEY", "never-sent")  # a dry run refuses a paid model without its key
    code, out, err = cli(capsys, "run", study, "--dry-run", "--json")
    plan = json.loads(out)
    paid = [m for m in plan["models"] if m["model"] == "ministral"][0]
    assert code == 0 and paid["paid"] and paid["est_cost_usd"] > 0
    code, out, err = cli(capsys, "run", study)
    assert code == 2 and "pass --yes" in err and "paid" in err
    assert not (tmp_path / "sim.sqlite").exists()  # refused before the store was even opened: nothing bought


def test_budget_caps_refuse(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MISTRAL_API_KEY", "never-sent")  # the budget is what refuses, not a missing key
    study = small_sim(tmp_path)
    study.write_text(study.read_text().replace("max_queries = 10000", "max_queries = 100"))
    code, _, err = cli(capsys, "run", study, "--yes")
    assert code == 2 and "budget.max_queries = 100" in err and "192" in err
    study.write_text(study.read_text().replace("max_queries = 100", "max_cost = 0.0001") + PAID)
    code, _, err = cli(capsys, "run", study, "--yes")
    assert code == 2 and "budget.max_cost" in err


def test_user_errors_are_one_line(tmp_path, capsys):
    code, _, err = cli(capsys, "run", tmp_path / "missing.toml")
    assert code == 2 and err.startswith("error:") and "no such study file" in err
    code, _, err = cli(capsys, "export", tmp_path / "none.sqlite", "--out", tmp_path / "x.csv")
    assert code == 2 and "no such store" in err


def test_bad_backend_option_names_the_model(tmp_path, capsys):
    study = small_sim(tmp_path)
    study.write_text(study.read_text().replace("mu = 0.45", "mu = 4.5"))
    code, _, err = cli(capsys, "run", study, "--yes")
    assert code == 2 and err.startswith("error: model 'sim': simulated backend options: mu")


def test_failed_queries_exit_1_and_keep_the_rest(tmp_path, capsys, monkeypatch):
    from fakes.mistral_server import MistralFake

    monkeypatch.setenv("MISTRAL_API_KEY", "not-a-key")
    dead = PAID + '[models.options]\nserver_url = "http://127.0.0.1:9"\n'  # nothing listens: refused
    study = small_sim(tmp_path, dead, personas=2, perts=2, reps=1)
    # the preflight finds the refused port before any query: one line, exit 2, nothing sent or stored
    code, out, _ = cli(capsys, "run", study, "--yes", "--json", "--max-attempts", "1")
    assert code == 2 and "http://127.0.0.1:9" in json.loads(out)["error"]
    with MistralFake(api_key="not-a-key") as fake:  # reachable, but it refuses every query
        fake.inject("content_filter", times=None)
        study.write_text(study.read_text().replace("http://127.0.0.1:9", fake.url))
        code, out, _ = cli(capsys, "run", study, "--yes", "--json", "--max-attempts", "1")
        run = json.loads(out)["run"]
        assert code == 1 and run["failed"] == 8 and run["stored"] == 8  # the simulated model's replies are kept
        code, out, _ = cli(capsys, "export", tmp_path / "sim.sqlite", "--out", tmp_path / "t.csv", "--json")
        assert code == 0 and json.loads(out)["rows"] == 8
        code, out, _ = cli(capsys, "run", study, "--yes", "--max-attempts", "1")  # the failed rows go again
        assert code == 1 and "8 failed; rerun to resume" in out


def test_ctrl_c_keeps_replies_and_rerun_completes(tmp_path):
    study = small_sim(tmp_path, personas=10, perts=10, reps=2)  # 400 queries
    store = tmp_path / "sim.sqlite"
    cmd = [sys.executable, "-m", "survey", "run", str(study), "--yes"]
    held_r, held_w = os.pipe()
    # 40 queries answered, the 41st held until the interrupt: the run is interrupted on any machine
    gated = [sys.executable, str(ROOT / "tests" / "gated_backend.py"), "40", str(held_w), "run", str(study), "--yes"]
    proc = subprocess.Popen(gated, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, pass_fds=(held_w,))
    os.close(held_w)
    with os.fdopen(held_r, "rb") as held:
        assert held.read(1) == b"h", proc.communicate()[1]  # "" if the run ended without holding a query
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 130, err
    assert "interrupted" in out

    def rows():
        with sqlite3.connect(store) as db:
            return db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    kept = rows()
    assert kept == 40  # every reply received before the interrupt, and only those
    done = subprocess.run(cmd + ["--json"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    res = json.loads(done.stdout)["run"]
    assert res["models"][0]["skipped"] == kept and res["stored"] == 400 - kept
    assert rows() == 400


def test_store_with_two_studies_every_reader_takes_study(tmp_path, capsys):
    study = small_sim(tmp_path, personas=4, perts=4)
    second = tmp_path / "second.toml"
    second.write_text(study.read_text().replace('name = "sim-sneakers-boots"', 'name = "second"'))
    for s in (study, second):
        code, out, _ = cli(capsys, "run", s, "--yes")
        assert code == 0 and "0 failed; `survey export" in out  # complete: no "rerun to resume"
    store = tmp_path / "sim.sqlite"
    code, _, err = cli(capsys, "analyze", store)
    assert code == 2 and "pick one with --study" in err
    for args in (["analyze", store], ["estimate", store, "--message", "boots", "--bootstrap", "0"],
                 ["validate", store, "--message", "boots", "--config", "4,2,2", "--draws", "10", "--no-plot"],
                 ["plan", "--from-table", store, "--message", "boots", "--delta", "0.5", "--simulations", "20",
                  "--budget", "200", "--no-plot"]):
        code, out, err = cli(capsys, *args, "--study", "second", "--json")
        assert code == 0, err
        assert json.loads(out)
