"""Weights that carry the personas' conclusions to a target market: raking to target margins.

Raking (iterative proportional fitting, Deming & Stephan 1940) adjusts persona weights until the weighted
share of every level of every target attribute equals the target's; with one attribute it is
post-stratification. We use ``ipfn`` (the IPF engine Meta's ``balance`` rakes with) on a persona-level
table: light (numpy and pandas only) and N-dimensional. The weights depend on the persona attributes alone
and are fixed before any answer is read, so the weighted sign-flip test over paraphrase pairs stays exact.

Diagnostics, as a survey statistician reads them: Kish's design effect 1 + CV(w)^2, the effective number of
personas n / deff, the margins before and after weighting, the largest and smallest weight.
"""

from __future__ import annotations

import contextlib
import io
import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from survey.common.display import Display
from survey.errors import SurveyError
from survey.stats.segments.definition import check_bins, parse_bin

SHARE_TOLERANCE = 0.01  # target shares of one attribute must sum to 1 within this (then are rescaled)
MARGIN_TOLERANCE = 0.001  # a weighted margin further than this from its target share is refused as out of reach


@dataclass(frozen=True)
class Target:
    """Target margins: attribute -> {level: share}. A numeric attribute's levels are bins ('18-34', '55+').

    ``source``: where the margins came from (a file name, or 'given in code')."""

    margins: dict[str, dict[str, float]]
    source: str = "given in code"

    def __post_init__(self):
        if not isinstance(self.margins, dict) or not self.margins:
            raise SurveyError("a target gives shares per level of at least one attribute, e.g. "
                              "{'gender': {'male': 0.49, 'female': 0.51}}")
        clean = {}
        for attr, shares in self.margins.items():
            if not isinstance(shares, dict) or not shares:
                raise SurveyError(f"target attribute '{attr}': give shares per level, e.g. male = 0.49")
            values = {}
            for level, share in shares.items():
                try:
                    values[str(level)] = float(share)
                except (TypeError, ValueError):
                    raise SurveyError(f"target share of {attr} = {level}: '{share}' is not a number") from None
                if not math.isfinite(values[str(level)]) or values[str(level)] < 0:
                    raise SurveyError(f"target share of {attr} = {level} must be a number from 0 to 1; got {share}")
            total = sum(values.values())
            if abs(total - 1) > SHARE_TOLERANCE:
                raise SurveyError(f"target shares of '{attr}' sum to {total:.4g}; they must sum to 1")
            clean[str(attr)] = {k: v / total for k, v in values.items()}
        object.__setattr__(self, "margins", clean)

    def to_dict(self) -> dict:
        return {"source": self.source, "margins": self.margins}


def _levels(values: pd.Series, attr: str, levels: list[str]) -> pd.Series:
    """Each persona's level of ``attr`` in the target's terms: its value, or the bin that holds it."""
    numeric = pd.to_numeric(values, errors="coerce")
    try:
        bins = [parse_bin(x) for x in levels]
    except SurveyError:
        bins = None
    if bins is not None and numeric.notna().all() and not all(str(v) in levels for v in values):
        check_bins(bins, attr)
        out = pd.Series(pd.NA, index=values.index, dtype=object)
        for b in bins:
            out[b.holds(numeric)] = b.label
        return out
    return values.map(lambda v: None if pd.isna(v) else str(v))


