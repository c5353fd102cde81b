"""Simulated surveys with segments: persona base rates and effects that differ by segment, paraphrase shifts
shared by every persona of every segment, replicate noise; for Yes/No, rating scales, forced choice and, each
from its own power model's draws, numeric, checkbox and ranking questions (survey/kinds/<kind>/segments.py).

The latent structure is the one of Helm & Priebe (2026), "When prompt perturbations break your A/B test",
with a segment s(i) per persona:

    lambda_ij^A = b_i + level_s(i) + u_j^A + v_ij^A
    lambda_ij^B = b_i + level_s(i) + delta_s(i) + u_j^B + v_ij^B     u_j ~ N(0, rho sigma^2), shared by all
                                                                      v_ij ~ N(0, (1 - rho) sigma^2)

Yes/No: b_i = logit of a Beta(mu, kappa) draw and P(Yes) = expit(lambda). A rating scale: b_i ~ N(0, tau^2) and
the answer follows the scale's cumulative-logit cut points (survey.kinds.ordinal.model). Forced choice: the two
messages are shown together in both orders; logit P(first) = logit(position) + level_s(i) + b_i +/- (U^A - U^B)
with b_i ~ N(0, tau^2) a persona's pull to the first position (survey.kinds.choice.model). delta has the
package's sign convention: positive favours B, so the effect A - B is negative.

A kind's segment simulator (its manifest's ``segments`` part) takes the context (rng, n, size, level, delta,
shifts) and the model's keywords, and returns (a, b, counts, to_table) and, optionally, a SegmentTests: the
kind's own per-segment test when the analysis decides by more than one sign-flip test (Holm over a checkbox's
options or over a ranking's pairs of messages), and its own interaction test when the analysis tests the
interaction as a family too (a checkbox: per option, Holm across the options).

``simulate_segment_cells`` batches S surveys in front of (persona, pair) for the size and power tables;
``segment_table`` turns one survey into a long table with a ``segment`` attribute column, so the same
surveys also run through survey.analyze.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from survey.common.kinds import kind_part
from survey.errors import SurveyError
from survey.responses import response_type
from survey.stats.permutation import sign_flip_pvalues
from survey.stats.segments.interaction import interaction_pvalues


@dataclass(frozen=True)
class SegmentTests:
    """A kind's own segment tests, for kinds whose deciding test is more than one sign-flip test over pairs (a
    checkbox's Holm over options, a ranking's Holm over pairs of messages): ``pvalues(cells, flips, seed)`` gives
    (S, K) p-values, ``differences(cells, flips, seed)`` the (S, K, m) per-pair differences its interaction
    reads (None: ``pair_differences``), ``interaction(cells, flips, seed)`` the (S,) interaction p-values when
    the analysis tests the interaction as a family (None: the interaction test of ``differences``)."""

    pvalues: object
    differences: object = None
    interaction: object = None


@dataclass(frozen=True)
class SimSegment:
    name: str
    n: int
    delta: float = 0.0  # shift of B over A on the latent scale (positive favours B)
    level: float = 0.0  # shift of the segment's persona base rates on the latent scale


@dataclass
class SegmentCells:
    """Per-cell summaries of S simulated surveys: ``a`` and ``b`` (S, n, m) are the two sides whose difference
    is each cell's A - B: theta-hat of A and of B (P(Yes), mean score), or for forced choice the share choosing
    A with A shown first and the share choosing B with B shown first (their difference is twice the cell's
    order-averaged preference, share A - share B). ``segment``: each persona's segment index; ``counts`` the raw
    counts and ``to_table`` the kind's long-table builder, for ``segment_table``."""

    a: np.ndarray
    b: np.ndarray
    segment: np.ndarray
    names: list[str]
    r: int
    counts: tuple
    to_table: object = None
    tests: SegmentTests | None = None

    def pair_differences(self, weights: np.ndarray | None = None) -> np.ndarray:
        """(S, K, m): each segment's per-pair difference (A - B; forced choice: share A - share B),
        or with ``weights`` (one per persona) the weighted population's (S, 1, m). A kind whose cells carry a
        trailing axis (a checkbox's options) gets it back: (S, K, m, k)."""
        d = self.a - self.b
        if weights is not None:
            w = np.asarray(weights, float).reshape((-1,) + (1,) * (d.ndim - 2))
            return ((d * w).sum(axis=1) / w.sum())[:, None]
        return np.stack([d[:, self.segment == k].mean(axis=1) for k in range(len(self.names))], axis=1)

    def segment_pvalues(self, flips: int = 1000, seed=None) -> np.ndarray:
        """(S, K): each segment's deciding test, as the kind's analysis of that segment's personas runs it: the
        kind's own (``tests``), else the sign-flip test over pairs of the segment's differences."""
        if self.tests is not None:
            return self.tests.pvalues(self, flips, seed)
        d = self.pair_differences()
        S, K, m = d.shape
        return sign_flip_pvalues(d.reshape(S * K, m), n_resamples=flips, seed=seed).reshape(S, K)

    def interaction_differences(self, flips: int = 1000, seed=None) -> np.ndarray:
        """(S, K, m): the per-pair differences the interaction test reads, as the kind's analysis gives them
        (its ``tests.differences``; e.g. a ranking's per-set Borda-share differences), else ``pair_differences``."""
        if self.tests is not None and self.tests.differences is not None:
            return self.tests.differences(self, flips, seed)
        return self.pair_differences()

    def interaction_pvalues(self, flips: int = 1000, seed=None) -> np.ndarray:
        """(S,): the segments' interaction p-value of each survey, as the kind's analysis tests it: the kind's own
        (``tests.interaction``; a checkbox's per option, Holm across the options), else the interaction test of
        ``interaction_differences`` (``segment_interaction_pvalues``)."""
        if self.tests is not None and self.tests.interaction is not None:
            return self.tests.interaction(self, flips, seed)
        return segment_interaction_pvalues(self.interaction_differences(flips, seed), np.bincount(self.segment),
                                           flips, seed)

    def persona_differences(self, k: int) -> np.ndarray:
        """(S, n_k): D-hat_i of segment k's personas, what the per-persona sign and Wilcoxon tests use."""
        return (self.a - self.b)[:, self.segment == k, :].mean(axis=-1)


