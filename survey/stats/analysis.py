"""What `survey analyze` and `survey estimate` compute, as Python calls on a long table: every model
of the table, each analysed on its own. A model that cannot be analysed (e.g. no valid answer) is
left out with its reason instead of hiding the others; when none can be, that is the error.

    res = analyze(df, "sneakers", "boots")
    res["gpt"].sign_flip.pvalue, res["gpt"].effect.ci
    res.to_dict()  # what `survey analyze --json` prints

Both take a DataFrame or a survey.data.sources.Source (``load_source``): the result carries the data's
completeness (``res.completeness``, survey.data.completeness) and says which study it analysed.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from survey.common.limits import BOOTSTRAP_MAX, Alpha, Flips, Seed
from survey.data.completeness import Completeness, split_source
from survey.data.table import models_in, pick_messages, require_messages, require_models
from survey.errors import SurveyError, TableError, validated
from survey.stats.ab_tests import DECISION_TEST
from survey.stats.comparison import Comparison, compare_messages
from survey.stats.estimate import estimate as estimate_model


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
    """model -> Comparison, in table order; ``left_out`` holds the reason of each model left out;
    ``completeness`` what the data rests on (the study and the queries expected, stored, failed)."""

    def __init__(self, comparisons=(), left_out=(), completeness: Completeness | None = None,
                 alpha: float = 0.05):
        super().__init__((c.model, c) for c in comparisons)
        self.left_out = list(left_out)
        self.completeness = completeness
        self.alpha = alpha

    def significant(self, model: str) -> bool:
        """Whether the deciding test (the sign-flip test) rejects A = B at ``alpha`` for this model."""
        return bool(self[model].tests[DECISION_TEST].pvalue <= self.alpha)

    def to_dict(self) -> dict:
        return {"alpha": self.alpha, "decided_by": DECISION_TEST,
                "results": [{**c.to_dict(), "significant": self.significant(c.model)} for c in self.values()],
                "left_out": self.left_out, **_provenance(self.completeness)}


class Estimates(dict):
    """model -> EstimateResult for one message, in table order; ``left_out`` as in Analysis."""

    def __init__(self, message: str, results=(), left_out=(), completeness: Completeness | None = None):
        super().__init__(results)
        self.message = message
        self.left_out = list(left_out)
        self.completeness = completeness

    def to_dict(self) -> dict:
        return {"results": [{"model": m, "message": self.message, **r.to_dict()} for m, r in self.items()],
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
            completeness: Completeness | None = None) -> Analysis:
    """Message A vs B for every model (or those named): every A/B test and the effect with its CI.

    With two messages in the table, a and b may be left out (or one of them). ``alpha``: the level at
    which each result says whether the sign-flip test rejects (``significant``); the effect's interval
    has confidence 1 - alpha unless ``confidence`` is given. ``flips``: random sign vectors when there
    are more than 40 perturbation pairs (below that the test is exact).
    ``probabilities``: test the exact per-cell P(Yes) (``p_yes``) instead of answer rates.
    ``pairing``: [(A id, B id), ...] for every model; by default design or natural order of the ids
    (survey.data.pairing). Each result's ``pairs`` and ``to_dict()`` say which pairs were formed.
    ``df``: a long table or a Source (survey.data.sources.load_source); ``completeness`` overrides its own.
    """
    df, completeness = split_source(df, completeness)
    opts = validated(AnalyzeOptions, "analyze options", alternative=alternative, alpha=alpha, confidence=confidence,
                  flips=flips, seed=seed, probabilities=probabilities, pairing=pairing)
    confidence = 1 - opts.alpha if opts.confidence is None else opts.confidence
    a, b = pick_messages(df, a, b)
    require_models(df, models or [])

    def run(model: str) -> Comparison:
        return compare_messages(df, model, a, b, alternative=opts.alternative, n_resamples=opts.flips,
                                seed=opts.seed, confidence=confidence, probabilities=opts.probabilities,
                                pairing=opts.pairing)

    done, left_out = _each_model(models or models_in(df), run, TableError, lambda m, exc: str(exc))
    return Analysis(done, left_out, completeness, opts.alpha)


def estimate(df, message: str, model: str | None = None, *, bootstrap: int = 200, seed: int | None = 0,
             method: str = "moments", completeness: Completeness | None = None) -> Estimates:
    """mu, kappa, sigma, rho of the Beta-logit model of Helm & Priebe fitted on one message's answers,
    for every model or the one named. ``method``: "moments" (unbiased on the probability scale; with one
    answer per cell it falls back to appendix C and its note says so) or "appendix-c" (the paper's
    estimator, biased; kept for comparison), see survey.stats.estimate. ``bootstrap`` resamples of personas
    and perturbations give standard errors and 95% percentile intervals (0: none). ``df`` and
    ``completeness`` as in analyze."""
    df, completeness = split_source(df, completeness)
    opts = validated(EstimateOptions, "estimate options", bootstrap=bootstrap, seed=seed, method=method)
    require_messages(df, [message])
    models = models_in(df) if model is None else [model]
    require_models(df, models)
    done, left_out = _each_model(
        models, lambda m: (m, estimate_model(df, m, message, bootstrap=opts.bootstrap, seed=opts.seed,
                                             method=opts.method)),
        SurveyError, lambda m, exc: f"model '{m}': {exc}")
    return Estimates(message, done, left_out, completeness)


__all__ = ["Analysis", "Estimates", "analyze", "estimate"]