@dataclass(repr=False)
class PersonaWeights(Display):
    """One weight per persona (mean 1) and how far weighting had to stretch the personas.

    ``weights``: persona id -> weight; ``target``: the margins met (None for weights given directly);
    ``before``/``after``: attribute -> level -> share, unweighted and weighted; ``rests_on``: what the
    weights rest on, for every result that uses them."""

    weights: pd.Series
    target: Target | None = None
    before: dict = field(default_factory=dict)
    after: dict = field(default_factory=dict)
    method: str = "given"

    @property
    def design_effect(self) -> float:
        """Kish's design effect of unequal weights: n sum(w^2) / (sum w)^2 = 1 + CV(w)^2."""
        w = self.weights.to_numpy(dtype=float)
        return float(len(w) * (w ** 2).sum() / w.sum() ** 2)

    @property
    def effective_personas(self) -> float:
        return float(len(self.weights) / self.design_effect)

    @property
    def rests_on(self) -> str:
        where = f"raked to target margins ({self.target.source})" if self.target else "given per persona"
        return (f"persona weights {where}, fixed from persona attributes before any answer is read; design effect "
                f"{self.design_effect:.2f}, {self.effective_personas:.1f} effective of {len(self.weights)} personas; "
                "the interval is about these personas' weighted effect (the population's only when personas of a "
                "cell share one effect)")

    def display_parts(self):
        rows = [{"attribute": a, "level": lvl, "target": (self.target.margins[a].get(lvl) if self.target else None),
                 "before": b, "after": self.after.get(a, {}).get(lvl)}
                for a, levels in self.before.items() for lvl, b in levels.items()]
        return f"Persona weights ({self.method}): {len(self.weights)} personas", rows, [self.rests_on]

    def to_dict(self) -> dict:
        w = self.weights
        return {"method": self.method, "personas": len(w), "design_effect": self.design_effect,
                "effective_personas": self.effective_personas, "max_weight": float(w.max()),
                "min_weight": float(w.min()), "target": self.target.to_dict() if self.target else None,
                "margins_before": self.before, "margins_after": self.after, "rests_on": self.rests_on}


def given_weights(weights, personas: list[str] | None = None) -> PersonaWeights:
    """Weights given per persona (a dict or Series persona -> weight), checked and scaled to mean 1."""
    w = pd.Series(weights, dtype=float) if not isinstance(weights, pd.Series) else weights.astype(float)
    w.index = w.index.map(str)
    if w.empty or not np.isfinite(w.to_numpy()).all() or (w < 0).any() or w.sum() <= 0:
        raise SurveyError("persona weights must be finite, non-negative numbers, not all 0")
    if personas is not None:
        missing = [p for p in personas if p not in w.index]
        if missing:
            raise SurveyError(f"no weight for persona(s) {', '.join(missing[:5])}; give every persona a weight")
    return PersonaWeights(w / w.mean())


def rake(attributes: pd.DataFrame, target: Target | dict, *, max_iterations: int = 1000,
         tolerance: float = 1e-10) -> PersonaWeights:
    """Persona weights whose weighted margins equal the target's (raking; post-stratification for one attribute).

    ``attributes``: index persona id, one column per attribute. A persona whose level the target does not
    list, and a target level with a positive share but no persona (weighting cannot reach it), are errors; so
    are margins no weighting of these personas meets within MARGIN_TOLERANCE (UnreachableTargetError)."""
    from ipfn import ipfn

    target = target if isinstance(target, Target) else Target(target)
    ids = attributes.index.map(str)
    n = len(ids)
    if n == 0:
        raise SurveyError("no personas to weight")
    before, codes, present, levels_of = {}, [], [], {}
    for attr, shares in target.margins.items():
        if attr not in attributes.columns:
            known = ", ".join(sorted(map(str, attributes.columns))) or "none"
            raise SurveyError(f"target attribute '{attr}' is not a persona attribute; the personas have: {known}")
        levels = _levels(attributes[attr], attr, list(shares))
        outside = np.flatnonzero((levels.isna() | ~levels.isin(list(shares))).to_numpy())
        if len(outside):
            i = outside[0]
            raise SurveyError(f"persona {ids[i]} has {attr} = {attributes[attr].iloc[i]}, which the target does not "
                              f"list (it lists {', '.join(shares)}); add that level (a share of 0 is allowed)")
        empty = [lvl for lvl, s in shares.items() if s > 0 and not (levels == lvl).any()]
        if empty:
            raise SurveyError(f"target cell {attr} = {', '.join(empty)} has no persona, so no weighting can reach "
                              "it; add personas of that level (survey personas generate --target) or drop it from "
                              "the target")
        levels_of[attr] = levels
        kept = [lvl for lvl in shares if (levels == lvl).any()]  # a level without personas has share 0 here
        present.append(kept)
        codes.append(levels.map({lvl: k for k, lvl in enumerate(kept)}).to_numpy(dtype=int))
        before[attr] = {lvl: float((levels == lvl).mean()) for lvl in shares}
    # IPF on the cross-classified table of persona counts (as balance does): every persona of a cell gets
    # the cell's fitted total over its count, so weights depend on the attributes alone
    seed = np.zeros([len(k) for k in present])
    cell = tuple(codes)
    np.add.at(seed, cell, 1.0)
    aggregates = [np.array([target.margins[attr][lvl] * n for lvl in kept])
                  for attr, kept in zip(target.margins, present, strict=True)]
    # ipfn prints why it stopped to stdout whatever ``verbose`` says: nothing of a dependency may reach a --json
    # document or a notebook cell. Its "converged" flag is also set when progress merely stalls (margins out of
    # reach), so the margins reached are checked below instead (rate_tolerance 0: no stopping on a stall).
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        fitted, _ = ipfn.ipfn(seed.copy(), aggregates, [[k] for k in range(len(present))],
                              convergence_rate=tolerance, max_iteration=max_iterations, verbose=1,
                              rate_tolerance=0).iteration()
    w = pd.Series(np.nan_to_num(fitted[cell] / seed[cell], nan=0.0, posinf=0.0), index=ids)
    after = {attr: {lvl: float(w[code == kept.index(lvl)].sum() / w.sum()) if lvl in kept and w.sum() > 0 else 0.0
                    for lvl in shares}
             for attr, shares, code, kept in zip(target.margins, target.margins.values(), codes, present, strict=True)}
    missed = [(attr, lvl, share, after[attr][lvl]) for attr, shares in target.margins.items()
              for lvl, share in shares.items() if not abs(after[attr][lvl] - share) <= MARGIN_TOLERANCE]
    if missed:
        raise UnreachableTargetError(_unreachable_message(missed, levels_of, target))
    return PersonaWeights(w / w.mean(), target, before, after, "raking" if len(present) > 1 else "post-stratification")


