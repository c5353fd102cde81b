"""A vs B for whom, and in which market: per-segment effects, their interaction and a weighted population
effect, for every analysis kind (survey.stats.kinds).

* **Segment effect.** The kind's own comparison on the segment's personas alone: D-bar_j^S is the mean over
  the segment's personas of each paraphrase pair's difference, and the sign-flip test over pairs is exact
  whatever the shared paraphrase variance rho (Helm & Priebe (2026), "When prompt perturbations break your
  A/B test"). Per-segment sign or Wilcoxon tests on personas are not: a paraphrase shifts every persona of
  the segment at once. Holm (or Bonferroni) adjusts across segments; the simultaneous intervals invert the
  same test at confidence 1 - alpha / K (Bonferroni), so they hold jointly.
* **Interaction**: survey.stats.segments.interaction. A kind whose result decides by a family of tests (its
  ``interaction_parts()``: a checkbox's options) is compared part by part, every segment on the same option,
  with Holm across the parts (survey.stats.segments.interaction.interaction_by_part).
* **Population effect.** With persona weights fixed from attributes (raking to target margins,
  survey.stats.segments.weights), each pair's difference is the weighted mean over personas and the
  sign-flip test runs on those weighted pair means, still exact. Like every result here, it is about these
  personas (weighted): a conclusion about people needs people (survey.stats.ppi).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from survey.common.display import Display
from survey.errors import SurveyError
from survey.stats.effect import effect_ci
from survey.stats.multiplicity import adjust_pvalues, deciding_part
from survey.stats.permutation import cannot_reject_note
from survey.stats.segments.definition import Segmentation
from survey.stats.segments.interaction import InteractionResult, interaction_by_part, interaction_test
from survey.stats.segments.weights import PersonaWeights

MIN_SEGMENT_PERSONAS = 10  # below this a segment's effect rests on a handful of personas: said so
SEGMENT_ADJUSTMENTS = ("holm", "bonferroni")


@dataclass
class SegmentEffect:
    """One segment's A vs B: the kind's comparison on its personas (``result``, an ABResult)."""

    segment: str
    n_personas: int
    result: object
    pvalue_adjusted: float = float("nan")
    simultaneous_ci: tuple[float, float] = (float("nan"), float("nan"))

    @property
    def effect(self) -> float:
        return float(self.result.effect.estimate)

    @property
    def ci(self) -> tuple[float, float]:
        return tuple(float(x) for x in self.result.effect.ci)

    @property
    def pvalue(self) -> float:
        return float(self.result.decision.pvalue)

    @property
    def part(self) -> str | None:
        """The part its effect is on, for a result decided by a family of tests (a checkbox's deciding option:
        each segment may decide on another one), else None."""
        return deciding_part(self.result)

    def to_dict(self) -> dict:
        out = {"segment": self.segment, "n_personas": self.n_personas, "effect": self.effect, "ci": list(self.ci),
               "pvalue": self.pvalue, "pvalue_adjusted": self.pvalue_adjusted,
               "simultaneous_ci": list(self.simultaneous_ci), "n_pairs": int(self.result.n_paired),
               "exact": bool(getattr(self.result.decision, "exact", True))}
        return out if self.part is None else {**out, self.result.part_word: self.part, "unit": self.result.unit}


def _on(result) -> str:
    """" on 'stylish'" for a result decided by a family of tests, else nothing."""
    part = deciding_part(result)
    return "" if part is None else f" on {result.part_word} '{part}'"


@dataclass
class PopulationEffect:
    """A vs B weighted to a target population: the kind's comparison with persona weights."""

    result: object
    weights: PersonaWeights

    def to_dict(self) -> dict:
        eff = self.result.effect
        return {"effect": float(eff.estimate), "ci": [float(x) for x in eff.ci],
                "pvalue": float(self.result.decision.pvalue), "design_effect": self.weights.design_effect,
                "effective_personas": self.weights.effective_personas, "n_pairs": int(self.result.n_paired),
                "weights": self.weights.to_dict(),
                **({} if deciding_part(self.result) is None else {self.result.part_word: deciding_part(self.result)})}


