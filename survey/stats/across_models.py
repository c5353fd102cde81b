"""Message A vs B across models: per-model results, direction agreement, heterogeneity, and the
"conclusion depends on the model" flag. Helm & Priebe (2026, section 4.6) saw effects change size and
direction between models; Liu et al. (2025), "Statistically Significant Results On Biases and Errors of
LLMs Do Not Guarantee Generalizable Results", saw significant results that do not generalise.

Each model is analysed on its own with `compare_messages` (the valid sign-flip test decides
significance; sign and Wilcoxon are shown for comparison only). The model parameters
(mu, kappa, sigma, rho) are fitted on message A's responses by default: the estimator of
Helm & Priebe (2026, appendix C) describes ONE message, and A is the reference message; `fit="b"` or
`fit="none"` change that.

On a rating scale (the table's ``scale`` column) each model's effect is the difference of mean scores,
in scale points, and the fitted parameters are the ordinal model's (tau, sigma, rho on the latent logit
scale; survey.stats.ordinal_estimate). On forced choice (scale "choice") each model's result is the
order-averaged preference test of survey.stats.choice: the share of valid replies choosing A with its
interval and p-value; the effect compared across models is the A - B difference of shares (twice the
centred share, so positive favours A), and the heterogeneity test compares the pairs' preferences.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from survey.common.formatting import finite
from survey.data.table import require_models
from survey.errors import SurveyError, TableError
from survey.responses import response_type
from survey.stats.ab_tests import DECISION_TEST, ByTest, with_aliases
from survey.stats.across_messages import ScaleWords, adjust_pvalues, scale_words
from survey.stats.beta_logit_estimate import RHO_BIAS_NOTE, EstimateResult
from survey.stats.beta_logit_estimate import fit_beta_logit as estimate
from survey.stats.choice import ChoiceResult, compare_choice
from survey.stats.comparison import Comparison, compare_messages
from survey.stats.effect import EffectResult
from survey.stats.heterogeneity import (
    HETEROGENEITY_NULL,
    HeterogeneityResult,
    sign_flip_heterogeneity,
    welch_heterogeneity,
)
from survey.stats.ordinal_estimate import OrdinalEstimate, estimate_ordinal

FITS = ("a", "b", "none")
PAIRINGS = ("auto", "shared", "independent")
ORDINAL_FIT_NOTE = "ordinal model: tau, sigma and rho on the latent logit scale (survey.stats.ordinal_estimate)"


@dataclass
class ChoiceComparison:
    """One model's forced-choice result (survey.stats.choice.compare_choice) read like a Comparison.

    ``effect``: share choosing A - share choosing B (2 x the centred preference, in [-1, 1]; positive
    favours A) with the interval of the preference test; ``share`` and ``share_ci`` the share choosing A.
    ``d_perturbation``: each used pair's share difference (A - B), matched across models by (A id, B id)."""

    model: str
    result: ChoiceResult
    effect: EffectResult = field(init=False)

    def __post_init__(self):
        pref = self.result.preference
        self.effect = EffectResult(pref.difference, pref.difference_ci, pref.confidence, pref.method, pref.exact,
                                   direction="share choosing A - share choosing B")

    a = property(lambda self: self.result.a)
    b = property(lambda self: self.result.b)
    n_personas = property(lambda self: self.result.n_personas)
    n_paired = property(lambda self: self.result.n_pairs)
    replicates = property(lambda self: self.result.replicates)
    share = property(lambda self: self.result.preference.share)
    share_ci = property(lambda self: self.result.preference.ci)
    pairs = property(lambda self: list(self.result.pairs))

    @property
    def n_perturbations(self) -> dict:
        return {"pairs": self.result.n_pairs, "pairs_left_out": len(self.result.pairs_left_out)}

    @property
    def d_perturbation(self) -> np.ndarray:
        d = self.result.d_pair
        return 2 * d[~np.isnan(d)]

    @property
    def sign_flip(self):
        return self.result.preference

    @property
    def tests(self) -> ByTest:
        """The preference sign-flip test decides; the per-persona tests are for comparison only."""
        return ByTest({DECISION_TEST: self.result.preference, **self.result.persona_tests})

    def to_dict(self) -> dict:
        return self.result.to_dict()


