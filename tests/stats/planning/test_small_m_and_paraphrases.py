"""At m <= 5 pairs (two-sided, alpha = 0.05) the sign-flip test cannot reject whatever the data:
plan and dry-run say so, validate calls it "cannot reject at this m" instead of "conservative", and
plan does not recommend more paraphrases than the sets hold without saying so."""

from __future__ import annotations

import pandas as pd
import pytest

from survey import validate
from survey.kinds.binary.power import BinaryPlan
from survey.stats.beta_logit import simulate
from survey.stats.permutation import cannot_reject_note, pairs_needed, sign_flip_test, smallest_pvalue
from survey.stats.planning import PlanSource, plan
from survey.stats.planning.validity import CANNOT_REJECT


def test_smallest_pvalue_and_pairs_needed_follow_from_alpha_and_the_alternative():
    assert smallest_pvalue(5) == 2 / 32 and smallest_pvalue(5, "greater") == 1 / 32
    assert pairs_needed(0.05) == 6 and pairs_needed(0.05, "less") == 5 and pairs_needed(0.01) == 8
    assert sign_flip_test([0.1, 0.2, 0.3, 0.4, 0.5]).pvalue == smallest_pvalue(5)  # all of one sign
    assert "cannot reject at alpha = 0.05" in cannot_reject_note(5, 0.05)
    assert "2/2^5 = 0.0625" in cannot_reject_note(5, 0.05) and "m >= 6" in cannot_reject_note(5, 0.05)
    assert cannot_reject_note(6, 0.05) is None and cannot_reject_note(5, 0.05, "greater") is None


def test_plan_warns_when_a_design_cannot_reject():
    res = plan(BinaryPlan(1.0), designs=["10,4,2", "10,8,2"], simulations=50)
    (w,) = [w for w in res.warnings if "cannot reject" in w]
    assert "m = 4" in w and "8" not in w.split("designs with m =")[1]
    assert res.results[0].power["sign_flip"] == 0.0  # what the warning explains
    assert not [w for w in plan(BinaryPlan(1.0), designs=["10,8,2"], simulations=50).warnings if "cannot reject" in w]


def test_validate_says_cannot_reject_at_this_m_not_conservative():
    df = simulate(20, 12, 3, rho=0.3, seed=4)
    res = validate(df, "A", configs=["10,4,3", "10,6,3"], draws=40)
    small, enough = res.by_model["simulated"]
    assert small.rates["sign_flip"].verdict == CANNOT_REJECT == "cannot reject at this m"
    assert small.rates["sign_flip"].rate == 0.0
    assert enough.rates["sign_flip"].verdict != CANNOT_REJECT
    assert res.to_dict()["results"][0]["tests"]["sign_flip"]["verdict"] == CANNOT_REJECT


def _table(m_a: int, m_b: int) -> pd.DataFrame:
    a = simulate(8, m_a, 2, seed=1)
    b = simulate(8, m_b, 2, seed=2)
    return pd.concat([a[a["message"] == "A"], b[b["message"] == "B"]], ignore_index=True)


def test_plan_flags_recommendations_beyond_the_paraphrases_of_its_source():
    # sets of 50 and 25: the cheapest design used to ask for m = 87 without a word
    res = plan(BinaryPlan(0.5), source=PlanSource(from_table=_table(50, 25), message="A"), budgets=[20000], strategies=["1:16:1"], target_power=0.5, simulations=40)
    assert res.paraphrases.m == 25 and not res.paraphrases.capped
    assert res.cheapest["m"] > 25
    assert any(f"m = {res.cheapest['m']} paraphrases per message, more than" in w and "A (50), B (25)" in w
               for w in res.warnings)
    assert res.to_dict()["max_paraphrases"] == {"max": 25, "source": "the plan's source holds A (50), B (25)",
                                                "capped": False}


def test_plan_keeps_its_recommendations_within_the_sets_when_told():
    res = plan(BinaryPlan(0.5), budgets=[20000], strategies=["1:16:1", "4:1:1"], target_power=0.5, simulations=40, max_paraphrases=25)
    assert res.paraphrases.capped
    assert all(b["m"] <= 25 for b in res.best)
    assert res.cheapest is None or res.cheapest["m"] <= 25
    assert any("limited to m <= 25" in w for w in res.warnings)
    sets = plan(BinaryPlan(0.5), budgets=[2000], strategies=["1:16:1"], simulations=40, sets={"sneakers": 50, "boots": 50})
    assert sets.paraphrases.capped and sets.paraphrases.source.startswith("sets sneakers (")


def test_max_paraphrases_must_be_a_whole_number_of_at_least_two():
    from survey.errors import SurveyError

    with pytest.raises(SurveyError, match="at least|>= 2"):
        plan(BinaryPlan(0.5), budgets=[200], strategies=["1:1:1"], simulations=40, max_paraphrases=1)
