"""Every built-in kind in its widget: what the page offers is what the kind's labels allow, and the answer
is stored in the kind's own coding (the position chosen, 10 x best + worst, the point of the scale)."""

import json
import random

import pytest
from field_study import write_study
from respondent import form_items, walk
from starlette.testclient import TestClient

from survey.field import field_server
from survey.field.widgets import SCALE, Widget, register_widget, widget_for
from survey.responses import response_type

SANDALS = '\n[[messages]]\nid = "sandals"\nperturbations = "sandals"\ncount = 3\n'


def fielded(tmp_path, question, extra="", design="between", n=3, pick=lambda name, values: values[-1]):
    fs = field_server(write_study(tmp_path, question=question, extra=extra, design=design), rng=random.Random(3))
    try:
        c = TestClient(fs.app)
        pages = []
        for i in range(n):
            c = TestClient(fs.app)
            walk(c, f"w{i}", pick=pick)
            pages.append(c)
        return fs.store.answers(), fs
    finally:
        fs.close()


def test_a_rating_scale_offers_its_points(tmp_path):
    t, _ = fielded(tmp_path, 'type = "likert"\npoints = 5')
    assert set(t["answer"]) == {5} and set(t["answer_text"]) == {"5"} and set(t["scale"]) == {"likert5"}


def test_forced_choice_shows_both_messages_as_cards_and_stores_the_position(tmp_path):
    t, _ = fielded(tmp_path, 'type = "choice"')
    assert set(t["answer"]) == {2} and len(t) == 3
    for r in t.itertuples():
        shown = json.loads(r.shown)
        assert {m for m, _ in shown} == {"sneakers", "boots"} and r.message == shown[0][0]


def test_pick_shows_every_message(tmp_path):
    t, _ = fielded(tmp_path, 'type = "pick"', SANDALS)
    assert set(t["scale"]) == {"pick3"} and set(t["answer"]) == {3}
    assert all(len(json.loads(s)) == 3 for s in t["shown"])


def test_maxdiff_asks_best_and_worst_per_set(tmp_path):
    t, _ = fielded(tmp_path, 'type = "maxdiff"\nsubset = 3', SANDALS)
    assert set(t["scale"]) == {"maxdiff3"}
    assert all(response_type("maxdiff3").parse(a) is not None for a in t["answer_text"])
    assert set(t["answer"]) == {31}  # best = the last option, worst = the first other one


def test_free_text_is_kept_as_text(tmp_path):
    t, _ = fielded(tmp_path, 'type = "text"')
    assert t["answer"].isna().all() and set(t["answer_text"]) == {"a free answer"}


def test_every_input_has_a_label(tmp_path):
    for question, extra in (('type = "likert"', ""), ('type = "choice"', ""), ('type = "maxdiff"', SANDALS),
                            ('type = "text"', "")):
        fs = field_server(write_study(tmp_path, question=question, extra=extra))
        try:
            c = TestClient(fs.app)
            c.post("/start", data={"consent": "yes", "rid": "lab"})
            pages = [c.get("/?rid=x").text, c.get("/about").text]
            from field_study import ABOUT
            c.post("/about", data=ABOUT)
            pages.append(c.get("/questions").text)
            import re

            for html in pages:
                ids = re.findall(r'<(?:input|textarea|select)[^>]*\bid="([^"]+)"', html)
                hidden = re.findall(r'<input type="hidden"[^>]*>', html)
                assert ids or hidden
                for i in ids:
                    assert f'for="{i}"' in html, (question, i)
        finally:
            fs.close()
        (tmp_path / "store.sqlite").unlink()


def test_a_kind_brings_its_own_widget():
    rtype = response_type("likert5")
    assert widget_for(rtype) is SCALE
    mine = Widget(lambda item, form: (1, "one"), source="<p>{{ item.prompt }}</p>")
    try:
        register_widget("ordinal", mine)
        assert widget_for(rtype) is mine
    finally:
        from survey.field import widgets

        widgets._REGISTERED.pop("ordinal")


def test_form_items_reads_the_page():
    assert form_items('<input name="item0" value="1"><input name="item0" value="0">') == {"item0": ["1", "0"]}


@pytest.mark.parametrize("design", ["between", "within"])
def test_designs_store_one_row_per_message_seen(tmp_path, design):
    t, fs = fielded(tmp_path, 'type = "binary"', design=design, n=2)
    assert len(t) == (2 if design == "between" else 4)


def test_a_ranking_brings_its_own_widget_a_place_per_option(tmp_path):
    fs = field_server(write_study(tmp_path, question='type = "rank"', extra=SANDALS), rng=random.Random(2))
    try:
        c = TestClient(fs.app)
        c.post("/start", data={"consent": "yes", "rid": "r1"})
        from field_study import ABOUT

        c.post("/about", data=ABOUT)
        page = c.get("/questions").text
        assert page.count('<select id="item0-rank-') == 3
        for i in (1, 2, 3):
            assert f'<label for="item0-rank-{i}"' in page
        same = {"item0-rank-1": "1", "item0-rank-2": "1", "item0-rank-3": "2", "attention": "Blue"}
        assert c.post("/questions", data=same).status_code == 422  # a place twice: asked again
        outside = {**same, "item0-rank-2": "4"}
        assert c.post("/questions", data=outside).status_code == 400
        ok = {"item0-rank-1": "2", "item0-rank-2": "3", "item0-rank-3": "1", "attention": "Blue"}
        assert "C0DE42" in c.post("/questions", data=ok).text
        row = fs.store.answers().iloc[0]
        assert row["scale"] == "rank3" and row["answer"] == 312 and row["answer_text"] == "3 > 1 > 2"
    finally:
        fs.close()
