"""analyze, compare, estimate, validate and report say which study they read and how complete it is: a store
only 26% collected carries a visible warning in text and JSON, with its failed rows by error code;
a table says its completeness is unknown."""

import json

import pytest
from click.testing import CliRunner
from partial_store import fill, write_partial

from survey.cli import cli
from survey.data.store import Store

COMMANDS = {
    "analyze": ["analyze", "{src}"],
    "compare": ["compare", "{src}", "--flips", "99"],
    "estimate": ["estimate", "{src}", "--message", "A", "--bootstrap", "0"],
    "validate": ["validate", "{src}", "--a", "A", "--b", "B", "--config", "2,2,1", "--draws", "10", "--flips", "19",
                 "--no-plot"],
    "report": ["report", "{src}", "--out", "{src}.report", "--flips", "99"],
}


@pytest.fixture(scope="module")
def partial(tmp_path_factory):
    return write_partial(tmp_path_factory.mktemp("partial") / "s.sqlite", filtered=1)  # 31 of 120 queries: 26%


def invoke(args, src):
    res = CliRunner().invoke(cli, [a.format(src=src) for a in args], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.output


@pytest.mark.parametrize("command", COMMANDS)
def test_a_partial_store_is_flagged_in_text(partial, command):
    out = invoke(COMMANDS[command], partial)
    assert f"data: store {partial}, study 'st'" in out
    assert "WARNING: incomplete data: model m: 31 of 120 expected queries stored (26%), 1 failed " \
           "(content_filter × 1), 88 missing" in out


@pytest.mark.parametrize("command", COMMANDS)
def test_a_partial_store_is_flagged_in_json(partial, command):
    doc = json.loads(invoke([*COMMANDS[command], "--json"], partial))
    c = doc["completeness"]
    assert doc["study"] == "st" and c["study"] == "st" and c["complete"] is False and c["known"] is True
    (m,) = c["models"]
    assert (m["expected"], m["stored"], m["failed"], m["missing"]) == (120, 31, 1, 88)
    assert m["failures"] == {"content_filter": 1} and "26%" in c["warnings"][0]


def test_a_table_says_its_completeness_is_unknown(partial, tmp_path):
    with Store(partial) as st:
        path = tmp_path / "t.csv"
        st.to_long_table("st").to_csv(path, index=False)
    doc = json.loads(invoke(["analyze", str(path), "--json"], path))
    assert doc["completeness"]["known"] is False and doc["completeness"]["complete"] is None
    assert doc["study"] is None and "a table, not a store" in doc["completeness"]["basis"]
    out = invoke(["analyze", str(path)], path)
    assert "completeness: unknown (a table, not a store)" in out
    # the table's own grid sees the interrupted persona p2 (7 of its 12 queries)
    assert "WARNING: model m: 5 of the 36 queries of the data's own persona × paraphrase × replicate grid" in out


def test_analyze_is_scoped_to_one_study_and_says_which(tmp_path):
    path = tmp_path / "two.sqlite"
    with Store(path) as st:
        fill(st, 3, study="one")
        fill(st, 5, study="two")
    res = CliRunner().invoke(cli, ["analyze", str(path)])
    assert res.exit_code != 0 and "several studies (one, two)" in str(res.exception)
    doc = json.loads(invoke(["analyze", str(path), "--study", "two", "--json"], path))
    assert doc["study"] == "two" and doc["results"][0]["n_personas"] == 5
    assert "study 'two'" in invoke(["analyze", str(path), "--study", "two"], path)
