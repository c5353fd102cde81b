"""A segment analysis enumerates each segment's subset means once: its simultaneous interval (at alpha / K)
is read from the tails its own interval left, and equals the interval computed from scratch."""

from __future__ import annotations

import numpy as np
import pytest

import survey
import survey.stats.effect as effect
from survey.stats.effect import effect_ci
from survey.stats.segments.simulation import SimSegment, segment_table, simulate_segment_cells


def _fresh(d, confidence, bounds=(-1.0, 1.0)):
    effect._LAST_TAILS = (b"", np.empty(0), np.empty(0))  # forget the last enumeration
    return effect_ci(d, confidence=confidence, bounds=bounds).ci


@pytest.mark.parametrize("seed", range(6))
def test_a_second_interval_of_the_same_differences_equals_one_from_scratch(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(8, 17))
    # tied differences (fractions of r, as Yes/No answers give) and continuous ones
    d = rng.integers(-3, 4, m) / 3 if seed % 2 else rng.normal(0.1, 0.3, m)
    for first, second in ((0.95, 0.99), (0.95, 1 - 0.05 / 7), (0.9, 0.95), (0.99, 0.95)):
        _fresh(d, first)
        assert effect_ci(d, confidence=second, bounds=(-1.0, 1.0)).ci == _fresh(d, second)


def test_segment_analysis_enumerates_each_segment_once(monkeypatch):
    segs = [SimSegment(f"s{k}", 6, delta=0.4 * (k - 1)) for k in range(3)]
    df = segment_table(simulate_segment_cells(segs, 12, 2, rho=0.3, seed=4))
    calls = []
    original = getattr(effect, "_subset_means", None)

    def counted(d):
        calls.append(len(d))
        return original(d)

    monkeypatch.setattr(effect, "_subset_means", counted, raising=False)
    seg = survey.analyze(df, "A", "B", by="segment").results[0].segments
    assert len(calls) == 1 + len(segs)  # the pooled interval and each segment's, nothing twice
    monkeypatch.undo()
    for s in seg.segments:
        d = np.array(list(s.result.per_pair().values()))
        assert s.simultaneous_ci == _fresh(d, 1 - 0.05 / len(segs))
        assert s.ci == _fresh(d, 0.95)
