"""A segment plan or a generated persona set past its stated bound is refused at once, with the bound and
why, instead of an OverflowError or minutes of simulation."""

from __future__ import annotations

import re

import pytest

from survey.errors import SurveyError
from survey.stats.permutation import smallest_pvalue
from survey.stats.planning import BinaryPlan
from survey.stats.planning.segments import plan_segments

# small simulations: a plan the bounds do not stop returns in a second (and the test fails on it)
FAST = {"simulations": 20, "max_personas": 8, "flips": 99}


@pytest.mark.parametrize("segments, kwargs, words", [
    (2, {"pairs": 100_000, **FAST}, "pairs must be at most 1,000"),
    (1000, FAST, "segments must be at most 20"),
    ({f"s{i}": 5 for i in range(21)}, FAST, "segments must be at most 20"),
    (20, {"replicates": 100}, re.escape("the limit is 1e+10")),
])
def test_a_segment_plan_past_its_bounds_is_refused_before_simulating(segments, kwargs, words):
    with pytest.raises(SurveyError, match=words):
        plan_segments(BinaryPlan(delta=0.3), segments, **kwargs)


def test_the_smallest_pvalue_of_many_pairs_does_not_overflow():
    assert smallest_pvalue(100_000) == 0.0 and smallest_pvalue(3, "greater") == 1 / 8


def test_a_persona_set_past_the_bound_is_refused(tmp_path):
    from survey.data.targets import read_target_file
    from survey.registry.generate_sets import generate_persona_set
    from survey.registry.quota_sets import persona_set_to_target

    (tmp_path / "m.csv").write_text("attribute,level,share\ngender,male,0.5\ngender,female,0.5\n")
    with pytest.raises(SurveyError, match="count must be at most 100,000"):
        persona_set_to_target(read_target_file(tmp_path / "m.csv"), 100_000_000, "big")
    with pytest.raises(SurveyError, match="count must be at most 100,000"):
        generate_persona_set("simulated:x", 100_001, "big")
