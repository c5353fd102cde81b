"""The questionnaire as people meet it: headless Chromium (Debian's, as the report tests use) clicks through
`survey field` page by page, as 30 respondents with different answers on two kinds (a Yes/No study and a
5-point scale study: one question each), and `survey fidelity` on each study's store gives the effect
computed by hand from what the browser submitted. Every page type passes axe-core (no serious or critical
violation), labels every input and fits a 375 px phone."""

import json
import random

import pytest
from browser import chromium, skip_without_browser
from cli_result import run_cli
from field_study import ABOUT, write_study
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


def fill_about(drv, fs, i: int, typed: dict | None = None) -> dict:
    """Answer "about you" as respondent ``i`` (``typed``: what to type in a text box instead, None: leave it
    empty); returns what was entered."""
    entered = {}
    for d in fs.instrument.demographics:
        name = f"demo-{d.name}"
        if typed and d.name in typed:
            if typed[d.name] is not None:
                drv.find_element(By.ID, name).send_keys(typed[d.name])
                entered[d.name] = typed[d.name]
        elif d.widget == "radio":
            k = i % len(d.levels)
            drv.find_element(By.ID, f"{name}-{k + 1}").click()
            entered[d.name] = d.levels[k]
        else:
            value = str(20 + i) if d.numeric else d.levels[i % len(d.levels)]
            drv.find_element(By.ID, name).send_keys(value)
            entered[d.name] = int(value) if d.numeric else value
    return entered


# The page's own elements clicked and filled in the page (real click events: the browser checks the radio buttons
# and posts the form), one WebDriver command per page: a third of the CPU of a WebDriver click per element. The
# page-per-kind test below clicks with WebDriver (visible, interactable elements).
FILL = """
const [clicks, typed] = arguments;
for (const [id, value] of Object.entries(typed)) document.getElementById(id).value = value;
for (const id of clicks) document.getElementById(id).click();
"""


def respond(drv, base: str, fs, i: int, scale: str) -> dict:
    """One respondent, page by page; returns the message they saw, their answer and attention check."""
    rid = f"b{i:02d}"
    drv.get(f"{base}/?PROLIFIC_PID={rid}&STUDY_ID=st1&SESSION_ID=se-{rid}")
    drv.delete_all_cookies()  # a new person: no session of the one before
    drv.execute_script(FILL, ["consent", "start"], {})
    wait_for(drv, "about-form")
    clicks, typed, entered = [], {}, {}
    for d in fs.instrument.demographics:
        value = d.levels[i % len(d.levels)] if not d.numeric else str(20 + i)
        if d.widget == "radio":
            clicks.append(f"demo-{d.name}-{d.levels.index(value) + 1}")
        else:
            typed[f"demo-{d.name}"] = value
        entered[d.name] = int(value) if d.numeric else value
    drv.execute_script(FILL, [*clicks, "next"], typed)
    legend = wait_for(drv, "item0-group").find_element(By.TAG_NAME, "legend").text
    (message,) = [m for m, items in fs.instrument.messages.items() if any(p.text in legend for p in items)]
    said = answer(random.Random(i), scale, message)
    options = fs.instrument.study.field.attention_options
    check = f"attention-{options.index('Red' if i in FAIL_ATTENTION else 'Blue') + 1}"
    drv.execute_script(FILL, [f"item0-{said}", check, "submit"], {})
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


# -- accessibility and the phone ------------------------------------------------------------------------------

SANDALS = '\n[[messages]]\nid = "sandals"\nperturbations = "sandals"\ncount = 3\n'
WIDGETS = {"scale": ('type = "binary"', ""), "cards": ('type = "choice"', ""),
           "best-worst": ('type = "maxdiff"\nsubset = 3', SANDALS), "rank": ('type = "rank"', SANDALS),
           "text": ('type = "text"', "")}
PHONE = 375  # px: the narrowest common phone

