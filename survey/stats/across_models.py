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
scale; survey.kinds.ordinal.estimate). On forced choice (scale "choice") each model's result is the
order-averaged preference test of survey.kinds.choice.statistics: the share of valid replies choosing A with its
interval and p-value; the effect compared across models is the A - B difference of shares (twice the
centred share, so positive favours A), and the heterogeneity test compares the pairs' preferences.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from survey.common.formatting import finite
from survey.common.options import options_from
from survey.data.sources import Source
from survey.data.table import require_models
from survey.errors import SurveyError
from survey.stats.ab_tests import ByTest, with_aliases
from survey.stats.analysis import Analysis, analyze, reuse_or_analyze
from survey.stats.heterogeneity import (
    HeterogeneityResult,
    heterogeneity_by_part,
    sign_flip_heterogeneity,
    welch_heterogeneity,
)
from survey.stats.kinds import CompareOptions, FitOptions, kind_of, table_view
from survey.stats.multiplicity import adjust_pvalues, check_adjustment, deciding_part

FITS = ("a", "b", "none")
PAIRINGS = ("auto", "shared", "independent")


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
    comparison: object = field(repr=False)  # the model's A/B result (survey.stats.results.ABResult)
    pvalue_adjusted: float = float("nan")  # sign-flip p after the across-model adjustment
    significant: bool = False
    size: float | None = None
    fit: object | None = None  # the kind's fitted model (survey.stats.results.Fit)
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
        fit = None if self.fit is None else {**self.fit.summary(), "message": self.fit_message}
        extra = self.comparison.model_summary()  # what this kind adds (forced choice: share choosing A)
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
    fit_params: tuple[str, ...] = ("mu", "kappa", "sigma", "rho")  # the kind's fitted parameters

    @property
    def heterogeneity_null(self) -> str:
        view = table_view(pd.DataFrame({"scale": [self.scale]}))
        return kind_of(view).heterogeneity_null(view, self.a, self.b)

    @property
    def heterogeneity_claim(self) -> str:
        """The null in a few words, for sentences: "equal effects on the probability scale"."""
        view = table_view(pd.DataFrame({"scale": [self.scale]}))
        return kind_of(view).heterogeneity_claim(view)

    def by_size(self) -> list[ModelSummary]:
        """Models ordered by the user-given size (those without one last, in table order)."""
        return sorted(self.models, key=lambda s: (s.size is None, s.size or 0.0))

    def table(self) -> pd.DataFrame:
        rows = []
        for s in self.models:
            lo, hi = s.effect.ci
            part = deciding_part(s.comparison)  # a checkbox: each model's effect is on its deciding option, named
            rows.append({"model": s.model, "size": s.size, "n": s.n_personas,
                         "m": s.n_paired, "r": s.replicates, "invalid_rate": s.invalid_rate,
                         "effect": s.effect.estimate, **({} if part is None else {s.comparison.part_word: part}),
                         "ci_low": lo, "ci_high": hi,
                         **{f"p_{k}": v for k, v in s.pvalues.items()}, "p_adjusted": s.pvalue_adjusted,
                         **_fit_columns(s, self.fit_params)})
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


def _fit_columns(s: ModelSummary, params: tuple[str, ...]) -> dict:
    """The fitted parameters' columns of ``table()`` (none fitted: empty), and what the kind adds to the
    summary as numbers (forced choice, which has no fitted model: the share choosing A with its interval)."""
    cols = {k: (s.fit.params.get(k) if s.fit else None) for k in params}
    for key, value in s.comparison.model_summary().items():
        if isinstance(value, float):
            cols[key] = value
        elif isinstance(value, list) and len(value) == 2 and all(isinstance(v, float) for v in value):
            cols[f"{key.removesuffix('_ci')}_low"], cols[f"{key.removesuffix('_ci')}_high"] = value
    return cols


def _clean(d: dict) -> dict:
    return {k: ([finite(v) for v in val] if isinstance(val, list) else
                finite(val) if isinstance(val, float) else val) for k, val in d.items()}


