"""What `survey validate` computes, as one Python call: the validity checks of survey.stats.planning.validity
for every model of a table (or one), under the null split of one message or for message A against B.

    res = validate(df, message="A")   # Type-I error of every test on null splits
    res = validate(df, a="A", b="B")  # power by sub-sampling
    res.to_dict()                     # what `survey validate --json` prints
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from survey.common.display import Display
from survey.common.limits import Alpha, Flips, Seed
from survey.data.completeness import Completeness
from survey.data.scale_columns import table_scale
from survey.data.sources import Source
from survey.data.table import messages_in, models_in, require_messages, require_models
from survey.errors import SurveyError, validated
from survey.stats.kinds import scale_view
from survey.stats.planning.power import parse_design
from survey.stats.planning.search import Progress, no_progress
from survey.stats.planning.validity import DEFAULT_CONFIGS, DEFAULT_DRAWS, ValidityResult, validity_study


class ValidateOptions(BaseModel):
    """How ``validate`` sub-samples, checked once when built: the level, the draws per configuration, the sign
    flips of each test, the seed and the confidence of the rates' Clopper-Pearson intervals."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    alpha: Alpha = 0.05
    draws: int = Field(DEFAULT_DRAWS, ge=10, le=100_000)
    flips: Flips = Field(1000, ge=19)
    seed: Seed = 0
    confidence: float = Field(0.95, gt=0, lt=1)


@dataclass(repr=False)
class Validation(Display):
    condition: str  # "null" or "alternative"
    source: str | None  # the table's file, when known
    alpha: float
    draws: int
    confidence: float
    seed: int
    by_model: dict[str, list[ValidityResult]]  # model -> one result per configuration
    completeness: Completeness | None = None  # what the table rests on (survey.data.completeness)
    alternative: str = "two-sided"
    scale: str = "binary"  # the table's response scale: the tests run on P(Yes) or mean scores per cell

    def display_parts(self):
        rows = [{"model": r.model, "n,m,r": ",".join(map(str, r.config)),
                 **{t: float(x.rate) for t, x in r.rates.items()}} for res in self.by_model.values() for r in res]
        what = "Type-I error (null split)" if self.condition == "null" else "power"
        return (f"Validation on {self.scale}: {what} of every test at α = {self.alpha}, {self.draws} draws",
                rows, ["sign and wilcoxon treat personas as independent; the sign-flip test is valid for any rho"])

    def to_dict(self) -> dict:
        return {"condition": self.condition, "table": self.source, "alpha": self.alpha, "draws": self.draws,
                "confidence": self.confidence, "seed": self.seed, "alternative": self.alternative,
                "scale": self.scale,
                "results": [r.to_dict() for res in self.by_model.values() for r in res], "plots": [],
                **({"study": self.completeness.study, "completeness": self.completeness.to_dict()}
                   if self.completeness else {})}


def validate(data: Source, message: str | None = None, a: str | None = None, b: str | None = None, *,
             model: str | None = None, configs: Iterable[str | tuple] | None = None, alternative: str = "two-sided",
             source: str | None = None, progress: Progress = no_progress, **options) -> Validation:
    """Rejection rates of every test on random sub-samples of size n,m,r (``configs``, default the
    paper's six clipped to the table): null split of ``message`` (Type-I error), or ``a`` vs ``b``
    (power). ``options``: ValidateOptions' fields (``draws``, ``alpha``, ``confidence`` of the Clopper-Pearson
    intervals, ``flips``, ``seed``). ``data``: a survey.data.sources.Source (``survey.validate``
    wraps a DataFrame); the result carries its completeness. On a rating scale the
    tests run on mean scores per cell; forced choice (both messages in one reply) cannot be split this way."""
    df, completeness = data.table, data.completeness
    scale = table_scale(df)
    view = scale_view(scale)
    if not view.per_message:
        raise SurveyError(f"survey validate sub-samples messages asked on their own; a {scale} table shows its "
                          "messages together in each prompt, so it has no null "
                          "split or per-message sub-samples. Its tests' size under position bias is shown by "
                          "simulation (docs/question-kinds.md); `survey analyze` reports the position-bias test "
                          "beside them")
    unknown = sorted(set(options) - set(ValidateOptions.model_fields))
    if unknown:
        raise TypeError(f"validate() got an unexpected keyword argument '{unknown[0]}'")
    opts = validated(ValidateOptions, **options)
    seed = opts.seed
    if message is not None and (a is not None or b is not None):
        raise SurveyError("give `message=` (null split) or `a=` and `b=` (alternative), not both")
    if message is None and (a is None or b is None):
        raise SurveyError("give `message=` M for the null split, or `a=` A `b=` B for power; "
                          f"messages: {', '.join(messages_in(df))}")
    require_messages(df, [message, a, b])
    if a is not None and a == b:
        raise SurveyError("`a=` and `b=` must name two different messages (use `message=` for the null split)")
    cfgs = [parse_design(c) if isinstance(c, str) else tuple(c) for c in configs] if configs else None
    models = models_in(df) if model is None else [model]
    require_models(df, models)
    by_model = {}
    with progress("sub-sampling", len(cfgs or DEFAULT_CONFIGS) * len(models)) as advance:
        for mdl in models:
            by_model[mdl] = validity_study(df, mdl, message or a, None if message else b, cfgs, opts.draws,
                                           opts.alpha, seed, alternative, opts.flips, opts.confidence,
                                           progress=advance)
    return Validation("null" if message else "alternative", source, opts.alpha, opts.draws, opts.confidence,
                      seed, by_model, completeness, alternative, scale)
