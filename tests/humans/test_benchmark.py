"""A benchmark of human experiments, end to end on the simulated backend: five studies, each with its own
published-style counts, answered by a model whose effects follow the humans' and one whose effects are reversed;
`survey.fidelity_benchmark` and `survey fidelity S1 ... S5` give per model the sign agreement, correlation and
calibration slope that scipy gives on the same effect pairs, and the report renders from them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from survey.errors import SurveyError

ROOT = Path(__file__).resolve().parents[2]
FAST = dict(n_boot=100, flips=999)
# experiment -> (P(Yes | A), P(Yes | B)) of its humans, 400 respondents per message
HUMANS = {"e1": (0.70, 0.30), "e2": (0.55, 0.45), "e3": (0.35, 0.60), "e4": (0.50, 0.20), "e5": (0.30, 0.50)}
STUDY = """
name = "{name}"
store = "{name}.sqlite"
replicates = 1

[humans]
file = "{name}.csv"
ask = false

[personas]
set = "panel.jsonl"

[[messages]]
id = "{name}-a"
perturbations = "sneakers"
count = 6

[[messages]]
id = "{name}-b"
perturbations = "boots"
count = 6

[[models]]
name = "follows"
backend = "simulated"
seed = 3

[models.options]
sigma = 0.3
deltas = {{ "{name}-a" = {da}, "{name}-b" = {db} }}

[[models]]
name = "reversed"
backend = "simulated"
seed = 4