@dataclass
class ModelSummary:
    model: str
    n_personas: int
    n_perturbations: dict
    n_paired: int
    replicates: int
    n_queries: int
    n_invalid: int
    invalid_rate: float
    comparison: Comparison | ChoiceComparison = field(repr=False)
    pvalue_adjusted: float = float("nan")  # sign-flip p after the across-model adjustment
    significant: bool = False
    size: float | None = None
    fit: EstimateResult | OrdinalEstimate | None = None
    fit_message: str | None = None
    fit_error: str | None = None

    @property
    def effect(self):
        return self.comparison.effect

    @property
    def pvalues(self) -> ByTest:
        return ByTest({name: res.pvalue for name, res in self.comparison.tests.items()})

    @property
    def direction(self) -> int:
        """+1 when A is significantly preferred, -1 when B is, 0 otherwise."""
        if not self.significant:
            return 0
        return int(np.sign(self.effect.estimate))

    def to_dict(self) -> dict:
        fit = None
        if isinstance(self.fit, OrdinalEstimate):
            fit = {k: finite(getattr(self.fit, k)) for k in ("tau", "sigma", "rho")}
            fit.update(message=self.fit_message, cuts=self.fit.cuts, se=_clean(self.fit.se), n_bootstrap=self.fit.n_boot,
                       clamped=self.fit.clamped, method=self.fit.method, note=ORDINAL_FIT_NOTE)
        elif self.fit is not None:
            fit = {k: finite(getattr(self.fit, k)) for k in ("mu", "kappa", "sigma", "rho", "a", "b")}
            fit.update(message=self.fit_message, se={k: finite(v) for k, v in self.fit.se.items()},
                       n_bootstrap=self.fit.n_bootstrap, rho_note=RHO_BIAS_NOTE)
        extra = {}
        if isinstance(self.comparison, ChoiceComparison):
            c = self.comparison
            extra = {"share_a": finite(c.share), "share_a_ci": [finite(v) for v in c.share_ci],
                     "position_bias": c.result.position_bias.to_dict(), "warning": c.result.warning}
        return {**extra, "model": self.model, "size": self.size, "n_personas": self.n_personas,
                "n_perturbations": self.n_perturbations, "n_paired": self.n_paired,
                "replicates": self.replicates, "n_queries": self.n_queries, "n_invalid": self.n_invalid,
                "invalid_rate": finite(self.invalid_rate), "effect": _clean(self.effect.to_dict()),
                "pvalues": with_aliases({k: finite(v) for k, v in self.pvalues.items()}),
                "pvalue_adjusted": finite(self.pvalue_adjusted), "significant": self.significant,
                "direction": self.direction, "fit": fit, "fit_error": self.fit_error}


@dataclass
class DirectionAgreement:
    alpha: float
    adjust: str
    prefer_a: list[str]  # significant, effect > 0
    prefer_b: list[str]  # significant, effect < 0
    not_significant: list[str]

    @property
    def conflict(self) -> bool:
        return bool(self.prefer_a) and bool(self.prefer_b)

    def to_dict(self) -> dict:
        return {"alpha": self.alpha, "adjust": self.adjust, "prefer_a": self.prefer_a,
                "prefer_b": self.prefer_b, "not_significant": self.not_significant,
                "counts": {"prefer_a": len(self.prefer_a), "prefer_b": len(self.prefer_b),
                           "not_significant": len(self.not_significant)},
                "conflict": self.conflict}


