"""Power and budget allocation by simulation, and validity by null split and sub-sampling.

``plan`` is what `survey plan` computes, ``plan_segments`` what `survey plan --segments K` computes and
``validate`` what `survey validate` computes.
"""

from survey.stats.planning.kind_plans import ChoicePlan, KindPlanResult, MaxDiffPlan, PickPlan
from survey.stats.planning.mixed_subjects import (
    MixedEffectPlan,
    MixedSubjectsPlan,
    mixed_subjects_se,
    plan_mixed_effect,
    plan_mixed_subjects,
)
from survey.stats.planning.params import BinaryPlan, PlanSource, RatingPlan
from survey.stats.planning.planner import PlanResult, load_params, plan
from survey.stats.planning.segments import SegmentPlan, plan_segments
from survey.stats.planning.validation import Validation, validate

__all__ = ["BinaryPlan", "ChoicePlan", "KindPlanResult", "MaxDiffPlan", "MixedEffectPlan", "MixedSubjectsPlan", "PickPlan", "PlanResult", "PlanSource", "RatingPlan", "SegmentPlan", "Validation",
           "load_params", "mixed_subjects_se", "plan", "plan_mixed_effect", "plan_mixed_subjects", "plan_segments", "validate"]
