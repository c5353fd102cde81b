"""Quotas for a persona set built to target margins (quota sampling): how many personas of each level, and
of each combination of levels, a set of N personas holds.

Per attribute: round(share x N) by the largest-remainder method (Hamilton's): every level gets the floor of
its share x N and the units left go to the largest remainders (ties: the level listed first), so the
quotas sum to N and each is within 1 of share x N.

Joint cells: a target gives margins only, so the cells take the product of the shares, which is what raking
(iterative proportional fitting, Deming & Stephan 1940) gives when it starts from equal cells: the
attributes are independent in the built set as far as whole personas allow. The integers are found one
attribute at a time: the cells so far (counts x_c) are crossed with the next attribute's quotas q_l, the
expected counts x_c q_l / N are rounded down, and the units left over are placed by a 0/1 transport problem
(rows: what each cell still needs, columns: what each level still needs, preferring the largest fractional
parts). Its constraint matrix is totally unimodular, so the linear programme's vertex solution is whole
(Cox 1987, "A constructive procedure for unbiased controlled rounding"); every cell ends within 1 of its
expected count given the cells before, and every margin equals its quota exactly.
"""

from __future__ import annotations

import math

import numpy as np

from survey.errors import SurveyError


def largest_remainder(shares: dict[str, float], n: int) -> dict[str, int]:
    """Whole counts summing to ``n``, each the floor of share x n or one more (largest remainders first)."""
    if n < 0:
        raise SurveyError(f"a quota needs a non-negative number of personas; got {n}")
    total = math.fsum(shares.values())
    if not shares or total <= 0:
        raise SurveyError("quotas need at least one level with a positive share")
    exact = {level: s / total * n for level, s in shares.items()}
    counts = {level: math.floor(x) for level, x in exact.items()}
    left = n - sum(counts.values())
    order = sorted(exact, key=lambda level: -(exact[level] - counts[level]))  # stable: file order breaks ties
    for level in order[:left]:
        counts[level] += 1
    return counts


def _controlled_rounding(expected: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Whole cells within 1 of ``expected`` (floor or ceiling) whose row and column sums are ``rows``, ``cols``."""
    from scipy.optimize import linprog

    base = np.floor(expected + 1e-12)
    frac = np.clip(expected - base, 0.0, 1.0)
    need_r = (rows - base.sum(axis=1)).round().astype(int)
    need_c = (cols - base.sum(axis=0)).round().astype(int)
    if need_r.sum() == 0:
        return base.astype(int)
    R, C = expected.shape
    a_eq = np.zeros((R + C, R * C))
    for i in range(R):
        a_eq[i, i * C:(i + 1) * C] = 1
    for j in range(C):
        a_eq[R + j, j::C] = 1
    upper = (frac > 1e-12).ravel().astype(float)  # a cell already whole stays as it is
    res = linprog(-frac.ravel() - 1e-6, A_eq=a_eq, b_eq=np.concatenate([need_r, need_c]),
                  bounds=list(zip(np.zeros(R * C), upper, strict=True)), method="highs-ds")
    extra = np.round(res.x).reshape(R, C) if res.status == 0 else None
    if extra is None or not (np.allclose(extra.sum(axis=1), need_r) and np.allclose(extra.sum(axis=0), need_c)):
        raise SurveyError("the quotas could not be rounded to whole personas; this is a bug, please report it "
                          "with the target file")
    return (base + extra).astype(int)


def joint_quotas(margins: dict[str, dict[str, float]], n: int) -> tuple[dict[str, dict[str, int]], list[tuple]]:
    """(per attribute: level -> quota; the joint cells as (levels tuple in the margins' attribute order,
    count)) for ``n`` personas. Cells of count 0 are left out."""
    if n < 1:
        raise SurveyError(f"a persona set needs at least 1 persona; got {n}")
    quotas = {attr: largest_remainder(shares, n) for attr, shares in margins.items()}
    cells: list[tuple] = [()]
    counts = np.array([n])
    for q in quotas.values():
        levels = list(q)
        col = np.array([q[level] for level in levels], dtype=float)
        table = _controlled_rounding(np.outer(counts, col) / n, counts.astype(float), col)
        cells = [c + (level,) for c in cells for level in levels]
        counts = table.ravel()
        keep = counts > 0
        cells = [c for c, k in zip(cells, keep, strict=True) if k]
        counts = counts[keep]
    return quotas, [(c, int(k)) for c, k in zip(cells, counts, strict=True)]


__all__ = ["joint_quotas", "largest_remainder"]
