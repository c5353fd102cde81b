"""compare_table: what `survey compare` reports, as one library call."""

from __future__ import annotations

import pandas as pd
import pytest

from survey import compare as compare_table
from survey.data.table import validate_table
from survey.errors import SurveyError
from survey.stats.beta_logit import simulate
from survey.stats.table_comparison import comparison_steps


@pytest.fixture(scope="module")
def three_messages():
    parts = []
    for k, (name, delta) in enumerate([("m1", 0.8), ("m2", -0.8)]):
        df = simulate(10, 6, 1, mu=0.5, kappa=4, sigma=1, rho=0.3, delta=delta, seed=k).assign(model=name)
        parts += [df, df[df["message"] == "A"].assign(message="C")]
    return validate_table(pd.concat(parts, ignore_index=True))


def test_compare_table_defaults_to_the_first_two_messages_and_counts_its_steps(three_messages):
    calls = []
    res = compare_table(three_messages, n_resamples=99, progress=lambda: calls.append(1))
    assert (res.a, res.b) == ("A", "B") and "first two messages (A, B)" in res.note
    assert len(calls) == comparison_steps(three_messages) == 2 + 2 * 3  # models, then 3 pairs per model
    assert [m.model for m in res.messages] == ["m1", "m2"] and res.messages_left_out == {}
    assert res.agreement is not None and [s.model for s in res.models.models] == ["m1", "m2"]
    d = res.to_dict()
    assert list(d) == ["a", "b", "note", "models", "agreement", "messages", "messages_left_out"]


def test_compare_table_named_pair_and_errors(three_messages):
    res = compare_table(three_messages, "C", "B", adjust_models="holm", fit="none", n_resamples=99)
    assert (res.a, res.b, res.note) == ("C", "B", None) and res.models.direction.adjust == "holm"
    with pytest.raises(SurveyError, match="give both `a=` and `b=`, or neither"):
        compare_table(three_messages, "C")
    with pytest.raises(SurveyError, match="message 'Z' is not in the table; it has A, B, C"):
        compare_table(three_messages, "A", "Z")
