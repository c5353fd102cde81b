"""`survey report` / build_report: sections, files, and user errors (the browser test checks rendering)."""

import json
import subprocess
import sys

import pandas as pd
import pytest

import survey
from survey.stats.beta_logit import simulate


def two_models():
    one = simulate(20, 8, 3, delta=0.9, seed=5)
    two = simulate(20, 8, 3, delta=-0.9, seed=6).assign(model="other")
    return pd.concat([one, two], ignore_index=True)


def test_files_and_across_models_section(tmp_path):
    res = survey.report(two_models(), tmp_path, title="t")
    assert {p.name for p in tmp_path.iterdir()} >= {"index.html", "results.json", "table.csv"}
    assert [r["model"] for r in res["results"]] == ["simulated", "other"]
    across = res["across_models"]
    assert across["models"]["depends_on_model"] is True  # opposite significant effects
    assert across["agreement"]["pairs"][0]["model_a"] == "simulated"
    html = (tmp_path / "index.html").read_text()
    assert "The conclusion depends on the model" in html and "Across models" in html
    assert json.loads((tmp_path / "results.json").read_text())["alpha"] == 0.05
    assert "NaN" not in (tmp_path / "results.json").read_text()


def test_a_model_with_no_valid_answer_is_left_out_not_fatal(tmp_path):
    df = two_models()
    df["answer"] = df["answer"].astype("Int8")
    df.loc[df["model"] == "other", "answer"] = pd.NA  # e.g. a small model in sample mode: never Yes/No
    res = survey.report(df, tmp_path)
    assert [r["model"] for r in res["results"]] == ["simulated"]
    assert len(res["left_out"]) == 1 and "'other'" in res["left_out"][0]
    assert any("'other'" in n for n in res["across_models"]["models"]["notes"])
    assert "Left out: model &#39;other&#39;" in (tmp_path / "index.html").read_text()


def test_three_messages_every_pair_holm(tmp_path):
    ab = simulate(15, 6, 2, delta=0.5, seed=1)
    c = simulate(15, 6, 2, delta=0.0, seed=2, messages=("C", "D"))
    df = pd.concat([ab, c[c["message"] == "C"]], ignore_index=True)
    res = survey.report(df, tmp_path)
    assert len(res["results"]) == 3  # A-B, A-C, B-C
    pairs = res["across_messages"]["simulated"]["pairs"]
    assert len(pairs) == 3 and res["across_messages"]["simulated"]["adjustment"] == "holm"


def test_exact_probability_section_when_p_yes_present(tmp_path):
    res = survey.report(simulate(12, 6, 2, seed=3), tmp_path)
    assert "exact_probabilities" in res
    res2 = survey.report(simulate(12, 6, 2, seed=3).drop(columns=["p_yes"]), tmp_path / "b")
    assert "exact_probabilities" not in res2


def run(*args):
    return subprocess.run([sys.executable, "-m", "survey", *args], capture_output=True, text=True)


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "t.csv"
    two_models().to_csv(path, index=False)
    return path


def test_cli_report_with_plan_json(tmp_path, table):
    plan = {"results": [{"strategy": s, "budget": n, "n": 10, "m": 10, "r": 1,
                         "power": {"permutation": 0.5 + n / 1e5, "sign": 0.9, "wilcoxon": 0.9}}
                        for s in ("1:1:1", "1:4:1") for n in (1000, 2000, 4000)],
            "cheapest": {"strategy": "1:4:1", "budget": 2000, "n": 10, "m": 10, "r": 1}}
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    proc = run("report", str(table), "--out", str(tmp_path / "r"), "--plan", str(tmp_path / "plan.json"),
               "--sizes", "simulated=1B,other=8B", "--json")
    assert proc.returncode == 0, proc.stderr
    html = (tmp_path / "r" / "index.html").read_text()
    assert "Planning: power by budget" in html and "Cheapest design" in html


@pytest.mark.parametrize("args, needle", [
    (["--plan", "missing.json"], "no such file"),
    (["--a", "A"], "give both --a and --b"),
    (["--a", "A", "--b", "nope"], "message 'nope' is not in the table; it has A, B"),
    (["--sizes", "simulated"], "--sizes"),
    (["--alpha", "2"], "--alpha"),
])
def test_cli_report_user_errors(tmp_path, table, args, needle):
    proc = run("report", str(table), "--out", str(tmp_path / "r"), *args)
    assert proc.returncode == 2 and needle in proc.stderr and "Traceback" not in proc.stderr


def test_cli_report_rejects_non_json(tmp_path, table):
    bad = tmp_path / "x.json"
    bad.write_text("not json")
    proc = run("report", str(table), "--out", str(tmp_path / "r"), "--validate", str(bad))
    assert proc.returncode == 2 and "not JSON" in proc.stderr


@pytest.mark.parametrize("option, content", [
    ("--plan", {"results": [{"model": "m", "condition": "null", "n": 2, "m": 2, "r": 1,
                             "tests": {"sign": {"rate": 0.1}}}]}),  # a validate file
    ("--validate", {"embedder": "minilm", "results": [{"model": "m", "tests": {"js": {"pvalue": 0.5}}}]}),
    ("--dbpa", {"results": [{"strategy": "1:1:1", "budget": 100, "power": {"permutation": 0.5}}]}),
    ("--plan", [1, 2]),
])
def test_cli_report_rejects_another_commands_json(tmp_path, table, option, content):
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps(content))
    proc = run("report", str(table), "--out", str(tmp_path / "r"), option, str(wrong))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"error: {option}")


def test_cli_report_with_validate_json(tmp_path):
    table = tmp_path / "v.csv"
    simulate(30, 12, 2, seed=4).to_csv(table, index=False)
    val = run("validate", str(table), "--message", "A", "--draws", "20", "--no-plot", "--json")
    assert val.returncode == 0, val.stderr
    (tmp_path / "v.json").write_text(val.stdout)
    proc = run("report", str(table), "--out", str(tmp_path / "r"), "--validate", str(tmp_path / "v.json"))
    assert proc.returncode == 0, proc.stderr
    html = (tmp_path / "r" / "index.html").read_text()
    assert "Validity on this data: null split" in html and "Empirical CDF of the p-values" in html


def test_all_invalid_model_with_three_messages_is_left_out(tmp_path):
    ab = simulate(10, 4, 2, delta=0.5, seed=1)
    c = simulate(10, 4, 2, seed=2, messages=("C", "D"))
    good = pd.concat([ab, c[c["message"] == "C"]], ignore_index=True)
    bad = good.assign(model="broken", answer=pd.NA)
    df = pd.concat([good, bad], ignore_index=True)
    df.to_csv(tmp_path / "t.csv", index=False)
    proc = run("compare", str(tmp_path / "t.csv"), "--json")
    assert proc.returncode == 0, proc.stderr
    assert "broken" in json.loads(proc.stdout)["messages_left_out"]
    proc = run("report", str(tmp_path / "t.csv"), "--out", str(tmp_path / "r"))
    assert proc.returncode == 0, proc.stderr
    assert "Left out:" in (tmp_path / "r" / "index.html").read_text()
