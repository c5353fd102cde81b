"""What `survey analyze` and `survey estimate` compute, as Python calls on a long table: every model
of the table, each analysed on its own. A model that cannot be analysed (e.g. no valid answer) is
left out with its reason instead of hiding the others; when none can be, that is the error.

    res = analyze(df, "sneakers", "boots")
    res["gpt"].sign_flip.pvalue, res["gpt"].effect.ci
    res.to_dict()  # what `survey analyze --json` prints

The table's scale decides the analysis: Yes/No and rating scales compare P(Yes) or mean scores
(survey.stats.comparison; a rating scale's effect is in scale points, with the top-2-box share beside
it), a forced-choice table runs survey.stats.choice.compare_choice (preference and position bias).
``estimate`` fits the Beta-logit model on Yes/No answers and the ordinal model (survey.stats.ordinal_estimate)
on a rating scale.

Both take a DataFrame or a survey.data.sources.Source (``load_source``): the result carries the data's
completeness (``res.completeness``, survey.data.completeness) and says which study it analysed.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from survey.common.limits import BOOTSTRAP_MAX, Alpha, Flips, Seed
from survey.data.completeness import Completeness, split_source
from survey.data.table import (
    models_in,
    pick_messages,
    require_messages,
    require_models,
    validate_table,
)
from survey.errors import SurveyError, TableError, validated
from survey.responses import response_type
from survey.stats.ab_tests import DECISION_TEST
from survey.stats.choice import ChoiceResult, compare_choice
from survey.stats.comparison import Comparison, compare_messages
from survey.stats.estimate import estimate as estimate_model
from survey.stats.ordinal_estimate import OrdinalEstimate, category_counts, estimate_ordinal
from survey.stats.scale_info import CHOICE, scale_info, table_scale


class AnalyzeOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    alternative: Literal["two-sided", "greater", "less"] = "two-sided"
    alpha: Alpha = 0.05
    confidence: float | None = Field(default=None, gt=0, lt=1)  # None: 1 - alpha
    flips: Flips = 9999
    seed: Seed | None = 0
    probabilities: bool = False
    pairing: list[tuple[str, str]] | None = None


class EstimateOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    bootstrap: int = Field(default=200, ge=0, le=BOOTSTRAP_MAX)
    seed: Seed | None = 0
    method: Literal["moments", "appendix-c"] = "moments"


class Analysis(dict):
    """model -> Comparison (Yes/No, rating scales) or ChoiceResult (forced choice), in table order;
    ``scale`` the table's scale; ``left_out`` holds the reason of each model left out; ``completeness``
    what the data rests on (the study and the queries expected, stored, failed)."""

    def __init__(self, comparisons=(), left_out=(), completeness: Completeness | None = None,
                 alpha: float = 0.05, scale: str = "binary"):
        super().__init__(c if isinstance(c, tuple) else (c.model, c) for c in comparisons)
        self.left_out = list(left_out)
        self.completeness = completeness
        self.alpha = alpha
        self.scale = scale

    @property
    def choice(self) -> bool:
        """True for a forced-choice table: the results are ChoiceResults."""
        return self.scale == CHOICE

    def significant(self, model: str) -> bool:
        """Whether the deciding test rejects A = B at ``alpha`` for this model: the sign-flip test, or
        for forced choice the preference test (itself a sign-flip test on order-averaged shares)."""
        return bool(decision_pvalue(self[model]) <= self.alpha)

    def to_dict(self) -> dict:
        info = scale_info(self.scale)
        return {"alpha": self.alpha, "decided_by": "preference" if self.choice else DECISION_TEST,
                "scale": self.scale, "unit": info.unit,
                "results": [{**_result_dict(m, c, self.scale), "significant": self.significant(m)}
                            for m, c in self.items()],
                "left_out": self.left_out, **_provenance(self.completeness)}


def decision_pvalue(result: Comparison | ChoiceResult) -> float:
    """The p-value that decides A = B: the sign-flip test's, or forced choice's preference test's."""
    if isinstance(result, ChoiceResult):
        return float(result.preference.pvalue)
    return float(result.tests[DECISION_TEST].pvalue)


def _result_dict(model: str, result, scale: str) -> dict:
    if isinstance(result, ChoiceResult):
        return {"model": model, "scale": scale, "unit": scale_info(scale).unit, **result.to_dict()}
    return result.to_dict()


class Estimates(dict):
    """model -> EstimateResult (Yes/No: Beta-logit) or OrdinalEstimate (rating scales) for one message, in
    table order; ``scale`` the table's scale; ``left_out`` as in Analysis."""

    def __init__(self, message: str, results=(), left_out=(), completeness: Completeness | None = None,
                 scale: str = "binary"):
        super().__init__(results)
        self.message = message
        self.left_out = list(left_out)
        self.completeness = completeness
        self.scale = scale

    def to_dict(self) -> dict:
        return {"scale": self.scale,
                "results": [{"model": m, "message": self.message, **r.to_dict()} for m, r in self.items()],
                "left_out": self.left_out, **_provenance(self.completeness)}


def _provenance(completeness: Completeness | None) -> dict:
    """The JSON keys every result carries: the study analysed and the data's completeness."""
    if completeness is None:
        return {}
    return {"study": completeness.study, "completeness": completeness.to_dict()}


def _each_model(models, run, catch: type[Exception], reason) -> tuple[list, list[str]]:
    done, left_out = [], []
    for model in models:
        try:
            done.append(run(model))
        except catch as exc:  # e.g. every answer invalid: one such model must not hide the others
            left_out.append(reason(model, exc))
    if not done:
        raise SurveyError("; ".join(left_out))
    return done, left_out


