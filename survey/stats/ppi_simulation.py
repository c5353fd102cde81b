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
with its theoretical value. ``small_sample_coverage`` checks the intervals at a given number of humans for the
mean, the within- and the between-subjects effect (the same personas answering both messages), unweighted and
with humans who over-represent the upper half of the types three to one, weighted back to the population.
"""

from __future__ import annotations

import numpy as np
from scipy import stats as sps
from scipy.special import expit

from survey.stats.ppi_arrays import PPIArm, ppi_between_arrays, ppi_mean_arrays

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


def draw(setting: str, datasets: int, n: int, big_n: int, rng, shares=None) -> dict:
    """Arrays of shape (datasets, n) and (datasets, N): human answers and predictions, persona predictions.
    ``shares``: the types' shares among the humans (default equal, as among the personas); the humans'
    weights back to the population are then under "w"."""
    p_a, p_b, f_a, f_b = population(setting)
    k = rng.integers(0, TYPES, (datasets, n)) if shares is None else rng.choice(TYPES, (datasets, n), p=shares)
    u = rng.random((datasets, n))
    ku = rng.integers(0, TYPES, (datasets, big_n))

    def noisy(values, idx):
        return values[idx] + NOISE * rng.standard_normal(idx.shape)

    return {"y_a": (u < p_a[k]).astype(float), "y_b": (u < p_b[k]).astype(float),
            "f_a": noisy(f_a, k), "f_b": noisy(f_b, k), "fu_a": noisy(f_a, ku), "fu_b": noisy(f_b, ku),
            "w": None if shares is None else (1 / TYPES) / np.asarray(shares)[k]}


def coverage(setting: str, datasets: int = 2000, n: int = 100, big_n: int = 1000, alpha: float = 0.05,
             seed: int = 0) -> dict:
    """Per target ("mean A", "effect A - B"): coverage of the PPI (tuned), humans-only and personas-only
    intervals with Monte Carlo s.e.s, the PPI/humans-only width ratio as reported (mean over datasets of the
    s.e. ratio) and as achieved (ratio of the estimates' s.d.s over datasets), each with its Monte Carlo s.e.,
    and in theory. The reported ratio sits a little below the theory, by O(1/n): lambda is tuned on the
    same humans, so each dataset's s.e. is the smallest over lambda of a noisy estimate."""
    rng = np.random.default_rng(seed)
    d = draw(setting, datasets, n, big_n, rng)
    truths = theory(setting, n, big_n)
    out = {}
    for target, y, f, fu in (("mean A", d["y_a"], d["f_a"], d["fu_a"]),
                             ("effect A - B", d["y_a"] - d["y_b"], d["f_a"] - d["f_b"], d["fu_a"] - d["fu_b"])):
        truth = truths[target]["truth"]
        est, se, lam, df = ppi_mean_arrays(y, f, fu, with_df=True)
        est0, se0, _, df0 = ppi_mean_arrays(y, f, fu, lam=0.0, with_df=True)
        persona_est, persona_se = fu.mean(axis=1), fu.std(axis=1) / np.sqrt(big_n)
        z = sps.norm.ppf(1 - alpha / 2)
        ratio = se / se0
        # the precision actually achieved: s.d. of the PPI estimates over that of the humans-only means, its
        # Monte Carlo s.e. by resampling the datasets
        boot = rng.integers(0, datasets, (200, datasets))
        row = {"truth": truth, "lam_mean": float(lam.mean()), **{k: truths[target][k] for k in ("r", "lam")},
               "width_ratio": float(ratio.mean()), "width_ratio_mc": float(ratio.std(ddof=1) / np.sqrt(datasets)),
               "sd_ratio": float(est.std() / est0.std()),
               "sd_ratio_mc": float((est[boot].std(axis=1) / est0[boot].std(axis=1)).std(ddof=1)),
               "width_ratio_theory": truths[target]["width_ratio"]}
        for name, e, s, q in (("ppi", est, se, sps.t.ppf(1 - alpha / 2, df)),
                              ("humans", est0, se0, sps.t.ppf(1 - alpha / 2, df0)),
                              ("personas", persona_est, persona_se, z)):
            covered = np.abs(e - truth) <= q * s
            row[name] = float(covered.mean())
            row[name + "_mc"] = float(np.sqrt(covered.mean() * (1 - covered.mean()) / datasets))
        out[target] = row
    return out


OVER_REPRESENTED = 3.0  # the weighted designs' humans: the upper half of the types this many times as common
TARGETS = ("mean", "paired", "between")


def small_sample_coverage(setting: str, n: int, big_n: int = 300, datasets: int = 4000, alpha: float = 0.05,
                          seed: int = 0, variance: str = "linearised") -> dict:
    """Coverage of the tuned PPI interval and of the humans-alone one (lambda = 0) with n humans (per arm
    between subjects), for ("mean" | "paired" | "between", weighted: bool): the mean of A, the within-subjects
    effect A - B, and the between-subjects effect (n humans saw A, n others B, the same N personas answered both),
    unweighted (humans drawn like the personas) and weighted (humans over-representing the upper half of the
    types ``OVER_REPRESENTED`` to one, weighted back). ``variance``: the interval (survey's default, or
    "ppi_py": the reference arithmetic). Returns {(target, weighted): {"ppi": coverage, "humans": coverage}}."""
    rng = np.random.default_rng(seed)
    truths = theory(setting, n, big_n)
    out = {}
    for weighted in (False, True):
        shares = None
        if weighted:
            shares = np.where(np.arange(TYPES) >= TYPES // 2, OVER_REPRESENTED, 1.0)
            shares = shares / shares.sum()
        d = draw(setting, datasets, 2 * n, big_n, rng, shares)
        one, two = slice(0, n), slice(n, 2 * n)
        w = None if d["w"] is None else d["w"][:, one]
        for target in TARGETS:
            truth = truths["mean A" if target == "mean" else "effect A - B"]["truth"]
            row = {}
            for name, lam in (("ppi", None), ("humans", 0.0)):
                if target == "between":
                    est, se, _, _, df = ppi_between_arrays(
                        PPIArm(d["y_a"][:, one], d["f_a"][:, one], d["fu_a"], w=w),
                        PPIArm(d["y_b"][:, two], d["f_b"][:, two], d["fu_b"], w=None if d["w"] is None else d["w"][:, two]),
                        lam, same_personas=True, variance=variance, with_df=True)
                else:
                    y, f, fu = d["y_a"][:, one], d["f_a"][:, one], d["fu_a"]
                    if target == "paired":
                        y, f, fu = y - d["y_b"][:, one], f - d["f_b"][:, one], fu - d["fu_b"]
                    est, se, _, df = ppi_mean_arrays(y, f, fu, lam, w, variance=variance, with_df=True)
                row[name] = float(np.mean(np.abs(est - truth) <= sps.t.ppf(1 - alpha / 2, df) * se))
            out[(target, weighted)] = row
    return out
