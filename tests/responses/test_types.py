"""The response-type protocol, its two first types and the registry."""

import math

import pytest

from survey.errors import SurveyError
from survey.kinds.binary.parsing import PAPER_QUESTION
from survey.responses import BINARY, DEFAULT_SCALE, RESPONSE_TYPES, ResponseType, register, response_type
from survey.responses.text import TEXT_QUESTION

TEXT = response_type("text")


def test_registry_holds_binary_and_text_by_scale_name():
    assert list(RESPONSE_TYPES)[:2] == ["binary", "text"]
    assert response_type("binary") is BINARY and DEFAULT_SCALE == BINARY.scale == "binary"
    assert TEXT.scale == "text"
    with pytest.raises(SurveyError, match="unknown response type 'likert'.*binary, text"):
        response_type("likert")


def test_binary_values_labels_template_and_reply_length():
    assert BINARY.values == {0, 1} and BINARY.scored
    assert dict(BINARY.labels) == {1: "Yes", 0: "No"}
    assert BINARY.describe_values() == "1 (Yes), 0 (No)"
    assert BINARY.template == PAPER_QUESTION and "{perturbation}" in PAPER_QUESTION
    assert BINARY.max_tokens == 1


def test_text_has_no_score_and_never_parses():
    assert TEXT.values == frozenset() and not TEXT.scored and dict(TEXT.labels) == {}
    assert TEXT.template == TEXT_QUESTION and TEXT.max_tokens == 80
    for reply in ("Yes", "No", "I love them.", "", None):
        assert TEXT.parse(reply) is None
    assert TEXT.score_from_logprobs({"Yes": -0.1, "No": -2.0}) is None


def test_exact_score_is_p_yes_given_yes_or_no():
    assert BINARY.exact_score({1: 0.3, 0: 0.1}) == pytest.approx(0.75)
    assert BINARY.exact_score({1: 0.0, 0: 0.2}) == 0.0
    assert BINARY.exact_score({1: 0.0, 0: 0.0}) is None  # no mass on either answer
    lp = {" Yes": math.log(0.2), "YES": math.log(0.1), "no": math.log(0.3), "Maybe": math.log(0.4)}
    assert BINARY.score_from_logprobs(lp) == pytest.approx(0.3 / 0.6)


def test_draw_is_yes_below_p_yes():
    mass = {1: 0.3, 0: 0.1}  # P(Yes | Yes or No) = 0.75
    assert [BINARY.draw(mass, u) for u in (0.0, 0.74, 0.75, 0.99)] == [1, 1, 0, 0]


class ThreePoint(ResponseType):
    """A K-point scale is labels + template + reply length: the methods come from the base class."""

    scale = "three-point-test"
    labels = {3: "Agree", 2: "Neutral", 1: "Disagree"}
    template = "Do you agree? {perturbation}"
    max_tokens = 2


def test_a_scale_type_gets_parsing_exact_score_and_draw_from_its_labels():
    t = ThreePoint()
    assert t.values == {1, 2, 3} and t.describe_values() == "3 (Agree), 2 (Neutral), 1 (Disagree)"
    assert [t.parse(x) for x in ("agree.", "**Neutral**", "Disagreement", "Disagree!", "maybe")] == \
        [3, 2, None, 1, None]
    mass = {3: 0.2, 2: 0.2, 1: 0.6}
    assert t.exact_score(mass) == pytest.approx((3 * 0.2 + 2 * 0.2 + 0.6) / 1.0)  # the expected score
    assert [t.draw(mass, u) for u in (0.1, 0.3, 0.5)] == [3, 2, 1]


def test_register_checks_the_type_and_refuses_a_taken_name():
    with pytest.raises(SurveyError, match="already registered"):
        register(type("Again", (ThreePoint,), {"scale": "binary"})())
    with pytest.raises(SurveyError, match="scale must be a name"):
        register(type("Bad", (ThreePoint,), {"scale": "has space"})())
    with pytest.raises(SurveyError, match=r"\{perturbation\}"):
        register(type("NoSlot", (ThreePoint,), {"template": "Agree?"})())
    with pytest.raises(SurveyError, match="max_tokens"):
        register(type("Zero", (ThreePoint,), {"max_tokens": 0})())
    with pytest.raises(SurveyError, match="distinct words"):
        register(type("Twice", (ThreePoint,), {"labels": {1: "Yes", 0: "yes"}})())
    assert "three-point-test" not in RESPONSE_TYPES  # nothing half-registered
