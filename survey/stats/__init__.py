"""Pure statistical functions: arrays and tables in, small result objects out (no I/O)."""

from survey.stats.classic import TestResult, sign_test, wilcoxon_test
from survey.stats.comparison import Comparison, compare_messages, paired_differences
from survey.stats.effect import EffectResult, effect_ci
from survey.stats.estimate import EstimateResult, estimate, estimate_counts, fit_beta
from survey.stats.permutation import (
    PermutationResult,
    sign_flip_pvalues,
    sign_flip_test,
    unpaired_permutation_test,
)

__all__ = [
    "Comparison", "EffectResult", "EstimateResult", "PermutationResult", "TestResult",
    "compare_messages", "effect_ci", "estimate", "estimate_counts", "fit_beta",
    "paired_differences", "sign_flip_pvalues", "sign_flip_test", "sign_test",
    "unpaired_permutation_test", "wilcoxon_test",
]