def analyze(df, a: str | None = None, b: str | None = None, *, models: list[str] | None = None,
            alternative: str = "two-sided", alpha: float = 0.05, confidence: float | None = None,
            flips: int = 9999, seed: int | None = 0,
            probabilities: bool = False, pairing: list[tuple[str, str]] | None = None,
            completeness: Completeness | None = None, scale: str | None = None) -> Analysis:
    """Message A vs B for every model (or those named): every A/B test and the effect with its CI.

    With two messages in the table, a and b may be left out (or one of them). ``alpha``: the level at
    which each result says whether the sign-flip test rejects (``significant``); the effect's interval
    has confidence 1 - alpha unless ``confidence`` is given. ``flips``: random sign vectors when there
    are more than 40 perturbation pairs (below that the test is exact).
    ``probabilities``: test the exact per-cell expected score (``expected``; P(Yes) for Yes/No) instead
    of answer means.
    ``pairing``: [(A id, B id), ...] for every model; by default design or natural order of the ids
    (survey.data.pairing). Each result's ``pairs`` and ``to_dict()`` say which pairs were formed.
    ``df``: a long table or a Source (survey.data.sources.load_source); ``completeness`` overrides its own.
    ``scale``: the response type of a table without a ``scale`` column (e.g. "likert5"; default Yes/No).
    The table's scale picks the analysis: a Comparison per model (Yes/No: P(Yes); rating scales: mean
    scores, effect in scale points, top-2-box), or for forced choice ("choice") a ChoiceResult per model
    (survey.stats.choice.compare_choice: the preference for A and the position bias). A table that mixes
    scales is refused.
    """
    df, completeness = split_source(df, completeness)
    df = _with_scale(df, scale)
    opts = validated(AnalyzeOptions, "analyze options", alternative=alternative, alpha=alpha, confidence=confidence,
                  flips=flips, seed=seed, probabilities=probabilities, pairing=pairing)
    confidence = 1 - opts.alpha if opts.confidence is None else opts.confidence
    table = table_scale(df)
    scale_info(table)  # free text has nothing to compare: say so
    a, b = pick_messages(df, a, b)
    require_models(df, models or [])
    if table == CHOICE and opts.pairing:
        raise SurveyError("a forced-choice table pairs paraphrases in its rows (each pair was shown together); "
                          "pairing does not apply")

    def run(model: str):
        if table == CHOICE:
            return model, compare_choice(df, model, a, b, alternative=opts.alternative, alpha=opts.alpha,
                                         confidence=confidence, n_resamples=opts.flips, seed=opts.seed,
                                         probabilities=opts.probabilities)
        return compare_messages(df, model, a, b, alternative=opts.alternative, n_resamples=opts.flips,
                                seed=opts.seed, confidence=confidence, probabilities=opts.probabilities,
                                pairing=opts.pairing)

    done, left_out = _each_model(models or models_in(df), run, TableError, lambda m, exc: str(exc))
    return Analysis(done, left_out, completeness, opts.alpha, table)


def _with_scale(df, scale: str | None):
    """A DataFrame checked against the contract with ``scale`` for a table without a scale column."""
    if scale is None:
        return df
    response_type(scale)  # an unknown name: the SurveyError lists the known ones
    return validate_table(df, min_perturbations=0, scale=scale)


def estimate(df, message: str, model: str | None = None, *, bootstrap: int = 200, seed: int | None = 0,
             method: str = "moments", completeness: Completeness | None = None,
             scale: str | None = None) -> Estimates:
    """The response model fitted on one message's answers, for every model or the one named.

    Yes/No: mu, kappa, sigma, rho of the Beta-logit model of Helm & Priebe. ``method``: "moments" (unbiased
    on the probability scale; with one answer per cell it falls back to appendix C and its note says so) or
    "appendix-c" (the paper's estimator, biased; kept for comparison), see survey.stats.estimate.
    A rating scale: tau, sigma, rho and the cut points of the ordinal model by its moment estimator
    (survey.stats.ordinal_estimate; ``method`` "moments" only). Forced choice has no such model: a
    SurveyError says to use analyze. ``bootstrap`` resamples of personas and perturbations give standard
    errors and 95% percentile intervals (0: none). ``df``, ``completeness`` and ``scale`` as in analyze."""
    df, completeness = split_source(df, completeness)
    df = _with_scale(df, scale)
    opts = validated(EstimateOptions, "estimate options", bootstrap=bootstrap, seed=seed, method=method)
    table = table_scale(df)
    info = scale_info(table)
    if info.kind == "choice":
        raise SurveyError("a forced-choice table has no response model to estimate: its preference and position "
                          "bias are what `survey analyze` (survey.analyze) reports")
    if info.kind != "binary" and opts.method != "moments":
        raise SurveyError(f"method '{opts.method}' is the Beta-logit model's (Yes/No); scale '{table}' is fitted "
                          "by the ordinal model's moment estimator (method 'moments')")
    require_messages(df, [message])
    models = models_in(df) if model is None else [model]
    require_models(df, models)

    def run(m: str):
        if info.kind == "binary":
            return m, estimate_model(df, m, message, bootstrap=opts.bootstrap, seed=opts.seed, method=opts.method)
        return m, estimate_ordinal(category_counts(df, m, message, info.low, info.high), n_boot=opts.bootstrap, seed=opts.seed)

    done, left_out = _each_model(models, run, SurveyError, lambda m, exc: f"model '{m}': {exc}")
    return Estimates(message, done, left_out, completeness, table)


__all__ = ["Analysis", "Estimates", "OrdinalEstimate", "analyze", "decision_pvalue", "estimate"]
