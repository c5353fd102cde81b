"""The checkbox segment simulator (survey.stats.segments.simulation), on the checkbox power model's draws
(survey.kinds.checkbox.power.draw_ticks): eta_i ~ N(0, tau^2) plus the segment's level, option o ticked with
probability expit(location + c_o), the ticks then fitted to the scale's bounds. A cell holds the share ticking
each option, so a segment's differences carry the options: (S, K, m, k).

A segment's test is the checkbox analysis's deciding test on that segment's personas: a sign-flip test per
option, Holm across the options, the smallest adjusted p-value, computed by CheckboxPlan's own p-value path
(CheckboxPlan.option_pvalues) on the segment's drawn shares. Its interaction is the analysis's
(survey.stats.segments.interaction.interaction_by_part): per option the segments' interaction test on that
option's per-pair differences, every segment compared on the same option, Holm across the options, the smallest
adjusted p-value (option o's test seeded with [seed, o] and its ties broken at random, as the analysis does)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from survey.kinds.checkbox.parsing import from_name
from survey.kinds.checkbox.power import CheckboxPlan, draw_ticks
from survey.stats.multiplicity import holm_rows
from survey.stats.segments.simulation import SegmentCells, SegmentTests, segment_interaction_pvalues
from survey.stats.tie_breaking import index_seed


class _DrawnShares(CheckboxPlan):
    """A CheckboxPlan whose surveys are already drawn (one segment's per-pair option differences, (S, m, k)), so
    that the segment's p-values come from CheckboxPlan.option_pvalues itself."""

    def pair_shares(self, n, m, r, S, rng) -> np.ndarray:
        return self.drawn


def option_pvalues(cells: SegmentCells, flips: int, seed) -> np.ndarray:
    """(S, K, k): each segment's raw sign-flip p-value per option, from CheckboxPlan.option_pvalues."""
    d = cells.pair_differences()  # (S, K, m, k)
    scale, sigma, rho, tau = cells.counts[2]
    out = []
    for s in range(d.shape[1]):
        plan = _DrawnShares(0.0, scale, sigma, rho, tau)
        object.__setattr__(plan, "drawn", d[:, s])
        out.append(plan.option_pvalues(0, d.shape[2], cells.r, d.shape[0], np.random.default_rng(seed), flips=flips))
    return np.stack(out, axis=1)


def _holm(cells: SegmentCells, flips: int, seed) -> np.ndarray:
    """(S, K, k) Holm-adjusted option p-values of every segment (Holm across the options, survey by survey)."""
    raw = option_pvalues(cells, flips, seed)
    S, K, k = raw.shape
    return holm_rows(raw.reshape(S * K, k)).reshape(S, K, k)


def segment_pvalues(cells: SegmentCells, flips: int, seed) -> np.ndarray:
    return _holm(cells, flips, seed).min(axis=-1)


def interaction_pvalues(cells: SegmentCells, flips: int, seed) -> np.ndarray:
    """(S,): per option the segments' interaction test on that option's per-pair differences, Holm across the
    options, the smallest adjusted p-value: the analysis's deciding interaction."""
    d = cells.pair_differences()  # (S, K, m, k)
    sizes = np.bincount(cells.segment)
    raw = np.stack([segment_interaction_pvalues(d[..., o], sizes, flips, index_seed(seed, o), "random")
                    for o in range(d.shape[-1])], axis=1)
    return holm_rows(raw).min(axis=-1)


TESTS = SegmentTests(segment_pvalues, interaction=interaction_pvalues)


def simulate_cells(ctx, *, r, scale, sigma, rho, tau, **_) -> tuple:
    rng, n, size, level, delta, shifts = ctx
    box = from_name(scale)
    base = rng.normal(0.0, tau, (*size, n, 1)) + level
    ticks_a = draw_ticks(box.k, box.low, box.high, base + shifts(), r, rng)  # (S, n, m, r, k)
    ticks_b = draw_ticks(box.k, box.low, box.high, base + delta + shifts(), r, rng)
    return (ticks_a.mean(axis=-2), ticks_b.mean(axis=-2), (ticks_a, ticks_b, (scale, sigma, rho, tau)),
            checkbox_segment_table, TESTS)


def checkbox_segment_table(cells: SegmentCells, survey: int, model: str, messages: tuple[str, str]) -> pd.DataFrame:
    """One simulated survey as a checkbox long table: each reply's ticks as the answer's bit set."""
    scale = cells.counts[2][0]
    frames = []
    for msg, ticks in zip(messages, cells.counts[:2], strict=True):
        t = ticks[survey]  # (n, m, r, k)
        n, m, r, k = t.shape
        persona_ids = np.char.add("P", np.char.zfill(np.arange(1, n + 1).astype(str), 3))
        width = max(2, len(str(m)))
        ii, jj, kk = (x.ravel() for x in np.meshgrid(np.arange(n), np.arange(m), np.arange(r), indexing="ij"))
        mask = (t.astype(int) << np.arange(k)).sum(axis=-1)
        frames.append(pd.DataFrame({
            "model": model, "message": msg,
            "perturbation": np.char.add(f"{msg}-", np.char.zfill((jj + 1).astype(str), width)),
            "persona": persona_ids[ii], "replicate": kk, "answer": mask[ii, jj, kk], "scale": scale}))
    df = pd.concat(frames, ignore_index=True)
    df["answer"] = df["answer"].astype("Int16")
    return df
