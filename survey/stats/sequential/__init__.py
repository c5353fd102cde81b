"""Sequential collection: buy paraphrase pairs in rounds and stop as soon as the answer is known.

Two tests keep the type I error at alpha at every stopping time, for every rho:

* the group-sequential sign-flip test with alpha spending (survey.stats.sequential.group), for planned
  looks and batch jobs: Helm & Priebe (2026), "When prompt perturbations break your A/B test: A valid
  statistical test for generative surveying", with Lan & DeMets (1983) spending;
* the test by betting with its confidence sequence (survey.stats.sequential.betting), for continuous
  monitoring: Waudby-Smith & Ramdas, "Estimating means of bounded random variables by betting"
  (JRSS-B 2024).
"""

from survey.stats.sequential.betting import confidence_sequence, log_wealth
from survey.stats.sequential.design import (
    SequentialDesign,
    conditional_power,
    make_design,
    spent_alpha,
)
from survey.stats.sequential.group import group_sequential_paths
from survey.stats.sequential.rule import DECISIONS, RuleOutcome, SequentialResult, run_rule, sequential_test


def __getattr__(name: str):
    # replay reads tables (survey.stats.analysis); imported on first use to keep the statistics light
    if name in ("replay", "Replay", "ModelReplay"):
        from survey.stats.sequential import table_replay as module
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "DECISIONS", "ModelReplay", "Replay", "RuleOutcome", "SequentialDesign", "SequentialResult", "conditional_power",
    "confidence_sequence", "group_sequential_paths", "log_wealth", "make_design", "replay", "run_rule",
    "sequential_test", "spent_alpha",
]
