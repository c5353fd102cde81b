"""The field server's respondent path and its guards, driven in-process (Starlette's TestClient)."""

import json
import logging
import random
import sqlite3

import pytest
from field_study import ABOUT, write_study
from respondent import answers_for, walk
from starlette.testclient import TestClient

from survey.field import field_server


@pytest.fixture
def served(tmp_path):
    made = []

    def serve(**kw):
        study_kw = {k: kw.pop(k) for k in ("design", "question", "extra") if k in kw}
        fs = field_server(write_study(tmp_path, **study_kw), admin_token="admin-secret-token", rng=random.Random(1),
                          **kw)
        made.append(fs)
        return fs

    yield serve
    for fs in made:
        fs.close()


def client(fs):
    return TestClient(fs.app, raise_server_exceptions=False)


def rows(fs):
    return fs.store.answers()


def test_the_respondents_path_stores_one_human_row_and_shows_the_code(served):
    fs = served()
    page = client(fs).get("/?PROLIFIC_PID=p1")
    assert "We ask about shoes. &lt;b&gt;bold&lt;/b&gt;" in page.text  # the consent text, escaped
    done = walk(client(fs), "p1")
    assert done.status_code == 200 and "C0DE42" in done.text
    t = rows(fs)
    assert len(t) == 1 and t["respondent"].tolist() == ["p1"]
    r = t.iloc[0]
    assert r["question"] == "q" and r["scale"] == "binary" and r["answer"] in (0, 1)
    assert json.loads(r["attributes"]) == {"age": 40, "gender": "female", "occupation": "Nurse", "income": "medium",
                                           "marital_status": "married"}
    assert json.loads(r["panel"]) == {"PROLIFIC_PID": "p1", "STUDY_ID": "st1", "SESSION_ID": "se-p1"}
    assert r["condition"] == f"{r['message']}/{r['perturbation']}" and r["attention_ok"] == 1
    timings = json.loads(r["timings"])
    assert set(timings) == {"about_you", "questions"} and r["seconds"] >= timings["questions"] >= 0


def test_between_subjects_assignment_is_balanced(served):
    fs = served()
    for i in range(12):
        assert walk(client(fs), f"r{i}").status_code == 200
    counts = fs.store.counters()["complete"]
    assert sorted(counts) == sorted(fs.instrument.conditions) and set(counts.values()) == {2}


def test_within_subjects_shows_every_message_in_a_random_order(served):
    fs = served(design="within")
    for i in range(4):
        walk(client(fs), f"w{i}")
    t = rows(fs)
    assert len(t) == 8
    firsts = t[t["position"] == 0]["message"]
    assert set(firsts) == {"sneakers", "boots"}  # both orders were assigned (balanced over orders)
    assert all(set(g["message"]) == {"sneakers", "boots"} for _, g in t.groupby("respondent"))


def test_a_respondent_answers_once(served):
    fs = served()
    c = client(fs)
    walk(c, "once")
    again = walk(client(fs), "once")  # the same id from another browser
    assert again.status_code == 409 and "already answered" in again.text
    page = c.get("/questions")  # the same browser: no second form
    assert page.url.path == "/done"
    resend = c.post("/questions", data={"item0": "1", "attention": "Blue"}, follow_redirects=False)
    assert resend.status_code == 303 and resend.headers["location"] == "done"
    assert len(rows(fs)) == 1


def test_a_started_session_belongs_to_its_browser(served):
    fs = served()
    first = client(fs)
    first.get("/?rid=shared")
    first.post("/start", data={"consent": "yes", "rid": "shared"})
    other = client(fs)
    r = other.post("/start", data={"consent": "yes", "rid": "shared"})
    assert r.status_code == 409 and "another browser" in r.text
    assert client(fs).get("/questions").status_code == 403  # no session cookie: no form


