"""The study file's ``[sequential]`` table: buy the study in rounds of paraphrase pairs.

    [sequential]
    a = "sneakers"            # the two messages whose pairs are bought in rounds (default: the first two)
    b = "boots"
    method = "group-sequential"   # or "betting"
    round_pairs = 4
    max_pairs = 40            # at most the paraphrases both messages have
    alpha = 0.05
    spending = "obrien-fleming"   # pocock, power:<g>, hsd:<g>
    futility = 0.1            # optional, non-binding

The rule is survey.stats.sequential's (the group-sequential sign-flip test of Helm & Priebe (2026),
"When prompt perturbations break your A/B test: A valid statistical test for generative surveying", with
Lan & DeMets spending, or the betting test of Waudby-Smith & Ramdas, JRSS-B 2024).
"""

from __future__ import annotations

from survey.stats.sequential.design import SequentialDesign


class SequentialSpec(SequentialDesign):
    """A SequentialDesign plus the two messages it compares (default: the study's first two)."""

    a: str | None = None
    b: str | None = None