def model_heterogeneity(comps: list, pairing: str = "auto",
                        n_resamples: int = 9999, seed=0) -> HeterogeneityResult:
    """Pick the design-respecting heterogeneity test for these per-model comparisons (see heterogeneity.py).

    ``auto`` uses the shared-perturbation sign-flip test on the pairs every model answered when
    they are at least 2 and at least half of each model's valid pairs; otherwise Welch's ANOVA.
    """
    if pairing not in PAIRINGS:
        raise SurveyError(f"pairing must be one of {', '.join(PAIRINGS)}; got '{pairing}'")
    if hasattr(comps[0], "interaction_parts"):  # decided by a family of tests (a checkbox): part by part, Holm
        return _by_part(comps, pairing, n_resamples, seed)
    per_model = [c.per_pair() for c in comps]
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


def _by_part(comps: list, pairing: str, n_resamples: int, seed) -> HeterogeneityResult:
    """The heterogeneity of a result decided by a family of tests (``interaction_parts()``: part -> per-pair
    differences): every model compared on the same part, Holm across the parts (heterogeneity_by_part), the pairs
    shared or not as for one test."""
    per_model = [c.interaction_parts() for c in comps]
    names = [c.model for c in comps]
    labels = [set.intersection(*(set(d) for d in pm.values())) for pm in per_model]  # valid in every part
    shared = [lab for lab in next(iter(per_model[0].values())) if all(lab in x for x in labels)]
    smallest = min(len(x) for x in labels)
    use = pairing == "shared" or (pairing == "auto" and len(shared) >= 2 and 2 * len(shared) >= smallest)
    if use and len(shared) < 2:
        raise SurveyError(f"the models share {len(shared)} perturbation pair(s); the shared test needs 2; "
                          "use pairing 'independent'")
    res = heterogeneity_by_part(per_model, names, shared if use else None,
                                part_word=getattr(comps[0], "part_word", "part"), n_resamples=n_resamples, seed=seed,
                                ties=getattr(comps[0], "interaction_ties", "count"))
    res.note = ("pairs are matched by their perturbation labels across models; resampling unit: the perturbation "
                "pair (one sign per pair, shared by all models)" if use else
                "models treated as having independent perturbations; unit: the perturbation pair; approximate "
                "(normal theory)")
    return res


def _invalid(kind, df: pd.DataFrame, model: str, a: str, b: str) -> tuple[int, int]:
    sub = kind.query_rows(df, model, a, b)
    return len(sub), int(sub["answer"].isna().sum())


def _fit(kind, view, df, model, message, bootstrap, seed):
    try:
        return kind.fit(df, model, message, view, FitOptions(bootstrap, seed, "moments")), None
    except SurveyError as exc:  # a degenerate model (e.g. always "No") cannot be fitted: say so, go on
        return None, str(exc)


@dataclass(frozen=True)
class ModelsOptions:
    """How ``compare_models`` compares, checked once here. ``adjust``: "none" (each model judged on its own, as
    `survey analyze` does) or "holm"/"bonferroni" (family-wise error across models) for the significance behind
    direction agreement; ``fit``: which message's response model each model fits ("a", "b" or "none", with
    ``fit_bootstrap`` resamples); ``pairing``: how the heterogeneity test pairs the models' perturbations."""

    alpha: float = 0.05
    adjust: str = "none"
    fit: str = "a"
    fit_bootstrap: int = 0
    alternative: str = "two-sided"
    n_resamples: int = 9999
    seed: int | None = 0
    confidence: float = 0.95
    pairing: str = "auto"

    def __post_init__(self):
        check_adjustment(self.adjust)
        if self.fit not in FITS:
            raise SurveyError(f"fit must be one of {', '.join(FITS)}; got '{self.fit}'")


