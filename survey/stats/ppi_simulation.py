"""Simulated humans and models with a known truth, to check prediction-powered inference (survey.stats.ppi).

A population of persona types k = 1..K (equally common, attribute x_k evenly spread over [-2, 2]). A human of
type k says Yes to message A with probability p_A(k) = expit(0.3 + 1.2 x_k) and to B with p_B(k) =
expit(-0.2 + 0.4 x_k); one uniform draw per human decides both answers (Y = 1{U < p}), so a person's two
answers are as alike as their probabilities allow. The true human mean of A and the true effect A - B are
averages over the types, known exactly.

The model's prediction for a persona of type k is f(k) plus a little noise (its exact score varies over
paraphrases); the settings are the ways a model can be wrong:
- "unbiased": f = p, the true probability;
- "biased in level": f = p + 0.2 (capped at 1), every Yes-rate too high;
- "attenuated": f = 0.5 + 0.3 (p - 0.5), the model too uniform (the dispersion problem);
- "reversed effect": f(A) = p_B, f(B) = p_A, the model gets the direction of the effect wrong;
- "uninformative": f unrelated to p.
``coverage`` draws thousands of datasets at once (numpy arrays of shape (datasets, units)) and returns, per
target, the coverage of the PPI, humans-only and personas-only intervals and the width ratio PPI/humans-only
with its theoretical value.
"""

from __future__ import annotations

import numpy as np
from scipy import stats as sps
from scipy.special import expit

from survey.stats.ppi import ppi_mean_arrays

SETTINGS = ("unbiased", "biased in level", "attenuated", "reversed effect", "uninformative")
TYPES = 20
NOISE = 0.05  # s.d. of a persona's prediction around its type's value


def population(setting: str):
    """(p_A, p_B, f_A, f_B): the true Yes probabilities and the model's predictions per type."""
    x = np.linspace(-2, 2, TYPES)
    p_a, p_b = expit(0.3 + 1.2 * x), expit(-0.2 + 0.4 * x)
    if setting == "unbiased":
        return p_a, p_b, p_a, p_b
    if setting == "biased in level":
        return p_a, p_b, np.minimum(p_a + 0.2, 1.0), np.minimum(p_b + 0.2, 1.0)
    if setting == "attenuated":
        return p_a, p_b, 0.5 + 0.3 * (p_a - 0.5), 0.5 + 0.3 * (p_b - 0.5)
    if setting == "reversed effect":
        return p_a, p_b, p_b, p_a
    if setting == "uninformative":
        rng = np.random.default_rng(7)  # a fixed model, not redrawn per dataset
        return p_a, p_b, rng.uniform(0.2, 0.8, TYPES), rng.uniform(0.2, 0.8, TYPES)
    raise ValueError(f"unknown setting {setting!r}; one of {', '.join(SETTINGS)}")


def theory(setting: str, n: int, big_n: int) -> dict:
    """Exact truths and the theoretical width ratio of each target (the s.e. at the best lambda in [0, 1]
    over the humans-only s.e.; sqrt(1 - r^2 N / (n + N)) when that lambda is not clipped)."""
    p_a, p_b, f_a, f_b = population(setting)
    mean_a, var_a = p_a.mean(), p_a.mean() * (1 - p_a.mean())
    # D = 1{U < p_A} - 1{U < p_B} with one U: E[D | k] = p_A - p_B and E[D^2 | k] = |p_A - p_B|
    effect = (p_a - p_b).mean()
    var_d = np.abs(p_a - p_b).mean() - effect ** 2
    out = {}
    for target, truth, var_y, mu_k, f_k in (("mean A", mean_a, var_a, p_a, f_a),
                                             ("effect A - B", effect, var_d, p_a - p_b, f_a - f_b)):
        noise_var = NOISE ** 2 * (1 if target == "mean A" else 2)
        cov = np.mean((mu_k - mu_k.mean()) * (f_k - f_k.mean()))
        var_f = f_k.var() + noise_var
        lam = float(np.clip(cov / ((1 + n / big_n) * var_f), 0, 1))
        var_ppi = lam ** 2 * var_f / big_n + (var_y - 2 * lam * cov + lam ** 2 * var_f) / n
        out[target] = {"truth": float(truth), "r": float(cov / np.sqrt(var_y * var_f)), "lam": lam,
                       "width_ratio": float(np.sqrt(var_ppi / (var_y / n))),
                       "persona_mean": float(f_k.mean())}
    return out