[models.options]
sigma = 0.3
deltas = {{ "{name}-a" = {db}, "{name}-b" = {da} }}
"""


def _logit(p: float) -> float:
    return float(np.log(p / (1 - p)))


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    import survey

    d = tmp_path_factory.mktemp("bench")
    header = {"template": "You are a shopper aged {age}. Answer ONLY 'Yes' or 'No'. Do not explain."}
    (d / "panel.jsonl").write_text("\n".join([json.dumps(header)] + [json.dumps({"id": f"p{i}", "age": 20 + i})
                                                                        for i in range(30)]) + "\n")
    out = []
    for name, (pa, pb) in HUMANS.items():
        rows = ["message,answer,count"] + [f"{name}-{m},{ans},{n}" for m, p in (("a", pa), ("b", pb))
                                           for ans, n in (("Yes", round(400 * p)), ("No", 400 - round(400 * p)))]
        (d / f"{name}.csv").write_text("\n".join(rows) + "\n")
        (d / f"{name}.toml").write_text(STUDY.format(name=name, da=_logit(pa), db=_logit(pb)))
        study = survey.Study.from_toml(d / f"{name}.toml")
        study.run(progress=False)
        out.append(d / f"{name}.sqlite")
    return out


def test_the_benchmark_is_scipy_on_the_experiments_effect_pairs(stores):
    import survey

    bench = survey.fidelity_benchmark(stores, **FAST)
    assert bench.names == list(HUMANS) and set(bench.models) == {"follows", "reversed"} and not bench.missing
    for model, b in bench.models.items():
        rows = [r for r in bench.experiments if r["model"] == model]
        h = np.array([r["human_effect"] for r in rows])
        p = np.array([r["persona_effect"] for r in rows])
        # each experiment's effects are the ones survey.fidelity reports for that store alone
        one = survey.fidelity(stores[2], **FAST)
        e3 = next(r for r in rows if r["experiment"] == "e3")
        assert e3["human_effect"] == pytest.approx(one.human_effect.estimate)
        assert e3["persona_effect"] == pytest.approx(next(e["fidelity"].persona_effect for e in one.effects
                                                          if e["model"] == model))
        assert h == pytest.approx([round(400 * a) / 400 - round(400 * b) / 400 for a, b in HUMANS.values()])
        assert b.correlation == pytest.approx(sps.pearsonr(p, h).statistic)
        assert b.slope == pytest.approx(sps.linregress(p, h).slope)
        agree = np.mean(np.sign(p) == np.sign(h))
        assert b.sign_agreement == pytest.approx(agree)
    # the model whose effects follow the humans' is told apart from the reversed one
    follows, reverse = bench.models["follows"], bench.models["reversed"]
    assert follows.correlation > 0.8 and follows.correlation_ci[0] > 0 and follows.sign_agreement == 1
    assert reverse.correlation < -0.8 and reverse.sign_agreement == 0
    assert "larger where people's are" in bench.verdicts()[0] and "smaller where" in bench.verdicts()[1]
    assert "orient" in repr(bench) or "sign agreement" in repr(bench)
    assert "<table>" in bench._repr_html_()


def test_the_cli_prints_json_and_writes_the_report(stores, tmp_path):
    out = subprocess.run([sys.executable, "-m", "survey", "fidelity", *map(str, stores), "--json", "--bootstrap",
                          "100", "--out", str(tmp_path / "bench")], capture_output=True, text=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["models"]["follows"]["n_experiments"] == 5 and len(got["experiments"]) == 10
    assert got["models"]["follows"]["correlation_ci"][0] > 0 and got["rests_on"]
    html = (tmp_path / "bench" / "index.html").read_text()
    assert "Which model to trust?" in html and "data:image/png;base64," in html and "e5-a" in html
    saved = json.loads((tmp_path / "bench" / "results.json").read_text())
    assert saved["benchmark"]["models"] == got["models"] and set(saved["experiments"]) == set(HUMANS)
    assert (tmp_path / "bench" / "experiments.csv").read_text().count("\n") == 11


def test_study_files_stand_for_their_stores(stores):
    import survey

    by_store = survey.fidelity_benchmark(stores[:4], **FAST)
    by_study = survey.fidelity_benchmark([Path(s).with_suffix(".toml") for s in stores[:4]], **FAST)
    assert by_study.to_dict()["models"] == by_store.to_dict()["models"]
    fresh = Path(stores[0]).parent / "fresh.toml"
    fresh.write_text(STUDY.format(name="fresh", da=0.1, db=0.2))
    with pytest.raises(SurveyError, match="survey run"):
        survey.fidelity(fresh)


def test_too_few_experiments_are_named_and_mistakes_are_one_line(stores, tmp_path):
    import survey

    bench = survey.fidelity_benchmark(stores[:3], **FAST)
    assert not bench.models and "at least 4" in bench.missing["follows"]
    with pytest.raises(SurveyError, match="at least 2"):
        survey.fidelity_benchmark(stores[:1])
    with pytest.raises(SurveyError, match="twice|two sources"):
        survey.fidelity_benchmark([stores[0], stores[0]])
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    for extra, text in ((["--a", "x"], "applies to one study"), (["--humans", str(stores[0])], "applies to one study")):
        out = subprocess.run([sys.executable, "-m", "survey", "fidelity", *map(str, stores[:2]), *extra, "--json"],
                             capture_output=True, text=True, cwd=ROOT, env=env)
        assert out.returncode == 2 and text in json.loads(out.stdout)["error"] and "Traceback" not in out.stderr
    out = subprocess.run([sys.executable, "-m", "survey", "fidelity", str(stores[0]), "--out", str(tmp_path / "x")],
                         capture_output=True, text=True, cwd=ROOT, env=env)
    assert out.returncode == 2 and "two or more stores" in out.stderr and not (tmp_path / "x").exists()


@pytest.mark.skipif(not (shutil.which("chromium") and shutil.which("chromedriver")) and not os.environ.get("CI"),
                    reason="chromium not installed")
def test_the_benchmark_report_renders_in_chromium(stores, tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    import survey
    from survey.reporting.benchmark import benchmark_report

    sys.path.insert(0, str(ROOT / "tests" / "reporting"))
    from test_report_browser import IMAGE_STATS

    benchmark_report(survey.fidelity_benchmark(stores, **FAST), tmp_path / "b")
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--window-size=1100,2400"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)
    try:
        drv.get((tmp_path / "b" / "index.html").as_uri())
        assert [e for e in drv.get_log("browser") if e["level"] in ("SEVERE", "ERROR")] == []
        text = drv.find_element("tag name", "body").text
        assert "Which model to trust?" in text and "The experiments" in text and "noise floor" in text
        plot = [i for i in drv.execute_script(IMAGE_STATS) if "One point per experiment" in (i["alt"] or "")]
        assert plot and plot[0]["loaded"] and plot[0]["ink"] > 0.01
        # nothing runs off the page sideways: wide tables scroll inside their own box
        assert drv.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
        artifacts = ROOT / "reports" / "ci-artifacts"
        artifacts.mkdir(parents=True, exist_ok=True)
        assert drv.save_screenshot(str(artifacts / "benchmark.png"))
    finally:
        drv.quit()


def test_a_study_declares_its_pair_when_the_humans_saw_more_than_two(stores, tmp_path):
    """[humans] compare = [A, B] fixes the comparison before the answers are seen; a wrong name is refused at
    dry run, before anything is sent."""
    import survey

    src = Path(stores[0]).parent
    for f in ("panel.jsonl",):
        (tmp_path / f).write_text((src / f).read_text())
    rows = (src / "e1.csv").read_text() + "e1-c,Yes,100\ne1-c,No,300\n"
    (tmp_path / "e1.csv").write_text(rows)
    text = STUDY.format(name="e1", da=0.8, db=-0.8).replace(
        "ask = false", "ask = false\ncompare = [\"e1-c\", \"e1-a\"]").replace(
        "[[models]]", "[[messages]]\nid = \"e1-c\"\nperturbations = \"loafers\"\ncount = 6\n\n[[models]]", 1)
    (tmp_path / "e1.toml").write_text(text)
    study = survey.Study.from_toml(tmp_path / "e1.toml")
    study.run(progress=False)
    res = survey.fidelity(study.load(), **FAST)
    assert (res.a, res.b) == ("e1-c", "e1-a") and res.human_effect.estimate == pytest.approx(0.25 - 0.7)
    (tmp_path / "bad.toml").write_text(text.replace('"e1-c", "e1-a"', '"e1-a", "e9"'))
    with pytest.raises(SurveyError, match="compare"):
        survey.Study.from_toml(tmp_path / "bad.toml").dry_run()




@pytest.mark.skipif(not (shutil.which("chromium") and shutil.which("chromedriver")) and not os.environ.get("CI"),
                    reason="chromium not installed")
def test_the_fidelity_reports_fit_an_800_pixel_window(stores, tmp_path):
    """The benchmark report and a study's report with its humans at 800 px: nothing runs off the page sideways,
    and no table of the benchmark needs scrolling sideways; the study's report keeps model ids unbroken, and a
    table they widen scrolls in its own box (never the page)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    import survey
    from survey.reporting.benchmark import benchmark_report

    sys.path.insert(0, str(ROOT / "tests" / "reporting"))
    from test_report_browser import OVERFLOWING

    benchmark_report(survey.fidelity_benchmark(stores, **FAST), tmp_path / "b")
    survey.report(str(stores[0]), out=tmp_path / "r", flips=999)
    opts = webdriver.ChromeOptions()
    opts.binary_location = shutil.which("chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--window-size=800,2000"):
        opts.add_argument(flag)
    drv = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=opts)
    try:
        for page in (tmp_path / "b" / "index.html", tmp_path / "r" / "index.html"):
            drv.get(page.as_uri())
            over = drv.execute_script(OVERFLOWING)
            assert [o for o in over if page.parent.name == "b" or o.startswith("page")] == [], (page.parent.name, over)
    finally:
        drv.quit()