# Every input a person fills in (not the hidden panel ids) has a label that names it
UNLABELLED = """
return Array.from(document.querySelectorAll('input, select, textarea'))
  .filter(e => e.type !== 'hidden' && !(e.labels && e.labels.length && e.labels[0].textContent.trim()))
  .map(e => e.id || e.name);
"""
OVERFLOW = "return document.documentElement.scrollWidth - window.innerWidth;"


def axe_script() -> str:
    """axe-core as shipped inside the PyPI package selenium-axe-python (no download at test time)."""
    from pathlib import Path

    import selenium_axe_python

    return (Path(selenium_axe_python.__file__).parent / "axe-core" / "axe.min.js").read_text(encoding="utf-8")


def check_page(drv, page: str, axe: str) -> None:
    """No unlabelled input, no sideways scrolling on a phone, and no serious or critical axe-core violation."""
    assert drv.execute_script(UNLABELLED) == [], page
    assert drv.execute_script(OVERFLOW) <= 0, f"{page}: wider than a {PHONE} px phone"
    drv.execute_script(axe)
    found = drv.execute_async_script("const done = arguments[arguments.length - 1];"
                                     "axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations));")
    bad = [(v["id"], v["impact"], v["help"], [n["html"][:120] for n in v["nodes"]][:3]) for v in found
           if v["impact"] in ("serious", "critical")]
    assert bad == [], f"{page}: {bad}"


@pytest.fixture
def phone(driver):
    driver.set_window_size(PHONE, 800)
    yield driver
    driver.set_window_size(1100, 2400)


@pytest.mark.parametrize("widget", list(WIDGETS))
def test_every_page_is_accessible_and_fits_a_phone(phone, tmp_path, widget):
    question, extra = WIDGETS[widget]
    axe = axe_script()
    fs = field_server(write_study(tmp_path, question=question, extra=extra), rng=random.Random(2))
    try:
        with Live(fs) as live:
            phone.get(f"{live.base}/?PROLIFIC_PID=a11y&STUDY_ID=st1&SESSION_ID=se-a11y")
            phone.delete_all_cookies()
            first = widget == "scale"  # the pages every study shares: checked once
            if first:
                check_page(phone, "consent", axe)
            wait_for(phone, "consent").click()
            phone.find_element(By.ID, "start").click()
            wait_for(phone, "about-form")
            if first:
                check_page(phone, "about you", axe)
            fill_about(phone, fs, 3)
            phone.find_element(By.ID, "next").click()
            wait_for(phone, "questions-form")
            check_page(phone, f"questions ({widget})", axe)
            if first:  # sent unanswered: the same page with its errors
                phone.find_element(By.ID, "submit").click()
                wait_for(phone, "errors")
                check_page(phone, "questions with errors", axe)
                phone.find_element(By.ID, "item0-1").click()
                phone.find_element(By.ID, "attention-2").click()
                phone.find_element(By.ID, "submit").click()
                wait_for(phone, "completion-code")
                check_page(phone, "completion", axe)
                phone.get(f"{live.base}/admin")
                check_page(phone, "researcher's login", axe)
                phone.find_element(By.ID, "token").send_keys(fs.token)
                phone.find_element(By.ID, "login").click()
                wait_for(phone, "summary")
                check_page(phone, "researcher's page", axe)
    finally:
        fs.close()


def test_the_page_checks_can_fail(phone, tmp_path):
    """An unlabelled box, grey on grey text and a wide table are each caught."""
    axe = axe_script()
    bad = {"unlabelled": '<main><input type="text" id="x"></main>',
           "contrast": '<main><p style="color:#ccc;background:#ddd">faint</p></main>',
           "wide": '<main><table><tr><td style="white-space:nowrap">' + "wide " * 200 + "</td></tr></table></main>"}
    for name, body in bad.items():
        page = tmp_path / f"{name}.html"
        page.write_text(f'<!doctype html><html lang="en"><head><title>t</title><meta name="viewport" '
                        f'content="width=device-width"></head><body>{body}</body></html>', encoding="utf-8")
        phone.get(page.as_uri())
        with pytest.raises(AssertionError):
            check_page(phone, name, axe)


