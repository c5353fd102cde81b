"""The numeric and checkbox widgets as people meet them, in headless Chromium on a 375 px phone: the
questions page, and the same page sent back with an error (a number out of range, too many boxes ticked),
pass axe-core with no serious or critical violation, label every input and scroll no sideways; typed and
ticked in the browser, the answer is stored in the kind's coding."""

import random

import pytest
from browser import chromium, skip_without_browser
from field_study import write_study
from live import Live
from selenium.webdriver.common.by import By
from test_field_browser import PHONE, axe_script, check_page, fill_about, wait_for

from survey.field import field_server

skip_without_browser()

NUMERIC = 'type = "numeric"\nmin = 0\nmax = 300\nunit = "US dollars"'
CHECKBOX = ('type = "checkbox"\noptions = ["comfortable", "stylish", "good value for the money it costs", '
            '"durable"]\nmax_choices = 2')


@pytest.fixture(scope="module")
def phone():
    drv = chromium(PHONE, 800)
    yield drv
    drv.quit()


def to_questions(drv, live, fs):
    drv.get(f"{live.base}/?PROLIFIC_PID=a11y&STUDY_ID=st1&SESSION_ID=se-a11y")
    drv.delete_all_cookies()
    wait_for(drv, "consent").click()
    drv.find_element(By.ID, "start").click()
    wait_for(drv, "about-form")
    fill_about(drv, fs, 3)
    drv.find_element(By.ID, "next").click()
    wait_for(drv, "questions-form")


def test_the_number_box_is_accessible_on_a_phone(phone, tmp_path):
    axe = axe_script()
    fs = field_server(write_study(tmp_path, question=NUMERIC), rng=random.Random(2))
    try:
        with Live(fs) as live:
            to_questions(phone, live, fs)
            check_page(phone, "questions (number)", axe)
            phone.find_element(By.ID, "item0").send_keys("450")
            phone.find_element(By.ID, "attention-2").click()
            phone.find_element(By.ID, "submit").click()
            assert "from 0 to 300" in wait_for(phone, "errors").text
            check_page(phone, "questions (number out of range, sent back)", axe)
            box = phone.find_element(By.ID, "item0")
            box.clear()
            box.send_keys("12.5")
            phone.find_element(By.ID, "attention-2").click()
            phone.find_element(By.ID, "submit").click()
            assert wait_for(phone, "completion-code").text == "C0DE42"
        row = fs.store.answers().iloc[0]
        assert row["answer"] == 12.5 and row["scale"] == "numeric0to300"
    finally:
        fs.close()


def test_the_checkbox_group_is_accessible_on_a_phone(phone, tmp_path):
    axe = axe_script()
    fs = field_server(write_study(tmp_path, question=CHECKBOX), rng=random.Random(2))
    try:
        with Live(fs) as live:
            to_questions(phone, live, fs)
            check_page(phone, "questions (checkbox)", axe)
            for i in (1, 2, 4):
                phone.find_element(By.ID, f"item0-opt-{i}").click()
            phone.find_element(By.ID, "attention-2").click()
            phone.find_element(By.ID, "submit").click()
            assert "at most 2 boxes" in wait_for(phone, "errors").text
            check_page(phone, "questions (too many boxes, sent back)", axe)
            assert phone.find_element(By.ID, "item0-opt-4").is_selected()  # as ticked
            phone.find_element(By.ID, "item0-opt-2").click()  # untick: 1 and 4 remain
            phone.find_element(By.ID, "attention-2").click()
            phone.find_element(By.ID, "submit").click()
            assert wait_for(phone, "completion-code").text == "C0DE42"
        row = fs.store.answers().iloc[0]
        assert row["answer"] == 0b1001 and row["scale"] == "checkbox4-1-2"
    finally:
        fs.close()
