"""The numeric and checkbox kinds in the web questionnaire (survey/kinds/numeric/field.py,
survey/kinds/checkbox/field.py): a labelled number box checked by the kind's own parser, a labelled checkbox
group whose answer is the kind's bit set; out of range or too many / too few boxes ask again (422), values the
form never offers are refused (400); option names and answers are escaped; the rows land in the store and are
read back by fidelity where the kind supports it."""

import random
import re

import pytest
from field_study import ABOUT, write_study
from starlette.testclient import TestClient

from survey.field import field_server

NUMERIC = 'type = "numeric"\nmin = 0\nmax = 300\nunit = "US <i>dollars</i>"'
CHECKBOX = 'type = "checkbox"\noptions = ["comfortable", "stylish", "good <script>value</script>", "durable"]\n' \
           'min_choices = 1\nmax_choices = 2'


def started(tmp_path, question, rid="r1"):
    fs = field_server(write_study(tmp_path, question=question), rng=random.Random(2))
    c = TestClient(fs.app)
    c.post("/start", data={"consent": "yes", "rid": rid})
    c.post("/about", data=ABOUT)
    return fs, c


def test_a_number_box_labelled_with_its_range_and_unit(tmp_path):
    fs, c = started(tmp_path, NUMERIC)
    try:
        page = c.get("/questions").text
        box = re.search(r'<input type="number"[^>]*>', page).group(0)
        for attr in ('id="item0"', 'name="item0"', 'min="0"', 'max="300"', 'step="any"', 'inputmode="decimal"',
                     'aria-describedby="item0-hint"'):
            assert attr in box, attr
        assert '<label for="item0">' in page and "A number from 0 to 300, in US &lt;i&gt;dollars&lt;/i&gt;." in page
        assert "<i>dollars" not in page
    finally:
        fs.close()


@pytest.mark.parametrize("posted, status", [("", 422), ("301", 422), ("-1", 422), ("1e9", 422),
                                            ("twelve", 400), ("12abc", 400), ("1" * 50, 400), ("nan", 400)])
def test_a_number_out_of_range_is_asked_again_and_a_non_number_refused(tmp_path, posted, status):
    fs, c = started(tmp_path, NUMERIC)
    try:
        r = c.post("/questions", data={"item0": posted, "attention": "Blue"})
        assert r.status_code == status and "Traceback" not in r.text
        if status == 422:
            assert "Question 1:" in r.text and f'value="{posted}"' in r.text  # the form again, as typed
        assert fs.store.answers().empty
    finally:
        fs.close()


def test_a_number_is_stored_as_the_kind_parses_it(tmp_path):
    fs, c = started(tmp_path, NUMERIC)
    try:
        r = c.post("/questions", data={"item0": "12.50", "attention": "Blue"})
        assert r.status_code == 200 and "C0DE42" in r.text
        row = fs.store.answers().iloc[0]
        assert row["scale"] == "numeric0to300" and row["answer"] == 12.5 and row["answer_text"] == "12.50"
    finally:
        fs.close()


def test_a_checkbox_group_with_a_legend_and_a_label_per_box(tmp_path):
    fs, c = started(tmp_path, CHECKBOX)
    try:
        page = c.get("/questions").text
        group = page[page.index('<fieldset id="item0-group"'):page.index("</fieldset>")]
        assert "<legend>" in group and "Which of these describe the product?" in group
        assert "1. comfortable" not in group and "Answer with" not in group  # the boxes are the list
        for i in range(1, 5):
            assert f'<input type="checkbox" id="item0-opt-{i}" name="item0-opt-{i}" value="1">' in group
            assert f'<label for="item0-opt-{i}">' in group
        assert "good &lt;script&gt;value&lt;/script&gt;" in group and "<script>" not in page
        assert "Tick 1 to 2." in group
    finally:
        fs.close()


