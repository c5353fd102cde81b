import math

import pytest

from survey.responses import BINARY


@pytest.mark.parametrize("text, expected", [
    ("Yes", 1), ("No", 0), ("yes", 1), ("NO", 0), ("  Yes", 1), ("\nNo\n", 0),
    ("Yes.", 1), ("No,", 0), ("Yes!", 1), ("**Yes**", 1), ('"No"', 0), ("'yes'", 1), ("(No)", 0),
    ("Yes, I would buy them.", 1), ("No thanks", 0), ("Yes and no", None), ("\u00a0Yes", 1), ("«Non»", None),
    ("...Yes", 1), ("- No", 0), ("¡Yes", 1), ("Ｙes", None),
    ("Yesterday", None), ("Not sure", None), ("Nope", None), ("Noun", None), ("Yess", None),
    ("Maybe", None), ("I think yes", None), ("", None), ("   ", None), (None, None), ("1", None),
    ("Y", None), ("N", None), ("Oui", None), ("No1", None), ("Yes_", 1),
])
def test_binary_parse(text, expected):
    assert BINARY.parse(text) == expected


def test_binary_score_from_logprobs_sums_spellings():
    lp = {"Yes": math.log(0.5), " yes": math.log(0.1), "No": math.log(0.2), "Maybe": math.log(0.2)}
    assert BINARY.score_from_logprobs(lp) == pytest.approx(0.6 / 0.8)


@pytest.mark.parametrize("lp", [None, {}, {"Maybe": -0.1}, {"Yes": float("-inf"), "No": float("-inf")}])
def test_binary_score_from_logprobs_none_without_yes_or_no(lp):
    assert BINARY.score_from_logprobs(lp) is None
