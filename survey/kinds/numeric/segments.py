"""The numeric segment simulator (survey.stats.segments.simulation), on the numeric power model's draws
(survey.kinds.numeric.power.values): eta_i ~ N(0, tau^2) plus the segment's level, each reply low + (high - low) *
expit(location + e), e ~ N(0, noise^2). A cell's value is the mean of its summarised replies (the values, log(1 +
x), or winsorized at the quantiles of the segment's own replies, as the analysis of one segment's personas
computes them), so each segment's test is the sign-flip test over pairs the numeric analysis runs."""

from __future__ import annotations

import numpy as np
import pandas as pd

from survey.kinds.numeric.parsing import from_name
from survey.kinds.numeric.power import summarised, values
from survey.stats.segments.simulation import SegmentCells


def simulate_cells(ctx, *, r, scale, tau, noise, segment, **_) -> tuple:
    rng, n, size, level, delta, shifts = ctx
    box = from_name(scale)
    base = rng.normal(0.0, tau, (*size, n, 1)) + level
    xa = values(base + shifts(), r, box.low, box.high, noise, rng)  # (S, n, m, r)
    xb = values(base + delta + shifts(), r, box.low, box.high, noise, rng)
    a, b = np.empty(xa.shape[:-1]), np.empty(xb.shape[:-1])
    for k in np.unique(segment):  # a trimmed mean winsorizes at the quantiles of the segment's own replies
        mine = segment == k
        sa, sb = summarised(xa[:, mine], xb[:, mine], box.summary)
        a[:, mine], b[:, mine] = sa.mean(axis=-1), sb.mean(axis=-1)
    return a, b, (xa, xb, box.scale), numeric_segment_table


def numeric_segment_table(cells: SegmentCells, survey: int, model: str, messages: tuple[str, str]) -> pd.DataFrame:
    """One simulated survey's replies as a numeric long table (the numbers as stored, before any summary)."""
    xa, xb = (x[survey] for x in cells.counts[:2])
    scale = cells.counts[2]
    n, m, r = xa.shape
    persona_ids = np.char.add("P", np.char.zfill(np.arange(1, n + 1).astype(str), 3))
    width = max(2, len(str(m)))
    ii, jj, kk = (x.ravel() for x in np.meshgrid(np.arange(n), np.arange(m), np.arange(r), indexing="ij"))
    frames = [pd.DataFrame({"model": model, "message": msg,
                            "perturbation": np.char.add(f"{msg}-", np.char.zfill((jj + 1).astype(str), width)),
                            "persona": persona_ids[ii], "replicate": kk, "answer": x[ii, jj, kk], "scale": scale})
              for msg, x in zip(messages, (xa, xb), strict=True)]
    df = pd.concat(frames, ignore_index=True)
    df["answer"] = df["answer"].astype("Float64")
    return df
