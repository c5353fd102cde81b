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

A kind whose deciding test is a family of tests (a checkbox question: one per option, Holm across the options)
has an interaction per member of that family: ``interaction_by_part`` runs the test above on each option's own
per-pair differences, so that every segment is compared on the same option, and adjusts across the options by
Holm; the smallest adjusted p-value decides, and the option it belongs to is named. Comparing each segment's own
deciding option instead would compare segments on different options, whose size exceeds alpha.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from survey.errors import SurveyError
from survey.stats.multiplicity import adjust_pvalues
from survey.stats.permutation import sign_flip_pvalues, sign_flip_test
from survey.stats.tie_breaking import TIE_WORDS, check_ties, data_seed, index_seed, randomised_pvalue

_ENUMERATE_MAX_M = 16  # 2^15 sign vectors x K segments: a few ms


def interaction_null(quantity: str) -> str:
    return (f"equal segment effects on the {quantity} scale (exact when A and B are exchangeable in every segment; "
            "approximate otherwise, since a paraphrase's shared shift moves segments with other base rates by "
            "other amounts)")


@dataclass
class InteractionResult:
    """``statistic``: for two segments the difference of their effects (first minus second), else
    sum_s n_s (T_s - T)^2; ``pvalue`` two-sided; ``segments`` their names in order; ``null`` in words. For a
    family of parts (a checkbox's options, ``interaction_by_part``): ``parts`` holds each part's test (its name
    under ``part_word``, statistic, raw and Holm p-value), ``part`` names the deciding one, whose statistic and
    Holm p these are."""

    statistic: float
    pvalue: float
    exact: bool
    method: str
    n_pairs: int
    segments: list[str]
    null: str
    parts: list[dict] | None = None
    part: str | None = None
    part_word: str = "option"
    ties: str = "count"

    def to_dict(self) -> dict:
        out = {"statistic": self.statistic, "pvalue": self.pvalue, "null": self.null, "exact": self.exact,
               "method": self.method, "n_pairs": self.n_pairs, "segments": list(self.segments),
               "statistic_meaning": ("difference of the two segments' effects" if len(self.segments) == 2 else
                                     "sum over segments of personas x (segment effect - mean effect)^2")}
        if self.parts is not None:
            w = self.part_word
            out["statistic_meaning"] += f", on the deciding {w}"
            out.update({w: self.part, f"per_{w}": [dict(x) for x in self.parts], "adjustment": f"holm over the {w}s",
                        "ties": TIE_WORDS if self.ties == "random" else "counted as at least as extreme"})
        return out