@pytest.mark.parametrize("ticked, status", [((), 422), ((1, 2, 4), 422)])
def test_too_few_or_too_many_boxes_are_asked_again(tmp_path, ticked, status):
    fs, c = started(tmp_path, CHECKBOX)
    try:
        r = c.post("/questions", data={**{f"item0-opt-{i}": "1" for i in ticked}, "attention": "Blue"})
        assert r.status_code == status
        assert ("at least 1 box" if not ticked else "at most 2 boxes") in r.text
        assert all(f'id="item0-opt-{i}" name="item0-opt-{i}" value="1" checked' in r.text for i in ticked)
        assert fs.store.answers().empty
    finally:
        fs.close()


@pytest.mark.parametrize("data", [{"item0-opt-1": "2"}, {"item0-opt-5": "1"}, {"item0-opt-1": "1", "item0": "5"}])
def test_a_tampered_checkbox_is_refused(tmp_path, data):
    fs, c = started(tmp_path, CHECKBOX)
    try:
        r = c.post("/questions", data={**data, "attention": "Blue"})
        assert r.status_code == 400 and "Traceback" not in r.text and fs.store.answers().empty
    finally:
        fs.close()


def test_boxes_ticked_are_stored_as_the_kinds_bit_set(tmp_path):
    fs, c = started(tmp_path, CHECKBOX)
    try:
        r = c.post("/questions", data={"item0-opt-1": "1", "item0-opt-3": "1", "attention": "Blue"})
        assert "C0DE42" in r.text
        row = fs.store.answers().iloc[0]
        assert row["scale"] == "checkbox4-1-2" and row["answer"] == 5
        assert row["answer_text"] == "comfortable, good <script>value</script>"
        admin = TestClient(fs.app).get("/admin", headers={"Authorization": f"Bearer {fs.token}"})
        assert "<script>value" not in admin.text
    finally:
        fs.close()


def field_people(tmp_path, question, answer, n=16):
    """The study run on the simulated model, then fielded to ``n`` people; ``answer(i, page)`` is what person
    i posts for the one item."""
    import survey

    study = write_study(tmp_path, question=question)
    survey.Study.from_toml(study).run(yes=True)
    fs = field_server(study, rng=random.Random(5))
    try:
        for i in range(n):
            c = TestClient(fs.app)
            c.post("/start", data={"consent": "yes", "rid": f"h{i}"})
            page = c.post("/about", data={**ABOUT, "demo-age": str(20 + i)}).text
            r = c.post("/questions", data={**answer(i, page), "attention": "Blue"})
            assert "C0DE42" in r.text, r.text[:400]
        return study, fs.store.answers()
    finally:
        fs.close()


def test_fielded_numbers_are_read_back_by_fidelity_and_analyze(tmp_path, capsys):
    import json

    from cli_result import run_cli

    import survey

    def answer(i, page):
        return {"item0": str(150 + i if "sneaker" in page.lower() else 40 + i)}

    study, rows = field_people(tmp_path, NUMERIC, answer)
    mean = rows.groupby("message")["answer"].mean()
    effect = float(mean["sneakers"] - mean["boots"])
    res = survey.fidelity(str(study), a="sneakers", b="boots", n_boot=50, flips=199)
    assert res.human_effect.estimate == pytest.approx(effect)
    code, out, err = run_cli(capsys, "analyze", tmp_path / "store.sqlite", "--a", "sneakers", "--b", "boots",
                             "--humans", "--json")
    assert code == 0, err
    assert json.loads(out)["humans"]["human_effect"]["estimate"] == pytest.approx(effect)


def test_fielded_boxes_are_read_back_into_the_checkbox_comparison_with_people(tmp_path, capsys):
    from cli_result import run_cli

    import survey

    def answer(i, page):
        return {"item0-opt-1": "1", "item0-opt-3": "1"} if "sneaker" in page.lower() else {"item0-opt-2": "1"}

    study, rows = field_people(tmp_path, CHECKBOX, answer, n=8)
    src = survey.open_source(str(study))
    answers = src.humans.table.set_index("respondent")["answer"]
    assert sorted(set(answers)) == [2, 5]  # the bit sets as stored, not re-read as option numbers
    assert list(answers.sort_index()) == list(rows.set_index("respondent")["answer"].sort_index())
    code, out, err = run_cli(capsys, "fidelity", study)  # the kind's own comparison, option by option
    assert code == 0 and out.startswith("Checkbox fidelity to people"), err
