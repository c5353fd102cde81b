"""How many humans and how many persona answers? The cheapest mix for a target interval width or power.

Broska, Howes & van Loon, "The Mixed Subjects Design: Treating Large Language Models as (Potentially)
Informative Observations" (Sociological Methods & Research, 2025): with n humans, N personas, r the correlation
between a human's answer Y and the model's prediction f for that human, and the power-tuned estimator of
survey.stats.ppi (Angelopoulos, Duchi & Zrnic, "PPI++: Efficient Prediction-Powered Inference", 2024),

    s.e.(n, N) = sigma_Y sqrt((1 - r^2 N / (n + N)) / n),

so with N >> n one human is worth 1 / (1 - r^2) humans. Given a cost per human answer and per persona answer
and a target s.e. (from a CI half-width, or from an effect to detect with a given power), ``plan_mixed_subjects``
finds the cheapest (n, N) exactly: for each n up to the humans-only size, the fewest personas that reach the
target, then the cheapest of those. The formula assumes the best lambda (r sigma_Y / sigma_f N/(n+N) within
[0, 1]). The target is the interval survey.stats.ppi reports, not the normal one: with n humans its s.e. is
larger by sqrt(n / (n - 2)) (the divisor of a tuned lambda) and its quantile is Student's t on n - 2 degrees of
freedom (fewer than the interval's Satterthwaite ones, so a little conservative), which at 30 humans adds about
8% to the half-width; planned with z, 30 humans reached a power of 0.77 for a promised 0.8.

Be honest about the gain: the correlations measured between model predictions and human answers are about
0.2 to 0.5, so one human is worth 1.04 to 1.33 humans and personas save at most 4% to 25% of the human
budget. What they buy is not a cheap survey but a valid statement about people from a given number of them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from survey.common.display import Display
from survey.common.formatting import finite
from survey.errors import SurveyError

# The humans-alone size a target may need: the search tries every number of humans up to it.
HUMANS_MAX = 1_000_000
HUMANS_WHY = ("few surveys of people reach a million respondents, and the search tries every number of humans up "
              "to the humans-alone size: past a million it takes many seconds")
_CHUNK = 65_536  # numbers of humans searched at once: a few MB of arrays


def check_finite(**values) -> None:
    """Costs, s.d.s, r and targets must be finite numbers: an infinite cost would otherwise surface as "no mix
    reaches the target", which names the wrong fix."""
    for name, value in values.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float, np.number))
                                  or not math.isfinite(value)):
            raise SurveyError(f"{name} must be a finite number; got {value}")


def humans(count: float) -> str:
    """'1 human', '1.1 humans' (three significant digits)."""
    text = f"{count:.3g}"
    return f"{text} human" if text == "1" else f"{text} humans"


