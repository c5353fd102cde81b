"""survey.plan with several questions: the family's power beside the one-question plan, on the one planning path."""

import pytest

from survey import BinaryPlan, RatingPlan, plan
from survey.errors import SurveyError


def test_family_power_with_and_without_the_adjustment():
    res = plan(BinaryPlan(delta=0.8, rho=0.3), designs=["30,12,1"], simulations=300, questions=3)
    (row,) = res.family["rows"]
    assert res.family["questions"] == 3 and res.family["method"] == "holm"
    assert row["queries"] == 2 * 30 * 12 * 1 * 3
    assert row["all_adjusted"] <= row["adjusted"] <= row["unadjusted"]
    assert 0 < row["adjusted"] < 1 and row["secondary_gated"] <= row["primary"]
    assert res.to_dict()["family"]["rows"] == [row]
    assert "family" not in plan(BinaryPlan(delta=0.8), designs=["30,12,1"], simulations=50).to_dict()


def test_family_of_another_kind_is_refused_in_one_line():
    with pytest.raises(SurveyError, match="Yes/No questions"):
        plan(RatingPlan(0.5, "likert5"), designs=["30,12,1"], simulations=50, questions=3)
    with pytest.raises(SurveyError, match="family must be one of"):
        plan(BinaryPlan(delta=0.8), designs=["30,12,1"], simulations=50, questions=3, family="bonferroni")


def test_an_impossible_correlation_is_refused_before_simulating():
    with pytest.raises(SurveyError, match=r"must lie in \[-0.5, 1\] for 3 questions"):
        plan(BinaryPlan(delta=0.8), designs=["30,12,1"], simulations=50, questions=3, question_correlation=-0.9)
