"""Every result a user meets shows itself briefly: a repr of a few lines (a notebook prints what a cell
returns: a run's default repr once wrote 4.75 MB into one) and an HTML table for Jupyter."""

from __future__ import annotations

import numpy as np
import pytest

import survey
from survey.common.display import REPR_WIDTH
from survey.data.completeness import table_completeness
from survey.kinds.choice.model import choice_table, simulate_choice_counts


def _results():
    big = survey.simulate(n=40, m=30, r=5, rho=0.3, delta=0.4, seed=1)
    likert = survey.simulate(n=10, m=6, r=3, scale="likert5", seed=2)
    choice = choice_table(simulate_choice_counts(8, 6, 2, np.random.default_rng(3)), 2)
    res = survey.analyze(big)
    return {"analysis": res, "comparison": res["simulated"], "likert": survey.analyze(likert),
            "choice": survey.analyze(choice)["simulated"], "estimates": survey.estimate(big, "A", bootstrap=10),
            "completeness": table_completeness(big)}


@pytest.mark.parametrize("name", ["analysis", "comparison", "likert", "choice", "estimates", "completeness"])
def test_short_repr_and_html(name):
    obj = _results()[name]
    text = repr(obj)
    assert 20 < len(text) <= REPR_WIDTH and len(text.splitlines()) <= 14
    page = obj._repr_html_()
    assert page.startswith("<div>") and "<table>" in page and len(page) < 20_000


def test_the_analysis_repr_says_what_decides():
    text = repr(_results()["analysis"])
    assert "sign-flip test" in text and "P(Yes)" in text and "significant" in text