def _unreachable_message(missed: list, levels_of: dict[str, pd.Series], target: Target) -> str:
    """One line: the margins missed and why no weighting of these personas meets them. When every margin's
    cell of the cross table holds a persona, raking always reaches positive margins, so the cause is always
    missing combinations: said as "every persona with A = x has B = y" where the personas tie two attributes,
    else as the empty combinations."""
    shown = ", ".join(f"{a} = {lvl} reached {got:.3g} (target {want:.3g})" for a, lvl, want, got in missed[:4])
    more = f" and {len(missed) - 4} more" if len(missed) > 4 else ""
    tied = {}  # (a, x, b, y): every persona with a = x has b = y
    for a, la in levels_of.items():
        for b, lb in levels_of.items():
            if a != b and lb.nunique() > 1:
                for x in pd.unique(la):
                    held = pd.unique(lb[la == x])
                    if len(held) == 1:
                        tied[(a, x, b, held[0])] = int((la == x).sum())
    ties = []
    for (a, x, b, y), n in tied.items():
        both = (b, y, a, x) in tied
        if both and list(tied).index((b, y, a, x)) < list(tied).index((a, x, b, y)):
            continue  # a tie both ways is said once
        zero = [f"{c} = {v}" for c, v in ((a, x), (b, y)) if target.margins[c].get(v) == 0]
        zero_note = f" (the target gives {' and '.join(zero)} a share of 0)" if zero else ""
        ties.append((f"the personas with {a} = {x} ({n}) are exactly those with {b} = {y}" if both else
                     f"every persona with {a} = {x} ({n}) has {b} = {y}") + zero_note)
    why = "; ".join(ties[:3]) + (f"; and {len(ties) - 3} more such ties" if len(ties) > 3 else "")
    if not why:
        cells = pd.DataFrame(levels_of).value_counts()
        full = pd.MultiIndex.from_product([list(target.margins[a]) for a in levels_of], names=list(levels_of))
        empty = [" and ".join(f"{a} = {v}" for a, v in zip(levels_of, key, strict=True))
                 for key in full if key not in cells.index]
        why = "no persona is " + "; none is ".join(empty[:3]) + (f" (and {len(empty) - 3} more empty combinations)"
                                                                  if len(empty) > 3 else "")
    return (f"the personas cannot meet the target margins: {shown}{more}; {why}. Add personas of the missing "
            "combinations (survey personas generate --target) or change the margins")


class UnreachableTargetError(SurveyError):
    """Target margins no weighting of these personas meets (a combination of levels the margins need is missing)."""


__all__ = ["MARGIN_TOLERANCE", "PersonaWeights", "Target", "UnreachableTargetError", "given_weights", "rake"]