@dataclass(repr=False)
class SegmentAnalysis(Display):
    """For one model and pair of messages: ``segments`` (SegmentEffect each), ``interaction`` (None with one
    segment), ``population`` (None without weights), ``warnings`` about the design, ``left_out`` segments
    that could not be compared and why."""

    model: str
    a: str
    b: str
    by: str | None
    unit: str
    segments: list[SegmentEffect] = field(default_factory=list)
    interaction: InteractionResult | None = None
    population: PopulationEffect | None = None
    adjustment: str = "holm"
    alpha: float = 0.05
    warnings: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    attribute: str | None = None  # the attribute segmented by, for sentences ("gender male prefers ...")
    span: float = 1.0  # the scale's range: 1 for shares and P(Yes), said in percentage points
    amount_unit: str | None = None  # what one unit of the effect is called ("US dollars"); None: points

    def display_parts(self):
        rows = [{"segment": s.segment, "personas": s.n_personas, "effect": s.effect,
                 **({} if s.part is None else {s.result.part_word: s.part}), "CI": s.ci, "p": s.pvalue,
                 f"p ({self.adjustment})": s.pvalue_adjusted} for s in self.segments]
        if self.population is not None:
            d = self.population.to_dict()
            rows.append({"segment": "target population", "personas": round(d["effective_personas"], 1),
                         "effect": d["effect"], "CI": tuple(d["ci"]), "p": d["pvalue"], f"p ({self.adjustment})": None})
        notes = [self.sentence()] + (self._interaction_notes() if self.interaction else []) + self.warnings
        return f"{self.model}: {self.a} vs {self.b} by {self.by or 'weights'} (effect in {self.unit})", rows, notes

    def _interaction_notes(self) -> list[str]:
        i = self.interaction
        if i.parts is None:
            return [f"interaction p = {i.pvalue:.3g}; null: {i.null}"]
        w = i.part_word
        each = "; ".join(f"'{x[w]}' p = {x['pvalue']:.3g} (Holm {x['holm']:.3g})" for x in i.parts)
        return [f"interaction per {w} ({i.method}): {each}; deciding {w} '{i.part}', p = {i.pvalue:.3g}; "
                f"null: {i.null}"]

    def _amount(self, x: float) -> str:
        if self.amount_unit:
            return f"{abs(x):.3g} {self.amount_unit}"
        return f"{abs(x) * 100:.0f} percentage points" if self.span == 1 else f"{abs(x):.2g} points"

    def _range(self, lo: float, hi: float) -> str:
        k = 100 if self.span == 1 else 1
        return f"CI {lo * k:+.3g} to {hi * k:+.3g}"

    def sentence(self) -> str:
        """What a marketer reads: who prefers which message, and whether the segments differ."""
        prefix = f"{self.attribute} " if self.attribute else ""
        parts = []
        for s in self.segments:
            if s.pvalue_adjusted <= self.alpha:
                winner = self.a if s.effect > 0 else self.b
                parts.append(f"{prefix}{s.segment} prefers {winner} by {self._amount(s.effect)}{_on(s.result)} "
                             f"({self._range(*s.ci)})")
            else:
                parts.append(f"{prefix}{s.segment} shows no reliable difference")
        if self.interaction is not None:
            differ = ("the segments differ" if self.interaction.pvalue <= self.alpha
                      else "the segments do not differ reliably")
            i = self.interaction
            if i.parts is not None:  # a family: the deciding part named, its p Holm-adjusted across the parts
                differ = (f"the segments differ on {i.part_word} '{i.part}'" if i.pvalue <= self.alpha else
                          f"the segments do not differ reliably on any {i.part_word}")
                parts.append(f"{differ}, p = {i.pvalue:.2g} (Holm over {len(i.parts)} {i.part_word}s)")
            else:
                parts.append(f"{differ}, p = {i.pvalue:.2g}")
        if self.population is not None:
            d = self.population.to_dict()
            unit = self.amount_unit or ("percentage points" if self.span == 1 else "points")
            parts.append(f"weighted to the target population, these personas' effect is "
                         f"{d['effect'] * (100 if self.span == 1 else 1):+.3g} "
                         f"{unit}{_on(self.population.result)} ({self._range(*d['ci'])}, p = {d['pvalue']:.2g})")
        text = "; ".join(parts)  # a target alone has no segment: the sentence starts at the weighted effect
        return (text + f" (effect {self.unit}, {self.a} − {self.b}; about these personas)") if text else ""

    def to_dict(self) -> dict:
        return {"by": self.by, "adjustment": self.adjustment,
                "segments": [s.to_dict() for s in self.segments],
                "interaction": self.interaction.to_dict() if self.interaction else None,
                "population": self.population.to_dict() if self.population else None,
                "sentence": self.sentence(), "warnings": list(self.warnings), "segments_left_out": self.left_out}


