"""Rankings fielded to people (`survey field`) read back into the ranking's comparison with people with no file:
the store's one row per ranking (the positions' code, the messages in the order shown) becomes one row per
message ranked, and `survey fidelity STUDY`, survey.fidelity and `survey analyze --humans` show them beside the
model. The expected ranks come from the pages the respondents saw, not from the stored rows."""

import json
import random
import re

import numpy as np
import pytest
from cli_result import run_cli
from field_study import ABOUT, write_study
from starlette.testclient import TestClient

import survey
from survey.field import field_server

SANDALS = '\n[[messages]]\nid = "sandals"\nperturbations = "sandals"\ncount = 3\n'
LIKES = [("sneakers", "boots", "sandals"), ("boots", "sneakers", "sandals"), ("sneakers", "sandals", "boots")]


def message_of(text: str) -> str:
    low = text.lower()
    return "sandals" if "sandal" in low else "boots" if "boot" in low else "sneakers"


@pytest.fixture
def fielded(tmp_path):
    """The ranking study run on the simulated model, then fielded to 9 people (the last fails the attention
    check); returns the study and each kept respondent's rank of each message, read off the page shown."""
    study = write_study(tmp_path, question='type = "rank"', extra=SANDALS)
    survey.Study.from_toml(study).run(yes=True)
    fs = field_server(study, rng=random.Random(5))
    given = {}
    try:
        for i in range(9):
            c = TestClient(fs.app)
            c.post("/start", data={"consent": "yes", "rid": f"h{i}"})
            page = c.post("/about", data={**ABOUT, "demo-age": str(20 + i)}).text
            labels = re.findall(r'<label for="item0-rank-(\d)" class="paraphrase">(.*?)</label>', page, re.S)
            likes = LIKES[i % len(LIKES)]
            form = {f"item0-rank-{n}": str(likes.index(message_of(text)) + 1) for n, text in labels}
            reply = c.post("/questions", data={**form, "attention": "Blue" if i != 8 else "Red"})
            assert reply.status_code == 200
            if i != 8:
                given[f"h{i}"] = {m: likes.index(m) + 1 for m in likes}
    finally:
        fs.close()
    return study, given


def test_fielded_rankings_are_the_humans_of_the_ranking_comparison(fielded, capsys):
    study, given = fielded
    src = survey.open_source(str(study))
    assert src.humans is not None and src.humans.summary()["respondents"] == len(given) == 8
    got = src.humans.table.pivot(index="respondent", columns="message", values="answer")
    assert {r: dict(row) for r, row in got.iterrows()} == given
    res = survey.fidelity(str(study), flips=199)
    for m in ("sneakers", "boots", "sandals"):
        assert res.mean_rank[m][0] == pytest.approx(np.mean([g[m] for g in given.values()]))
    assert "sim" in res.models and res.path.endswith("(fielded)")
    code, out, err = run_cli(capsys, "fidelity", study, "--json")
    assert code == 0, err
    assert json.loads(out)["mean_rank"]["boots"]["rank"] == pytest.approx(res.mean_rank["boots"][0])
    code, out, err = run_cli(capsys, "analyze", study.parent / "store.sqlite", "--a", "sneakers", "--b", "boots",
                             "--humans", "--json")
    assert code == 0, err
    assert json.loads(out)["humans"]["respondents"] == 8


def test_a_rerun_after_fielding_a_ranking_asks_no_query_about_the_respondents(fielded):
    """The respondents of a ranking are not rendered as personas: their predictions would feed no estimate (the
    ranking's comparison with people has no prediction-powered part), so a rerun sends nothing new."""
    study, _ = fielded
    before = len(survey.Study.from_toml(study).table())
    survey.Study.from_toml(study).run(yes=True)
    table = survey.Study.from_toml(study).table()
    assert len(table) == before and not table["persona"].astype(str).str.startswith("human-").any()


def test_a_fielded_study_read_before_its_run_says_to_run_it(tmp_path, capsys):
    """The field server makes the store before any model ran: reading the study then names the run to do, in one
    line (it said the store had no such study and none at all)."""
    study = write_study(tmp_path, question='type = "rank"', extra=SANDALS, name="f_rank")
    field_server(study, rng=random.Random(5)).close()
    assert (tmp_path / "store.sqlite").exists()
    for command in ("fidelity", "analyze"):
        code, out, err = run_cli(capsys, command, study)
        assert code == 2 and out == ""
        assert err.strip().splitlines() == [f"error: {study}: its store {tmp_path / 'store.sqlite'} holds no answers "
                                            f"of study 'f_rank' yet: `survey run {study}` first"]
    code, out, _ = run_cli(capsys, "fidelity", study, "--json")
    assert code == 2 and "`survey run" in json.loads(out)["error"]