def segment_interaction_pvalues(d: np.ndarray, sizes, flips: int = 1000, seed=None, ties: str = "count") -> np.ndarray:
    """(S,) interaction p-values of surveys ``d`` (S, K, m): for two segments the sign-flip test of
    E_j = D_j^1 - D_j^2, else survey.stats.segments.interaction.interaction_pvalues (the same test for K = 2)."""
    if d.shape[1] == 2:
        return sign_flip_pvalues(d[:, 0] - d[:, 1], n_resamples=flips, seed=seed, ties=ties)
    return interaction_pvalues(d, sizes, n_resamples=flips, seed=seed, ties=ties)


def simulate_segment_cells(segments: list[SimSegment], m: int, r: int, *, scale: str = "binary", sigma: float = 1.0,
                           rho: float = 0.3, mu: float = 0.5, kappa: float = 4.0, tau: float = 1.0,
                           position: float = 0.5, surveys: int = 1, seed=None, **kind_keywords) -> SegmentCells:
    """``surveys`` simulated surveys of the model above, as per-cell summaries (see SegmentCells).
    ``kind_keywords``: the further parameters of a kind's simulator (a numeric question's ``noise``, a
    ranking's ``utilities``), passed on to it."""
    if not segments or any(s.n < 1 for s in segments) or m < 1 or r < 1:
        raise SurveyError("simulate segments: give at least one segment of at least one persona, m >= 1, r >= 1")
    if not (0 <= rho <= 1 and sigma >= 0):
        raise SurveyError(f"simulate segments: need sigma >= 0 and 0 <= rho <= 1; got sigma={sigma}, rho={rho}")
    kind = response_type(scale).view.kind
    model = kind_part(kind, "segments")
    if model is None:
        raise SurveyError(f"simulate segments: scale '{scale}' has no segment model (Yes/No, rating scales, "
                          "forced choice, numeric, checkbox and ranking questions have)")
    rng = np.random.default_rng(seed)
    seg = np.concatenate([np.full(s.n, k) for k, s in enumerate(segments)])
    n, size = len(seg), (surveys,)
    level = np.array([s.level for s in segments])[seg][:, None]
    delta = np.array([s.delta for s in segments])[seg][:, None]
    s_u, s_v = sigma * np.sqrt(rho), sigma * np.sqrt(1 - rho)

    def shifts() -> np.ndarray:
        return rng.normal(0.0, s_u, (*size, 1, m)) + rng.normal(0.0, s_v, (*size, n, m))

    a, b, counts, to_table, *tests = model((rng, n, size, level, delta, shifts), r=r, scale=scale, sigma=sigma,
                                           rho=rho, mu=mu, kappa=kappa, tau=tau, position=position, m=m, segment=seg,
                                           **kind_keywords)
    return SegmentCells(a, b, seg, [s.name for s in segments], r, counts, to_table, tests[0] if tests else None)


