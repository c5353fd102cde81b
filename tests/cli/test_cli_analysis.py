"""`survey simulate | analyze | estimate` from the command line, as a user runs them."""

import json
import subprocess
import sys

import pytest


def run(*args, check=True):
    proc = subprocess.run([sys.executable, "-m", "survey", *args], capture_output=True, text=True)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "sim.csv"
    run("simulate", "--personas", "20", "--perturbations", "6", "--replicates", "3", "--delta", "1.0",
        "--seed", "1", "--out", str(path))
    return path


def test_analyze_json_schema(table):
    out = json.loads(run("analyze", str(table), "--a", "A", "--b", "B", "--json").stdout)
    (res,) = out["results"]
    assert res["model"] == "simulated" and res["n_personas"] == 20
    assert res["n_perturbations"] == {"A": 6, "B": 6} and res["replicates"] == 3
    assert set(res["tests"]) >= {"permutation", "sign", "wilcoxon"}
    assert res["tests"]["permutation"]["exact"] is True
    lo, hi = res["effect"]["ci"]
    assert lo <= res["effect"]["estimate"] <= hi
    assert res["effect"]["estimate"] < 0  # delta = +1 on B: A is preferred less


def test_analyze_human_table(table):
    out = run("analyze", str(table)).stdout
    assert "sign-flip permutation" in out and "INVALID when rho > 0" in out


def test_estimate_json(table):
    out = json.loads(run("estimate", str(table), "--message", "A", "--bootstrap", "20", "--json").stdout)
    (res,) = out["results"]
    assert {"mu", "kappa", "sigma", "rho", "se"} <= set(res)
    assert set(res["se"]) >= {"mu", "kappa", "sigma", "rho"}


@pytest.mark.parametrize("args, needle", [
    (["analyze", "missing.csv"], "no such file"),
    (["analyze", "{table}", "--a", "A", "--b", "Z"], "message 'Z' is not in the table"),
    (["analyze", "{table}", "--a", "Z"], "message 'Z' is not in the table"),
    (["analyze", "{table}", "--alternative", "up"], "Invalid value"),
    (["simulate", "--rho", "1.5", "--out", "x.csv"], "rho"),
    (["simulate", "--personas", "0", "--out", "x.csv"], "--personas"),
    (["simulate", "--perturbations", "1", "--out", "x.csv"], "--perturbations must be a whole number >= 2"),
    (["simulate", "--perturbations-b", "1", "--out", "x.csv"], "--perturbations-b must be"),
    (["estimate", "{table}", "--message", "A", "--bootstrap", "-1"], "--bootstrap"),
    (["estimate", "{table}", "--message", "Z"], "message 'Z' is not in the table; it has A, B"),
])
def test_user_errors_one_line_no_traceback(table, tmp_path, args, needle):
    args = [a.replace("{table}", str(table)) for a in args]
    proc = subprocess.run([sys.executable, "-m", "survey", *args], capture_output=True, text=True,
                          cwd=tmp_path)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert needle in proc.stderr


def test_one_of_a_b_picks_the_other_message(table):
    out = json.loads(run("analyze", str(table), "--a", "B", "--json").stdout)
    assert (out["results"][0]["a"], out["results"][0]["b"]) == ("B", "A")
    out = json.loads(run("analyze", str(table), "--b", "A", "--json").stdout)
    assert (out["results"][0]["a"], out["results"][0]["b"]) == ("B", "A")


def test_one_message_table_says_so(table, tmp_path):
    import pandas as pd

    one = tmp_path / "one.csv"
    df = pd.read_csv(table)
    df[df["message"] == "A"].to_csv(one, index=False)
    proc = run("analyze", str(one), check=False)
    assert proc.returncode == 2 and "one message (A)" in proc.stderr


def test_a_model_with_no_valid_answer_is_left_out(table, tmp_path):
    import pandas as pd

    two = tmp_path / "two.csv"
    df = pd.read_csv(table)
    pd.concat([df, df.assign(model="mute", answer=pd.NA)]).to_csv(two, index=False)
    proc = run("analyze", str(two), "--json")
    out = json.loads(proc.stdout)
    assert [r["model"] for r in out["results"]] == ["simulated"] and "'mute'" in out["left_out"][0]
    proc = run("analyze", str(two))
    assert "model simulated" in proc.stdout and proc.stderr.startswith("left out: model 'mute'")
    out = json.loads(run("estimate", str(two), "--message", "A", "--bootstrap", "0", "--json").stdout)
    assert [r["model"] for r in out["results"]] == ["simulated"] and out["left_out"][0].startswith("model 'mute'")
    df.assign(answer=pd.NA).to_csv(two, index=False)  # nothing left to test: that is the error
    proc = run("analyze", str(two), check=False)
    assert proc.returncode == 2 and "no perturbation pair" in proc.stderr


def test_bad_table_file_is_user_error(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("model,message,perturbation,persona,replicate,answer\nm,A,p1,x,0,maybe\n")
    proc = run("analyze", str(bad), check=False)
    assert proc.returncode == 2 and "must be 1 (Yes), 0 (No) or empty" in proc.stderr


def test_unwritable_output_is_one_line_error(table):
    proc = run("simulate", "--personas", "4", "--perturbations", "2", "--replicates", "1",
               "--out", f"{table}/x.csv", check=False)  # a file where a folder should be
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"error: {table}") and proc.stderr.count("\n") == 1


def test_analyze_says_which_paraphrases_it_paired(table):
    (res,) = json.loads(run("analyze", str(table), "--json").stdout)["results"]
    assert res["pairs"] == [[f"A-0{j}", f"B-0{j}"] for j in range(1, 7)]
    assert res["unpaired_perturbations"] == {"A": [], "B": []}
    out = run("analyze", str(table)).stdout
    assert "pairing (natural order of the paraphrase ids" in out and "A-01/B-01" in out