@pytest.mark.parametrize("bad", [
    {"condition": "sneakers/sneakers-01"},  # a field the form does not have
    {"message": "boots"},
    {"item0": "7"},  # not an answer of Yes/No
    {"item0": "yes"},
    {"item1": "1"},  # an item this respondent was not shown
])
def test_tampered_forms_are_refused(served, bad):
    fs = served()
    c = client(fs)
    c.post("/start", data={"consent": "yes", "rid": "t1"})
    c.post("/about", data=ABOUT)
    form = {**answers_for(c.get("/questions").text), **bad}
    r = c.post("/questions", data=form, follow_redirects=False)
    assert r.status_code == 400 and "Traceback" not in r.text
    assert len(rows(fs)) == 0


def test_tampered_demographics_and_ids_are_refused(served):
    fs = served()
    c = client(fs)
    c.post("/start", data={"consent": "yes", "rid": "t2"})
    assert c.post("/about", data={**ABOUT, "demo-gender": "robot"}).status_code == 400
    assert c.post("/about", data={**ABOUT, "demo-age": "old"}).status_code == 422  # shown again, saying why
    assert client(fs).get("/?rid=a%20b").status_code == 400
    assert client(fs).post("/start", data={"consent": "yes", "rid": "<script>"}).status_code == 400


def test_unanswered_questions_are_asked_again_with_the_answers_kept(served):
    fs = served(question='type = "text"')
    c = client(fs)
    c.post("/start", data={"consent": "yes", "rid": "x1"})
    c.post("/about", data=ABOUT)
    r = c.post("/questions", data={"item0": "<script>alert(1)</script>"})
    assert r.status_code == 422 and "Please answer the last question" in r.text
    assert "<script>alert(1)" not in r.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in r.text


def test_script_is_escaped_on_the_admin_page(served):
    fs = served(question='type = "text"')
    walk(client(fs), "s1", about={**ABOUT, "demo-occupation": "<script>alert(2)</script>"},
         pick=lambda n, v: v[0])
    c = client(fs)
    c.headers["Authorization"] = "Bearer admin-secret-token"
    page = c.get("/admin")
    assert page.status_code == 200 and "<script>alert(2)" not in page.text
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in page.text


