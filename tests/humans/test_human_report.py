"""The report's "Does it match people?" section: present when a source carries humans, with the levels, effects,
PPI and dispersion tables, a plain finding and what validity needs; rendered in headless Chromium."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

import survey
from survey.data.sources import Source

sys.path.insert(0, str(Path(__file__).parent))
from synthetic import synthetic  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _report(tmp_path, **kw):
    table, humans = synthetic("between", n_humans=80, n_personas=30, m=6, seed=11, **kw)
    out = tmp_path / "report"
    results = survey.report(table, out, title="Humans check", flips=999, humans=humans)
    return out, results


def test_the_section_says_how_far_the_personas_are_from_people(tmp_path):
    out, results = _report(tmp_path, human_shift=-1.5, model_effect=-0.8)  # wrong level and wrong direction
    html = (out / "index.html").read_text()
    assert "Does it match people?" in html
    for words in ("JSD noise floor", "PPI human effect", "persona / human variance", "What validity needs",
                  "matches these people poorly", "not a failure of the study", "between-subjects"):
        assert words in html, words
    doc = json.loads((out / "results.json").read_text())
    assert doc["humans"]["design"] == "between" and "toy" in doc["humans"]["ppi"]
    assert doc["humans"]["effects"][0]["sign_agrees"] is False


def test_a_model_that_matches_is_said_to_match(tmp_path):
    from survey.reporting.humans import finding
    from survey.stats.humans import human_fidelity

    table, humans = synthetic("between", n_humans=300, n_personas=300, m=6, seed=12, link=0.4, model_effect=1.0)
    res = human_fidelity(Source.of(table), humans, n_boot=200, flips=999)
    assert "match these people within the noise" in finding(res) or "matches these people within" in finding(res)


def test_the_reports_pair_chooses_what_is_compared_when_the_humans_saw_three_messages(tmp_path):
    import pandas as pd

    from survey.data.humans import validate_humans

    table, humans = synthetic("between", n_humans=80, n_personas=20, m=6, seed=14)
    third = table[table["message"] == "b"].assign(message="c", perturbation=lambda d: "c" + d["perturbation"].str[1:])
    answers = humans.table[["respondent", "message", "answer", "age"]]
    extra = answers[answers["message"] == "b"].assign(message="c", respondent=lambda d: "c-" + d["respondent"])
    humans = validate_humans(pd.concat([answers, extra], ignore_index=True), "binary", ["a", "b", "c"])
    table = pd.concat([table, third], ignore_index=True)
    survey.report(table, tmp_path / "all", flips=999, humans=humans)
    assert "No comparison with people" in (tmp_path / "all" / "index.html").read_text()  # which two? not said
    results = survey.report(table, tmp_path / "ac", a="a", b="c", flips=999, humans=humans)
    assert "No comparison with people" not in (tmp_path / "ac" / "index.html").read_text()
    assert (results["humans"]["a"], results["humans"]["b"]) == ("a", "c")


def test_no_humans_no_section(tmp_path):
    table, _ = synthetic("between", n_humans=20, n_personas=10, m=6, seed=13)
    survey.report(table, tmp_path / "r", flips=999)
    assert "Does it match people?" not in (tmp_path / "r" / "index.html").read_text()


CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")


@pytest.mark.skipif(not (CHROMIUM and DRIVER) and not os.environ.get("CI"), reason="chromium not installed")
def test_the_section_renders_in_chromium(tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    sys.path.insert(0, str(ROOT / "tests" / "reporting"))
    from test_report_browser import IMAGE_STATS

    out, _ = _report(tmp_path, human_shift=-1.5)
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--window-size=1100,2400"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(DRIVER), options=opts)
    try:
        drv.get((out / "index.html").as_uri())
        assert [e for e in drv.get_log("browser") if e["level"] in ("SEVERE", "ERROR")] == []
        text = drv.find_element("tag name", "body").text
        assert "Does it match people?" in text and "matches these people poorly" in text
        images = drv.execute_script(IMAGE_STATS)
        human_plot = [i for i in images if "prediction-powered" in (i["alt"] or "")]
        assert human_plot and human_plot[0]["loaded"] and human_plot[0]["ink"] > 0.01
        artifacts = ROOT / "reports" / "ci-artifacts"
        artifacts.mkdir(parents=True, exist_ok=True)
        heading = drv.find_element("xpath", "//*[contains(text(), 'Does it match people?')]")
        drv.execute_script("arguments[0].scrollIntoView();", heading)
        assert drv.save_screenshot(str(artifacts / "humans.png"))
    finally:
        drv.quit()


def test_the_shares_are_labelled_and_each_distance_is_said_in_words(tmp_path):
    out, _ = _report(tmp_path, human_shift=-1.5)
    html = (out / "index.html").read_text()
    assert "Yes: " in html and "No: " in html  # the answers' labels, not their scores ("1: 51%, 0: 49%")
    assert re.search(r"<td>[01]: \d+%", html) is None
    assert re.search(r"<th[^>]*>in words</th>", html) and ("far: " in html or "close: " in html)
    assert "the model&#39;s answers" in html or "the model's answers" in html  # lambda in words


def _browser(width: int):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", f"--window-size={width},2000"):
        opts.add_argument(flag)
    return webdriver.Chrome(service=Service(DRIVER), options=opts)


@pytest.mark.skipif(not (CHROMIUM and DRIVER) and not os.environ.get("CI"), reason="chromium not installed")
def test_the_report_with_humans_fits_an_800_pixel_window(tmp_path):
    """At 800 px, long identifiers included, nothing runs off the page sideways and no table needs scrolling."""
    import pandas as pd

    from survey.data.humans import validate_humans

    sys.path.insert(0, str(ROOT / "tests" / "reporting"))
    from test_report_browser import OVERFLOWING

    table, humans = synthetic("between", n_humans=80, n_personas=20, m=6, seed=11)
    long = {"a": "calc-contract-renewal-reminder-variant-a", "b": "calc-contract-renewal-reminder-variant-b"}
    table = table.assign(message=table["message"].map(long), model="a-provider/a-rather-long-model-name-v2")
    answers = humans.table[["respondent", "message", "answer", "age"]].assign(
        message=lambda d: d["message"].map(long))
    humans = validate_humans(pd.DataFrame(answers), "binary", list(long.values()))
    # a human file deep in a project folder: its path is one long word in the section's first sentence
    humans.path = "/srv/projects/customer-research-2026/contract-renewal-reminders/wave-3/human-answers-final.csv"
    out = tmp_path / "narrow"
    survey.report(table, out, title="Humans at 800 px", flips=999, humans=humans)
    drv = _browser(800)
    try:
        drv.get((out / "index.html").as_uri())
        assert "Does it match people?" in drv.find_element("tag name", "body").text
        assert drv.execute_script(OVERFLOWING) == []
    finally:
        drv.quit()


def test_the_words_follow_the_noise_floor_and_lambda():
    from types import SimpleNamespace as NS

    from survey.stats.humans.in_words import level_in_words, ppi_in_words

    def level(jsd, wasserstein=None):
        d = {"jsd": {"value": jsd, "noise_floor": 0.02, "baselines": {"uniform": 0.1}}}
        if wasserstein is not None:
            d["wasserstein"] = {"value": wasserstein}
        return NS(distances=d)

    assert level_in_words(level(0.01)).startswith("close:")
    assert level_in_words(level(0.03)).startswith("fairly close:")
    assert level_in_words(level(0.05)).startswith("far: more than twice")
    assert level_in_words(level(0.2)) == "far: farther from people than a uniform guess"
    assert level_in_words(level(0.01, 0.123)).endswith("answers 12.3% of the scale's range from people's on average")
    assert ppi_in_words(NS(lam=0.0, n=80, effective_n=80.0, width_ratio=1.0)).startswith(
        "the model's answers are not used")
    assert ppi_in_words(NS(lam=1.0, n=80, effective_n=120.0, width_ratio=0.82)) == (
        "the model's answers count in full; worth 40 humans (0.82 times the humans-only width)")
    assert "weight 0.50 of 1" in ppi_in_words(NS(lam=(0.4, 0.6), n=80, effective_n=90.0, width_ratio=0.94))
