"""Do the segments' effects differ? A segment x message interaction test over paraphrase pairs.

For segments s = 1..K with per-pair differences D_j^s (the mean over the segment's personas of
theta_ij^A - theta_ij^B) the paraphrase pair j is the exchangeable unit, as in the sign-flip test of Helm &
Priebe (2026), "When prompt perturbations break your A/B test": swapping A_j and B_j negates every segment's
D_j^s at once. The test flips the centred vectors c_j^s = D_j^s - sum_s n_s D_j^s / sum_s n_s with one sign
per pair (the same sign for every segment), and its statistic is S = sum_s n_s (T_s - T)^2 with T_s the
segment effect and T their n-weighted mean. For two segments this is the sign-flip test of
E_j = D_j^1 - D_j^2 (the same p-value), whose statistic is the difference of the segment effects.

Its null: exact when A and B are exchangeable in every segment; approximate under the wider null of equal
effects on the answer scale (a shared logit shift moves segments with other base rates by other amounts),
which ``INTERACTION_NULL`` states wherever the p-value appears. Its size under that wider null is measured
by simulation (bench/segments.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from survey.errors import SurveyError
from survey.stats.permutation import sign_flip_test

_ENUMERATE_MAX_M = 16  # 2^15 sign vectors x K segments: a few ms


def interaction_null(quantity: str) -> str:
    return (f"equal segment effects on the {quantity} scale (exact when A and B are exchangeable in every segment; "
            "approximate otherwise, since a paraphrase's shared shift moves segments with other base rates by "
            "other amounts)")


@dataclass
class InteractionResult:
    """``statistic``: for two segments the difference of their effects (first minus second), else
    sum_s n_s (T_s - T)^2; ``pvalue`` two-sided; ``segments`` their names in order; ``null`` in words."""

    statistic: float
    pvalue: float
    exact: bool
    method: str
    n_pairs: int
    segments: list[str]
    null: str

    def to_dict(self) -> dict:
        return {"statistic": self.statistic, "pvalue": self.pvalue, "null": self.null, "exact": self.exact,
                "method": self.method, "n_pairs": self.n_pairs, "segments": list(self.segments),
                "statistic_meaning": ("difference of the two segments' effects" if len(self.segments) == 2 else
                                      "sum over segments of personas x (segment effect - mean effect)^2")}


def _spread(c: np.ndarray, sizes: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """S for each sign vector (rows of ``signs``): sum_s n_s (mean_j eps_j c_j^s)^2."""
    t = signs @ c.T / c.shape[1]  # (B, K)
    return (t ** 2) @ sizes


def interaction_test(d, sizes, segments: list[str] | None = None, *, quantity: str = "answer",
                     n_resamples: int = 9999, seed=0) -> InteractionResult:
    """The segment x message interaction test on ``d`` of shape (K, m): K segments' per-pair differences
    over the same m paraphrase pairs; ``sizes`` the segments' persona counts. Pairs with a missing value in
    any segment are left out. Exact enumeration up to 16 pairs (40 for two segments), else ``n_resamples``
    random sign vectors with p = (1 + count) / (1 + B)."""
    d = np.asarray(d, dtype=float)
    if d.ndim != 2 or d.shape[0] < 2:
        raise SurveyError("the interaction test needs the per-pair differences of at least two segments")
    sizes = np.asarray(sizes, dtype=float)
    names = list(segments) if segments is not None else [f"segment {i + 1}" for i in range(d.shape[0])]
    if len(sizes) != d.shape[0] or len(names) != d.shape[0] or (sizes <= 0).any():
        raise SurveyError("the interaction test needs one positive persona count and one name per segment")
    d = d[:, ~np.isnan(d).any(axis=0)]
    m = d.shape[1]
    if m == 0:
        raise SurveyError("no paraphrase pair has valid answers in every segment: the segments cannot be compared")
    null = interaction_null(quantity)
    if d.shape[0] == 2:
        res = sign_flip_test(d[0] - d[1], "two-sided", n_resamples=n_resamples, seed=seed)
        return InteractionResult(res.statistic, res.pvalue, res.exact, res.method, m, names, null)
    c = d - (sizes @ d) / sizes.sum()
    observed = float(_spread(c, sizes, np.ones((1, m)))[0])
    gamma = 1e-9 * max(observed, 1e-300)
    if m <= _ENUMERATE_MAX_M:
        # eps and -eps give the same S: enumerate the 2^(m-1) vectors with eps_1 = +1
        bits = (np.arange(2 ** (m - 1))[:, None] >> np.arange(m - 1)) & 1
        signs = np.hstack([np.ones((len(bits), 1)), 1 - 2 * bits])
        pvalue = float(np.mean(_spread(c, sizes, signs) >= observed - gamma))
        return InteractionResult(observed, pvalue, True, "enumeration", m, names, null)
    rng = np.random.default_rng(seed)
    count = 0
    for start in range(0, n_resamples, 8192):
        signs = rng.choice([-1.0, 1.0], size=(min(8192, n_resamples - start), m))
        count += int((_spread(c, sizes, signs) >= observed - gamma).sum())
    return InteractionResult(observed, (1 + count) / (1 + n_resamples), False, "monte-carlo", m, names, null)


__all__ = ["InteractionResult", "interaction_null", "interaction_test"]
