"""Message A vs message B for one model: every test of Helm & Priebe (2026) from a long table, no I/O.

Pairing rule for the sign-flip test (survey.data.pairing): the pairs given, else paraphrase j of A
with paraphrase j of B in design order (a store's table) or in natural order of the ids ("b2" before
"b10"), never in the order rows appear, which one missing row would shift. When m_A != m_B the
surplus is left out of the paired test (and reported with the pairs); the unpaired test uses all.
A (persona, perturbation) cell with no valid answer has theta = NaN: it is left out of the
persona and perturbation means that need it, and counted in ``empty_cells``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from survey.data.pairing import Pairing, pair_perturbations
from survey.data.table import CellCounts, cell_counts, first_appearance
from survey.errors import TableError
from survey.stats.ab_tests import ByTest, result_dict, run_tests, with_aliases
from survey.stats.effect import EffectResult, effect_ci


@dataclass
class Comparison:
    """Everything `survey analyze` reports for one model.

    ``tests`` holds each registered test's result (survey.stats.ab_tests); they are also attributes:
    ``c.sign_flip``, ``c.unpaired``, ``c.sign``, ``c.wilcoxon``, and ``c.permutation``, the
    deprecated name of ``c.sign_flip``.
    """

    model: str
    a: str
    b: str
    n_personas: int
    n_perturbations: dict
    n_paired: int
    replicates: int
    invalid: dict
    empty_cells: dict
    effect: EffectResult
    tests: ByTest  # test name -> result with .statistic, .pvalue
    d_perturbation: np.ndarray = field(repr=False)  # paired D-bar_j
    d_persona: np.ndarray = field(repr=False)  # D-hat_i
    theta_bar: dict = field(repr=False)  # message -> per-perturbation means, paired ones first
    pairing: Pairing | None = field(default=None, repr=False)  # which paraphrases d_perturbation pairs

    @property
    def pairs(self) -> list[tuple[str, str]]:
        """(A id, B id) of each entry of d_perturbation."""
        return self.pairing.pairs if self.pairing else []

    def to_dict(self) -> dict:
        return {
            "model": self.model, "a": self.a, "b": self.b,
            "n_personas": self.n_personas, "n_perturbations": self.n_perturbations,
            "n_paired": self.n_paired, **(self.pairing.to_dict() if self.pairing else {}),
            "replicates": self.replicates,
            "invalid": self.invalid, "empty_cells": self.empty_cells,
            "effect": self.effect.to_dict(),
            "tests": with_aliases({name: result_dict(res) for name, res in self.tests.items()}),
        }

    def __getattr__(self, name):
        tests = self.__dict__.get("tests")
        if tests is not None and name in tests:
            return tests[name]
        raise AttributeError(f"'Comparison' object has no attribute '{name}'")


def paired_differences(ca: CellCounts, cb: CellCounts, n_pairs: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(D-bar_j for the paired perturbations, D-hat_i per persona) from two aligned CellCounts.

    Column j of A is paired with column j of B for the first ``n_pairs`` columns (default: all that
    both have); order the columns by a Pairing first (survey.data.pairing).
    """
    ta, tb = ca.theta, cb.theta
    k = min(ta.shape[1], tb.shape[1]) if n_pairs is None else n_pairs
    diff = ta[:, :k] - tb[:, :k]
    d_pert = nanmean(diff, axis=0)
    d_pers = nanmean(ta, axis=1) - nanmean(tb, axis=1)
    # theta-hats are fractions of r: differences that are equal in exact arithmetic must tie exactly,
    # or scipy's Wilcoxon takes its no-ties path (and zeros slip past the sign test) on rounding noise.
    return np.round(d_pert, 12), np.round(d_pers, 12)


def nanmean(x: np.ndarray, axis: int) -> np.ndarray:
    """Mean over valid cells; NaN (silently) where a row or column has none: that is the answer."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(x, axis=axis)


def compare_messages(df: pd.DataFrame, model: str, a: str, b: str, alternative: str = "two-sided",
                     n_resamples: int = 9999, seed=0, confidence: float = 0.95,
                     probabilities: bool = False, pairing=None) -> Comparison:
    """Run every registered A/B test (survey.stats.ab_tests) and the effect interval for A vs B.

    ``probabilities``: use the exact per-cell P(Yes) (``p_yes``) instead of answer frequencies.
    ``pairing``: [(A id, B id), ...] for the paired tests; by default the design or natural order of
    the ids (survey.data.pairing). The result's ``pairs`` and ``to_dict()`` say which were formed.
    """
    sub = df[df["model"] == model]
    if sub.empty:
        raise TableError(f"no rows for model '{model}'")
    personas = first_appearance(sub.loc[sub["message"].isin([a, b]), "persona"])
    pairs = pair_perturbations(sub, model, a, b, pairing)
    ca = cell_counts(sub, model, a, personas, probabilities, pairs.order_a)
    cb = cell_counts(sub, model, b, personas, probabilities, pairs.order_b)
    d_pert, d_pers = paired_differences(ca, cb, len(pairs.pairs))
    d_valid = d_pert[~np.isnan(d_pert)]
    if len(d_valid) == 0:
        raise TableError(f"model '{model}': no perturbation pair of '{a}' and '{b}' has valid answers")
    bar_a, bar_b = nanmean(ca.theta, axis=0), nanmean(cb.theta, axis=0)
    samples = {"pairs": (d_valid,), "personas": (d_pers,), "means": (bar_a, bar_b)}
    return Comparison(
        model=model, a=a, b=b, n_personas=len(personas),
        n_perturbations={a: len(ca.perturbations), b: len(cb.perturbations)},
        n_paired=int(len(d_valid)), replicates=max(ca.replicates, cb.replicates),
        invalid={a: ca.n_invalid, b: cb.n_invalid, "total": ca.n_invalid + cb.n_invalid},
        empty_cells={a: len(ca.empty_cells), b: len(cb.empty_cells)},
        effect=effect_ci(d_valid, confidence=confidence, seed=seed, bounds=(-1.0, 1.0)),
        tests=run_tests(samples, alternative, n_resamples, seed),
        d_perturbation=d_pert, d_persona=d_pers, theta_bar={a: bar_a, b: bar_b}, pairing=pairs,
    )
