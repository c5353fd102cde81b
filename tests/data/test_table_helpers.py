"""The one check for models and messages a table lacks, and the one rule for picking A and B."""

from __future__ import annotations

import pandas as pd
import pytest

from survey.data.table import pick_messages, require_messages, require_models
from survey.errors import SurveyError


def _df(messages=("A", "B"), models=("m1", "m2")):
    return pd.DataFrame([dict(model=mo, message=me) for mo in models for me in messages])


def test_require_names_what_is_missing_and_what_there_is():
    df = _df(("A", "B", "C"))
    assert require_models(df, ["m2", None]) == ["m1", "m2"]
    with pytest.raises(SurveyError, match=r"^model 'x' is not in the table; it has m1, m2$"):
        require_models(df, ["m1", "x"])
    with pytest.raises(SurveyError, match=r"^sizes: models 'x', 'y' are not in the table; it has m1, m2$"):
        require_models(df, {"x": 1, "y": 2}, prefix="sizes: ")
    with pytest.raises(SurveyError, match=r"^message 'Z' is not in model 'm1'; it has A, B, C$"):
        require_messages(df, ["A", "Z"], model="m1")


@pytest.mark.parametrize("messages,a,b,first_two,expected", [
    (("A", "B"), None, None, False, ("A", "B")),
    (("A", "B"), "B", None, False, ("B", "A")),
    (("A", "B"), None, "A", False, ("B", "A")),
    (("A", "B", "C"), "C", "A", False, ("C", "A")),
    (("A", "B", "C"), None, None, True, ("A", "B")),
])
def test_pick_messages(messages, a, b, first_two, expected):
    assert pick_messages(_df(messages), a, b, first_two=first_two) == expected


@pytest.mark.parametrize("messages,a,b,first_two,needle", [
    (("A",), None, None, False, "the table has one message (A); comparing needs two"),
    (("A", "B", "C"), None, None, False, "name the two messages with `a=` and `b=`; the table has A, B, C"),
    (("A", "B", "C"), "A", None, True, "give both `a=` and `b=`, or neither"),
    (("A", "B"), "A", "A", False, "`a=` and `b=` must name two different messages"),
    (("A", "B"), "A", "Z", False, "message 'Z' is not in the table; it has A, B"),
])
def test_pick_messages_errors(messages, a, b, first_two, needle):
    with pytest.raises(SurveyError) as exc:
        pick_messages(_df(messages), a, b, first_two=first_two)
    assert str(exc.value) == needle