def _pair_matrix(per: list[dict], names: list[str]) -> np.ndarray:
    """(K, m) per-pair differences (``per``: each segment's pair -> difference) over the pairs every segment
    has, in the first segment's pair order."""
    keys = [k for k in per[0] if all(k in p for p in per[1:])]
    if not keys:
        raise SurveyError(f"segments {', '.join(names)} share no paraphrase pair with valid answers")
    return np.array([[p[k] for k in keys] for p in per])


def _simultaneous(result, k: int, alpha: float, bounds) -> tuple[float, float]:
    """The segment's interval simultaneous over the k segments (Bonferroni), and over the tests its own decision is
    adjusted over (``decision_tests``: a checkbox's options), so that a segment the adjusted p calls no difference
    never gets a simultaneous interval excluding 0."""
    d = np.array(list(result.per_pair().values()), dtype=float)
    return effect_ci(d, confidence=1 - alpha / (k * getattr(result, "decision_tests", 1)), bounds=bounds).ci


def segment_analysis(df, model: str, a: str, b: str, kind, view, opts, segmentation: Segmentation | None,
                     weights: PersonaWeights | None = None, adjustment: str = "holm") -> SegmentAnalysis:
    """Per-segment comparisons of A and B for one model (the kind's ``compare`` on each segment's personas),
    their interaction over paraphrase pairs and, with ``weights``, the weighted population comparison.
    ``opts``: the CompareOptions of the pooled comparison."""
    if adjustment not in SEGMENT_ADJUSTMENTS:
        raise SurveyError(f"adjustment across segments must be holm or bonferroni; got '{adjustment}'")
    unit, amount_unit = kind.measured_in(df, view)
    out = SegmentAnalysis(model, a, b, segmentation.by if segmentation else None, unit, amount_unit=amount_unit,
                          adjustment=adjustment, alpha=opts.alpha, span=view.span,
                          attribute=segmentation.attribute if segmentation else None)
    results, names, sizes, joint = [], [], [], []
    persona = df["persona"].astype(str)
    planned = len(segmentation.segments) if segmentation else 0
    for name, ids in (segmentation.segments.items() if segmentation else ()):
        try:
            res = kind.compare(df[persona.isin(ids)], model, a, b, view, opts)
        except SurveyError as exc:
            out.left_out.append(f"{name}: {exc}")
            continue
        results.append(res)
        names.append(name)
        sizes.append(int(res.n_personas))
        # right after the segment's own interval, whose subset means survey.stats.effect still holds
        joint.append(_simultaneous(res, planned, opts.alpha, view.bounds))
    if results:
        units = {getattr(r, "unit", view.unit) for r in results}
        # segments decided by a family of tests may each decide on another part: each is named beside its effect
        out.unit = units.pop() if len(units) == 1 else \
            f"{view.unit} each segment's deciding {results[0].part_word}, named beside it"
        adj = adjust_pvalues([float(r.decision.pvalue) for r in results], adjustment)
        k = len(results)
        if k != planned:  # a segment left out: the others' joint intervals are over k segments
            joint = [_simultaneous(res, k, opts.alpha, view.bounds) for res in results]
        for name, size, res, p, ci in zip(names, sizes, results, adj, joint, strict=True):
            out.segments.append(SegmentEffect(name, size, res, float(min(p, 1.0)), ci))
        out.warnings += _design_warnings(out.segments, opts.alpha, adjustment)
    if len(results) >= 2:
        if segmentation.disjoint:
            out.interaction = _interaction(results, names, sizes, view.quantity, opts)
        else:
            out.warnings.append("the segments overlap (a persona is in more than one), so their effects are not "
                                "compared by an interaction test")
    if segmentation is not None and segmentation.left_out:
        out.warnings.append(f"{len(segmentation.left_out)} persona(s) fall in no segment and are left out of the "
                            "segment results (they stay in the pooled and population results)")
    if weights is not None:
        out.population = _population(df, model, a, b, kind, view, opts, weights)
        if weights.effective_personas < MIN_SEGMENT_PERSONAS:  # said as a small segment is
            out.warnings.append(f"the target population's effect rests on {weights.effective_personas:.1f} effective "
                                f"personas (fewer than {MIN_SEGMENT_PERSONAS}; design effect "
                                f"{weights.design_effect:.1f} of {len(weights.weights)} personas): it describes those "
                                "few personas; add personas of the levels the target weights up")
    return out