def _centred(d: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """c_j^s = D_j^s - sum_s n_s D_j^s / sum_s n_s, for (..., K, m)."""
    return d - np.einsum("k,...km->...m", sizes, d)[..., None, :] / sizes.sum()


def _signs(m: int, n_resamples: int, exact_max_m: int, rng) -> tuple[np.ndarray, bool]:
    """Sign vectors: every one with eps_1 = +1 (eps and -eps give the same S) up to ``exact_max_m`` pairs,
    else ``n_resamples`` random ones."""
    if m <= exact_max_m:
        bits = (np.arange(2 ** (m - 1))[:, None] >> np.arange(m - 1)) & 1
        return np.hstack([np.ones((len(bits), 1)), 1 - 2 * bits]).astype(float), True
    return rng.choice([-1.0, 1.0], size=(n_resamples, m)), False


def interaction_pvalues(d, sizes, *, n_resamples: int = 1000, exact_max_m: int = _ENUMERATE_MAX_M, seed=None,
                        chunk: int = 64, ties: str = "count") -> np.ndarray:
    """Interaction p-values for a batch of surveys: ``d`` (S, K, m), row s holding survey s's K segments'
    per-pair differences (no missing values). Exact when m <= ``exact_max_m``; otherwise the same random
    sign vectors serve every row, each p = (1 + count) / (1 + B). Two segments: the sign-flip p-values of
    E_j = D_j^1 - D_j^2 (survey.stats.permutation.sign_flip_pvalues), the same test. ``ties="random"``:
    each row's ties broken with its own U drawn after the flips (survey.stats.tie_breaking), as the sign-flip
    test does."""
    check_ties(ties)
    d = np.asarray(d, dtype=float)
    sizes = np.asarray(sizes, dtype=float)
    S, K, m = d.shape
    if K == 2:
        return sign_flip_pvalues(d[:, 0] - d[:, 1], "two-sided", n_resamples=n_resamples,
                                 exact_max_m=min(exact_max_m, 20), seed=seed, ties=ties)
    c = _centred(d, sizes)
    rng = np.random.default_rng(seed)
    signs, exact = _signs(m, n_resamples, exact_max_m, rng)
    u = rng.random(S) if ties == "random" else None
    out = np.empty(S)
    for start in range(0, S, chunk):
        block = c[start:start + chunk]  # (b, K, m)
        observed = (block.mean(axis=-1) ** 2) @ sizes  # (b,)
        null = (np.einsum("bkm,vm->bvk", block, signs) / m) ** 2 @ sizes  # (b, V)
        count = (null >= (observed * (1 - 1e-9))[:, None]).sum(axis=1)
        if u is not None:  # S is one-sided (larger is more extreme), so its ties split as "greater" ones do
            beyond = (null > (observed * (1 + 1e-9))[:, None]).sum(axis=1)
            out[start:start + chunk] = randomised_pvalue(beyond, count - beyond, len(signs), u[start:start + chunk],
                                                         not exact, "greater")
            continue
        out[start:start + chunk] = count / len(signs) if exact else (1 + count) / (1 + len(signs))
    return out


def interaction_test(d, sizes, segments: list[str] | None = None, *, quantity: str = "answer",
                     n_resamples: int = 9999, seed=0, ties: str = "count") -> InteractionResult:
    """The segment x message interaction test on ``d`` of shape (K, m): K segments' per-pair differences
    over the same m paraphrase pairs; ``sizes`` the segments' persona counts. Pairs with a missing value in
    any segment are left out. Exact enumeration up to 16 pairs (40 for two segments), else ``n_resamples``
    random sign vectors with p = (1 + count) / (1 + B). ``ties="random"`` breaks the statistic's ties at
    random (survey.stats.tie_breaking), for differences that take few values (shares of a checkbox option)."""
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
        res = sign_flip_test(d[0] - d[1], "two-sided", n_resamples=n_resamples, seed=seed, ties=ties)
        return InteractionResult(res.statistic, res.pvalue, res.exact, res.method, m, names, null)
    observed = float((_centred(d, sizes).mean(axis=-1) ** 2) @ sizes)
    p = float(interaction_pvalues(d[None], sizes, n_resamples=n_resamples, seed=seed, ties=ties)[0])
    exact = m <= _ENUMERATE_MAX_M
    return InteractionResult(observed, p, exact, "enumeration" if exact else "monte-carlo", m, names, null)


def _part_seed(seed, i: int, d, ties: str):
    """Part i's generator seed: [seed, i], and with ties broken at random a digest of the part's differences too,
    so that U varies from study to study (survey.stats.tie_breaking.data_seed)."""
    if ties == "random":
        return data_seed(seed, i, d)
    return index_seed(seed, i)


def interaction_by_part(parts: dict, sizes, segments: list[str] | None = None, *, part_word: str = "option",
                        quantity: str = "answer", n_resamples: int = 9999, seed=0,
                        ties: str = "count") -> InteractionResult:
    """The interaction of a family of tests: ``parts`` maps each part's name (a checkbox option) to its (K, m)
    per-pair differences of the K segments. interaction_test runs on each part (part i with seed [seed, i],
    its ties counted or broken at random as ``ties`` says; at random, a digest of its data joins the seed), Holm adjusts across the parts, and the part with the
    smallest adjusted p-value decides: the result carries its statistic and adjusted p, and every part's test in
    ``parts``."""
    if not parts:
        raise SurveyError(f"the interaction test needs at least one {part_word}")
    tests = [interaction_test(d, sizes, segments, quantity=quantity, n_resamples=n_resamples,
                              seed=_part_seed(seed, i, d, ties), ties=ties) for i, d in enumerate(parts.values())]
    raw = np.array([t.pvalue for t in tests], dtype=float)
    holm = adjust_pvalues(raw, "holm")
    best = int(np.lexsort((raw, holm))[0])  # the smallest Holm p; among equal ones (at 1) the smallest raw p
    per = [{part_word: name, "statistic": t.statistic, "pvalue": t.pvalue, "holm": float(h), "n_pairs": t.n_pairs,
            "exact": t.exact} for name, t, h in zip(parts, tests, holm, strict=True)]
    first = tests[best]
    method = (f"{first.method} per {part_word}, Holm-adjusted across the {len(tests)} {part_word}s"
              + (f"; {TIE_WORDS}" if ties == "random" else ""))
    return InteractionResult(first.statistic, float(holm[best]), all(t.exact for t in tests), method, first.n_pairs,
                             first.segments, first.null, per, list(parts)[best], part_word, ties)


__all__ = ["InteractionResult", "interaction_by_part", "interaction_null", "interaction_pvalues", "interaction_test"]
