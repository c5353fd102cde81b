"""The family of conclusions a study with several questions draws: every (question, message pair) of one model
is a test, and a marketer reads them together ("B wins on appeal and intent, A on believability"), so they are
adjusted together. Pure numbers, no I/O: survey.stats.questions builds the family from the kinds' results.

Adjusted p-values (``adjust``), equal to statsmodels' ``multipletests``:

- ``holm``: Holm, "A simple sequentially rejective multiple test procedure" (1979). Step-down; controls the
  family-wise error rate (the chance of one or more false "wins") at alpha under any dependence between the
  questions, which matters here: the same personas answer every question.
- ``bh``: Benjamini & Hochberg, "Controlling the false discovery rate: a practical and powerful approach to
  multiple testing" (1995). Step-up; controls the false discovery rate (the expected share of false "wins"
  among the wins) at q = alpha under positive regression dependence, the dependence shared personas induce.

The primary question (pre-registered, ``[analysis] primary``) is tested at alpha unadjusted (its own pairs
Holm-adjusted among themselves when it compares several) and is left out of the secondary family. The rule
that joins the two is serial gatekeeping (Westfall & Krishen, "Optimally weighted, fixed sequence and gatekeeper
multiple testing procedures", 2001; a closed test in the sense of Marcus, Peritz & Gabriel 1976): the secondary family is tested only when every primary test rejects, so a
secondary's adjusted p-value is the larger of its own adjusted p-value within the secondary family and the
primary's. With Holm in the secondary family the family-wise error over all questions stays at alpha.
When the gate stays closed the secondaries are not tested and get no family interval.

Intervals for the family (``interval_levels``): with Holm, Bonferroni intervals at level 1 - alpha/m for each
of the m tests of a family: together they cover all m effects with probability at least 1 - alpha, whatever
the dependence (Holm itself has no matching interval, so a Holm win's Bonferroni interval can still hold 0:
the verdict follows the adjusted p-value). With a primary question the primary's tests and the secondary
family each get their own Bonferroni intervals, so together they cover every effect with probability at least
1 - 2 alpha, not 1 - alpha. With BH, the false-coverage-rate intervals of
Benjamini & Yekutieli, "False discovery rate-adjusted multiple confidence intervals for selected parameters"
(2005): each of the R selected (rejected) effects gets its interval at level 1 - R alpha/m, and the expected
share of selected intervals that miss their effect is at most alpha; unselected effects get none (None).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from survey.errors import SurveyError
from survey.stats.multiplicity import adjust_pvalues

FAMILY_METHODS = ("holm", "bh")
FAMILY_WORDS = {"holm": "Holm (family-wise error)", "bh": "Benjamini-Hochberg (false discovery rate)"}


def check_family(method: str) -> str:
    """The family's method, validated once at a public entry point."""
    if method not in FAMILY_METHODS:
        raise SurveyError(f"family must be one of {', '.join(FAMILY_METHODS)}; got '{method}'")
    return method


def adjust(pvalues, method: str = "holm") -> np.ndarray:
    """Adjusted p-values of one family: Holm (1979) or Benjamini-Hochberg (1995), equal to
    statsmodels.stats.multitest.multipletests(pvalues, method="holm" | "fdr_bh")[1]; NaN stays NaN."""
    return adjust_pvalues(pvalues, check_family(method))


def interval_levels(adjusted, alpha: float, method: str = "holm") -> list[float | None]:
    """The confidence level of each test's interval for its family (module docstring): Holm: 1 - alpha/m
    (Bonferroni-simultaneous); BH: 1 - R alpha/m for the R effects selected at q = alpha, None for the others."""
    adjusted = np.asarray(adjusted, dtype=float)
    m = int(np.count_nonzero(~np.isnan(adjusted)))
    if m == 0:
        return [None] * len(adjusted)
    if check_family(method) == "holm":
        return [None if np.isnan(p) else 1 - alpha / m for p in adjusted]
    selected = adjusted <= alpha
    r = int(np.count_nonzero(selected))
    return [1 - r * alpha / m if s else None for s in selected]