@dataclass
class ModelsComparison:
    a: str
    b: str
    alpha: float
    models: list[ModelSummary]
    direction: DirectionAgreement
    heterogeneity: HeterogeneityResult | None
    depends_on_model: bool
    reasons: list[str]
    notes: list[str]
    summary: str
    scale: str = "binary"
    unit: str = "P(Yes)"  # what each model's effect is a difference of

    @property
    def heterogeneity_null(self) -> str:
        if self.scale == "binary":
            return HETEROGENEITY_NULL
        if self.scale == "choice":
            return f"equal effects (every model's share choosing {self.a} minus share choosing {self.b} the same)"
        what = self.unit.split(" (")[0]
        return f"equal effects in {what} (every model's {what}({self.a}) − {what}({self.b}) the same)"

    def by_size(self) -> list[ModelSummary]:
        """Models ordered by the user-given size (those without one last, in table order)."""
        return sorted(self.models, key=lambda s: (s.size is None, s.size or 0.0))

    def table(self) -> pd.DataFrame:
        rows = []
        for s in self.models:
            lo, hi = s.effect.ci
            rows.append({"model": s.model, "size": s.size, "n": s.n_personas,
                         "m": s.n_paired, "r": s.replicates, "invalid_rate": s.invalid_rate,
                         "effect": s.effect.estimate, "ci_low": lo, "ci_high": hi,
                         **{f"p_{k}": v for k, v in s.pvalues.items()}, "p_adjusted": s.pvalue_adjusted,
                         **_fit_columns(s, self.scale)})
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        het = None if self.heterogeneity is None else self.heterogeneity.to_dict()
        if het is not None and "null" in het:
            het["null"] = self.heterogeneity_null
        return {"a": self.a, "b": self.b, "alpha": self.alpha, "scale": self.scale, "unit": self.unit,
                "models": [s.to_dict() for s in self.models],
                "direction": self.direction.to_dict(), "heterogeneity": het,
                "depends_on_model": self.depends_on_model, "reasons": self.reasons, "notes": self.notes,
                "summary": self.summary, "heterogeneity_null": self.heterogeneity_null}


def _fit_columns(s: ModelSummary, scale: str) -> dict:
    """The fitted parameters' columns of ``table()``: Beta-logit (Yes/No), ordinal (rating scales), or the
    share choosing A with its interval (forced choice, which has no fitted model)."""
    if scale == "choice":
        return {"share_a": s.comparison.share, "share_a_low": s.comparison.share_ci[0],
                "share_a_high": s.comparison.share_ci[1]}
    names = ("mu", "kappa", "sigma", "rho") if scale == "binary" else ("tau", "sigma", "rho")
    return {k: getattr(s.fit, k, None) if s.fit else None for k in names}



def _clean(d: dict) -> dict:
    return {k: ([finite(v) for v in val] if isinstance(val, list) else
                finite(val) if isinstance(val, float) else val) for k, val in d.items()}


def model_heterogeneity(comps: list[Comparison], pairing: str = "auto",
                        n_resamples: int = 9999, seed=0) -> HeterogeneityResult:
    """Pick the design-respecting heterogeneity test for these per-model comparisons (see heterogeneity.py).

    ``auto`` uses the shared-perturbation sign-flip test on the pairs every model answered when
    they are at least 2 and at least half of each model's valid pairs; otherwise Welch's ANOVA.
    """
    if pairing not in PAIRINGS:
        raise SurveyError(f"pairing must be one of {', '.join(PAIRINGS)}; got '{pairing}'")
    per_model = []
    for c in comps:
        per_model.append({lab: d for lab, d in zip(c.pairs, c.d_perturbation, strict=True) if not np.isnan(d)})
    shared = [lab for lab in per_model[0] if all(lab in pm for pm in per_model[1:])]
    smallest = min(len(pm) for pm in per_model)
    names = [c.model for c in comps]
    if pairing == "shared" or (pairing == "auto" and len(shared) >= 2 and 2 * len(shared) >= smallest):
        if len(shared) < 2:
            raise SurveyError(f"the models share {len(shared)} perturbation pair(s); the shared test needs 2; "
                              "use pairing 'independent'")
        D = np.array([[pm[lab] for lab in shared] for pm in per_model])
        res = sign_flip_heterogeneity(D, names, n_resamples=n_resamples, seed=seed)
        dropped = {n: len(pm) - len(shared) for n, pm in zip(names, per_model, strict=True) if len(pm) > len(shared)}
        res.note = ("pairs are matched by their perturbation labels across models; resampling unit: the "
                    "perturbation pair (one sign per pair, shared by all models)")
        if dropped:
            res.note += f"; pairs not shared by every model were left out: {dropped}"
        return res
    why = ("chosen by the user" if pairing == "independent" else
           f"the models share only {len(shared)} of their perturbation pairs")
    return welch_heterogeneity({n: list(pm.values()) for n, pm in zip(names, per_model, strict=True)},
                               note=f"models treated as having independent perturbations ({why}); "
                                    "unit: the perturbation pair; approximate (normal theory)")