def r_interval(r: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Fisher's z interval for a Pearson r measured on ``n`` pairs (Fisher, "On the probable error of a
    coefficient of correlation deduced from a small sample", 1921): tanh(atanh r -+ z / sqrt(n - 3))."""
    if n <= 3:
        return (-1.0, 1.0)
    half = sps.norm.ppf(0.5 + confidence / 2) / math.sqrt(n - 3)
    z = math.atanh(max(min(r, 1 - 1e-15), -1 + 1e-15))
    return (math.tanh(z - half), math.tanh(z + half))


def mixed_subjects_se(n, big_n, sigma: float, r: float, sigma_f: float | None = None):
    """The PPI++ s.e. with n humans and N personas (arrays broadcast). Without ``sigma_f``, at the best lambda:
    sigma sqrt((1 - r^2 N/(n + N)) / n). With the predictions' s.d. ``sigma_f``, at the lambda PPI++ uses,
    clip(c / (sigma_f^2 (1 + n/N)), 0, 1) with c = r sigma sigma_f: n se^2 = sigma^2 - 2 lambda c +
    lambda^2 sigma_f^2 (1 + n/N). The two agree unless the best lambda exceeds 1, which happens when the
    predictions vary less than r sigma (models that answer too uniformly): then the personas are worth less."""
    n, big_n = np.asarray(n, dtype=float), np.asarray(big_n, dtype=float)
    if sigma_f is None:
        return sigma * np.sqrt((1 - r ** 2 * big_n / (n + big_n)) / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(big_n > 0, n / np.where(big_n > 0, big_n, 1.0), np.inf)
        c = max(r, 0.0) * sigma * sigma_f
        lam = np.where(big_n > 0, np.clip(c / (sigma_f ** 2 * (1 + ratio)), 0.0, 1.0), 0.0)
        var = sigma ** 2 - 2 * lam * c + np.where(lam > 0, lam ** 2 * sigma_f ** 2 * (1 + ratio), 0.0)
    return np.sqrt(var / n)


@dataclass(repr=False)
class MixedSubjectsPlan(Display):
    """The cheapest mix of humans and persona answers for a target s.e., beside the humans-only plan."""

    n: int  # humans
    N: int  # persona answers (personas with predictions only)
    cost: float
    se: float
    target_se: float
    half_width: float  # the expected half-width of the interval PPI reports (half_width_of)
    humans_only_n: int
    humans_only_cost: float
    effective_humans: float  # the humans alone that would give this s.e.
    worth_per_human: float  # 1 / (1 - r^2): the most one human can be worth with unlimited personas
    r: float
    sigma: float
    cost_human: float
    cost_persona: float
    alpha: float
    sigma_f: float | None = None  # the predictions' s.d., when lambda's cap at 1 is planned for

    @property
    def saving(self) -> float:
        """Share of the humans-only cost saved."""
        return 1 - self.cost / self.humans_only_cost if self.humans_only_cost > 0 else 0.0

    @property
    def note(self) -> str:
        worth = f"with r = {self.r:.2g} one human is worth at most {humans(self.worth_per_human)}"
        if self.N == 0:  # no personas: the gain and lambda's assumptions say nothing about this plan
            return (f"{worth}; the personas add nothing here, so the plan is the humans alone; r measured on the same "
                    "population (a pilot or a stated guess).")
        return (f"{worth}; this plan saves {self.saving:.0%} of the humans-only cost. Correlations measured between "
                f"model predictions and people are about 0.2-0.5, where the saving is modest (4-25% at most): the "
                "gain is a valid statement about people. " + (
                    f"Plans lambda as PPI++ tunes it, capped at 1, with predictions of s.d. {self.sigma_f:.3g} "
                    f"against answers of s.d. {self.sigma:.3g}" if self.sigma_f is not None else
                    "Assumes the best lambda (not capped at 1: models whose predictions vary less than r sigma are "
                    "worth less; give the predictions' s.d. to plan for it)")
                + "; r measured on the same population (a pilot or a stated guess).")

    def display_parts(self):
        title = (f"mixed subjects: {self.n} humans + {self.N} persona answers, cost {self.cost:.4g} "
                 f"(humans only: {self.humans_only_n}, cost {self.humans_only_cost:.4g})")
        rows = [{"humans": self.n, "personas": self.N, "se": self.se, "half-width": self.half_width,
                 "effective humans": self.effective_humans, "saving": self.saving}]
        return title, rows, [self.note]

    def to_dict(self) -> dict:
        return {"n": self.n, "N": self.N, "cost": finite(self.cost), "se": finite(self.se),
                "target_se": finite(self.target_se), "half_width": finite(self.half_width),
                "humans_only_n": self.humans_only_n, "humans_only_cost": finite(self.humans_only_cost),
                "effective_humans": finite(self.effective_humans), "worth_per_human": finite(self.worth_per_human),
                "saving": finite(self.saving), "r": self.r, "sigma": self.sigma, "cost_human": self.cost_human,
                "cost_persona": self.cost_persona, "alpha": self.alpha, "sigma_f": self.sigma_f, "note": self.note}


def plan_mixed_subjects(*, r: float, cost_human: float, cost_persona: float, sigma: float = 1.0,
                        half_width: float | None = None, effect: float | None = None, power: float = 0.8,
                        alpha: float = 0.05, max_personas: int | None = None,
                        sigma_f: float | None = None) -> MixedSubjectsPlan:
    """The cheapest (humans n, persona answers N) whose s.e. reaches the target.

    Give ``half_width`` (the (1 - alpha) CI half-width wanted) or ``effect`` (a true effect or mean difference
    to detect with ``power`` in a two-sided test at ``alpha``), on the answers' scale whose s.d. is ``sigma``;
    ``r`` is corr(Y, f). ``max_personas`` caps N (the personas or model queries available). ``sigma_f``: the
    predictions' s.d. (a pilot's), to plan lambda's cap at 1 (mixed_subjects_se); None plans the best lambda.
    """
    check_finite(r=r, cost_human=cost_human, cost_persona=cost_persona, sigma=sigma, sigma_f=sigma_f,
                  half_width=half_width)
    if not -1 < r < 1:
        raise SurveyError(f"r is a correlation strictly between -1 and 1 (a pilot's or a stated guess); got {r}")
    r = max(float(r), 0.0)  # predictions that run against the answers get lambda 0: the humans alone
    if not (cost_human > 0 and cost_persona >= 0 and sigma > 0):
        raise SurveyError("costs must be numbers (a human answer > 0, a persona answer >= 0) and sigma > 0")
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise SurveyError(f"alpha and power must lie between 0 and 1; got {alpha} and {power}")
    if (half_width is None) == (effect is None):
        raise SurveyError("give exactly one target: half_width= (a CI half-width) or effect= (with power=)")
    if half_width is not None and not half_width > 0:
        raise SurveyError(f"half_width must be positive; got {half_width}")
    if effect is not None and (effect == 0 or not np.isfinite(effect)):
        raise SurveyError("effect must be a non-zero number: the smallest difference worth detecting")
    if sigma_f is not None and not sigma_f > 0:
        raise SurveyError(f"sigma_f is the predictions' s.d. and must be positive; got {sigma_f}")

    def target_of(n):
        return target_se(n, half_width=half_width, effect=effect, power=power, alpha=alpha)

    # humans alone: sigma / sqrt(n) <= target (the 1e-9 keeps an exact fit from rounding up to one human more)
    humans_alone = (sigma / float(target_of(np.inf))) ** 2
    if humans_alone > HUMANS_MAX:
        raise SurveyError(f"this target needs about {humans_alone:,.0f} humans alone, more than {HUMANS_MAX:,}: "
                          f"widen the target (a larger half-width or effect) ({HUMANS_WHY})")
    n0 = max(3, math.ceil(humans_alone - 1e-9))
    while sigma / math.sqrt(n0) > float(target_of(n0)) * (1 + 1e-12):  # the small-sample factors: a few more
        n0 += 1
    if not math.isfinite(n0 * cost_human):
        raise SurveyError(f"the humans-alone plan ({n0:,} humans at {cost_human:g} each) costs more than a number "
                          "can hold: give the costs in a larger unit (e.g. thousands)")
    best_cost, nb, bigb = math.inf, 0, 0
    for start in range(3, n0 + 1, _CHUNK):  # in chunks: memory stays a few MB whatever n0 is
        n = np.arange(start, min(start + _CHUNK, n0 + 1), dtype=float)
        target = target_of(n)
        big_n = (_fewest_personas(n, target, sigma, r) if sigma_f is None
                 else _fewest_personas_capped(n, target, sigma, r, sigma_f, max_personas))
        if max_personas is not None:
            big_n[big_n > max_personas] = np.inf
        with np.errstate(over="ignore"):  # a cost past the largest float is inf: refused below, not a warning
            cost = np.where(np.isfinite(big_n), n * cost_human + np.nan_to_num(big_n, posinf=0.0) * cost_persona,
                            np.inf)
        i = int(np.argmin(cost))
        if cost[i] < best_cost:  # strictly: the first (fewest humans) of equal costs, as one argmin over all n
            best_cost, nb, bigb = float(cost[i]), int(n[i]), int(big_n[i])
    if not math.isfinite(best_cost):
        if max_personas is None or cost_persona * max_personas > 1e300:
            raise SurveyError(f"no mix has a cost a number can hold (a human at {cost_human:g}, a persona at "
                              f"{cost_persona:g}): give the costs in a larger unit (e.g. thousands)")
        raise SurveyError("no mix reaches the target within max_personas: raise max_personas or widen the target")
    se = float(mixed_subjects_se(nb, bigb, sigma, r, sigma_f))
    if sigma_f is None:
        worth = 1 / (1 - r ** 2)
    else:  # with unlimited personas lambda = min(c / sigma_f^2, 1): n se^2 = sigma^2 - 2 lambda c + lambda^2 sigma_f^2
        c = r * sigma * sigma_f
        lam = min(c / sigma_f ** 2, 1.0)
        worth = sigma ** 2 / (sigma ** 2 - 2 * lam * c + lam ** 2 * sigma_f ** 2)
    return MixedSubjectsPlan(nb, bigb, best_cost, se, float(target_of(nb)), float(half_width_of(nb, se, alpha)), n0,
                             float(n0 * cost_human), float((sigma / se) ** 2), float(worth), float(r),
                             float(sigma), float(cost_human), float(cost_persona), float(alpha),
                             None if sigma_f is None else float(sigma_f))


def target_se(n, *, half_width=None, effect=None, power: float = 0.8, alpha: float = 0.05):
    """Per number of humans n, the largest large-sample s.e. (mixed_subjects_se) whose reported interval reaches
    the target: half_width = t_(n - 2) sqrt(n / (n - 2)) s.e., or an effect detected with ``power`` when
    effect = (t_(1 - alpha/2) + t_power) sqrt(n / (n - 2)) s.e.; n = inf gives the normal one."""
    n = np.asarray(n, dtype=float)
    df = np.maximum(n - 2, 1.0)
    q = sps.t.ppf(1 - alpha / 2, df)
    base = half_width / q if half_width is not None else abs(effect) / (q + sps.t.ppf(power, df))
    with np.errstate(invalid="ignore"):
        return base * np.where(np.isfinite(n), np.sqrt(df / n), 1.0)


def half_width_of(n, se, alpha: float = 0.05):
    """The half-width survey.stats.ppi reports with n humans for a large-sample s.e. ``se`` (t on n - 2)."""
    df = max(n - 2, 1)
    return float(sps.t.ppf(1 - alpha / 2, df) * se * math.sqrt(n / df))


def _fewest_personas(n, target, sigma, r):
    """Per n, the fewest N with s.e. <= target (one per n) at the best lambda (closed form; inf when none)."""
    target = np.broadcast_to(target, n.shape)
    q = n * target ** 2 / sigma ** 2  # the factor 1 - r^2 N/(n + N) may be at most q
    need = np.clip((1 - q) / r ** 2 if r else np.where(q >= 1, 0.0, np.inf), 0, None)  # needs N/(n+N) >= this
    with np.errstate(divide="ignore", invalid="ignore"):
        big_n = np.where(need <= 0, 0.0, np.where(need < 1, np.ceil(need * n / (1 - need) - 1e-9), np.inf))
    ok = np.isfinite(big_n)
    short = mixed_subjects_se(n[ok], big_n[ok], sigma, r) > target[ok] * (1 + 1e-12)
    big_n[np.flatnonzero(ok)[short]] += 1  # rounding: the ceiling may sit a hair short
    return big_n


def _fewest_personas_capped(n, target, sigma, r, sigma_f, max_personas):
    """Per n, the fewest N with s.e. <= target at PPI++'s capped lambda: the s.e. falls as N grows, so a
    bisection over whole numbers, all n at once (inf when even the cap's N, or 10^9, does not reach it)."""
    top = float(max_personas if max_personas is not None else 10 ** 9)
    fits = lambda big: mixed_subjects_se(n, big, sigma, r, sigma_f) <= target * (1 + 1e-12)  # noqa: E731
    alone = sigma / np.sqrt(n) <= target * (1 + 1e-12)
    lo, hi = np.zeros_like(n), np.full_like(n, top)
    reachable = fits(hi)
    for _ in range(int(np.ceil(np.log2(top + 1))) + 1):
        mid = np.floor((lo + hi) / 2)
        ok = fits(np.maximum(mid, 1))
        hi, lo = np.where(ok, mid, hi), np.where(ok, lo, mid)
    big_n = np.maximum(hi, 1)
    return np.where(alone, 0.0, np.where(reachable, big_n, np.inf))