def test_admin_and_exports_need_the_token(served):
    fs = served()
    walk(client(fs), "a1")
    anon = client(fs)
    assert anon.get("/admin").status_code == 401
    for path in ("/admin/export.csv", "/admin/export.parquet"):
        assert anon.get(path).status_code == 401
        assert anon.get(path, headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert anon.post("/admin/login", data={"token": "wrong"}).status_code == 401
    ok = client(fs)
    assert ok.post("/admin/login", data={"token": "admin-secret-token"}).status_code == 200  # the page, via cookie
    page = ok.get("/admin")
    assert page.status_code == 200 and 'id="conditions"' in page.text and "1 complete" in page.text
    csv = ok.get("/admin/export.csv")
    assert csv.status_code == 200 and "a1" in csv.text and "gender" in csv.text.splitlines()[0]
    assert ok.get("/admin/export.parquet").content[:4] == b"PAR1"


def test_oversized_and_malformed_posts_get_4xx(served):
    fs = served(body_limit=2048)
    c = client(fs)
    assert c.post("/start", data={"consent": "yes", "rid": "x" * 5000}).status_code == 413
    assert c.post("/start", content=b"consent=yes&rid=\xff\xfe",
                  headers={"content-type": "application/x-www-form-urlencoded"}).status_code == 400
    assert c.post("/start", json={"consent": "yes"}).status_code == 415
    assert c.post("/start", data={"consent": "yes", "rid": "r1"}, headers={"content-length": "abc"}).status_code in (400, 413)
    assert c.get("/nowhere").status_code == 404
    assert c.put("/start").status_code == 405


def test_quotas_close_full_cells(served, tmp_path):
    margins = tmp_path / "margins.toml"
    margins.write_text("[target.gender]\nmale = 0.5\nfemale = 0.5\n", encoding="utf-8")
    fs = served(respondents=2, quota_from=margins)
    male = {**ABOUT, "demo-gender": "male"}
    assert "C0DE42" in walk(client(fs), "m1", about=male).text
    full = walk(client(fs), "m2", about=male)
    assert full.status_code == 200 and "Quota full" in full.text
    assert "C0DE42" in walk(client(fs), "f1").text
    closed = walk(client(fs), "f2")  # the study's 2 respondents are in
    assert "Quota full" in closed.text
    assert set(rows(fs)["respondent"]) == {"m1", "f1"}
    cells = {(c["attribute"], c["level"]): c for c in fs.admin.summary()["quotas"]}
    assert not cells[("gender", "male")]["open"] and cells[("gender", "male")]["completes"] == 1
    with sqlite3.connect(fs.instrument.study.store_path) as db:  # turned away: kept apart, as partial
        assert db.execute("SELECT COUNT(*) FROM field_sessions WHERE status = 'quota_full'").fetchone()[0] == 1


def test_a_restart_keeps_the_answers_and_resumes_the_counters(served, tmp_path):
    fs = served()
    for i in range(4):
        walk(client(fs), f"b{i}")
    half = client(fs)  # consented and answered about themselves, then the server stopped
    half.post("/start", data={"consent": "yes", "rid": "half"})
    half.post("/about", data=ABOUT)
    before = fs.store.counters()
    fs.close()
    again = served()
    assert again.store.counters() == before and len(rows(again)) == 4
    walk(client(again), "b4")  # 5 sessions before the restart, over 6 conditions: the 6th takes the one left
    assert again.store.counters()["assigned"] == dict.fromkeys(again.instrument.conditions, 1)
    resumed = client(again)  # the half-done respondent's browser goes on where it stopped
    resumed.cookies = half.cookies
    assert "C0DE42" in resumed.post("/questions", data=answers_for(resumed.get("/questions").text)).text
    assert len(rows(again)) == 6


def test_the_access_log_names_no_respondent_or_token(served, caplog):
    fs = served()
    with caplog.at_level(logging.INFO, logger="survey.field.access"):
        walk(client(fs), "secret-rid-77")
        client(fs).get("/admin", headers={"Authorization": "Bearer admin-secret-token"})
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "GET / 200" in text and "POST /questions 303" in text
    assert "secret-rid-77" not in text and "admin-secret-token" not in text
    with sqlite3.connect(fs.instrument.study.store_path) as db:  # nor the token in the store
        dump = "\n".join(db.iterdump())
    assert "admin-secret-token" not in dump


def test_the_least_used_message_comes_first_then_its_least_used_paraphrase(served):
    inst = served().instrument
    counts = {"sneakers/sneakers-01": 1, "sneakers/sneakers-02": 1, "boots/boots-01": 1}
    assert inst.least_used(counts) == ["boots/boots-02", "boots/boots-03"]


def test_pages_forbid_framing_and_outside_content(served):
    r = client(served()).get("/?rid=h1")
    assert "default-src 'none'" in r.headers["content-security-policy"]
    assert r.headers["x-content-type-options"] == "nosniff" and r.headers["referrer-policy"] == "no-referrer"
    assert "http://" not in r.text and "https://" not in r.text  # no external assets


def test_an_abandoned_session_gives_its_place_in_the_balance_back(served):
    fs = served()
    for i in range(6):  # one per condition: consented, then left
        client(fs).post("/start", data={"consent": "yes", "rid": f"gone{i}"})
    with sqlite3.connect(fs.instrument.study.store_path) as db:  # the boots ones an hour ago (no clock waited on)
        db.execute("UPDATE field_sessions SET updated_at = '2000-01-01T00:00:00.000+00:00' "
                   "WHERE condition LIKE 'boots/%'")
    for i in range(3):
        walk(client(fs), f"later{i}")
    assert sorted(fs.store.answers()["condition"]) == ["boots/boots-01", "boots/boots-02", "boots/boots-03"]
