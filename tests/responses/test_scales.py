"""Rating scales and forced choice: names, parsing (counted, never coerced), the study's [question]."""

from __future__ import annotations

import pytest

from survey.errors import SurveyError
from survey.responses import CHOICE, is_scale, likert, rating, response_type
from survey.study.spec import QuestionSpec


@pytest.mark.parametrize(("name", "values", "top"), [
    ("likert5", range(1, 6), {4, 5}),
    ("likert7", range(1, 8), {6, 7}),
    ("likert0-4", range(0, 5), {3, 4}),
    ("rating0-10", range(0, 11), {9, 10}),
    ("rating1-7", range(1, 8), {6, 7}),
    ("likert3", range(1, 4), set()),  # two of three points: no top-2-box
])
def test_scale_names_say_their_points(name, values, top):
    rtype = response_type(name)
    assert rtype.scale == name
    assert rtype.values == frozenset(values)
    assert rtype.top_box == frozenset(top)
    assert rtype.ordered and rtype.low == min(values) and rtype.high == max(values)


@pytest.mark.parametrize("name", ["likert", "likert1", "rating10-0", "rating0-200", "rating0_10", "likert5x"])
def test_bad_scale_names_are_refused(name):
    assert not is_scale(name)
    with pytest.raises(SurveyError):
        response_type(name)


@pytest.mark.parametrize(("reply", "score"), [
    ("4", 4), (" 5", 5), ("**3**", 3), ('"2"', 2), ("4.", 4), ("4/5", 4), ("1 - not likely", 1),
    ("0", None), ("6", None), ("4.5", None), ("4,5", None), ("-1", None), ("\u22121", None),
    ("5th", None), ("Four", None), ("", None), (None, None), ("I would say 4", None),
])
def test_likert_parsing_counts_invalid_answers_never_clips(reply, score):
    assert response_type("likert5").parse(reply) == score


@pytest.mark.parametrize(("reply", "score"), [("10", 10), ("1", 1), ("0", 0), ("10/10", 10), ("7 out of 10", 7),
                                              ("11", None), ("100", None), ("-3", None), ("7.5", None)])
def test_rating_parsing_reads_whole_numbers(reply, score):
    assert response_type("rating0-10").parse(reply) == score


def test_word_labels_parse_by_word_boundary():
    scale = likert(labels=["Definitely not", "Probably not", "Not sure", "Probably", "Definitely"])
    assert scale.scale == "likert5" and not scale.numeric
    assert scale.parse("Probably not.") == 2
    assert scale.parse("definitely") == 5
    assert scale.parse("Probablyy") is None
    assert "'Definitely not'" in scale.answer_instruction()


@pytest.mark.parametrize(("reply", "pos"), [("1", 1), ("2", 2), ("Option 2", 2), ("**1**", 1), ("3", None),
                                             ("Both", None), ("12", None)])
def test_choice_answers_are_positions(reply, pos):
    assert CHOICE.parse(reply) == pos


def test_expected_score_and_distribution_from_logprobs():
    import math

    scale = response_type("likert5")
    logprobs = {"4": math.log(0.5), " 5": math.log(0.3), "3": math.log(0.1), "Sure": math.log(0.1)}
    dist = scale.distribution_from_logprobs(logprobs)
    assert dist == pytest.approx({1: 0, 2: 0, 3: 1 / 9, 4: 5 / 9, 5: 3 / 9})
    assert scale.score_from_logprobs(logprobs) == pytest.approx((3 * 0.1 + 4 * 0.5 + 5 * 0.3) / 0.9)


@pytest.mark.parametrize(("spec", "scale", "tokens"), [
    ({"type": "likert"}, "likert5", 3),
    ({"type": "likert", "points": 7}, "likert7", 3),
    ({"type": "likert", "scores": [0, 1, 2, 3, 4]}, "likert0-4", 3),
    ({"type": "rating"}, "rating0-10", 3),
    ({"type": "rating", "low": 1, "high": 7}, "rating1-7", 3),
    ({"type": "rating0-10"}, "rating0-10", 3),
    ({"type": "choice"}, "choice", 2),
    ({"type": "binary"}, "binary", 1),
])
def test_question_spec_builds_the_scale(spec, scale, tokens):
    q = QuestionSpec.model_validate(spec)
    assert q.type == scale and q.response.scale == scale and q.default_max_tokens == tokens


@pytest.mark.parametrize(("spec", "fragment"), [
    ({"type": "binary", "points": 5}, "only apply to type = 'likert'"),
    ({"type": "likert", "scores": [1, 3, 5, 7, 9]}, "consecutive"),
    ({"type": "likert", "points": 5, "labels": ["a", "b"]}, "labels has 2 entries for 5 points"),
    ({"type": "likert", "labels": ["Yes", "yes"]}, "distinct"),
    ({"type": "rating", "low": 5, "high": 5}, "low < high"),
    ({"type": "choice", "template": "{perturbation}"}, "{first} and {second}"),
    ({"type": "likert", "template": "no slot"}, "{perturbation}"),
])
def test_question_spec_errors_name_the_fix(spec, fragment):
    with pytest.raises(ValueError, match="validation error") as exc:
        QuestionSpec.model_validate(spec)
    assert fragment in str(exc.value)


def test_rating_needs_its_own_range_check():
    with pytest.raises(SurveyError, match="low < high"):
        rating(3, 1)
