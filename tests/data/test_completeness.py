"""Completeness and study scoping of a source: a partly collected store says so, failed rows are
counted by error code, a store's rows are scoped to one study and to its recorded design, and a
table's completeness is unknown except for its own grid."""

import pandas as pd
import pytest
from partial_store import MESSAGES, context, fill

from survey.data.completeness import table_completeness
from survey.data.sources import load_long_table, load_source
from survey.data.store import Store
from survey.errors import SurveyError


def test_a_partly_collected_store_says_how_much_is_missing(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as st:
        st.record_context("st", context(10))
        fill(st, 10, upto=31)  # 31 of 120 queries: 26%
        st.record(("st", "m", "A", "a1", "p9", 0), status="failed", error="blocked", error_code="content_filter")
        st.record(("st", "m", "A", "a2", "p9", 0), status="failed", error="blocked", error_code="content_filter")
        st.record(("st", "m", "B", "b1", "p9", 1), status="failed", error="HTTP 500", error_code="500")
    src = load_source(path)
    c = src.completeness
    (m,) = c.models
    assert (m.expected, m.stored, m.failed, m.missing) == (120, 31, 3, 86)
    assert m.failures == {"content_filter": 2, "500": 1}
    assert c.known and c.complete is False and src.study == "st" and src.kind == "store"
    (warning,) = c.warnings()
    assert "31 of 120 expected queries stored (26%)" in warning and "content_filter × 2, 500 × 1" in warning
    d = c.to_dict()
    assert d["complete"] is False and d["study"] == "st" and d["models"][0]["missing"] == 86
    assert d["warnings"] == [warning]


def test_a_complete_store_is_complete_and_failed_rows_still_named(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as st:
        st.record_context("st", context(4))
        fill(st, 4)
    c = load_source(path).completeness
    assert c.complete is True and c.warnings() == []
    with Store(path) as st:  # one more persona expected than answered; its one query was filtered
        ctx = context(5)
        st.record_context("st", ctx)
        st.record(("st", "m", "A", "a1", "p4", 0), status="failed", error="blocked", error_code="content_filter")
    c = load_source(path).completeness
    assert (c.models[0].stored, c.models[0].failed, c.models[0].missing) == (48, 1, 11)
    assert "content_filter × 1" in c.warnings()[0]


def test_rows_outside_the_current_design_are_left_out_and_named(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as st:
        st.record_context("st", context(30))
        fill(st, 30)
        st.record_context("st", context(10))  # the study was cut to 10 personas and run again
    src = load_source(path)
    assert src.table["persona"].nunique() == 10 and len(src.table) == 120
    c = src.completeness
    assert c.complete is True and c.outside["rows"] == 240 and c.outside["personas"][:3] == ["p10", "p11", "p12"]
    (warning,) = c.warnings()
    assert "240 rows of study 'st' outside the study's current design" in warning
    assert "20 personas no longer in it: p10, p11" in warning and "left out" in warning
    assert load_long_table(path)["persona"].nunique() == 10  # the plain table is scoped the same way


def test_a_store_without_a_recorded_context_is_unknown_but_counts_failures(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as st:
        fill(st, 3)
        st.record(("st", "m", "A", "a1", "p3", 0), status="failed", error="blocked", error_code="content_filter")
    c = load_source(path).completeness
    (m,) = c.models
    assert c.known is False and c.complete is None and "no recorded study context" in c.basis
    assert (m.expected, m.stored, m.failed, m.grid) == (None, 36, 1, 48)
    assert any("1 queries failed" in w for w in c.warnings())


def test_a_store_is_scoped_to_one_study_and_says_which(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as st:
        fill(st, 3, study="one")
        fill(st, 5, study="two")
    with pytest.raises(SurveyError, match="several studies \\(one, two\\).*`study=`"):
        load_source(path)
    src = load_source(path, "two")
    assert src.study == "two" and src.completeness.study == "two" and src.table["persona"].nunique() == 5
    assert "study 'two'" in src.completeness.lines()[0]


def test_a_table_is_unknown_except_for_its_own_grid(tmp_path):
    rows = [{"model": "m", "message": msg, "perturbation": p, "persona": f"p{i}", "replicate": r, "answer": (i + r) % 2}
            for i in range(4) for msg, ids in MESSAGES.items() for p in ids for r in range(2)]
    path = tmp_path / "t.csv"
    pd.DataFrame(rows[1:]).to_csv(path, index=False)  # one cell of the grid missing
    src = load_source(path)
    c = src.completeness
    (m,) = c.models
    assert src.kind == "table" and src.study is None and c.known is False and c.complete is None
    assert "unknown (a table, not a store)" in c.basis and "own persona × paraphrase × replicate grid" in c.basis
    assert (m.grid, m.stored, m.grid_missing, m.failed) == (48, 47, 1, None)
    assert c.warnings() == ["model m: 1 of the 48 queries of the data's own persona × paraphrase × replicate "
                            "grid are missing"]
    assert table_completeness(pd.DataFrame(rows)).warnings() == []
