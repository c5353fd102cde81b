"""Power and budget allocation by simulation, and validity by null split and sub-sampling.

``plan`` is what `survey plan` computes, ``plan_segments`` what `survey plan --segments K` computes and
``validate`` what `survey validate` computes. Every kind's power model (survey.stats.planning.model.PowerModel) lives
in its folder: survey.kinds.binary.power.BinaryPlan, survey.kinds.ordinal.power.RatingPlan,
survey.kinds.pick.power.PickPlan, survey.kinds.maxdiff.power.MaxDiffPlan, survey.kinds.choice.power.ChoicePlan;
``survey.stats.planning.BinaryPlan`` and the others are found through the kinds' manifests (survey.common.kinds).
"""

from survey.common.kinds import Missing, kinds
from survey.stats.planning.kind_plans import KindPlan
from survey.stats.planning.mixed_effect import MixedEffectPlan, MixedPlanTarget, plan_mixed_effect
from survey.stats.planning.mixed_subjects import MixedSubjectsPlan, mixed_subjects_se, plan_mixed_subjects
from survey.stats.planning.model import PowerModel, PowerModelBase
from survey.stats.planning.params import PlanSource
from survey.stats.planning.planner import PlanOptions, PlanResult, load_params, plan
from survey.stats.planning.segments import SegmentPlan, plan_segments
from survey.stats.planning.validation import Validation, validate

__all__ = ["KindPlan", "MixedEffectPlan", "MixedPlanTarget", "MixedSubjectsPlan", "PlanOptions", "PlanResult", "PlanSource", "PowerModel", "PowerModelBase", "SegmentPlan", "Validation",
           "load_params", "mixed_subjects_se", "plan", "plan_mixed_effect", "plan_mixed_subjects", "plan_segments", "validate"]


def __getattr__(name: str):
    """A kind's power model by its class name (BinaryPlan, RatingPlan, PickPlan, ...), through the manifests."""
    for manifest in kinds():
        model = manifest.part("power")
        if not isinstance(model, Missing) and getattr(model, "__name__", None) == name:
            return model
    raise AttributeError(f"module 'survey.stats.planning' has no attribute '{name}'")