@dataclass(frozen=True)
class FamilyDecision:
    """Per test: the adjusted p-value, whether it rejects at alpha, the level of its family interval (None: no
    interval, a BH effect not selected), and whether it belongs to the primary (deciding) question."""

    pvalue_adjusted: tuple[float, ...]
    significant: tuple[bool, ...]
    levels: tuple[float | None, ...]
    decides: tuple[bool, ...]
    gate_open: bool | None  # None: no primary named; else whether every primary test rejected


def decide_family(pvalues, primary, alpha: float = 0.05, method: str = "holm") -> FamilyDecision:
    """Adjust one model's tests over questions x pairs. ``primary``: per test, whether it belongs to the
    primary question (all False: no primary, one family over everything at ``method``). With a primary, its
    tests are Holm-adjusted among themselves (one test: its p-value as it is) at alpha, and the others form the
    secondary family at ``method``, gated by the primary (serial gatekeeping, module docstring)."""
    check_family(method)
    p = np.asarray(pvalues, dtype=float)
    first = np.asarray(primary, dtype=bool)
    if p.shape != first.shape:
        raise SurveyError("decide_family: one primary flag per p-value")
    adjusted = np.full(p.shape, np.nan)
    levels: list[float | None] = [None] * len(p)
    gate = None
    if not first.any():
        adjusted[:] = adjust(p, method)
        levels = interval_levels(adjusted, alpha, method)
    else:
        adjusted[first] = adjust(p[first], "holm")
        gate_p = float(np.nanmax(adjusted[first])) if np.any(~np.isnan(adjusted[first])) else np.nan
        gate = bool(gate_p <= alpha)
        for i, level in zip(np.flatnonzero(first), interval_levels(adjusted[first], alpha, "holm"), strict=True):
            levels[i] = level
        rest = ~first
        if rest.any():
            adjusted[rest] = np.fmax(adjust(p[rest], method), gate_p)  # NaN (no test) stays NaN
            # A closed gate tests no secondary, so none gets a family interval: one excluding 0 beside the
            # verdict "no reliable difference" would contradict it.
            secondary_levels = interval_levels(adjusted[rest], alpha, method) if gate else [None] * int(rest.sum())
            for i, level in zip(np.flatnonzero(rest), secondary_levels, strict=True):
                levels[i] = level
    significant = tuple(bool(x <= alpha) for x in adjusted)
    return FamilyDecision(tuple(float(x) for x in adjusted), significant, tuple(levels),
                          tuple(bool(x) for x in first), gate)


def effect_correlation(x: dict, y: dict) -> tuple[float | None, int]:
    """(Pearson r, n) of two questions' per-cell effects over the cells both have (same keys); r is None with
    fewer than three shared cells or no spread. A high r says the two questions move together across
    paraphrases: they may measure the same signal."""
    keys = [k for k in x if k in y and np.isfinite(x[k]) and np.isfinite(y[k])]
    if len(keys) < 3:
        return None, len(keys)
    a = np.array([x[k] for k in keys], dtype=float)
    b = np.array([y[k] for k in keys], dtype=float)
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return None, len(keys)
    return float(np.corrcoef(a, b)[0, 1]), len(keys)


def correlation_interval(r: float | None, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """Fisher's z interval of a Pearson r over n paraphrase pairs (Fisher, "On the probable error of a coefficient
    of correlation deduced from a small sample", 1921): tanh(atanh(r) -+ z / sqrt(n - 3)), the pairs taken as
    independent draws (they are: paraphrase pairs are exchanged, not personas). (-1, 1) with n <= 3; None
    without an r."""
    if r is None:
        return None
    if n <= 3:
        return (-1.0, 1.0)
    with np.errstate(divide="ignore"):  # r = +-1 (two questions carrying one signal): the interval is that point
        z = np.arctanh(np.clip(r, -1.0, 1.0))
    half = float(stats.norm.ppf(0.5 + confidence / 2)) / np.sqrt(n - 3)
    return float(np.tanh(z - half)), float(np.tanh(z + half))


__all__ = ["FAMILY_METHODS", "FAMILY_WORDS", "FamilyDecision", "adjust", "check_family", "correlation_interval",
           "decide_family", "effect_correlation", "interval_levels"]
