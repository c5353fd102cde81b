"""Pure statistical functions: arrays and tables in, small result objects out (no I/O).

The core tests are imported eagerly; everything else is resolved on first use (module ``__getattr__``),
so that submodules can import each other without cycles and ``import survey.stats`` stays light.
"""

import importlib

from survey.stats.beta_logit_estimate import EstimateResult, estimate_counts, fit_beta, fit_beta_logit

# ruff: noqa: F401  (the eager imports are re-exports: __all__ below is computed, which ruff cannot read)
from survey.stats.classic import TestResult, sign_test, wilcoxon_test
from survey.stats.comparison import Comparison, compare_messages, paired_differences
from survey.stats.effect import EffectResult, effect_ci
from survey.stats.permutation import (
    PermutationResult,
    sign_flip_pvalues,
    sign_flip_test,
    unpaired_permutation_test,
)

_EAGER = [
    "Comparison", "EffectResult", "EstimateResult", "PermutationResult", "TestResult",
    "compare_messages", "effect_ci", "estimate_counts", "fit_beta", "fit_beta_logit",
    "paired_differences", "sign_flip_pvalues", "sign_flip_test", "sign_test",
    "unpaired_permutation_test", "wilcoxon_test",
]

# public name -> the module that defines it
_LAZY = {
    "ABTest": "survey.stats.ab_tests",
    "analyze": "survey.stats.analysis", "Analysis": "survey.stats.analysis",
    "estimate": "survey.stats.analysis", "Estimates": "survey.stats.analysis",
    "decision_pvalue": "survey.stats.analysis", "TopBox": "survey.stats.comparison",
    "top_box_comparison": "survey.stats.comparison",
    "kind_of": "survey.stats.kinds", "scale_view": "survey.stats.kinds", "table_view": "survey.stats.kinds",
    "Kind": "survey.stats.kinds", "ABResult": "survey.stats.results", "Fit": "survey.stats.results",
    "AnalysisView": "survey.responses.view",
    "table_scale": "survey.data.scale_columns",
    "adjust_pvalues": "survey.stats.multiplicity", "compare_all_messages": "survey.stats.across_messages",
    "MessagesComparison": "survey.stats.across_messages", "PairResult": "survey.stats.across_messages",
    "compare_models": "survey.stats.across_models", "model_heterogeneity": "survey.stats.across_models",
    "ModelsComparison": "survey.stats.across_models", "ModelSummary": "survey.stats.across_models",
    "compare_table": "survey.stats.table_comparison", "TableComparison": "survey.stats.table_comparison",
    "cohen_kappa": "survey.stats.agreement", "fleiss_kappa": "survey.stats.agreement",
    "model_agreement": "survey.stats.agreement", "AgreementResult": "survey.stats.agreement",
    "sign_flip_heterogeneity": "survey.stats.heterogeneity", "welch_heterogeneity": "survey.stats.heterogeneity",
    "HeterogeneityResult": "survey.stats.heterogeneity",
    "sign_pvalues": "survey.stats.batched", "wilcoxon_pvalues": "survey.stats.batched",
    "unpaired_permutation_pvalues": "survey.stats.permutation", "smallest_pvalue": "survey.stats.permutation",
    "ModelParams": "survey.stats.beta_logit", "simulate": "survey.stats.simulation",
    "simulate_counts": "survey.stats.beta_logit", "draw_probabilities": "survey.stats.beta_logit",
    "moment_estimate": "survey.stats.beta_logit_estimate",
    "OrdinalParams": "survey.kinds.ordinal.model", "make_ordinal_params": "survey.kinds.ordinal.model",
    "simulate_category_counts": "survey.kinds.ordinal.model", "category_probabilities": "survey.kinds.ordinal.model",
    "estimate_ordinal": "survey.kinds.ordinal.estimate", "OrdinalEstimate": "survey.kinds.ordinal.estimate",
    "simulate_table": "survey.kinds.ordinal.table",
    "plan": "survey.stats.planning", "validate": "survey.stats.planning",
    "BinaryPlan": "survey.kinds.binary.power", "RatingPlan": "survey.kinds.ordinal.power", "PlanSource": "survey.stats.planning",
    "PickPlan": "survey.kinds.pick.power", "MaxDiffPlan": "survey.kinds.maxdiff.power",
    "ChoicePlan": "survey.kinds.choice.power",
    "PlanResult": "survey.stats.planning", "Validation": "survey.stats.planning",
    "sequential_test": "survey.stats.sequential", "replay": "survey.stats.sequential",
    "confidence_sequence": "survey.stats.sequential", "SequentialDesign": "survey.stats.sequential",
    "SequentialResult": "survey.stats.sequential",
    "choice_test": "survey.kinds.choice.statistics", "choice_pvalues": "survey.kinds.choice.statistics",
    "choice_statistics": "survey.kinds.choice.statistics", "ChoiceResult": "survey.kinds.choice.statistics",
    "ChoiceTest": "survey.kinds.choice.statistics", "simulate_choice_counts": "survey.kinds.choice.model",
    "ChoiceCounts": "survey.kinds.choice.model", "choice_table": "survey.kinds.choice.model",
    "compare_choice": "survey.kinds.choice.table",
    "dbpa_test": "survey.stats.dbpa", "dbpa_units": "survey.stats.dbpa", "dbpa_family": "survey.stats.dbpa",
    "segment_by": "survey.stats.segments", "rake": "survey.stats.segments", "Target": "survey.stats.segments",
    "PersonaWeights": "survey.stats.segments", "given_weights": "survey.stats.segments",
    "interaction_test": "survey.stats.segments", "segment_analysis": "survey.stats.segments",
    "SegmentAnalysis": "survey.stats.segments",
    "dbpa_alignment": "survey.stats.dbpa", "roc_from_pvalues": "survey.stats.dbpa", "DBPAResult": "survey.stats.dbpa",
    "ppi_mean": "survey.stats.ppi", "ppi_paired_effect": "survey.stats.ppi", "ppi_between_effect": "survey.stats.ppi",
    "ppi_mean_arrays": "survey.stats.ppi", "ppi_between_arrays": "survey.stats.ppi", "PPIResult": "survey.stats.ppi",
    "PPIArm": "survey.stats.ppi", "PPIOptions": "survey.stats.ppi",
    "jsd": "survey.stats.fidelity", "wasserstein_ordinal": "survey.stats.fidelity",
    "level_fidelity": "survey.stats.fidelity", "LevelFidelity": "survey.stats.fidelity",
    "effect_fidelity": "survey.stats.effect_fidelity", "EffectFidelity": "survey.stats.effect_fidelity",
    "benchmark_fidelity": "survey.stats.effect_fidelity", "BenchmarkFidelity": "survey.stats.effect_fidelity",
    "dispersion_ratio": "survey.stats.effect_fidelity", "DispersionRatio": "survey.stats.effect_fidelity",
    "plan_mixed_subjects": "survey.stats.planning", "MixedSubjectsPlan": "survey.stats.planning",
    "plan_mixed_effect": "survey.stats.planning", "MixedEffectPlan": "survey.stats.planning",
    "MixedPlanTarget": "survey.stats.planning",
    "mixed_subjects_se": "survey.stats.planning",
}

__all__ = sorted(_EAGER + list(_LAZY))


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'survey.stats' has no attribute '{name}'")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
