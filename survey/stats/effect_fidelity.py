"""Do the personas get the effect right? One experiment, a benchmark of experiments, and the spread of answers.

``effect_fidelity``: the human effect Delta_H (difference of two means, or the mean of paired differences) and
the persona effect T, each with its interval; their difference Delta_H - T with a normal-approximation interval
from two independent sources (the humans and the personas share no answers), each side's s.e. read from its
interval as (upper - lower) / (2 z) when no s.e. is given. For the persona side that is an approximation: its
interval inverts the sign-flip test, which is not a normal interval; the result says so.

``benchmark_fidelity``: over experiments e, per model (Hewitt, Ashokkumar, Ghezae & Willer, "Predicting Results
of Social Science Experiments Using Large Language Models", 2024): the share of experiments whose signs agree
with a Wilson interval (Wilson, "Probable inference, the law of succession, and statistical inference", JASA
1927), Pearson's correlation with the Fisher-z interval (Fisher, "On the probable error of a coefficient of
correlation deduced from a small sample", 1921), and the calibration slope of the human on the persona effects
by least squares with its t interval (a forecast calibration: 1 means a persona effect of x predicts a human
effect of x; below 1 the persona effects vary more than the human effects they predict, because they are
exaggerated or noisy, noise in the persona effects alone pulling the slope below 1; above 1 they are too small).

``dispersion_ratio``: the variance between personas over the variance between human respondents, with a
bootstrap interval (models tend to be too uniform: a ratio below 1; Toubia, Gui, Peng et al., "Twin-2K-500: A
dataset for building digital twins of over 2,000 people based on their answers to over 500 questions", 2025).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from survey.common.display import Display
from survey.common.formatting import finite
from survey.errors import SurveyError
from survey.stats.fidelity import se_from_ci


def _z(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise SurveyError(f"confidence must be between 0 and 1; got {confidence}")
    return float(sps.norm.ppf(0.5 + confidence / 2))


def _sign(x: float) -> int:
    return int(np.sign(x))


@dataclass(repr=False)
class EffectFidelity(Display):
    """Human effect against persona effect: their difference with interval and p-value, and sign agreement."""

    human_effect: float
    human_se: float
    persona_effect: float
    persona_se: float
    difference: float  # human - persona
    se: float
    ci: tuple[float, float]
    statistic: float
    pvalue: float  # H0: the personas' effect equals the humans'
    sign_agrees: bool | None  # None when either effect is exactly 0
    confidence: float
    note: str

    def display_parts(self):
        rows = [{"side": "humans", "effect": self.human_effect, "se": self.human_se},
                {"side": "personas", "effect": self.persona_effect, "se": self.persona_se}]
        lo, hi = self.ci
        title = (f"human - persona effect {self.difference:+.4g} ({self.confidence:.0%} CI {lo:+.4g} to {hi:+.4g}), "
                 f"p = {self.pvalue:.4g}; signs {'agree' if self.sign_agrees else 'differ' if self.sign_agrees is False else 'undefined'}")
        return title, rows, [self.note]

    def to_dict(self) -> dict:
        return {"human_effect": finite(self.human_effect), "human_se": finite(self.human_se),
                "persona_effect": finite(self.persona_effect), "persona_se": finite(self.persona_se),
                "difference": finite(self.difference), "se": finite(self.se),
                "ci": [finite(self.ci[0]), finite(self.ci[1])], "statistic": finite(self.statistic),
                "pvalue": finite(self.pvalue), "sign_agrees": self.sign_agrees, "confidence": self.confidence,
                "note": self.note}


def effect_fidelity(human_effect: float, human_ci_or_se, persona_effect: float, persona_ci, *,
                    confidence: float = 0.95, human_confidence: float | None = None,
                    persona_confidence: float | None = None) -> EffectFidelity:
    """The human effect against the persona effect: difference, its interval and p-value, sign agreement.

    ``human_ci_or_se``: the human effect's s.e. (a number) or its interval (lower, upper);
    ``persona_ci``: the persona effect's interval (e.g. the sign-flip interval of survey.stats.effect_ci).
    The intervals' levels default to ``confidence``.
    """
    z = _z(confidence)
    if np.ndim(human_ci_or_se) == 0:
        human_se = float(human_ci_or_se)
        if not human_se >= 0:
            raise SurveyError(f"the human effect's s.e. must be a non-negative number; got {human_ci_or_se}")
    else:
        human_se = se_from_ci(human_ci_or_se, human_confidence or confidence)
    persona_se = se_from_ci(persona_ci, persona_confidence or confidence)
    diff = float(human_effect) - float(persona_effect)
    se = float(np.hypot(human_se, persona_se))
    statistic = diff / se if se > 0 else float("nan")
    pvalue = float(2 * sps.norm.sf(abs(statistic))) if se > 0 else float("nan")
    signs = _sign(human_effect), _sign(persona_effect)
    note = ("independent sources, normal approximation; the persona s.e. is read from its interval as "
            "(upper - lower) / (2 z), an approximation to a sign-flip interval")
    if not np.isfinite(persona_se):
        note += "; the persona interval is unbounded (too few paraphrase pairs), so nothing can be told apart"
    return EffectFidelity(float(human_effect), human_se, float(persona_effect), persona_se, diff, se,
                          (diff - z * se, diff + z * se), float(statistic), pvalue,
                          None if 0 in signs else signs[0] == signs[1], confidence, note)


@dataclass(repr=False)
class BenchmarkFidelity(Display):
    """Persona against human effects over experiments: sign agreement, correlation, calibration slope."""

    n_experiments: int
    sign_agreement: float  # share of experiments (both effects non-zero) whose signs agree
    sign_agreement_ci: tuple[float, float]
    n_signed: int
    correlation: float
    correlation_ci: tuple[float, float]
    slope: float  # human effect on persona effect
    slope_ci: tuple[float, float]
    intercept: float
    confidence: float
    note: str

    def display_parts(self):
        rows = [{"measure": "sign agreement", "value": self.sign_agreement, "ci": self.sign_agreement_ci},
                {"measure": "correlation", "value": self.correlation, "ci": self.correlation_ci},
                {"measure": "calibration slope", "value": self.slope, "ci": self.slope_ci}]
        return f"persona vs human effects over {self.n_experiments} experiments", rows, [self.note]

    def to_dict(self) -> dict:
        pair = lambda t: [finite(t[0]), finite(t[1])]  # noqa: E731
        return {"n_experiments": self.n_experiments, "n_signed": self.n_signed,
                "sign_agreement": finite(self.sign_agreement), "sign_agreement_ci": pair(self.sign_agreement_ci),
                "correlation": finite(self.correlation), "correlation_ci": pair(self.correlation_ci),
                "slope": finite(self.slope), "slope_ci": pair(self.slope_ci), "intercept": finite(self.intercept),
                "confidence": self.confidence, "note": self.note}


def benchmark_fidelity(human_effects, persona_effects, *, confidence: float = 0.95) -> BenchmarkFidelity:
    """Over experiments: sign agreement (Wilson interval), Pearson correlation (Fisher z) and the calibration
    slope of human on persona effects (t interval). Needs at least 4 experiments for the correlation's interval."""
    h, p = (np.asarray(a, dtype=float) for a in (human_effects, persona_effects))
    if h.shape != p.shape or h.ndim != 1:
        raise SurveyError(f"give one human and one persona effect per experiment; got {h.shape} and {p.shape}")
    if not (np.isfinite(h).all() and np.isfinite(p).all()):
        raise SurveyError("an experiment has a missing effect: drop it or compute its effect first")
    if len(h) < 4:
        raise SurveyError(f"a benchmark needs at least 4 experiments for a correlation interval; got {len(h)}")
    if np.ptp(h) == 0 or np.ptp(p) == 0:
        raise SurveyError("the effects do not vary over the experiments: no correlation or slope can be estimated")
    _z(confidence)
    signed = (h != 0) & (p != 0)
    agree = int((np.sign(h[signed]) == np.sign(p[signed])).sum())
    n_signed = int(signed.sum())
    if n_signed:
        wilson = sps.binomtest(agree, n_signed).proportion_ci(confidence_level=confidence, method="wilson")
        rate, rate_ci = agree / n_signed, (float(wilson.low), float(wilson.high))
    else:
        rate, rate_ci = float("nan"), (float("nan"), float("nan"))
    pearson = sps.pearsonr(p, h)
    r_ci = pearson.confidence_interval(confidence_level=confidence)  # Fisher z
    fit = sps.linregress(p, h)
    t = sps.t.ppf(0.5 + confidence / 2, len(h) - 2)
    note = ("sign agreement counts experiments where neither effect is exactly 0; correlation interval by "
            "Fisher's z, slope of human on persona effects with a t interval (1: a persona effect of x predicts a "
            "human effect of x; below 1 the persona effects vary more than the human ones, exaggerated or noisy; "
            "above 1 they are too small)")
    return BenchmarkFidelity(len(h), rate, rate_ci, n_signed, float(pearson.statistic),
                             (float(r_ci.low), float(r_ci.high)), float(fit.slope),
                             (float(fit.slope - t * fit.stderr), float(fit.slope + t * fit.stderr)),
                             float(fit.intercept), confidence, note)