def _interaction(results: list, names: list[str], sizes: list[int], quantity: str, opts) -> InteractionResult:
    """The segments' interaction on what their results compare: the per-pair differences (``per_pair``), or for
    a result that decides by a family of tests (``interaction_parts()``: part -> per-pair differences, with
    ``part_word``) each part across the segments, Holm across the parts, so that segments are compared on the
    same part (never each on its own deciding one); ``interaction_ties`` says how the result's kind treats ties
    (a checkbox breaks them at random, as its own tests per option do)."""
    if not hasattr(results[0], "interaction_parts"):
        return interaction_test(_pair_matrix([r.per_pair() for r in results], names), sizes, names,
                                quantity=quantity, n_resamples=opts.flips, seed=opts.seed)
    per = [r.interaction_parts() for r in results]
    parts = {part: _pair_matrix([p[part] for p in per], names) for part in per[0]}
    return interaction_by_part(parts, sizes, names, part_word=getattr(results[0], "part_word", "part"),
                               quantity=quantity, n_resamples=opts.flips, seed=opts.seed,
                               ties=getattr(results[0], "interaction_ties", "count"))


def _population(df, model, a, b, kind, view, opts, weights: PersonaWeights) -> PopulationEffect:
    if not getattr(kind, "weighted", False):
        raise SurveyError(f"the {view.scale} analysis does not take persona weights (its kind does not set "
                          "weighted); analyse it unweighted or by segment")
    from dataclasses import replace

    res = kind.compare(df, model, a, b, view, replace(opts, weights=weights.weights.to_dict()))
    return PopulationEffect(res, weights)


def _design_warnings(segments: list[SegmentEffect], alpha: float, adjustment: str) -> list[str]:
    out = []
    small = [f"{s.segment} ({s.n_personas})" for s in segments if s.n_personas < MIN_SEGMENT_PERSONAS]
    if small:
        out.append(f"segment(s) with fewer than {MIN_SEGMENT_PERSONAS} personas: {', '.join(small)}; their effects "
                   "describe those few personas")
    k = len(segments)
    for s in segments:
        note = cannot_reject_note(int(s.result.n_paired), alpha / k if adjustment else alpha)
        if note:
            out.append(f"{s.segment}: {note} (after {adjustment} across {k} segments)")
            break
    return out


__all__ = ["MIN_SEGMENT_PERSONAS", "PopulationEffect", "SegmentAnalysis", "SegmentEffect", "segment_analysis"]
