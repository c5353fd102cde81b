"""Stated distributions (elicit = "distribution"): the strict parser of the JSON reply, and the question it asks."""

import pytest

from survey.responses import BINARY, CHOICE, likert, rating
from survey.responses.stated import SUM_TOLERANCE, StatedDistribution, parse_distribution, row_uniform


@pytest.mark.parametrize("text, mass", [
    ('{"Yes": 0.7, "No": 0.3}', {1: 0.7, 0: 0.3}),
    ('  {"No": 0.25, "Yes": 0.75}\n', {1: 0.75, 0: 0.25}),  # any key order, whitespace around
    ('```json\n{"Yes": 1, "No": 0}\n```', {1: 1.0, 0: 0.0}),  # a Markdown fence chat models add unasked
    ('{"Yes": 0.52, "No": 0.51}', {1: 0.52 / 1.03, 0: 0.51 / 1.03}),  # within the tolerance: renormalised
])
def test_valid_statements_give_the_distribution(text, mass):
    got, reason = parse_distribution(BINARY.labels, text)
    assert reason is None and got == pytest.approx(mass) and sum(got.values()) == pytest.approx(1)


@pytest.mark.parametrize("text, reason", [
    ('{"Yes": 1, "No": 2}', "the probability of 'No' is 2, not a number in [0, 1]"),
    ('{"Yes": 1, "No": 1, "Maybe": 1}', "unknown option 'Maybe': the options are 'Yes', 'No'"),
    ('{"yes": 0.5, "No": 0.5}', "unknown option 'yes'"),  # named exactly: case counts
    ('{"Yes": 0.9}', "option 'No' has no probability"),
    ('{"Yes": 0.6, "No": 0.6}', f"the probabilities sum to 1.2, not 1 (within {SUM_TOLERANCE:g})"),
    ('{"Yes": "0.5", "No": 0.5}', "the probability of 'Yes' is \"0.5\", not a number in [0, 1]"),
    ('{"Yes": true, "No": 0}', "the probability of 'Yes' is true"),
    ('{"Yes": NaN, "No": 1}', "the probability of 'Yes' is NaN"),
    ('{"Yes": -0.1, "No": 1.1}', "the probability of 'Yes' is -0.1"),
    ('{"Yes": 0, "No": 0}', "the probabilities sum to 0"),
    ("Yes", "not a JSON object: 'Yes'"),
    ('[0.5, 0.5]', "not a JSON object"),
    ('Sure! {"Yes": 0.5, "No": 0.5}', "not a JSON object"),  # strict: the object and nothing else
    ('{"Yes": 0.5, "No": 0.5', "not a JSON object"),  # cut off by the token limit
    ("", "empty reply"),
    (None, "empty reply"),
])
def test_anything_else_is_invalid_with_its_reason(text, reason):
    got, why = parse_distribution(BINARY.labels, text)
    assert got is None and why.startswith(reason)


def test_a_scale_reply_sums_to_three_is_invalid():
    scale = likert(3)
    got, why = parse_distribution(scale.labels, '{"1": 1, "2": 1, "3": 1}')
    assert got is None and why == "the probabilities sum to 3, not 1 (within 0.05)"


def test_read_stores_what_exact_mode_stores():
    """Yes/No: the expected score is P(Yes) and says it all; a scale adds its distribution; the answer is a
    draw from the distribution with a uniform fixed by the row key."""
    answer, expected, extra = StatedDistribution(BINARY).read('{"Yes": 0.8, "No": 0.2}', ("s", "m", "a", "p", "q", 0))
    assert expected == pytest.approx(0.8) and answer in (0, 1) and extra == {"elicit": "distribution"}
    scale = StatedDistribution(likert(5))
    text = '{"1": 0, "2": 0.1, "3": 0.2, "4": 0.3, "5": 0.4}'
    answer, expected, extra = scale.read(text, ("k",))
    assert expected == pytest.approx(4.0) and extra["distribution"] == pytest.approx({1: 0, 2: .1, 3: .2, 4: .3, 5: .4})
    assert scale.read(text, ("k",))[0] == answer  # reproducible
    answers = [scale.read(text, ("k", i))[0] for i in range(2000)]
    assert [answers.count(v) / 2000 for v in (2, 5)] == pytest.approx([0.1, 0.4], abs=0.035)
    assert scale.read('{"1": 3}', ("k",)) == (None, None, {"elicit": "distribution",
                                                          "invalid_reason": "option '2' has no probability"})


def test_choice_expected_position_and_row_uniform():
    _, expected, _ = StatedDistribution(CHOICE).read('{"1": 0.25, "2": 0.75}', ("x",))
    assert expected == pytest.approx(1.75)  # as exact mode: E[position], 2 - P(first)
    assert 0 <= row_uniform(("a", 1)) < 1 and row_uniform(("a", 1)) != row_uniform(("a", 2))


def test_the_question_asks_for_every_label_and_keeps_its_braces():
    stated = StatedDistribution(rating(0, 10))
    asked = stated.question("Rate {perturbation}.").format(perturbation="boots")
    assert asked.startswith("Rate boots.") and '{"0": p, "1": p' in asked and '"10": p}' in asked
    assert stated.scale == "rating0-10" and stated.view == rating(0, 10).view  # analyses see the scale itself
    assert stated.max_tokens > 11 * 4 and stated.elicit == "distribution"
