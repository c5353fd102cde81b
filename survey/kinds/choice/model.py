"""A simulation model of forced choice between two messages, shown together in both orders.

Helm & Priebe (2026), "When prompt perturbations break your A/B test: A valid statistical test for
generative surveying", name joint presentation as future work; this model (ours) carries their
paraphrase structure over to it. Paraphrase j of A and paraphrase j of B form pair j; each persona
sees every pair in both orders (A first, then B first), r times each.

    U_ij^A = u_j^A + v_ij^A                      utility of paraphrase A_j for persona i
    U_ij^B = delta + u_j^B + v_ij^B              delta: preference of B over A (logit scale)
    u_j ~ N(0, rho sigma^2)                       shared by every persona, one draw per paraphrase
    v_ij ~ N(0, (1 - rho) sigma^2)                persona-specific
    eta_i ~ N(0, tau^2)                           persona's own pull towards the first-shown option
    logit P(first | pair j, order o) = logit(position) + eta_i + U_first - U_second
    chose-first count ~ Binomial(valid, P),  valid ~ Binomial(r, 1 - invalid)

``position`` is the share choosing the first-shown option when the two options are equally good
(0.5: no position bias). delta has the sign convention of survey.stats.beta_logit: positive delta
favours B, so the share choosing A falls below 1/2.

Under delta = 0, A_j and B_j are exchangeable whatever rho, position and eta: swapping them flips
the sign of pair j's order-averaged preference, which is what the sign-flip test needs. The
persona terms eta_i are fixed across pairs and orders, so they do not break that symmetry.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit, logit

from survey.errors import SurveyError


@dataclass(frozen=True)
class ChoiceCounts:
    """Counts per (..., persona, pair): ``first_ab`` of ``valid_ab`` replies chose the first-shown
    option when A was shown first, ``first_ba`` of ``valid_ba`` when B was shown first."""

    first_ab: np.ndarray
    valid_ab: np.ndarray
    first_ba: np.ndarray
    valid_ba: np.ndarray

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.first_ab, self.valid_ab, self.first_ba, self.valid_ba


def _check(n, m, r, sigma, rho, position, tau, invalid) -> None:
    for name, v, low in (("personas", n, 1), ("pairs", m, 1), ("replicates", r, 1)):
        if int(v) != v or v < low:
            raise SurveyError(f"{name} must be a whole number >= {low}; got {v}")
    if not (sigma >= 0 and tau >= 0 and 0 <= rho <= 1 and 0 < position < 1 and 0 <= invalid < 1):
        raise SurveyError("choice model needs sigma >= 0, tau >= 0, 0 <= rho <= 1, 0 < position < 1 "
                          f"and 0 <= invalid < 1; got sigma={sigma}, tau={tau}, rho={rho}, "
                          f"position={position}, invalid={invalid}")


def choice_probabilities(n: int, m: int, rng: np.random.Generator, *, delta: float = 0.0, sigma: float = 1.0,
                         rho: float = 0.3, position: float = 0.5, tau: float = 0.0,
                         size: tuple[int, ...] = ()) -> tuple[np.ndarray, np.ndarray]:
    """P(choose the first-shown option) per (..., persona, pair) with A first and with B first."""
    _check(n, m, 1, sigma, rho, position, tau, 0.0)
    s_u, s_v = sigma * np.sqrt(rho), sigma * np.sqrt(1 - rho)

    def utility(shift: float) -> np.ndarray:
        return shift + rng.normal(0.0, s_u, (*size, 1, m)) + rng.normal(0.0, s_v, (*size, n, m))

    gap = utility(0.0) - utility(delta)  # U^A - U^B: the persona's preference for A in pair j
    bias = logit(position) + rng.normal(0.0, tau, (*size, n, 1))
    return expit(bias + gap), expit(bias - gap)


def simulate_choice_counts(n: int, m: int, r: int, rng: np.random.Generator, *, delta: float = 0.0,
                           sigma: float = 1.0, rho: float = 0.3, position: float = 0.5, tau: float = 0.0,
                           invalid: float = 0.0, size: tuple[int, ...] = ()) -> ChoiceCounts:
    """Binomial counts of the model above; ``size`` batches surveys in front of (persona, pair).

    ``invalid`` is each reply's chance of being unusable (not "1" or "2"); such replies leave the
    valid counts, and a cell may end with none (then the statistics leave it out).
    """
    _check(n, m, r, sigma, rho, position, tau, invalid)
    p_ab, p_ba = choice_probabilities(n, m, rng, delta=delta, sigma=sigma, rho=rho, position=position,
                                      tau=tau, size=size)
    valid_ab = rng.binomial(r, 1 - invalid, p_ab.shape) if invalid else np.full(p_ab.shape, r)
    valid_ba = rng.binomial(r, 1 - invalid, p_ba.shape) if invalid else np.full(p_ba.shape, r)
    return ChoiceCounts(rng.binomial(valid_ab, p_ab), valid_ab, rng.binomial(valid_ba, p_ba), valid_ba)


def choice_table(counts: ChoiceCounts, r: int, messages: tuple[str, str] = ("A", "B"),
                 model: str = "simulated") -> pd.DataFrame:
    """The long table (forced-choice columns) holding one survey's counts, r replies per (persona, pair, order).

    Rows follow the table contract: ``message``/``perturbation`` were shown first, ``second`` and
    ``second_perturbation`` second, ``answer`` is the position chosen (1, 2, or <NA> when invalid).
    Within a cell the first replicates are those that chose first, then second, then the invalid
    ones: replicates are exchangeable, so their order carries nothing.
    """
    f_ab, v_ab, f_ba, v_ba = (np.asarray(x) for x in counts.arrays())
    if f_ab.ndim != 2:
        raise SurveyError("choice_table takes one survey: counts of shape (personas, pairs)")
    if max(v_ab.max(), v_ba.max()) > r:
        raise SurveyError(f"more valid replies than the {r} replicates asked")
    n, m = f_ab.shape
    a, b = messages
    width = max(2, len(str(m)))
    ids = {msg: np.char.add(f"{msg}-", np.char.zfill(np.arange(1, m + 1).astype(str), width)) for msg in messages}
    persona_ids = np.char.add("P", np.char.zfill(np.arange(1, n + 1).astype(str), 3))
    ii, jj, kk = (x.ravel() for x in np.meshgrid(np.arange(n), np.arange(m), np.arange(r), indexing="ij"))
    frames = []
    for first, second, chose_first, valid in ((a, b, f_ab, v_ab), (b, a, f_ba, v_ba)):
        answer = np.where(kk < chose_first[ii, jj], 1, np.where(kk < valid[ii, jj], 2, 0))
        frames.append(pd.DataFrame({
            "model": model, "message": first, "perturbation": ids[first][jj], "persona": persona_ids[ii],
            "replicate": kk, "answer": pd.array(np.where(answer == 0, None, answer), dtype="Int16"),
            "scale": "choice", "second": second, "second_perturbation": ids[second][jj],
            "order": f"{first}|{second}",
            "chosen": np.where(answer == 1, first, np.where(answer == 2, second, "")),
        }))
    return pd.concat(frames, ignore_index=True)