def _invalid(df: pd.DataFrame, model: str, a: str, b: str) -> tuple[int, int]:
    sub = df[(df["model"] == model) & df["message"].isin([a, b])]
    if "second" in sub.columns and (sub.get("scale") == "choice").all():  # A vs B asked in one prompt
        sub = sub[sub["second"].isin([a, b])]
    return len(sub), int(sub["answer"].isna().sum())


def ordinal_counts(df: pd.DataFrame, model: str, message: str, points: list[int]) -> np.ndarray:
    """(personas, perturbations, points) counts of valid answers per scale point, low to high."""
    sub = df[(df["model"] == model) & (df["message"] == message)]
    valid = sub[sub["answer"].notna()]
    cells = pd.MultiIndex.from_product([pd.unique(sub["persona"]), pd.unique(sub["perturbation"])])
    counts = (valid.groupby(["persona", "perturbation", valid["answer"].astype(int)]).size()
              .unstack(fill_value=0).reindex(index=cells, columns=points, fill_value=0).fillna(0))
    return counts.to_numpy(dtype=float).reshape(len(cells.levels[0]), len(cells.levels[1]), len(points))


def _fit(df, model, message, bootstrap, seed, words: ScaleWords):
    try:
        if words.binary:
            return estimate(df, model, message, bootstrap=bootstrap, seed=seed), None
        points = sorted(response_type(words.scale).values)
        return estimate_ordinal(ordinal_counts(df, model, message, points), n_boot=bootstrap, seed=seed), None
    except SurveyError as exc:  # a degenerate model (e.g. always "No") cannot be fitted: say so, go on
        return None, str(exc)


def _compare(df, model, a, b, words: ScaleWords, alternative, n_resamples, seed, confidence, alpha):
    """One model's A vs B: compare_messages on mean scores, or compare_choice on forced choice."""
    if words.choice:
        return ChoiceComparison(model, compare_choice(df, model, a, b, alternative=alternative, alpha=alpha,
                                                      confidence=confidence, n_resamples=n_resamples, seed=seed))
    return compare_messages(df, model, a, b, alternative=alternative, n_resamples=n_resamples, seed=seed,
                            confidence=confidence)


def compare_models(df: pd.DataFrame, a: str, b: str, models: list[str] | None = None,
                   sizes: dict | None = None, alpha: float = 0.05, adjust: str = "none",
                   fit: str = "a", fit_bootstrap: int = 0, alternative: str = "two-sided",
                   n_resamples: int = 9999, seed=0, confidence: float = 0.95, pairing: str = "auto",
                   progress=None) -> ModelsComparison:
    """A vs B for every model of a validated long table, and how far the conclusions agree.

    ``adjust``: "none" (each model judged on its own, as `survey analyze` does) or "holm" (family-
    wise error across models) for the significance behind direction agreement. ``sizes``: model ->
    size (e.g. parameters), used to order the plot. ``progress`` is called once per model.
    """
    if not 0 < alpha < 1:
        raise SurveyError(f"alpha must be between 0 and 1; got {alpha}")
    if adjust not in ("none", "holm", "bonferroni"):
        raise SurveyError(f"adjust must be none, holm or bonferroni across models; got '{adjust}'")
    if fit not in FITS:
        raise SurveyError(f"fit must be one of {', '.join(FITS)}; got '{fit}'")
    known = require_models(df, models or [])
    models = known if models is None else list(models)
    sizes = dict(sizes or {})
    require_models(df, sizes, prefix="sizes: ")
    for m, s in sizes.items():
        if s is None or not np.isfinite(s) or s <= 0:
            raise SurveyError(f"size of model '{m}' must be a positive number; got {s}")
    words = scale_words(df[df["model"].isin(models) & df["message"].isin([a, b])])
    fit = "none" if words.choice else fit  # forced choice has no fitted model; its share is the result
    summaries, left_out = [], []
    for model in models:
        try:
            c = _compare(df, model, a, b, words, alternative, n_resamples, seed, confidence, alpha)
        except SurveyError as exc:  # e.g. every answer invalid: one such model must not hide the others
            if not (words.choice or isinstance(exc, TableError)):
                raise
            left_out.append(str(exc))
            if progress is not None:
                progress()
            continue
        n_q, n_inv = _invalid(df, model, a, b)
        est, err = ((None, None) if fit == "none" else
                    _fit(df, model, a if fit == "a" else b, fit_bootstrap, seed, words))
        summaries.append(ModelSummary(
            model=model, n_personas=c.n_personas, n_perturbations=c.n_perturbations, n_paired=c.n_paired,
            replicates=c.replicates, n_queries=n_q, n_invalid=n_inv,
            invalid_rate=n_inv / n_q if n_q else float("nan"), comparison=c, size=sizes.get(model),
            fit=est, fit_message=None if fit == "none" else (a if fit == "a" else b), fit_error=err))
        if progress is not None:
            progress()
    if not summaries:
        raise TableError("; ".join(left_out))
    adj = adjust_pvalues([s.comparison.sign_flip.pvalue for s in summaries], adjust)
    for s, q in zip(summaries, adj, strict=True):
        s.pvalue_adjusted = float(q)
        s.significant = bool(q <= alpha) and s.effect.estimate != 0
    direction = DirectionAgreement(alpha, adjust, [s.model for s in summaries if s.direction > 0],
                                   [s.model for s in summaries if s.direction < 0],
                                   [s.model for s in summaries if s.direction == 0])
    het = None
    if len(summaries) >= 2:
        het = model_heterogeneity([s.comparison for s in summaries], pairing, n_resamples, seed)
    out = ModelsComparison(a, b, alpha, summaries, direction, het, False, [], [], "", words.scale, words.unit)
    reasons, notes = _judge(summaries, direction, het, alpha, a, b, out.heterogeneity_null)
    if words.choice:
        notes += [f"model {s.model}: {s.comparison.result.warning}" for s in summaries if s.comparison.result.warning]
    out.depends_on_model, out.reasons, out.summary = bool(reasons), reasons, _summary(summaries, direction, het,
                                                                                      reasons, a, b)
    out.notes = [f"left out of the comparison: {x}" for x in left_out] + notes
    return out