def draw(setting: str, datasets: int, n: int, big_n: int, rng) -> dict:
    """Arrays of shape (datasets, n) and (datasets, N): human answers and predictions, persona predictions."""
    p_a, p_b, f_a, f_b = population(setting)
    k, u = rng.integers(0, TYPES, (datasets, n)), rng.random((datasets, n))
    ku = rng.integers(0, TYPES, (datasets, big_n))

    def noisy(values, idx):
        return values[idx] + NOISE * rng.standard_normal(idx.shape)

    return {"y_a": (u < p_a[k]).astype(float), "y_b": (u < p_b[k]).astype(float),
            "f_a": noisy(f_a, k), "f_b": noisy(f_b, k), "fu_a": noisy(f_a, ku), "fu_b": noisy(f_b, ku)}


def coverage(setting: str, datasets: int = 2000, n: int = 100, big_n: int = 1000, alpha: float = 0.05,
             seed: int = 0) -> dict:
    """Per target ("mean A", "effect A - B"): coverage of the PPI (tuned), humans-only and personas-only
    intervals with Monte Carlo s.e.s, the PPI/humans-only width ratio as reported (mean over datasets of the
    s.e. ratio) and as achieved (ratio of the estimates' s.d.s over datasets), each with its Monte Carlo s.e.,
    and in theory. The reported ratio sits a little below the theory, by O(1/n): lambda is tuned on the
    same humans, so each dataset's s.e. is the smallest over lambda of a noisy estimate."""
    rng = np.random.default_rng(seed)
    d = draw(setting, datasets, n, big_n, rng)
    z = sps.norm.ppf(1 - alpha / 2)
    truths = theory(setting, n, big_n)
    out = {}
    for target, y, f, fu in (("mean A", d["y_a"], d["f_a"], d["fu_a"]),
                             ("effect A - B", d["y_a"] - d["y_b"], d["f_a"] - d["f_b"], d["fu_a"] - d["fu_b"])):
        truth = truths[target]["truth"]
        est, se, lam = ppi_mean_arrays(y, f, fu)
        est0, se0, _ = ppi_mean_arrays(y, f, fu, lam=0.0)
        persona_est, persona_se = fu.mean(axis=1), fu.std(axis=1) / np.sqrt(big_n)
        ratio = se / se0
        # the precision actually achieved: s.d. of the PPI estimates over that of the humans-only means, its
        # Monte Carlo s.e. by resampling the datasets
        boot = rng.integers(0, datasets, (200, datasets))
        row = {"truth": truth, "lam_mean": float(lam.mean()), **{k: truths[target][k] for k in ("r", "lam")},
               "width_ratio": float(ratio.mean()), "width_ratio_mc": float(ratio.std(ddof=1) / np.sqrt(datasets)),
               "sd_ratio": float(est.std() / est0.std()),
               "sd_ratio_mc": float((est[boot].std(axis=1) / est0[boot].std(axis=1)).std(ddof=1)),
               "width_ratio_theory": truths[target]["width_ratio"]}
        for name, e, s in (("ppi", est, se), ("humans", est0, se0), ("personas", persona_est, persona_se)):
            covered = np.abs(e - truth) <= z * s
            row[name] = float(covered.mean())
            row[name + "_mc"] = float(np.sqrt(covered.mean() * (1 - covered.mean()) / datasets))
        out[target] = row
    return out