# -- answers that hold a script ---------------------------------------------------------------------------------

PAYLOAD = '<script>window.XSS=1</script><img src=x onerror="window.XSS=2">'
# Did the payload run, did it become an element, and is it shown as the text it is?
INERT = """
return {ran: typeof window.XSS !== 'undefined',
        planted: Array.from(document.querySelectorAll('script, img'))
          .filter(e => e.textContent.includes('window.XSS') || e.getAttribute('src') === 'x').length,
        shown: document.body.innerText.includes('<script>window.XSS=1</script>') ||
          Array.from(document.querySelectorAll('input, textarea')).some(e => e.value === arguments[0])};
"""


def assert_inert(drv, page: str) -> None:
    assert drv.execute_script(INERT, PAYLOAD) == {"ran": False, "planted": 0, "shown": True}, page


def test_answers_with_a_script_stay_text_in_the_questionnaire_the_researchers_page_and_the_report(driver, tmp_path,
                                                                                                   capsys):
    """A respondent types a script as their occupation (a text box) and as a free-text answer: each page that
    shows it again (the form sent back with an error, the researcher's page, the HTML report segmented by
    occupation) shows it as text. The questionnaire's pages forbid inline scripts too (their CSP); the report is
    a file, with no such header: there only the escaping stands between the answer and the reader."""
    from starlette.testclient import TestClient

    for question in ('type = "binary"', 'type = "text"'):
        folder = tmp_path / question[8:-1]
        folder.mkdir()
        study = write_study(folder, question=question)
        fs = field_server(study, rng=random.Random(4))
        try:
            with Live(fs) as live:
                driver.get(f"{live.base}/?rid=x1")
                driver.delete_all_cookies()
                wait_for(driver, "consent").click()
                driver.find_element(By.ID, "start").click()
                wait_for(driver, "about-form")
                fill_about(driver, fs, 1, {"occupation": PAYLOAD, "age": None})
                driver.find_element(By.ID, "next").click()
                wait_for(driver, "errors")  # no age: the form comes back with the occupation as typed
                assert_inert(driver, "about you, sent back")
                driver.find_element(By.ID, "demo-age").send_keys("33")
                driver.find_element(By.ID, "next").click()
                wait_for(driver, "questions-form")
                if question == 'type = "text"':
                    driver.find_element(By.ID, "item0").send_keys(PAYLOAD)
                    driver.find_element(By.ID, "submit").click()  # no attention answer: sent back
                    wait_for(driver, "errors")
                    assert_inert(driver, "free text, sent back")
                else:
                    driver.find_element(By.ID, "item0-1").click()
                driver.find_element(By.ID, "attention-2").click()
                driver.find_element(By.ID, "submit").click()
                wait_for(driver, "completion-code")
                driver.get(f"{live.base}/admin")
                driver.find_element(By.ID, "token").send_keys(fs.token)
                driver.find_element(By.ID, "login").click()
                wait_for(driver, "recent")
                assert_inert(driver, "researcher's page")
            if question == 'type = "binary"':  # more people with that occupation, so it is a segment
                for i in range(5):
                    c = TestClient(fs.app)
                    c.post("/start", data={"consent": "yes", "rid": f"x{i + 2}"})
                    c.post("/about", data={**ABOUT, "demo-occupation": PAYLOAD})
                    c.post("/questions", data={"item0": str(i % 2), "attention": "Blue"})
        finally:
            fs.close()
    study = tmp_path / "binary" / "shoes.toml"
    survey.Study.from_toml(study).run(yes=True)  # the models asked about the respondents too (their occupation)
    code, out, err = run_cli(capsys, "report", study.parent / "store.sqlite", "--out", tmp_path / "report",
                             "--by", "occupation", "--flips", "99")
    assert code == 0, err
    html = (tmp_path / "report" / "index.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;window.XSS=1&lt;/script&gt;" in html and PAYLOAD not in html
    driver.get((tmp_path / "report" / "index.html").as_uri())
    assert_inert(driver, "report")
