"""The slider's segment simulator (survey.stats.segments.simulation): the latent structure of every kind, a
persona's segment shifting its level and effect, replies as positions on the slider."""

from __future__ import annotations

import numpy as np
import pandas as pd

from slider_kind.power import positions


def simulate_cells(ctx, *, r, **_) -> tuple:
    rng, n, size, level, delta, shifts = ctx
    base = rng.normal(0.0, 1.0, (*size, n, 1)) + level
    replies = [positions(base + extra + shifts(), r, 5.0, rng) for extra in (0.0, delta)]
    return replies[0].mean(axis=-1), replies[1].mean(axis=-1), tuple(replies), slider_table


def slider_table(cells, survey: int, model: str, messages: tuple[str, str]) -> pd.DataFrame:
    """One simulated survey's replies as a long table on the slider."""
    frames = []
    for msg, replies in zip(messages, cells.counts, strict=True):
        x = replies[survey]  # (n, m, r)
        n, m, r = x.shape
        ii, jj, kk = (v.ravel() for v in np.meshgrid(np.arange(n), np.arange(m), np.arange(r), indexing="ij"))
        frames.append(pd.DataFrame({
            "model": model, "message": msg, "perturbation": [f"{msg}-{j + 1:02d}" for j in jj],
            "persona": [f"P{i + 1:03d}" for i in ii], "replicate": kk, "answer": x[ii, jj, kk].astype(int),
            "scale": "slider"}))
    return pd.concat(frames, ignore_index=True)