def _judge(summaries, direction, het, alpha, a, b, null: str = "equal effects on the probability scale"
           ) -> tuple[list[str], list[str]]:
    reasons, notes = [], []
    by = {s.model: s for s in summaries}
    if direction.conflict:
        fa = ", ".join(f"{m} (p = {by[m].pvalue_adjusted:.3g})" for m in direction.prefer_a)
        fb = ", ".join(f"{m} (p = {by[m].pvalue_adjusted:.3g})" for m in direction.prefer_b)
        reasons.append(f"significant effects disagree in sign: {a} is preferred by {fa}; {b} by {fb}")
    if het is not None and np.isfinite(het.pvalue) and het.pvalue <= alpha:
        reasons.append(f"the effects differ across models (heterogeneity p = {het.pvalue:.3g}, {het.method}; "
                       f"null: {null.split(' (')[0]})")
    k, n_sig = len(summaries), len(direction.prefer_a) + len(direction.prefer_b)
    if k > 1 and 0 < n_sig < k and not direction.conflict:
        notes.append(f"significant for {n_sig} of {k} models only: a result that may not generalise "
                     "to other models (Liu et al. 2025)")
    for s in summaries:
        if s.fit_error:
            notes.append(f"model {s.model}: parameters not fitted ({s.fit_error})")
    if het is not None and het.note:
        notes.append(f"heterogeneity test: {het.note}")
    return reasons, notes


def _summary(summaries, direction, het, reasons, a, b) -> str:
    k = len(summaries)
    pa, pb = len(direction.prefer_a), len(direction.prefer_b)
    if reasons:
        head = "The conclusion depends on the model: " + "; ".join(reasons) + "."
    elif k == 1:
        s = summaries[0]
        word = {1: f"prefers {a}", -1: f"prefers {b}", 0: "shows no significant preference"}[s.direction]
        return f"One model ({s.model}) {word}; there is nothing to compare across models."
    elif pa == k:
        head = f"All {k} models significantly prefer {a}."
    elif pb == k:
        head = f"All {k} models significantly prefer {b}."
    elif pa + pb == 0:
        head = f"No model shows a significant preference between {a} and {b}."
    else:
        winner = a if pa else b
        head = (f"{pa + pb} of {k} models significantly prefer {winner}; the others show no "
                "significant preference.")
    if het is not None and not reasons and np.isfinite(het.pvalue):
        head += f" No evidence that the effects differ across models (heterogeneity p = {het.pvalue:.3g})."
    return head
