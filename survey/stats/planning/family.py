"""Power of a study that asks several Yes/No questions, each tested by its own sign-flip test, the family adjusted
(survey.stats.family): the Beta-logit model of Helm & Priebe (2026) per question, the questions tied within
persona and through the paraphrases.

Per simulated survey, question k, persona i, paraphrase j of message X:

    logit p_ijk^X = logit p_ik + u_j^X + v_ijk^X + delta_k [X = B]
    p_ik ~ Beta(a, b) per question, joined across questions by a Gaussian copula of correlation c (a persona
           who likes the product says so on every question);
    u_j^X ~ N(0, rho sigma^2): the paraphrase's shift, shared by every persona and every question;
    v_ijk^X ~ N(0, (1 - rho) sigma^2), independent.

Each question's test is the sign-flip test over paraphrase pairs of its answers (what `survey analyze` runs), so
the p-values of one survey are dependent the way a study's are. ``family_power`` reads the rejection rates with
and without the adjustment: the primary question at alpha alone, each question after Holm (or BH) over all K,
and the secondary questions after the primary's gate.
"""

from __future__ import annotations

import numpy as np
from scipy import stats
from scipy.special import expit, logit

from survey.errors import SurveyError
from survey.stats.beta_logit import ModelParams
from survey.stats.family import adjust, check_family, decide_family
from survey.stats.permutation import sign_flip_pvalues


def question_pvalues(params: ModelParams, deltas, n: int, m: int, r: int, simulations: int,
                     rng: np.random.Generator, correlation: float = 0.5, flips: int = 1000,
                     exact_max_m: int = 12) -> np.ndarray:
    """(simulations, K) sign-flip p-values of K questions with logit shifts ``deltas`` (B over A), one row a
    survey (module docstring); ``correlation`` c ties a persona's levels across questions."""
    deltas = np.asarray(deltas, dtype=float)
    k = len(deltas)
    if k < 1 or not -1 / max(k - 1, 1) <= correlation <= 1:
        raise SurveyError(f"question correlation must lie in [-1/(K-1), 1] for K = {k} questions; got {correlation}")
    cov = np.full((k, k), correlation) + (1 - correlation) * np.eye(k)
    z = rng.multivariate_normal(np.zeros(k), cov, size=(simulations, n), method="cholesky")  # (S, n, K)
    base = logit(np.clip(stats.beta.ppf(stats.norm.cdf(z), params.a, params.b), 1e-12, 1 - 1e-12))
    s_u, s_v = params.sigma * np.sqrt(params.rho), params.sigma * np.sqrt(1 - params.rho)

    def theta(shift) -> np.ndarray:  # (S, m, K): the persona-averaged share of Yes per paraphrase
        u = rng.normal(0.0, s_u, size=(simulations, 1, m, 1))
        v = rng.normal(0.0, s_v, size=(simulations, n, m, k))
        yes = rng.binomial(r, expit(base[:, :, None, :] + u + v + shift))
        return yes.mean(axis=1) / r

    d = theta(0.0) - theta(deltas)  # A - B per paraphrase pair
    return np.stack([sign_flip_pvalues(d[:, :, q], n_resamples=flips, exact_max_m=exact_max_m,
                                       seed=int(rng.integers(2**31))) for q in range(k)], axis=1)


def family_rates(pvalues: np.ndarray, alpha: float = 0.05, family: str = "holm", primary: bool = False) -> dict:
    """Rejection rates of a (S, K) p-value matrix: per question unadjusted (``raw``) and after the family's
    adjustment (``adjusted``: with ``primary`` the first question decides alone and gates the rest), and the
    share of surveys with any rejection after adjustment (``any``)."""
    check_family(family)
    p = np.asarray(pvalues, dtype=float)
    if primary:
        flags = [True] + [False] * (p.shape[1] - 1)
        rejected = np.array([decide_family(row, flags, alpha, family).significant for row in p])
    else:
        rejected = np.array([adjust(row, family) for row in p]) <= alpha
    return {"raw": (p <= alpha).mean(axis=0).tolist(), "adjusted": rejected.mean(axis=0).tolist(),
            "any": float(rejected.any(axis=1).mean())}


def family_power(params: ModelParams, questions: int, designs, simulations: int = 1000, alpha: float = 0.05,
                 seed: int = 0, correlation: float = 0.5, family: str = "holm", flips: int = 1000) -> list[dict]:
    """Per design (n, m, r): every question's effect is ``params.delta``; the power of the primary question at
    alpha alone, of each question without adjustment, after ``family`` over all K questions, and of a
    secondary question after the primary's gate (survey.stats.family)."""
    if not isinstance(questions, int) or questions < 2:
        raise SurveyError(f"questions: a family needs at least 2 questions; got {questions}")
    rows = []
    for n, m, r in dict.fromkeys(designs):
        rng = np.random.default_rng([seed, n, m, r, questions])
        p = question_pvalues(params, [params.delta] * questions, n, m, r, simulations, rng, correlation, flips)
        flat, gated = family_rates(p, alpha, family), family_rates(p, alpha, family, primary=True)
        rows.append({"n": n, "m": m, "r": r, "queries": 2 * n * m * r * questions,
                     "primary": gated["adjusted"][0], "unadjusted": float(np.mean(flat["raw"])),
                     "adjusted": float(np.mean(flat["adjusted"])), "secondary_gated": float(np.mean(gated["adjusted"][1:])),
                     "all_adjusted": float(np.mean(np.all(np.array([adjust(row, family) for row in p]) <= alpha,
                                                          axis=1)))})
    return rows


__all__ = ["family_power", "family_rates", "question_pvalues"]
