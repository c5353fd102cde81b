"""The questionnaire as people meet it: headless Chromium (Debian's, as the report tests use) clicks through
`survey field` page by page, as 30 respondents with different answers on two kinds (a Yes/No study and a
5-point scale study: one question each), and `survey fidelity` on each study's store gives the effect
computed by hand from what the browser submitted."""

import json
import random

import pytest
from browser import chromium, skip_without_browser
from cli_result import run_cli
from field_study import write_study
from live import Live
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as seen
from selenium.webdriver.support.ui import WebDriverWait

import survey
from survey.field import field_server

skip_without_browser()

RESPONDENTS = 30
FAIL_ATTENTION = {7, 19}  # these two choose "Red": stored, left out of every analysis
KINDS = {"binary": 'type = "binary"', "likert5": 'type = "likert"\npoints = 5'}


@pytest.fixture(scope="module")
def driver():
    drv = chromium()
    yield drv
    drv.quit()


def wait_for(drv, element_id: str):
    return WebDriverWait(drv, 60).until(seen.presence_of_element_located((By.ID, element_id)))


def answer(rng: random.Random, scale: str, message: str) -> int:
    """What respondent ``rng`` says: sneakers liked more than boots, on both kinds."""
    if scale == "binary":
        return int(rng.random() < (0.7 if message == "sneakers" else 0.35))
    return rng.choice([3, 4, 5] if message == "sneakers" else [1, 2, 3, 4])


def fill_about(drv, fs, i: int) -> dict:
    """Answer "about you" as respondent ``i``; returns what was entered."""
    entered = {}
    for d in fs.instrument.demographics:
        name = f"demo-{d.name}"
        if d.widget == "radio":
            k = i % len(d.levels)
            drv.find_element(By.ID, f"{name}-{k + 1}").click()
            entered[d.name] = d.levels[k]
        else:
            value = str(20 + i) if d.numeric else d.levels[i % len(d.levels)]
            drv.find_element(By.ID, name).send_keys(value)
            entered[d.name] = int(value) if d.numeric else value
    return entered


def respond(drv, base: str, fs, i: int, scale: str) -> dict:
    """One respondent, page by page; returns the message they saw, their answer and attention check."""
    rid = f"b{i:02d}"
    drv.get(f"{base}/?PROLIFIC_PID={rid}&STUDY_ID=st1&SESSION_ID=se-{rid}")
    drv.delete_all_cookies()  # a new person: no session of the one before
    wait_for(drv, "consent").click()
    drv.find_element(By.ID, "start").click()
    wait_for(drv, "about-form")
    entered = fill_about(drv, fs, i)
    drv.find_element(By.ID, "next").click()
    legend = wait_for(drv, "item0-group").find_element(By.TAG_NAME, "legend").text
    (message,) = [m for m, items in fs.instrument.messages.items() if any(p.text in legend for p in items)]
    said = answer(random.Random(i), scale, message)
    drv.find_element(By.ID, f"item0-{said}").click()
    options = fs.instrument.study.field.attention_options
    drv.find_element(By.ID, f"attention-{options.index('Red' if i in FAIL_ATTENTION else 'Blue') + 1}").click()
    drv.find_element(By.ID, "submit").click()
    assert wait_for(drv, "completion-code").text == "C0DE42"
    return {"respondent": rid, "message": message, "answer": said, "attention_ok": i not in FAIL_ATTENTION,
            "attributes": entered}


@pytest.fixture(scope="module")
def fielded(driver, tmp_path_factory):
    """Each kind's study run on the simulated model, then answered in the browser by the same 30 people."""
    out = {}
    for scale, question in KINDS.items():
        folder = tmp_path_factory.mktemp(scale)
        study = write_study(folder, question=question)
        survey.Study.from_toml(study).run(yes=True)
        fs = field_server(study, rng=random.Random(11))
        try:
            with Live(fs) as live:
                submitted = [respond(driver, live.base, fs, i, scale) for i in range(RESPONDENTS)]
            stored = fs.store.answers()
        finally:
            fs.close()
        out[scale] = study, submitted, stored
    return out


def by_hand(submitted) -> float:
    kept = [s for s in submitted if s["attention_ok"]]
    mean = {m: sum(s["answer"] for s in kept if s["message"] == m) / sum(s["message"] == m for s in kept)
            for m in ("sneakers", "boots")}
    return mean["sneakers"] - mean["boots"]


@pytest.mark.parametrize("scale", list(KINDS))
def test_fidelity_on_the_store_is_the_effect_of_what_the_browser_submitted(fielded, scale, capsys):
    study, submitted, stored = fielded[scale]
    assert len(stored) == RESPONDENTS and set(stored["scale"]) == {scale}
    got = {r.respondent: (r.message, int(r.answer), bool(r.attention_ok), json.loads(r.attributes))
           for r in stored.itertuples()}
    assert got == {s["respondent"]: (s["message"], s["answer"], s["attention_ok"], s["attributes"]) for s in submitted}
    assert len({s["answer"] for s in submitted}) > 1 and {s["message"] for s in submitted} == {"sneakers", "boots"}
    code, out, err = run_cli(capsys, "fidelity", study, "--a", "sneakers", "--b", "boots", "--bootstrap", "20",
                             "--json")
    assert code == 0, err
    result = json.loads(out)
    print(json.dumps(result)[:2000])
    assert result["human_effect"]["estimate"] == pytest.approx(by_hand(submitted), abs=1e-12)
