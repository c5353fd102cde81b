"""A kind's own study-file keys are declared in its folder (its knobs' KindKeys model), not in QuestionSpec: a
plugin kind adds keys without touching the package, QuestionSpec validates them through the kind, refuses them on
another kind's type in one line, and suggests them for a misspelt key."""

from __future__ import annotations

import pytest
from pydantic import Field

from survey.common import kinds
from survey.common.kinds import KindManifest, Missing, register_kind
from survey.errors import SurveyError, validated
from survey.kinds.ordinal.parsing import rating
from survey.study.knobs import KindKeys, QuestionKnobs
from survey.study.question import QuestionSpec
from survey.study.spec import StudySpec


class DialKeys(KindKeys):
    notches: int = Field(11, ge=2, le=101, description="dial: positions on the dial")


class DialKnobs(QuestionKnobs):
    families = {"dial": ()}
    keys = DialKeys

    def build(self, family, spec):
        return rating(0, spec.kind_keys.notches - 1)


@pytest.fixture
def dial(monkeypatch):
    monkeypatch.setattr(kinds, "KINDS", kinds.KINDS.copy())
    register_kind(KindManifest(name="dial", parsing=lambda scale: None, analysis=Missing("toy"),
                               power=Missing("toy"), view=Missing("toy"), text=Missing("toy"), knobs=DialKnobs(),
                               segments=Missing("toy")))


def test_a_plugin_kind_declares_its_own_key(dial):
    q = QuestionSpec(type="dial", notches=5)
    assert q.type == "rating0-4" and q.kind_keys.notches == 5 and "notches" not in QuestionSpec.model_fields


@pytest.mark.parametrize("keys, message", [
    ({"type": "dial", "notches": 1}, "notches: Input should be greater than or equal to 2"),
    ({"type": "binary", "notches": 5}, "notches only apply to this kind's types, not to type = 'binary'"),
    ({"type": "likert", "notches": 5}, "not to type = 'likert'"),
])
def test_bad_values_and_wrong_kinds_are_one_line(dial, keys, message):
    with pytest.raises(Exception, match=message):
        QuestionSpec(**keys)


def test_a_misspelt_key_suggests_a_kinds_key(dial):
    with pytest.raises(SurveyError, match="question.notchez: unknown key \\(did you mean 'notches'\\?\\)"):
        validated(StudySpec, "study", name="s", question={"type": "dial", "notchez": 5})


def test_existing_kinds_keep_their_keys_and_messages():
    assert QuestionSpec(type="maxdiff", subset=4).kind_keys.subset == 4
    with pytest.raises(Exception, match="subset only applies to type = 'maxdiff', not to type = 'binary'"):
        QuestionSpec(type="binary", subset=4)
    with pytest.raises(Exception, match="type = 'maxdiff3' is a full scale name"):
        QuestionSpec(type="maxdiff3", subset=4)
