"""Valid conclusions about people from a few human answers and many persona answers: prediction-powered inference.

Method: Angelopoulos, Bates, Fannjiang, Jordan & Zrnic, "Prediction-powered inference" (Science, 2023), with
the power tuning of Angelopoulos, Duchi & Zrnic, "PPI++: Efficient Prediction-Powered Inference" (2024); the
survey reading (humans beside model answers) is Broska, Howes & van Loon, "The Mixed Subjects Design: Treating
Large Language Models as (Potentially) Informative Observations" (Sociological Methods & Research, 2025).

n humans answer (Y_i) and each is also rendered as a persona whose exact model score f_i is the prediction;
N further personas drawn from the same population give predictions f~_j only. For a weight lambda,

    theta_lambda = lambda * mean(f~) + mean(Y - lambda * f),
    s.e.^2      = lambda^2 Var(f~) / N + Var(Y - lambda * f) / n,

an unbiased estimate of the human mean E[Y] for every fixed lambda, however wrong the model is: the second term
corrects the predictions' bias with the humans. lambda = 0 is the humans-only mean, lambda = 1 classical PPI.
Power tuning (``lam=None``) picks lambda = Cov(Y, f) / ((1 + n/N) Var(f)), which minimises the s.e.; it is
**clipped to [0, 1]** (as the reference implementation does), so a model that predicts the humans backwards
(negative covariance) falls back to the humans alone rather than being used upside down. The interval is the
normal approximation of both papers with two small-sample corrections (ours, measured in
bench/ppi_coverage.py): the humans' variance Var(Y - lambda f) has divisor n - 2 when lambda is tuned (a tuned
lambda spends a degree of freedom, as a regression slope does; n - 1 when lambda is fixed), the personas' N - 1,
and the interval and p-value use Student's t with Satterthwaite's degrees of freedom (n - 2 plus the personas'
share; with weights the humans' Kish effective n replaces n; between subjects the arms' parts combine as
Welch's). At n = 30 the uncorrected interval covers 0.90-0.94, the corrected one 0.94-0.96
(docs/humans.md). ``variance="ppi_py"`` keeps the reference arithmetic exactly (divisors n and N, z).

With ``variance="ppi_py"`` the arithmetic follows the reference package ``ppi_py`` (PyPI ``ppi-python``)
exactly: Cov(Y, f) with divisor n, Var(f) over all n + N predictions with divisor n + N - 1 (the tuned lambda,
the same in both paths), and the two variances of the s.e. with divisors N and n, with a normal quantile. tests/stats/test_ppi.py checks point estimates, intervals and p-values against it to 1e-10 on values
it computed once (tests/fixtures/ppi_reference.json, made by scripts/ppi_reference.py), also with weights
(``w``, ``w_unlabeled``: each sample weighted to the target population, rescaled to mean 1 as ppi_py does). With weights survey's default s.e. is the linearised (Hajek) variance of each weighted mean,
centred at it; ppi_py's uncentred Var(w x) undercovers when the weights correlate with the answers. ``ppi_py`` is not a
dependency, not even for tests: it needs numba (which pins numpy's version in the shared environment) and
gdown (a Google-Drive downloader for its example data), a heavy price for forty lines of arithmetic.

Within-subjects A - B (each human saw both): ``ppi_paired_effect`` applies the same estimator to
D_i = Y_i(A) - Y_i(B) with predictions g_i = f_i(A) - f_i(B). Between-subjects (each human saw one message):
``ppi_between_effect`` subtracts two PPI means, each tuned on its own arm, s.e.s in quadrature (plus the
covariance of the two imputed means when the same personas answered both messages). It takes weights too
(each arm, a ``PPIArm``, carries ``w`` and ``w_unlabeled``): each arm is then the weighted PPI mean and the s.e. uses
the same weighted variances; at ``lam=0`` it is the humans-alone (weighted) difference of means.
``ppi_mean_arrays`` and ``ppi_between_arrays`` (survey.stats.ppi_arrays) compute many datasets at once, for
simulations. How each estimate is tested (alpha, alternative, lam, null, variance) travels as one ``PPIOptions``.

Validity rests on two things, said in every result: the humans are a random sample of the target population
(and the personas are drawn from, or weighted to, the same population), and the predictions were fixed before
the human answers were used (no model was tuned on these humans). A poor model does not break validity: it
only makes lambda small and the interval as wide as the humans' own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import stats as sps

from survey.common.display import Display
from survey.common.formatting import finite
from survey.common.options import options_from
from survey.errors import SurveyError
from survey.stats.ppi_arrays import (
    VARIANCES,
    PPIArm,
    humans_part,
    normalised_weights,
    ppi_between_arrays,
    ppi_mean_arrays,
)

__all__ = ["PPIArm", "PPIOptions", "PPIResult", "ppi_between_arrays", "ppi_between_effect", "ppi_mean",
           "ppi_mean_arrays", "ppi_paired_effect"]

ALTERNATIVES = ("two-sided", "greater", "less")
RESTS_ON = ("the humans are a random sample of the target population and the personas are drawn from (or "
            "weighted to) the same population; the predictions were fixed before the human answers were used")
METHOD = "prediction-powered inference (Angelopoulos et al. 2023; PPI++ power tuning, Angelopoulos, Duchi & Zrnic 2024)"
# the fewest humans (per arm; with weights, their Kish effective number) at which simulations measured the default
# two-sided interval's coverage at 0.94 or more (bench/ppi_coverage.py; one-sided bounds, rare answers and skewed
# answers need more: docs/humans.md); below it every result says so
MIN_HUMANS = 30
MIN_WEIGHTED_HUMANS = 75
# one-sided bounds of the paired effect covered 0.907-0.918 at 30 humans, 0.918-0.936 at 50, 0.928-0.945 at 100
ONE_SIDED_HUMANS = 100


@dataclass(frozen=True)
class PPIOptions:
    """How a PPI estimate is tested, checked once: ``alpha``, ``alternative`` ("two-sided", "greater": H1 above
    ``null``, "less"), ``lam`` (None: power-tuned and clipped to [0, 1]; 0: humans only; 1: classical PPI),
    ``null`` and ``variance`` ("linearised", or "ppi_py" for the reference package's arithmetic exactly)."""

    alpha: float = 0.05
    alternative: str = "two-sided"
    lam: float | None = None
    null: float = 0.0
    variance: str = "linearised"

    def __post_init__(self):
        if self.alternative not in ALTERNATIVES:
            raise SurveyError(f"alternative must be one of {', '.join(ALTERNATIVES)}; got '{self.alternative}'")
        if not 0 < self.alpha < 1:
            raise SurveyError(f"alpha must be between 0 and 1 (0.05 for a 95% interval); got {self.alpha}")
        if self.lam is not None and not np.isfinite(self.lam):
            raise SurveyError(f"lam must be a number (0 humans only, 1 classical PPI) or None to tune it; "
                              f"got {self.lam}")
        if self.variance not in VARIANCES:
            raise SurveyError(f"variance must be one of {', '.join(VARIANCES)}; got '{self.variance}'")

    @property
    def tuned(self) -> bool:
        return self.lam is None


@dataclass(repr=False)
class PPIResult(Display):
    """A PPI estimate of a human mean or effect: ``estimate``, ``se``, ``ci``, ``pvalue`` against ``null``.

    ``lam`` is the weight on the predictions (a pair for a between-subjects effect), ``effective_n`` the number
    of humans alone that would give the same s.e., ``humans_only_se`` the s.e. of the humans-only estimate.
    """

    target: str  # "mean", "paired effect A - B", "between effect A - B"
    estimate: float
    se: float
    ci: tuple[float, float]
    statistic: float  # z = (estimate - null) / se
    pvalue: float
    null: float
    alternative: str
    alpha: float
    lam: float | tuple[float, float]
    lam_tuned: bool  # True: lam was chosen by power tuning (and clipped to [0, 1])
    n: int  # humans (both arms for a between-subjects effect)
    N: int  # personas with predictions only
    effective_n: float
    humans_only_se: float
    df: float = float("inf")  # of the t quantile behind ci and pvalue (inf: the normal one, variance="ppi_py")
    caution: str = ""  # fewer humans than simulations support
    rests_on: str = RESTS_ON
    method: str = METHOD
    arms: tuple | None = field(default=None)  # between-subjects: the two arms' PPIResults

    @property
    def width_ratio(self) -> float:
        """The s.e. (and interval width) relative to the humans alone; below 1 when the personas help."""
        return self.se / self.humans_only_se if self.humans_only_se > 0 else float("nan")

    @property
    def note(self) -> str:
        lam = self.lam if isinstance(self.lam, tuple) else (self.lam,)
        how = "power-tuned, clipped to [0, 1]" if self.lam_tuned else "fixed"
        return " ".join(filter(None, [
            f"{self.n} humans and {self.N} personas are worth {self.effective_n:.1f} humans alone "
            f"(lambda {', '.join(f'{x:.3g}' for x in lam)}, {how}); valid when {self.rests_on}.", self.caution]))

    def display_parts(self):
        lo, hi = self.ci
        title = (f"PPI {self.target}: {self.estimate:+.4g} ({1 - self.alpha:.0%} CI {lo:+.4g} to {hi:+.4g}), "
                 f"p = {self.pvalue:.4g} against {self.null:g}")
        rows = [{"estimate": self.estimate, "se": self.se, "humans-only se": self.humans_only_se,
                 "effective n": self.effective_n, "n": self.n, "N": self.N}]
        return title, rows, [self.note]

    def to_dict(self) -> dict:
        lam = list(self.lam) if isinstance(self.lam, tuple) else self.lam
        return {"target": self.target, "estimate": finite(self.estimate), "se": finite(self.se),
                "ci": [finite(self.ci[0]), finite(self.ci[1])], "statistic": finite(self.statistic),
                "pvalue": finite(self.pvalue), "null": self.null, "alternative": self.alternative,
                "alpha": self.alpha, "lam": lam, "lam_tuned": self.lam_tuned, "n": self.n, "N": self.N,
                "effective_n": finite(self.effective_n), "humans_only_se": finite(self.humans_only_se),
                "df": finite(self.df), "caution": self.caution or None,
                "width_ratio": finite(self.width_ratio), "method": self.method, "rests_on": self.rests_on,
                "note": self.note, "arms": None if self.arms is None else [a.to_dict() for a in self.arms]}



def ppi_mean(y, yhat, yhat_unlabeled, *, alpha: float = 0.05, alternative: str = "two-sided",
             lam: float | None = None, null: float = 0.0, w=None, w_unlabeled=None,
             variance: str = "linearised") -> PPIResult:
    """PPI++ estimate of the human mean E[Y] with a t interval and p-value (see the module's note).

    ``y``: the n humans' answers; ``yhat``: the model's prediction for each of them (the exact score of a persona
    rendered from that human's attributes, averaged over paraphrases and replicates); ``yhat_unlabeled``: the
    predictions for N further personas from the same population. ``lam`` None: power-tuned (clipped to [0, 1]);
    0: humans only; 1: classical PPI. ``alternative``: "two-sided", "greater" (H1: mean > null; the interval
    is then [lower, inf)) or "less". ``w``, ``w_unlabeled``: optional non-negative weights of the humans and
    the personas, when either sample is to be weighted to the target population (rescaled to mean 1); their
    s.e. uses the linearised variance of the weighted means. ``variance="ppi_py"``: ppi_py's arithmetic exactly
    (its uncentred weighted variance, divisors n and N, a normal quantile).
    """
    options = PPIOptions(alpha=alpha, alternative=alternative, lam=lam, null=null, variance=variance)
    return _mean(PPIArm(y, yhat, yhat_unlabeled, w, w_unlabeled), options)


def _mean(arm: PPIArm, options: PPIOptions, which: str = "") -> PPIResult:
    y, f, fu = _checked(arm, which)
    w, wu = _checked_weights(arm.w, len(y), "humans"), _checked_weights(arm.w_unlabeled, len(fu), "personas")
    est, se, lam_used, df = ppi_mean_arrays(y[None], f[None], fu[None], options.lam, w, wu, options.variance,
                                            with_df=True)
    humans_var, _ = humans_part(normalised_weights(w, (1, len(y))), y[None], options.variance, tuned=False)
    return _result("mean", (float(est[0]), float(se[0]), float(df[0])), float(lam_used[0]), (len(y), len(fu)),
                   float(np.sqrt(humans_var[0])), options,
                   " ".join(filter(None, (_caution([w], [len(y)]), _no_spread(y)))))


def ppi_paired_effect(y_a, y_b, f_a, f_b, f_a_unlabeled, f_b_unlabeled, *, w=None, w_unlabeled=None,
                      options: PPIOptions | None = None, **keywords) -> PPIResult:
    """Within-subjects human effect E[Y(A) - Y(B)]: PPI on D = Y(A) - Y(B) with predictions f(A) - f(B).

    Each of the n humans answered both messages (``y_a[i]``, ``y_b[i]``); ``f_a``, ``f_b`` are the predictions
    for those humans, ``f_a_unlabeled``, ``f_b_unlabeled`` those of N personas that answered both messages;
    ``w``, ``w_unlabeled`` optional weights of the humans and personas, as in ``ppi_mean``; ``options`` a
    PPIOptions (alpha, alternative, lam, null, variance), or its fields as keywords.
    """
    options = options_from(PPIOptions, options, keywords, where="ppi_paired_effect")
    y_a, f_a, fu_a = _checked(PPIArm(y_a, f_a, f_a_unlabeled), " for message A")
    y_b, f_b, fu_b = _checked(PPIArm(y_b, f_b, f_b_unlabeled), " for message B")
    if len(y_a) != len(y_b) or len(fu_a) != len(fu_b):
        raise SurveyError(f"a within-subjects effect pairs each human's and each persona's two answers: give as "
                          f"many A as B answers (humans {len(y_a)} vs {len(y_b)}, personas {len(fu_a)} vs "
                          f"{len(fu_b)}), or use ppi_between_effect when humans saw one message each")
    r = _mean(PPIArm(y_a - y_b, f_a - f_b, fu_a - fu_b, w, w_unlabeled), options)
    r.target = "paired effect A - B"
    return r


def ppi_between_effect(a: PPIArm, b: PPIArm, *, same_personas: bool = False,
                       options: PPIOptions | None = None, **keywords) -> PPIResult:
    """Between-subjects human effect E[Y(A)] - E[Y(B)]: two PPI means (humans randomised to A or B).

    ``a``, ``b``: each message's arm (PPIArm: its humans' answers, their predictions, the personas'
    predictions, and optional weights of its humans and personas, as in ``ppi_mean``: each arm is then a
    weighted PPI mean). Each arm's lambda is tuned on its own humans. The s.e.s add in quadrature when the two
    arms' personas are different; with ``same_personas=True`` (the same N personas answered both messages, row
    j of ``a.f_unlabeled`` and ``b.f_unlabeled`` is one persona) the imputed parts are correlated and their
    variance is that of lambda_A f~(A) - lambda_B f~(B) over the personas; shared personas carry one weight
    each, so there the two persona weights must be equal. ``options.lam=0`` is the humans-alone effect: the
    (weighted) difference of the arms' means with their s.e.s in quadrature. ``options``: a PPIOptions, or its
    fields as keywords.
    """
    options = options_from(PPIOptions, options, keywords, where="ppi_between_effect")
    y_a, f_a, fu_a = _checked(a, " for message A")
    y_b, f_b, fu_b = _checked(b, " for message B")
    w_a, w_b = _checked_weights(a.w, len(y_a), "A humans"), _checked_weights(b.w, len(y_b), "B humans")
    wu_a = _checked_weights(a.w_unlabeled, len(fu_a), "A personas")
    wu_b = _checked_weights(b.w_unlabeled, len(fu_b), "B personas")
    if same_personas and len(fu_a) != len(fu_b):
        raise SurveyError(f"same_personas=True pairs row j of the A and B persona predictions: give as many of "
                          f"each ({len(fu_a)} vs {len(fu_b)}), or set same_personas=False")
    if same_personas and not np.allclose(normalised_weights(wu_a, (1, len(fu_a))),
                                         normalised_weights(wu_b, (1, len(fu_b))), rtol=1e-12, atol=0):
        raise SurveyError("same_personas=True: each persona carries one weight, so give w_b_unlabeled equal to "
                          "w_a_unlabeled (or neither), or set same_personas=False")
    a, b = PPIArm(y_a, f_a, fu_a, w_a, wu_a), PPIArm(y_b, f_b, fu_b, w_b, wu_b)
    arms = (_mean(a, options), _mean(b, options))
    est, se, _, _, df = ppi_between_arrays(a, b, options.lam, same_personas=same_personas,
                                           variance=options.variance, with_df=True)
    humans_se = float(np.hypot(arms[0].humans_only_se, arms[1].humans_only_se))
    sizes = (len(y_a) + len(y_b), len(fu_a) if same_personas else len(fu_a) + len(fu_b))
    r = _result("between effect A - B", (float(est[0]), float(se[0]), float(df[0])), (arms[0].lam, arms[1].lam),
                sizes, humans_se, options,
                " ".join(filter(None, (_caution([w_a, w_b], [len(y_a), len(y_b)]), _no_spread(y_a, " (message A)"),
                                       _no_spread(y_b, " (message B)")))))
    r.arms = arms
    return r


def _result(target, estimate_se_df, lam, sizes, humans_se, options: PPIOptions, caution) -> PPIResult:
    """The interval and p-value of (estimate, s.e., degrees of freedom) under ``options``; ``sizes`` (n, N)."""
    est, se, df = estimate_se_df
    n, big_n = sizes
    alpha, alternative, null = options.alpha, options.alternative, options.null
    statistic = (est - null) / se if se > 0 else float("nan")
    dist = sps.t(df) if np.isfinite(df) else sps.norm
    if alternative == "two-sided":
        q = dist.ppf(1 - alpha / 2)
        ci, p = (est - q * se, est + q * se), 2 * dist.sf(abs(statistic))
    elif alternative == "greater":
        ci, p = (est - dist.ppf(1 - alpha) * se, float("inf")), dist.sf(statistic)
    else:
        ci, p = (float("-inf"), est + dist.ppf(1 - alpha) * se), dist.cdf(statistic)
    # humans alone with s.e. humans_se from n humans: the n' with humans_se * sqrt(n / n') = se
    effective_n = n * (humans_se / se) ** 2 if se > 0 else float("inf")
    if alternative != "two-sided" and n < ONE_SIDED_HUMANS:
        caution = " ".join(filter(None, (caution, (
            f"One-sided on {n} humans: simulations measured one-sided bounds of a paired effect covering 0.907-0.918 "
            "at 30 humans, 0.918-0.936 at 50 and 0.928-0.945 at 100 (the nominal 0.95 needs more humans; "
            "differences of Yes/No answers are skewed): read the bound and its p-value as optimistic."))))
    return PPIResult(target, est, se, (float(ci[0]), float(ci[1])), float(statistic), float(p), float(null),
                     alternative, alpha, lam, options.tuned, n, big_n, float(effective_n), humans_se, df, caution)


def _caution(weights, sizes) -> str:
    """Below the smallest number of humans (per arm) at which simulations measured coverage of 0.94 or more."""
    short = []
    for w, n in zip(weights, sizes, strict=True):
        weighted = w is not None and w.max() > w.min()  # equal weights are no weights
        n_eff = float(w.sum() ** 2 / (w ** 2).sum()) if weighted else n
        least = MIN_WEIGHTED_HUMANS if weighted else MIN_HUMANS
        if n < MIN_HUMANS or n_eff < least:
            short.append((n_eff, least, weighted))
    if not short:
        return ""
    n_eff, least, weighted = min(short)
    who = f"{n_eff:.0f} effective humans (Kish, from the weights)" if weighted else f"{n_eff:.0f} humans"
    arm = " per arm" if len(sizes) > 1 else ""
    return (f"Only {who}{' in an arm' if len(sizes) > 1 else ''}: simulations measured the two-sided "
            f"interval's coverage at 0.94 or more from {least}{' effective' if weighted else ''} humans{arm}"
            " on; below that it may cover less than it says.")


def _no_spread(y, which: str = "") -> str:
    """Every human's answer (or paired difference) is the same: their variance is estimated as 0, a tuned lambda
    is 0 (no covariance), and the interval leaves out the humans' sampling error (zero width for a mean). With a
    Yes-rate of 0.07, 30 humans all say No about one time in nine, and the interval [0, 0] then misses."""
    y = np.asarray(y, dtype=float)
    if len(y) == 0 or np.ptp(y) > 0:
        return ""
    return (f"All {len(y)} humans{which} have the same value ({y[0]:g}): their variance is estimated as 0, so the "
            "interval leaves out their sampling error and covers less than it says; more humans are needed.")


def _checked_weights(w, length: int, who: str):
    if w is None:
        return None
    w = np.asarray(w, dtype=float)
    if w.shape != (length,) or not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
        raise SurveyError(f"the {who}' weights need one non-negative number per unit ({length}), not all 0; "
                          f"got shape {w.shape}")
    return w


def _checked(arm: PPIArm, which: str):
    out = []
    for name, a in (("human answers", arm.y), ("predictions for the humans", arm.f),
                    ("persona predictions", arm.f_unlabeled)):
        a = np.asarray(a, dtype=float)
        if a.ndim != 1:
            raise SurveyError(f"the {name}{which} must be one value per unit (a 1-D array); got shape {a.shape}")
        if not np.isfinite(a).all():
            raise SurveyError(f"the {name}{which} contain {int((~np.isfinite(a)).sum())} missing or infinite "
                              f"values: drop those units (a human needs both an answer and a prediction)")
        out.append(a)
    y, f, fu = out
    if len(y) != len(f):
        raise SurveyError(f"each human needs one prediction{which}: {len(y)} answers but {len(f)} predictions")
    if len(y) < 2 or len(fu) < 2:
        raise SurveyError(f"PPI needs at least 2 humans and 2 personas{which}; got {len(y)} and {len(fu)}")
    return y, f, fu
