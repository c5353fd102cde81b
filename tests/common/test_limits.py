"""Bounds on seeds, counts and sizes: a value past one is one SurveyError that states the bound and
why, from the library calls as from the CLI (which the battery in tests/cli/test_bad_inputs.py runs)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from survey import analyze, estimate, validate
from survey import compare as compare_table
from survey.common.limits import (
    FLIPS_MAX,
    PLAN_BUDGET_MAX,
    SIMULATED_ROWS_MAX,
    check_alpha,
    check_count,
    check_flips,
    check_seed,
)
from survey.errors import SurveyError
from survey.kinds.binary.power import BinaryPlan
from survey.stats.beta_logit import simulate
from survey.stats.planning import plan


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return simulate(6, 6, 2, seed=1)


def test_seeds_are_whole_numbers_from_zero():
    assert check_seed(None) is None and check_seed(0) == 0 and check_seed(np.int64(7)) == 7 and check_seed(3.0) == 3
    rng = np.random.default_rng(1)
    assert check_seed(rng) is rng  # a Python caller's generator goes through
    for bad in (-1, 2**63, 1.5, "3", True):
        with pytest.raises(SurveyError, match="from 0 to 2\\^63 - 1.*no negative seed"):
            check_seed(bad)


def test_counts_state_their_bound_and_why():
    assert check_count(1e4, "draws", 1, 10**5, "why") == 10_000
    with pytest.raises(SurveyError, match="^draws must be at most 100,000; got 1000000 \\(because\\)$"):
        check_count(10**6, "draws", 1, 10**5, "because")
    with pytest.raises(SurveyError, match="at least 1; got 0"):
        check_count(0, "draws", 1, 10**5, "why")
    with pytest.raises(SurveyError, match="whole number"):
        check_count(float("nan"), "draws", 1, 10**5, "why")
    with pytest.raises(SurveyError, match=f"at most {FLIPS_MAX:,}.*resolve to 1/\\(flips \\+ 1\\)"):
        check_flips(10**11)
    with pytest.raises(SurveyError, match="between 0 and 1"):
        check_alpha(1.5)


@pytest.mark.parametrize("call", [
    lambda t: analyze(t, "A", "B", seed=-1),
    lambda t: estimate(t, "A", bootstrap=2, seed=-1),
    lambda t: plan(BinaryPlan(0.3), seed=-1, budgets=[200], strategies=["1:1:1"]),
    lambda t: validate(t, "A", seed=-1),
    lambda t: simulate(4, 4, 1, seed=-1),
    lambda t: compare_table(t, seed=-1),
], ids=["analyze", "estimate", "plan", "validate", "simulate", "compare"])
def test_a_negative_seed_is_refused_by_every_call(table, call):
    # numpy's ValueError "expected non-negative integer" used to come out as a traceback
    with pytest.raises(SurveyError, match="seed.*from 0 to 2\\^63 - 1"):
        call(table)


@pytest.mark.parametrize("call", [
    lambda t: analyze(t, "A", "B", flips=10**11),
    lambda t: validate(t, "A", flips=10**11),
    lambda t: plan(BinaryPlan(0.3), flips=10**11, budgets=[200], strategies=["1:1:1"]),
    lambda t: compare_table(t, n_resamples=10**11),
], ids=["analyze", "validate", "plan", "compare"])
def test_flips_past_the_bound_are_refused(table, call):
    with pytest.raises(SurveyError, match=f"at most {FLIPS_MAX:,}"):
        call(table)


def test_a_huge_simulation_is_refused_before_allocating():
    # 1e9 rows used to end in a MemoryError
    with pytest.raises(SurveyError, match=f"1,000,000,000 rows; simulate writes at most {SIMULATED_ROWS_MAX:,}"):
        simulate(100_000, 1000, 5, seed=0)


def test_a_huge_plan_is_refused_at_once():
    # --budget 1e13 used to simulate for minutes
    with pytest.raises(SurveyError, match=f"above {PLAN_BUDGET_MAX:,} queries"):
        plan(BinaryPlan(0.3), budgets=[10**13], strategies=["1:1:1"])
    with pytest.raises(SurveyError, match="costs 20,000,000,000,000 queries"):
        plan(BinaryPlan(0.3), designs=["100000,100000,1000"])
    with pytest.raises(SurveyError, match="simulated answers and sign flips.*lower `simulations=`"):
        plan(BinaryPlan(0.3), simulations=1_000_000)


def test_validate_bounds_its_work(table):
    big = simulate(40, 40, 5, seed=2)
    with pytest.raises(SurveyError, match="lower `draws=` or `flips=`"):
        validate(big, a="A", b="B", configs=["40,40,5"], draws=100_000, flips=100_000)


def test_nan_and_infinite_model_parameters_are_refused():
    # delta = nan used to simulate every answer as No, silently
    for kw in ({"delta": float("nan")}, {"sigma": float("inf")}):
        with pytest.raises(SurveyError, match="finite number"):
            simulate(4, 4, 1, seed=0, **kw)
