"""Message A vs message B for one model: every test of SPEC §1 from a long table, no I/O.

Pairing rule for the sign-flip test: perturbation j of A is paired with perturbation j of B, in
order of first appearance in the table. When m_A != m_B the first min(m_A, m_B) of each are
paired and the rest are left out of the paired test (and reported); the unpaired test uses all.
A (persona, perturbation) cell with no valid answer has theta = NaN: it is left out of the
persona and perturbation means that need it, and counted in ``empty_cells``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

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
    theta_bar: dict = field(repr=False)  # message -> per-perturbation means

    def to_dict(self) -> dict:
        return {
            "model": self.model, "a": self.a, "b": self.b,
            "n_personas": self.n_personas, "n_perturbations": self.n_perturbations,
            "n_paired": self.n_paired, "replicates": self.replicates,
            "invalid": self.invalid, "empty_cells": self.empty_cells,
            "effect": self.effect.to_dict(),
            "tests": with_aliases({name: result_dict(res) for name, res in self.tests.items()}),
        }

    def __getattr__(self, name):
        tests = self.__dict__.get("tests")
        if tests is not None and name in tests:
            return tests[name]
        raise AttributeError(f"'Comparison' object has no attribute '{name}'")


def paired_differences(ca: CellCounts, cb: CellCounts) -> tuple[np.ndarray, np.ndarray]:
    """(D-bar_j for the paired perturbations, D-hat_i per persona) from two aligned CellCounts."""
    ta, tb = ca.theta, cb.theta
    k = min(ta.shape[1], tb.shape[1])
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
                     probabilities: bool = False) -> Comparison:
    """Run every registered A/B test (survey.stats.ab_tests) and the effect interval for A vs B.

    ``probabilities``: use the exact per-cell P(Yes) (``p_yes``) instead of answer frequencies.
    """
    sub = df[df["model"] == model]
    if sub.empty:
        raise TableError(f"no rows for model '{model}'")
    personas = first_appearance(sub.loc[sub["message"].isin([a, b]), "persona"])
    ca = cell_counts(sub, model, a, personas, probabilities)
    cb = cell_counts(sub, model, b, personas, probabilities)
    d_pert, d_pers = paired_differences(ca, cb)
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
        d_perturbation=d_pert, d_persona=d_pers, theta_bar={a: bar_a, b: bar_b},
    )
