"""The sequential rule beside the fixed design, for each design a plan simulates.

A fixed design (n, m, r) buys all m paraphrase pairs; the sequential design buys them in rounds up to
m and stops at the first boundary crossing (or futility). Per design: the power of each, and the
expected queries of the sequential rule against the fixed design's 2nmr (Helm & Priebe 2026, "When
prompt perturbations break your A/B test: A valid statistical test for generative surveying", for the
model and the test; survey.stats.sequential for the rules).
"""

from __future__ import annotations

import numpy as np

from survey.stats.beta_logit import ModelParams
from survey.stats.sequential.design import SequentialDesign, make_design
from survey.stats.sequential.simulation import operating_characteristics


def sequential_plan(params: ModelParams, designs, design: SequentialDesign, simulations: int, seed: int = 0,
                    flips: int | None = None, progress=lambda k=1: None) -> list[dict]:
    """One row per (n, m, r) design: fixed power and queries, sequential power and expected queries.

    ``designs``: objects with n, m, r, strategy and budget (survey.stats.planning.power.SurveySize). The
    sequential rule's maximum is each design's m, in rounds of ``design.round_pairs`` (at most m).
    ``flips``: sign vectors of the group-sequential test (default: the design's).
    """
    rows = []
    rng = np.random.default_rng(seed)
    for d in designs:
        per = make_design(design, max_pairs=d.m, round_pairs=min(design.round_pairs, d.m), flips=flips)
        oc = operating_characteristics(per, params, d.n, d.r, simulations, seed=int(rng.integers(2 ** 31)))
        rows.append({"strategy": d.strategy, "budget": d.budget, "n": d.n, "m": d.m, "r": d.r,
                     "fixed_queries": oc.fixed_queries, "fixed_power": oc.fixed_power, "power": oc.power,
                     "expected_queries": oc.expected_queries, "ratio": oc.ratio, "futility_rate": oc.futility_rate,
                     "design": per.describe()})
        progress()
    return rows