def plans_segments(scale: str) -> bool:
    """Whether the kind of ``scale`` has a segment simulator (its manifest's ``segments`` part)."""
    return kind_part(response_type(scale).view.kind, "segments") is not None


def score_table(cells: SegmentCells, survey: int, model: str, messages: tuple[str, str]) -> pd.DataFrame:
    r = cells.r
    n, m = cells.a.shape[-2:]
    persona_ids = np.char.add("P", np.char.zfill(np.arange(1, n + 1).astype(str), 3))
    width = max(2, len(str(m)))
    ii, jj, kk = (x.ravel() for x in np.meshgrid(np.arange(n), np.arange(m), np.arange(r), indexing="ij"))
    params = cells.counts[2] if len(cells.counts) > 2 else None  # a rating scale's model
    frames = []
    for msg, c in zip(messages, cells.counts[:2], strict=True):
        c = c[survey]
        if params is None:  # Yes/No: the first yes-count replicates say Yes
            answer, scale = (kk < c[ii, jj]).astype(int), "binary"
        else:  # replicate k gets the point whose cumulative count first exceeds k
            answer = np.asarray(params.scores)[(kk[:, None] >= c.cumsum(axis=-1)[ii, jj]).sum(axis=-1)]
            scale = params.scale
        frames.append(pd.DataFrame({
            "model": model, "message": msg,
            "perturbation": np.char.add(f"{msg}-", np.char.zfill((jj + 1).astype(str), width)),
            "persona": persona_ids[ii], "replicate": kk, "answer": answer, "scale": scale}))
    df = pd.concat(frames, ignore_index=True)
    df["answer"] = df["answer"].astype("Int16")
    return df


def segment_table(cells: SegmentCells, survey: int = 0, model: str = "simulated",
                  messages: tuple[str, str] = ("A", "B")) -> pd.DataFrame:
    """One simulated survey as a long table, with the persona attribute column ``segment``."""
    n = len(cells.segment)
    persona_ids = np.char.add("P", np.char.zfill(np.arange(1, n + 1).astype(str), 3))
    df = cells.to_table(cells, survey, model, messages)
    names = np.array(cells.names, dtype=object)[cells.segment]
    return df.assign(segment=df["persona"].map(dict(zip(persona_ids, names, strict=True))))


__all__ = ["SegmentCells", "SegmentTests", "SimSegment", "plans_segments", "score_table", "segment_interaction_pvalues",
           "segment_table", "simulate_segment_cells"]
