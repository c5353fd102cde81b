"""One respondent's answers are theirs: no page, link or guessed cookie shows them to another respondent, and
no form field a browser did not get from the server is accepted (the condition, an option not shown)."""

import random
import sqlite3

import pytest
from field_study import ABOUT, write_study
from respondent import answers_for, walk
from starlette.testclient import TestClient

from survey.field import field_server
from survey.field.app import SESSION_COOKIE

MARK = "Beekeeper Alpha"  # respondent A's occupation: shown to nobody but the researcher


@pytest.fixture
def served(tmp_path):
    made = []

    def serve(question='type = "binary"', extra=""):
        fs = field_server(write_study(tmp_path, question=question, extra=extra), admin_token="admin-secret-token",
                          rng=random.Random(1))
        made.append(fs)
        return fs

    yield serve
    for fs in made:
        fs.close()


def client(fs, cookie: str | None = None):
    c = TestClient(fs.app, raise_server_exceptions=False)
    if cookie is not None:
        c.cookies.set(SESSION_COOKIE, cookie)
    return c


def test_a_respondent_cannot_read_another_ones_answers(served):
    fs = served('type = "text"')
    a = client(fs)
    assert "C0DE42" in walk(a, "resp-a", about={**ABOUT, "demo-occupation": MARK},
                            pick=lambda name, values: values[0]).text
    b = client(fs)
    walk(b, "resp-b")
    pages = [b.get(path) for path in ("/", "/about", "/questions", "/done")]  # B's own session, every page
    pages += [client(fs).get("/?PROLIFIC_PID=resp-a"),  # A's link, opened elsewhere: only the consent
              client(fs).post("/start", data={"consent": "yes", "PROLIFIC_PID": "resp-a"})]  # refused: answered
    pages += [a.get("/done")]  # A's own last page holds the code, not the answers
    for r in pages:
        assert MARK not in r.text and "a free answer" not in r.text, r.url
    assert pages[-2].status_code == 409
    with sqlite3.connect(fs.instrument.study.store_path) as db:
        stored = [h for (h,) in db.execute("SELECT token_hash FROM field_sessions")]
    for forged in ("resp-a", *stored, "x" * 43):  # the id, the hash the store keeps, a made-up token
        for path in ("/about", "/questions", "/done"):
            r = client(fs, forged).get(path, follow_redirects=False)
            assert r.status_code == 403 and MARK not in r.text, (forged, path)
    for path in ("/admin/export.csv", "/admin/export.parquet"):  # a respondent's cookie is no admin token
        assert a.get(path).status_code == 401
        assert a.get(path, headers={"Authorization": f"Bearer {a.cookies.get(SESSION_COOKIE)}"}).status_code == 401
    assert "admin-secret-token" not in a.get("/admin").text


SANDALS = '\n[[messages]]\nid = "sandals"\nperturbations = "sandals"\ncount = 3\n'


@pytest.mark.parametrize(("question", "extra", "bad"), [
    ('type = "binary"', "", {"attention": "Purple"}),  # not an offered answer of the check
    ('type = "binary"', "", {"attention-1": "Blue"}),
    ('type = "binary"', "", {"perturbation": "sneakers-02"}),  # choosing one's own paraphrase
    ('type = "choice"', "", {"item0": "3"}),  # a third card: only two were shown
    ('type = "maxdiff"\nsubset = 3', SANDALS, {"item0-best": "4"}),  # a position outside the set
    ('type = "maxdiff"\nsubset = 3', SANDALS, {"item0-worst": "0"}),
    ('type = "rank"', SANDALS, {"item0-rank-4": "1"}),  # a fourth option
])
def test_tampered_answers_of_every_kind_are_refused(served, question, extra, bad):
    fs = served(question, extra)
    c = client(fs)
    c.post("/start", data={"consent": "yes", "rid": "t1"})
    c.post("/about", data=ABOUT)
    page = c.get("/questions").text
    form = answers_for(page, pick=lambda name, values: values[-1])
    if "rank" in question:
        form = {"item0-rank-1": "1", "item0-rank-2": "2", "item0-rank-3": "3", "attention": "Blue"}
    r = c.post("/questions", data={**form, **bad}, follow_redirects=False)
    assert r.status_code == 400 and "Traceback" not in r.text
    assert len(fs.store.answers()) == 0


@pytest.mark.parametrize("bad", [{"condition": "boots/boots-01"}, {"message": "boots"}, {"rid": "a", "x": "1"}])
def test_the_consent_form_takes_no_condition(served, bad):
    fs = served()
    r = client(fs).post("/start", data={"consent": "yes", "rid": "c1", **bad}, follow_redirects=False)
    assert r.status_code == 400
    with sqlite3.connect(fs.instrument.study.store_path) as db:
        assert db.execute("SELECT COUNT(*) FROM field_sessions").fetchone()[0] == 0