@dataclass(repr=False)
class DispersionRatio(Display):
    """The personas' between-persona variance over the humans' between-respondent variance."""

    ratio: float
    ci: tuple[float, float]
    persona_variance: float
    human_variance: float
    n_personas: int
    n_humans: int
    confidence: float
    note: str

    def display_parts(self):
        lo, hi = self.ci
        title = f"persona / human variance {self.ratio:.3g} ({self.confidence:.0%} CI {lo:.3g} to {hi:.3g})"
        return title, [{"personas": self.persona_variance, "humans": self.human_variance}], [self.note]

    def to_dict(self) -> dict:
        return {"ratio": finite(self.ratio), "ci": [finite(self.ci[0]), finite(self.ci[1])],
                "persona_variance": finite(self.persona_variance), "human_variance": finite(self.human_variance),
                "n_personas": self.n_personas, "n_humans": self.n_humans, "confidence": self.confidence,
                "note": self.note}


BOOT_BY_COUNTS = 20_000  # scores above which a resample is drawn as counts of the distinct scores (same law)


def _resampled_variances(x, n_boot: int, rng) -> np.ndarray:
    """Sample variances (divisor n - 1) of ``n_boot`` resamples of ``x`` with replacement. Past BOOT_BY_COUNTS
    scores with few distinct values (a million answers on a scale), a resample is a multinomial draw of how often
    each value occurs: the same law without an (n_boot x n) array."""
    n = len(x)
    values, counts = np.unique(x, return_counts=True)
    if n <= BOOT_BY_COUNTS or len(values) > n // 10:
        return x[rng.integers(0, n, (n_boot, n))].var(axis=1, ddof=1)
    times = rng.multinomial(n, counts / n, size=n_boot)
    total, square = times @ values, times @ values ** 2
    return np.maximum(square - total ** 2 / n, 0.0) / (n - 1)


