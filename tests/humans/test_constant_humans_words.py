"""When every human gives the same answer the humans-only interval has no width: the words say the model's
worth cannot be said, never "nan times the humans-only width" or "+inf humans"."""

from __future__ import annotations

from types import SimpleNamespace

from survey.stats.humans.in_words import ppi_in_words


def test_no_spread_among_the_humans_is_said_in_words():
    res = SimpleNamespace(lam=0.5, effective_n=float("inf"), n=30, width_ratio=float("nan"))
    text = ppi_in_words(res)
    assert "nan" not in text and "inf" not in text and "no spread" in text