def compare_models(df: pd.DataFrame, a: str, b: str, models: list[str] | None = None, *, sizes: dict | None = None,
                   progress=None, prior: Analysis | None = None, options: ModelsOptions | None = None,
                   **keywords) -> ModelsComparison:
    """A vs B for every model of a validated long table, and how far the conclusions agree.

    ``options``: a ModelsOptions, or its fields as keywords (``alpha``, ``adjust``, ``fit``, ``n_resamples``,
    ...). ``sizes``: model -> size (e.g. parameters), used to order the plot. ``progress`` is called once per
    model. ``prior``: an Analysis of the same table (a report's) whose comparisons of A and B are taken instead
    of run again.
    """
    opts = options_from(ModelsOptions, options, keywords, where="compare_models")
    alpha, adjust, fit, seed, n_resamples = opts.alpha, opts.adjust, opts.fit, opts.seed, opts.n_resamples
    known = require_models(df, models or [])
    models = known if models is None else list(models)
    sizes = dict(sizes or {})
    require_models(df, sizes, prefix="sizes: ")
    for m, s in sizes.items():
        if s is None or not np.isfinite(s) or s <= 0:
            raise SurveyError(f"size of model '{m}' must be a positive number; got {s}")
    # the one loop over models (survey.stats.analysis); the options are validated when built
    compare = CompareOptions(opts.alternative, alpha, opts.confidence, n_resamples, seed)
    source = Source.of(df[df["model"].isin(models)])
    res = (analyze(source, a, b, models=models, options=compare) if prior is None else
           reuse_or_analyze(prior, source, models, [(a, b)], options=compare))
    view, kind = res.view, res.kind
    fit = fit if kind.fit_params else "none"  # a kind without a fitted model (forced choice): its result is all
    message = {"a": a, "b": b}.get(fit)
    summaries = []
    for c in res.results:
        n_q, n_inv = _invalid(kind, df, c.model, a, b)
        est, err = (None, None) if message is None else _fit(kind, view, df, c.model, message, opts.fit_bootstrap, seed)
        summaries.append(ModelSummary(
            model=c.model, n_personas=c.n_personas, n_perturbations=c.n_perturbations, n_paired=c.n_paired,
            replicates=c.replicates, n_queries=n_q, n_invalid=n_inv,
            invalid_rate=n_inv / n_q if n_q else float("nan"), comparison=c, size=sizes.get(c.model),
            fit=est, fit_message=message, fit_error=err))
    for _ in models if progress is not None else ():
        progress()
    adj = adjust_pvalues([s.comparison.decision.pvalue for s in summaries], adjust)
    for s, q in zip(summaries, adj, strict=True):
        s.pvalue_adjusted = float(q)
        s.significant = bool(q <= alpha) and s.effect.estimate != 0
    direction = DirectionAgreement(alpha, adjust, [s.model for s in summaries if s.direction > 0],
                                   [s.model for s in summaries if s.direction < 0],
                                   [s.model for s in summaries if s.direction == 0])
    het = None
    if len(summaries) >= 2:
        het = model_heterogeneity([s.comparison for s in summaries], opts.pairing, n_resamples, seed)
    out = ModelsComparison(a, b, alpha, summaries, direction, het, False, [], [], "", view.scale, view.effect_unit,
                           kind.fit_params)
    reasons, notes = _judge(summaries, direction, het, alpha, a, b, out.heterogeneity_claim)
    # ``warning`` (one sentence, e.g. a position bias) is not part of the ABResult protocol: a kind without it
    # (a checkbox result) has none to add
    notes += [f"model {s.model}: {w}" for s in summaries if (w := getattr(s.comparison, "warning", None))]
    out.depends_on_model, out.reasons, out.summary = bool(reasons), reasons, _summary(summaries, direction, het,
                                                                                      reasons, a, b)
    out.notes = [f"left out of the comparison: {x}" for x in res.left_out] + notes
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
        reasons.append(f"the effects differ across models (heterogeneity {het.in_words()}, {het.method}; "
                       f"null: {null})")
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
        head += f" No evidence that the effects differ across models (heterogeneity {het.in_words()})."
    return head
