"""Hedged replies (two or more labels) are invalid in every kind; legitimate replies still parse.

Before the rule, each hedge below was coded as its first label: "Option 1 and 2" -> 1, "1-5" -> 1,
"2 or 3" -> 2, "1, 2, 3" -> best 1 worst 2.
"""

from __future__ import annotations

import pytest

from survey.kinds.ordinal.balanced import ReversedScale
from survey.responses import likert, response_type

WORDS = likert(labels=["Definitely not", "Probably not", "Not sure", "Probably", "Definitely"])
REVERSED = ReversedScale(response_type("likert5"))

HEDGED = [
    ("binary", "Yes and no"), ("binary", "Yes or no"), ("binary", "Yes/No"), ("binary", "No, yes."),
    ("binary", "Yes and no, it depends"),
    ("likert5", "1-5"), ("likert5", "2 or 3"), ("likert5", "3-4"), ("likert5", "2, 3"), ("likert5", "4 (maybe 5)"),
    ("likert5", "2 to 3"), ("likert5", "3/4"), ("likert5", "**4** or **5**"), ("likert5", "4 out of 5, maybe 5"),
    ("likert0-4", "0-4"),
    ("rating0-10", "7-8"), ("rating0-10", "8 or 9"), ("rating0-10", "7, maybe 8"), ("rating0-10", "0 - 10"),
    ("reversed", "2 or 3"), ("reversed", "1-5"),
    ("words", "Probably or probably not"), ("words", "Definitely not, probably not"), ("words", "Probably/Definitely"),
    ("choice", "1 or 2"), ("choice", "Option 1 and 2"), ("choice", "1/2"),
    ("pick3", "Option 1 and 2"), ("pick3", "Option 1 or Option 2"), ("pick3", "1, 2"), ("pick3", "2 or 3"),
    ("pick3", "1/3"), ("pick3", "1 2 3"),
    ("maxdiff3", "1, 2, 3"), ("maxdiff3", "1 2 3"), ("maxdiff3", "1 or 2"), ("maxdiff3", "Best: 1 or 2, worst: 3"),
    ("maxdiff4", "1, 2, 3, 4"),
    # a sentence ended, then the hedge goes on (once read as the first label)
    ("likert5", "3. Or maybe 4"), ("rating0-10", "7. Maybe 8"), ("binary", "Yes. Or no."), ("pick3", "2. Or 3"),
    ("words", "Probably. Or definitely"),
    # a range that is not the question's scale is two points, colon or not; the scale's range, then a hedge
    ("likert5", "1-4: 3"), ("likert5", "2-5: 4"), ("rating0-10", "1-10: 7"), ("likert5", "1-5: 3 or 4"),
    ("likert5", "1-5:"),
    # the next sentence is just another label (once read as the first label)
    ("binary", "Yes. No."), ("binary", "No! Yes"), ("binary", "**Yes.** **No.**"), ("likert5", "3. 4."),
    ("rating0-10", "7. 8"), ("pick3", "Option 1. Option 2."), ("words", "Probably. Definitely."),
]

LEGITIMATE = [
    ("binary", "Yes", 1), ("binary", "No.", 0), ("binary", "**Yes**", 1), ("binary", "Yes, no doubt", 1),
    ("binary", "No, not really", 0), ("binary", "No thanks", 0), ("binary", "Yes, I would buy them.", 1),
    ("likert5", "5", 5), ("likert5", "5.", 5), ("likert5", "4 out of 5", 4), ("likert5", "4/5", 4),
    ("likert5", "5/5", 5), ("likert5", "1 - not likely", 1), ("likert5", "3 (neutral)", 3), ("likert5", "5 stars", 5),
    ("likert5", "**3**", 3), ("likert5", "4 - I would buy it for 5 dollars", 4),
    ("rating0-10", "7 out of 10", 7), ("rating0-10", "10/10", 10), ("rating0-10", "0", 0), ("rating0-10", "8.", 8),
    ("reversed", "2", 4), ("reversed", "1/5", 5),
    ("words", "Probably not.", 2), ("words", "Definitely", 5), ("words", "Not sure, honestly", 3),
    ("choice", "1", 1), ("choice", "Option 2", 2), ("choice", "2 - it is cheaper", 2),
    ("pick3", "1", 1), ("pick3", "Option 3", 3), ("pick3", "2.", 2), ("pick3", "3 (the last one)", 3),
    ("maxdiff3", "2 3", 23), ("maxdiff3", "Best: 1, Worst: 3", 13), ("maxdiff3", "3,1", 31),
    ("maxdiff3", "Best 2, worst 3.", 23), ("maxdiff3", "1 3", 13), ("maxdiff4", "4 1", 41),
    # the scale named, then the answer (once refused as the hedge "1-5")
    ("likert5", "1-5: 4", 4), ("rating0-10", "0-10: 7", 7), ("likert5", "1 - 5: 5", 5), ("likert5", "1 to 5: 2.", 2),
    ("rating0-10", "0\u201310: 10", 10), ("likert0-4", "0-4: 0", 0), ("reversed", "1-5: 4", 2),
    ("likert5", "3. I might buy them", 3), ("binary", "Yes. Or at least probably.", 1),
    # the next sentence goes on after a label, or repeats the same one
    ("binary", "Yes. No doubt.", 1), ("binary", "Yes. Definitely.", 1), ("binary", "No. No way.", 0),
    ("binary", "Yes. Yes.", 1), ("likert5", "3. 4 of my friends would buy them.", 3), ("likert5", "4. 4.", 4),
    ("words", "Probably. Not sure why.", 4),
]

# Not hedges, and still invalid, by the rule that a reply starts with its label (unchanged)
STILL_INVALID = [("likert5", "I'd say 4 out of 5"), ("likert5", "4.5"), ("pick3", "Both"), ("maxdiff3", "2 2")]


def rtype(kind):
    return {"words": WORDS, "reversed": REVERSED}.get(kind) or response_type(kind)


@pytest.mark.parametrize(("kind", "reply"), HEDGED)
def test_a_reply_naming_two_labels_is_invalid(kind, reply):
    assert rtype(kind).parse(reply) is None


@pytest.mark.parametrize(("kind", "reply", "answer"), LEGITIMATE)
def test_legitimate_replies_still_parse(kind, reply, answer):
    assert rtype(kind).parse(reply) == answer


@pytest.mark.parametrize(("kind", "reply"), STILL_INVALID)
def test_replies_that_do_not_start_with_a_label_stay_invalid(kind, reply):
    assert rtype(kind).parse(reply) is None


@pytest.mark.parametrize("kind", ["ssr5", "text"])
def test_free_text_kinds_parse_nothing(kind):
    assert response_type(kind).parse("2 or 3") is None and response_type(kind).parse("4") is None