def dispersion_ratio(persona_scores, human_scores, *, confidence: float = 0.95, n_boot: int = 2000,
                     seed=0) -> DispersionRatio:
    """Variance between personas over variance between human respondents, with a percentile bootstrap
    interval (personas and humans resampled independently).

    ``persona_scores``: one score per persona (e.g. its mean answer over paraphrases and replicates);
    ``human_scores``: one score per human respondent, on the same scale. A persona's score averages over its
    paraphrases while a human answers once, so the human variance also holds each person's answer noise: the
    ratio compares what each source shows, and a ratio well below 1 is the familiar too-uniform model.
    """
    ps, hs = (np.asarray(a, dtype=float) for a in (persona_scores, human_scores))
    if ps.ndim != 1 or hs.ndim != 1 or len(ps) < 2 or len(hs) < 2:
        raise SurveyError("a dispersion ratio needs at least 2 persona scores and 2 human scores (one per unit)")
    if not (np.isfinite(ps).all() and np.isfinite(hs).all()):
        raise SurveyError("drop missing scores before comparing dispersion")
    if np.var(hs) == 0:
        raise SurveyError("the humans all gave the same answer: their variance is 0 and no ratio exists")
    _z(confidence)
    rng = np.random.default_rng(seed)
    boot_p = ps[rng.integers(0, len(ps), (n_boot, len(ps)))].var(axis=1, ddof=1)
    boot_h = _resampled_variances(hs, n_boot, rng)
    with np.errstate(divide="ignore", invalid="ignore"):  # personas without spread: ratio 0 whatever the humans
        boot = np.where(boot_p == 0, 0.0, boot_p / boot_h)
    tail = (1 - confidence) / 2
    vp, vh = float(np.var(ps, ddof=1)), float(np.var(hs, ddof=1))
    with np.errstate(invalid="ignore"):  # inf - inf between two infinite neighbours: the bound is infinite
        lo, hi = (float(np.nan_to_num(np.quantile(boot, q), nan=np.inf)) for q in (tail, 1 - tail))
    note = "sample variances (divisor n - 1); percentile bootstrap interval"
    if np.isinf(boot).any():  # rare answers: a resample of the humans can hold one answer only
        note += (f"; in {np.isinf(boot).mean():.0%} of the resamples the humans all answered alike (variance 0), "
                 "so the interval may have no upper bound")
    return DispersionRatio(vp / vh, (lo, hi), vp, vh, len(ps), len(hs), confidence, note)
