"""The report says what it rests on: the study (name, question, persona set, response type, paraphrase
texts), the data's completeness with failed rows by error code, the heterogeneity test's null, the
rho-hat bias, and what each of two numbers that look inconsistent is."""

import html as htmllib
import json
import re

import pandas as pd
import pytest
from partial_store import write_partial

import survey
from survey.data.sources import load_source
from survey.reporting.entry import report
from survey.stats.beta_logit import simulate
from survey.stats.beta_logit_estimate import MOMENTS_NOTE, RHO_BIAS_NOTE
from survey.stats.heterogeneity import HETEROGENEITY_NULL


def text_of(path) -> str:
    """The page's visible text, tags dropped and whitespace collapsed."""
    raw = (path / "index.html").read_text()
    raw = re.sub(r"<img[^>]*>", " ", raw)
    return " ".join(htmllib.unescape(re.sub(r"<[^>]+>", " ", raw)).split())


@pytest.fixture(scope="module")
def partial(tmp_path_factory):
    return write_partial(tmp_path_factory.mktemp("partial") / "s.sqlite", filtered=2)  # 31 of 120 queries: 26%


def test_a_partial_store_report_warns_and_names_failures(partial, tmp_path):
    res = report(partial, tmp_path)
    page = text_of(tmp_path)
    assert res["study"] == "st" and res["completeness"]["complete"] is False
    assert res["completeness"]["models"][0]["failures"] == {"content_filter": 2}
    assert "Incomplete data: model m: 31 of 120 expected queries stored (26%), 2 failed (content_filter × 2), " \
           "87 missing" in page
    headline = page[page.index("Headline"):page.index("Study")]
    assert "31 of the 120 queries this study expects (26%)" in headline
    assert re.search(r"m 120 31 2 \(content_filter × 2\) 87 26%", page), page[page.index("Data completeness"):][:400]


def test_the_report_shows_the_study_context(partial, tmp_path):
    report(partial, tmp_path)
    page = text_of(tmp_path)
    study = page[page.index("Study st"):]
    assert "Question asked Would you buy? {message}" in study
    # the set's name, where it came from and its hash; no absolute path of the machine that ran the study
    assert "Persona set shoppers (local file, sha256 abababababab…), 10 personas" in study
    assert "/sets/shoppers.jsonl" not in study
    assert "Response type binary" in study
    for pid in ("a1", "a2", "a3", "b1", "b2", "b3"):
        assert f"{pid} text of {pid}" in study
    res = json.loads((tmp_path / "results.json").read_text())
    assert res["context"]["personas"]["set"] == "shoppers"


def test_a_table_report_says_its_completeness_and_context_are_unknown(tmp_path):
    df = simulate(12, 4, 2, delta=0.6, seed=4)
    res = survey.report(df, tmp_path)
    page = text_of(tmp_path)
    assert res["completeness"]["known"] is False and "unknown (a table, not a store)" in page
    assert "not recorded (a table, not a store)" in page
    assert "Response type binary" in page and "A-01" in page


def test_the_heterogeneity_null_and_the_rho_bias_are_stated(tmp_path):
    one = simulate(20, 8, 3, delta=0.9, seed=5)
    two = simulate(20, 8, 3, delta=-0.9, seed=6).assign(model="other")
    survey.report(pd.concat([one, two], ignore_index=True), tmp_path)
    page = text_of(tmp_path)
    assert "The conclusion depends on the model" in page
    assert page.count(HETEROGENEITY_NULL) >= 2  # with the flag at the top and in the across-models section
    # the report fits by the one default estimator, as `survey estimate` does, and states its rho note
    assert MOMENTS_NOTE in page and RHO_BIAS_NOTE not in page


def test_numbers_that_look_inconsistent_are_explained(tmp_path):
    c = survey.report(simulate(12, 4, 2, delta=0.6, seed=4), tmp_path)["results"][0]
    page = text_of(tmp_path)
    assert "shares are rounded" in page and f"{c['n_paired']} paraphrase pairs" in page
    assert "the distance between the bars equals T only when" in page


def test_load_source_feeds_the_report_its_context(partial, tmp_path):
    src = load_source(partial)
    res = survey.report(src, tmp_path)
    assert res["study"] == "st" and res["context"]["study"] == "st"
