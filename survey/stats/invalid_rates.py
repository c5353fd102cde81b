"""Whether message A's and message B's replies are invalid (or unrated) at different rates, no I/O.

Every kind leaves an invalid reply out of what it averages (a cell's mean score, a message's share, a
rating's distribution); none counts it as a negative answer. Leaving replies out is unbiased when which
reply is invalid has nothing to do with the answer it would have given. When A's replies are invalid far
more often than B's, that is doubtful: a model that balks at a message when it would have said No (or
Yes) shifts that message's mean, and no test on the valid replies can tell: with P(Yes) = 0.5 for both
messages and 15% of B's replies invalid where B would have said No, B's valid replies say Yes 0.5 / 0.85 =
58.8% of the time and the effect reads −0.088 where the truth is 0. Nothing is said silently: a comparison
whose two invalid rates differ beyond chance carries a warning naming both rates.

The check: Fisher's exact test (scipy.stats.fisher_exact, two-sided) on the 2 × 2 table of invalid and
valid replies of A and B, at ``INVALID_ALPHA`` = 0.01, and a difference of at least ``INVALID_MATERIAL``
= 2 percentage points (a tiny difference on a large study is significant and harmless). The test counts
replies as independent; invalid replies clustered on one paraphrase or one persona (a prompt the model
cannot answer) make rates differ beyond what independent replies would, and are warned too: that is
worth knowing either way.
"""

from __future__ import annotations

from dataclasses import dataclass

from scipy.stats import fisher_exact

INVALID_ALPHA = 0.01  # the level at which the two invalid rates are called different
INVALID_MATERIAL = 0.02  # the smallest difference of the rates worth a warning


@dataclass(frozen=True)
class InvalidRates:
    """A's and B's replies: ``queries`` asked and ``invalid`` left out (invalid or unrated) of each, with
    Fisher's exact p-value of equal rates."""

    a: str
    b: str
    queries_a: int
    invalid_a: int
    queries_b: int
    invalid_b: int
    pvalue: float

    @property
    def rate_a(self) -> float:
        return self.invalid_a / self.queries_a if self.queries_a else float("nan")

    @property
    def rate_b(self) -> float:
        return self.invalid_b / self.queries_b if self.queries_b else float("nan")

    @property
    def differ(self) -> bool:
        """Whether the rates differ beyond chance (p <= INVALID_ALPHA) and by a material amount."""
        return bool(self.pvalue <= INVALID_ALPHA and abs(self.rate_a - self.rate_b) >= INVALID_MATERIAL)

    @property
    def warning(self) -> str | None:
        if not self.differ:
            return None
        return (f"invalid replies differ between the messages: {self.rate_a:.1%} of {self.a}'s "
                f"({self.invalid_a} of {self.queries_a}) vs {self.rate_b:.1%} of {self.b}'s "
                f"({self.invalid_b} of {self.queries_b}), Fisher exact p = {self.pvalue:.2g}. Invalid replies are "
                "left out of the means, so if what makes a reply invalid is related to the answer it would have "
                "given, the effect is biased: read the invalid replies (survey export) before trusting it")

    def to_dict(self) -> dict:
        return {self.a: {"queries": self.queries_a, "invalid": self.invalid_a, "rate": self.rate_a},
                self.b: {"queries": self.queries_b, "invalid": self.invalid_b, "rate": self.rate_b},
                "pvalue": self.pvalue, "differ": self.differ}


def invalid_rates(a: str, b: str, counts: dict) -> InvalidRates:
    """``counts``: message -> (queries, invalid) for ``a`` and ``b``; Fisher's exact test of equal rates."""
    (qa, ia), (qb, ib) = (tuple(int(x) for x in counts[m]) for m in (a, b))
    if min(qa, qb) < 1 or not (0 <= ia <= qa and 0 <= ib <= qb):
        return InvalidRates(a, b, qa, ia, qb, ib, 1.0)
    p = 1.0 if ia + ib in (0, qa + qb) else float(fisher_exact([[ia, qa - ia], [ib, qb - ib]]).pvalue)
    return InvalidRates(a, b, qa, ia, qb, ib, p)


def invalid_rate_warnings(kind, df, model: str, a: str, b: str, options) -> list[str]:
    """The warning of one comparison (survey.stats.analysis) when A's and B's replies are left out at different
    rates: the kind counts them (``Kind.invalid_counts``; None for a kind whose replies show both at once)."""
    counts = kind.invalid_counts(df, model, a, b, options)
    warning = invalid_rates(a, b, counts).warning if counts is not None else None
    return [f"model '{model}', {a} vs {b}: {warning}"] if warning else []


__all__ = ["INVALID_ALPHA", "INVALID_MATERIAL", "InvalidRates", "invalid_rate_warnings", "invalid_rates"]
