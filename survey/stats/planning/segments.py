"""Personas needed per segment: power of each segment's test and of the segment x message interaction.

    plan_segments(BinaryPlan(delta=0.4, rho=0.3), segments=3, pairs=20, replicates=5, target_power=0.8)
    plan_segments(BinaryPlan(delta=0.0), segments={"male": 40, "female": 55}, interaction_delta=0.8)

The surveys are simulated with survey.stats.segments.simulate_segment_cells: the Beta-logit model (Yes/No) or
the ordinal model (rating scales) of Helm & Priebe (2026), "When prompt perturbations break your A/B test",
with every segment's personas sharing the paraphrase shifts u_j. Power is the rejection rate of
  - each segment's sign-flip test over the m paraphrase pairs (on the segment's persona-averaged
    differences D_j^s), after Holm's (default) or Bonferroni's adjustment across the K segments at ``alpha``;
    every segment has the effect ``delta``, so they are exchangeable and their rejection rates are pooled;
  - the interaction test of two segments whose effects are delta + interaction_delta/2 and
    delta - interaction_delta/2: the sign-flip test of E_j = D_j^1 - D_j^2 at ``alpha`` (survey.stats.segments
    .interaction_test; its null is equal effects, exact when A and B are exchangeable in both segments), or
    the kind's own as its analysis runs it (a checkbox: per option, Holm across the options).
Personas per segment n are searched by doubling from 4 and then bisection, each n with its own seed;
the recommendation is the smallest n whose simulated power reaches the target. Because the shared shifts do
not average out over personas, power at fixed m levels off as n grows: past ``max_personas`` per segment
the plan says the target is out of reach with m pairs and that more pairs are needed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from survey.common.display import Display
from survey.common.limits import PLAN_PAIRS_MAX, SEGMENTS_MAX, WHY, check_count, check_simulation_work
from survey.common.options import options_from
from survey.common.threads import one_blas_thread
from survey.errors import SurveyError
from survey.responses import response_type
from survey.stats.multiplicity import holm_rows
from survey.stats.permutation import cannot_reject_note
from survey.stats.planning.model import PowerModel
from survey.stats.planning.params import PlanSource
from survey.stats.planning.power import mc_error
from survey.stats.segments.analysis import SEGMENT_ADJUSTMENTS
from survey.stats.segments.simulation import SimSegment, simulate_segment_cells

MAX_PERSONAS = 1024  # per segment: past this, more personas barely move power at fixed m (shared shifts)
_MAX_CELLS = 4_000_000  # simulated (survey, persona, pair) cells per batch: a few tens of MB


def adjusted_rejections(p: np.ndarray, alpha: float, adjustment: str) -> np.ndarray:
    """(S, K) booleans: which of each survey's K p-values are rejected at family-wise ``alpha`` by Holm's
    step-down (Holm 1979) or Bonferroni; row by row, as survey.stats.multiplicity.adjust_pvalues would."""
    if adjustment == "bonferroni":
        return p * p.shape[1] <= alpha
    return holm_rows(p) <= alpha


@dataclass(frozen=True)
class SegmentDesign:
    """What is simulated: the kind's model keywords for simulate_segment_cells, pairs m, replicates r, and the
    draws its simulator makes per (persona, pair) cell (None: one per point of the scale)."""

    scale: str
    model: dict
    pairs: int
    replicates: int
    draws: int | None = None


def _simulate(design: SegmentDesign, segments: list[SimSegment], simulations: int, seed, read) -> np.ndarray:
    """``read(cells)`` of every batch of simulated surveys (survey.stats.segments.SegmentCells), concatenated
    over the surveys; the batches bound memory."""
    n = sum(s.n for s in segments)
    width = design.draws or max(1, len(response_type(design.scale).view.points or ()) - 1)
    step = max(1, _MAX_CELLS // (n * design.pairs * width))
    rng = np.random.default_rng(seed)
    parts = []
    for start in range(0, simulations, step):
        cells = simulate_segment_cells(segments, design.pairs, design.replicates, scale=design.scale,
                                       surveys=min(step, simulations - start), seed=rng, **design.model)
        parts.append(read(cells))
    return np.concatenate(parts)


def segment_power(design: SegmentDesign, sizes: list[int], delta: float, alpha: float, adjustment: str,
                  simulations: int, seed=0, flips: int = 1000) -> np.ndarray:
    """Per segment: the rate at which its test (the sign-flip test over pairs, or the kind's own deciding test)
    rejects after the adjustment across segments."""
    p = _simulate(design, [SimSegment(f"s{k}", n, delta) for k, n in enumerate(sizes)], simulations, seed,
                  lambda cells: cells.segment_pvalues(flips, seed))
    return adjusted_rejections(p, alpha, adjustment).mean(axis=0)


def interaction_power(design: SegmentDesign, sizes: tuple[int, int], delta: float, interaction_delta: float,
                      alpha: float, simulations: int, seed=0, flips: int = 1000) -> float:
    """Rate at which the interaction test rejects at ``alpha`` as the kind's analysis runs it: the sign-flip test
    of E_j = D_j^1 - D_j^2 (D_j^s the differences the kind's interaction reads), or the kind's own (a checkbox's
    per option, Holm across the options; SegmentCells.interaction_pvalues)."""
    half = interaction_delta / 2
    segs = [SimSegment("s1", sizes[0], delta + half), SimSegment("s2", sizes[1], delta - half)]
    p = _simulate(design, segs, simulations, seed, lambda cells: cells.interaction_pvalues(flips, seed))
    return float(np.mean(p <= alpha))


def smallest_n(power_at, target: float, max_personas: int = MAX_PERSONAS) -> tuple[int | None, dict[int, float]]:
    """The smallest n in 2..max_personas with power_at(n) >= target (doubling from 4, then bisection; power
    taken as increasing in n), and every power computed. None when max_personas falls short."""
    seen: dict[int, float] = {}

    def power(n: int) -> float:
        if n not in seen:
            seen[n] = float(power_at(n))
        return seen[n]

    lo, hi = 1, 4
    while power(hi) < target:
        if hi >= max_personas:
            return None, seen
        lo, hi = hi, min(2 * hi, max_personas)
    while hi - lo > 1:  # lo = 1 is below the smallest design (2 personas): taken as short of the target
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if power(mid) >= target else (mid, hi)
    return hi, seen


@dataclass(repr=False)
class SegmentPlan(Display):
    """Personas needed per segment for ``target_power`` on each segment's effect and on the interaction."""

    describe: str
    segments: int
    pairs: int
    replicates: int
    alpha: float
    adjustment: str
    target_power: float
    simulations: int
    seed: int
    per_segment: dict  # n needed, its power, the powers tried
    interaction: dict | None
    current: list[dict] = field(default_factory=list)  # given sizes: power at each, personas still needed
    warnings: list[str] = field(default_factory=list)
    prompts: int = 2  # queries per persona, pair and replicate (a ranking of k: its k arrangements)
    flips: int = 1000  # sign vectors per test past m = 12 (raised where a segment's test adjusts within)

    def queries(self, n: int | None) -> int | None:
        return None if n is None else self.prompts * self.segments * n * self.pairs * self.replicates

    def display_parts(self):
        rows = [{"for": "each segment's effect", "personas per segment": self.per_segment["n"],
                 "power": self.per_segment["power"], "queries": self.queries(self.per_segment["n"])}]
        if self.interaction:
            rows.append({"for": "the interaction", "personas per segment": self.interaction["n"],
                         "power": self.interaction["power"], "queries": self.queries(self.interaction["n"])})
        title = (f"Segment plan: {self.segments} segments, m = {self.pairs} pairs, r = {self.replicates}, "
                 f"target power {self.target_power:g}")
        return title, rows, [self.describe, *self.warnings]

    def to_dict(self) -> dict:
        return {"segments": self.segments, "pairs": self.pairs, "replicates": self.replicates, "alpha": self.alpha,
                "adjustment": self.adjustment, "target_power": self.target_power, "simulations": self.simulations,
                "seed": self.seed, "flips": self.flips, "mc_error": mc_error(self.simulations), "model": self.describe,
                "per_segment": {**self.per_segment, "queries": self.queries(self.per_segment["n"])},
                "interaction": (None if self.interaction is None else
                                {**self.interaction, "queries": self.queries(self.interaction["n"])}),
                "current": self.current, "warnings": self.warnings}


def _design(params: PowerModel, pairs: int, replicates: int,
            source: PlanSource | None = None) -> tuple[SegmentDesign, str]:
    """What is simulated: the kind's segment model (its power model's ``segment_model``), and its words."""
    model, where = params.segment_model(source)
    text = ", ".join(f"{k}={v:g}" if np.ndim(v) == 0 else f"{k}=({', '.join(f'{x:g}' for x in v)})"
                     for k, v in model.items())
    return (SegmentDesign(params.scale, model, pairs, replicates, params.segment_draws(replicates)),
            f"{params.scale} ({where}): {text}, delta={params.segment_delta():g}")


@dataclass(frozen=True)
class SegmentPlanOptions:
    """How plan_segments() designs and simulates, checked once when built: ``pairs`` and ``replicates`` per
    persona, ``interaction_delta`` (None: no interaction planned), ``target_power``, ``alpha`` and its
    ``adjustment`` across segments, ``simulations``, ``flips``, ``seed`` and the largest n searched
    (``max_personas``)."""

    pairs: int = 20
    replicates: int = 5
    interaction_delta: float | None = None
    target_power: float = 0.8
    alpha: float = 0.05
    adjustment: str = "holm"
    simulations: int = 1000
    flips: int = 1000
    seed: int = 0
    max_personas: int = MAX_PERSONAS

    def __post_init__(self):
        if self.pairs < 2 or self.replicates < 1:
            raise SurveyError(f"a segment plan needs m >= 2 pairs and r >= 1 replicate; got m={self.pairs}, "
                              f"r={self.replicates}")
        check_count(self.pairs, "pairs", 2, PLAN_PAIRS_MAX, WHY["pairs"])
        if not 0 < self.alpha < 1 or not 0 < self.target_power < 1:
            raise SurveyError(f"alpha and target power must lie between 0 and 1; got {self.alpha:g} and "
                              f"{self.target_power:g}")
        if not 20 <= self.simulations <= 1_000_000:
            raise SurveyError(f"simulations must be from 20 to 1,000,000; got {self.simulations}")
        if self.adjustment not in SEGMENT_ADJUSTMENTS:
            raise SurveyError(f"adjustment across segments must be holm or bonferroni; got '{self.adjustment}'")
        if self.max_personas < 4:
            raise SurveyError(f"max_personas must be at least 4; got {self.max_personas}")


def _check(segments, options: SegmentPlanOptions) -> list[int]:
    """The segments' current sizes ([] for a number of segments), checked with the work they would cost."""
    if isinstance(segments, Mapping):
        sizes = [int(v) for v in segments.values()]
        if any(n < 1 for n in sizes):
            raise SurveyError("every segment needs at least one persona")
    else:
        if isinstance(segments, bool) or not isinstance(segments, int | np.integer):
            raise SurveyError(f"segments: give a number of segments (>= 2) or segment -> personas; got {segments!r}")
        sizes = []
    k = len(sizes) if sizes else int(segments)
    if k < 2:
        raise SurveyError(f"a segment plan needs at least 2 segments; got {k} (for one group plan without segments)")
    check_count(k, "segments", 2, SEGMENTS_MAX, WHY["segments"])
    # the search may simulate every segment at max_personas: bound that worst case, before anything runs
    o = options
    most = max([o.max_personas, *sizes])
    check_simulation_work(float(o.simulations) * k * most * o.pairs * o.replicates,
                          f"{o.simulations} simulations x {k} segments x up to {most} personas x {o.pairs} pairs x "
                          f"{o.replicates} replicates",
                          "lower --simulations, --pairs, --replicates or the segments")
    return sizes


def plan_segments(params: PowerModel, segments: int | Mapping[str, int], *, source: PlanSource | None = None,
                  options: SegmentPlanOptions | None = None, **keywords) -> SegmentPlan:
    """Personas needed per segment for ``target_power`` on each of K segments' effect ``params.delta``
    (adjusted across segments) and, with ``interaction_delta``, on the interaction of two segments whose
    effects differ by it. ``segments``: K, or segment name -> personas it has now (e.g. from a persona set);
    then the plan also gives the power at those sizes and the personas each segment still needs. ``source``
    (Yes/No only): mu, kappa, sigma, rho not given are read from an estimate or fitted on a table. The design
    and simulation settings are SegmentPlanOptions' fields, given as keywords or as ``options``."""
    o = options_from(SegmentPlanOptions, options, keywords, where="plan_segments")
    sizes = _check(segments, o)
    pairs, replicates, interaction_delta, target_power = o.pairs, o.replicates, o.interaction_delta, o.target_power
    alpha, adjustment, simulations, flips, seed = o.alpha, o.adjustment, o.simulations, o.flips, o.seed
    max_personas = o.max_personas
    k = len(sizes) or int(segments)
    design, text = _design(params, pairs, replicates, source)
    delta = params.segment_delta()
    flips = params.flips_for(flips, alpha / k)  # a kind that adjusts within a segment too needs finer p-values
    warnings = []
    note = cannot_reject_note(pairs, alpha / k)  # Holm's first step is Bonferroni's: nothing rejects below it
    if note:
        warnings.append(f"{note} (alpha / {k} segments); no n per segment gives power: raise the pairs")
    with one_blas_thread():
        n_seg, tried = smallest_n(lambda n: segment_power(design, [n] * k, delta, alpha, adjustment, simulations,
                                                          [seed, 1, n], flips).mean(), target_power, max_personas)
        per_segment = {"n": n_seg, "power": tried.get(n_seg) if n_seg else None,
                       "power_at_max": tried.get(max_personas), "tried": dict(sorted(tried.items()))}
        interaction = None
        if interaction_delta is not None:
            n_int, tried_i = smallest_n(lambda n: interaction_power(design, (n, n), delta, float(interaction_delta),
                                                                    alpha, simulations, [seed, 2, n], flips),
                                        target_power, max_personas)
            interaction = {"n": n_int, "power": tried_i.get(n_int) if n_int else None,
                           "interaction_delta": float(interaction_delta),
                           "effects": [delta + interaction_delta / 2, delta - interaction_delta / 2],
                           "power_at_max": tried_i.get(max_personas), "tried": dict(sorted(tried_i.items()))}
        current = []
        if sizes:
            powers = segment_power(design, sizes, delta, alpha, adjustment, simulations, [seed, 3], flips)
            for (name, n), pw in zip(segments.items(), powers, strict=True):
                current.append({"segment": name, "personas": n, "power": float(pw),
                                "more_for_effect": None if n_seg is None else max(0, n_seg - n),
                                "more_for_interaction": (None if not interaction or interaction["n"] is None
                                                         else max(0, interaction["n"] - n))})
    for what, res in (("each segment's effect", per_segment), ("the interaction", interaction)):
        if res is not None and res["n"] is None:
            warnings.append(f"power {target_power:g} on {what} is out of reach with m = {pairs} pairs: "
                            f"{max_personas} personas per segment give {res['power_at_max']:.3f}, and the shared "
                            "paraphrase shifts keep it from rising much further; raise the pairs")
    for what, res in (("each segment's effect", per_segment), ("the interaction", interaction)):
        half = [p for n, p in (res or {}).get("tried", {}).items() if res["n"] and n <= res["n"] // 2]
        if half and target_power - half[-1] < 0.05:
            warnings.append(f"power on {what} is nearly flat in the personas here ({half[-1]:.3f} at half the "
                            f"recommended n): the recommendation moves with Monte Carlo noise, and more pairs "
                            "buy more power than more personas")
    if delta == 0 and interaction_delta is None:
        warnings.append("delta = 0: the segment 'power' is the size of the adjusted tests")
    return SegmentPlan(f"{text} (B over A, latent logit); {simulations} simulated surveys per n", k, pairs,
                       replicates, alpha, adjustment, target_power, simulations, seed, per_segment, interaction,
                       current, warnings, params.prompts, flips)


__all__ = ["MAX_PERSONAS", "SEGMENT_ADJUSTMENTS", "SegmentPlan", "SegmentPlanOptions", "adjusted_rejections", "interaction_power",
           "plan_segments", "segment_power", "smallest_n"]
