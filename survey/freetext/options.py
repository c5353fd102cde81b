"""The settings of a DBPA run (Rauba, Wei & van der Schaar, "Statistical Hypothesis Testing for Auditing
Robustness in Language Models"): which discrepancies, which embedder, how many relabelings, and so on."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from survey.common.limits import Alpha, Flips, Seed
from survey.embed import EMBEDDERS
from survey.errors import SurveyError, validated
from survey.stats.dbpa.family import CORRECTIONS
from survey.stats.dbpa.omega import OMEGAS

Omega = Literal[OMEGAS]  # type: ignore[valid-type]
EmbedderName = Literal[tuple(EMBEDDERS)]  # type: ignore[valid-type]


def parse_hist_range(value, name: str = "hist_range"):
    """'pooled', 'all-pairs', or a fixed range as "LO,HI" or (lo, hi) with finite lo < hi."""
    if isinstance(value, str) and value in ("pooled", "all-pairs"):
        return value
    try:
        lo, hi = (float(v) for v in (value.split(",") if isinstance(value, str) else value))
    except (TypeError, ValueError):
        raise SurveyError(f"{name} must be pooled, all-pairs or LO,HI (e.g. -1,1); got '{value}'") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise SurveyError(f"{name} LO,HI needs finite LO < HI; got '{value}'")
    return (lo, hi)


def _range_field(value):
    try:
        return parse_hist_range(value)
    except SurveyError as exc:  # pydantic reports a ValueError with the field's name
        raise ValueError(str(exc)) from None


HistRange = Annotated[Literal["pooled", "all-pairs"] | tuple[float, float], BeforeValidator(_range_field)]


class DBPAOptions(BaseModel):
    """Settings shared by ``survey.freetext.dbpa`` and ``survey.freetext.dbpa_family``.

    omegas: discrepancies (larger = more change; a family runs the first); embedder: ``minilm``
    (local), ``mistral-embed`` or ``dashscope``, at ``embed_url`` if given; n_resamples: relabelings
    (fewer possible ones are enumerated exactly); bins / hist_range: the JS histograms; cache /
    cache_path: the embedding cache (default: the store itself, or TABLE.embeddings.sqlite); unit /
    scheme: what a relabeling moves (whole perturbations by default: outputs sharing a paraphrase are not
    independent); per_persona: also A vs B inside each persona; max_per_unit: keep at most N outputs per
    (message, perturbation), drawn with ``seed``; correction / alpha: multiplicity adjustment and level.
    """

    model_config = ConfigDict(extra="forbid")
    omegas: list[Omega] = Field(default_factory=lambda: ["js"], min_length=1)
    embedder: EmbedderName = "minilm"
    embed_url: str | None = None
    n_resamples: Flips = 1000
    bins: int = Field(30, ge=2, le=10_000)  # more bins than outputs only adds empty ones
    hist_range: HistRange = "pooled"
    cache: bool = True
    cache_path: Path | None = None
    seed: Seed = 0
    unit: Literal["perturbation", "output"] = "perturbation"
    scheme: Literal["relabel", "swap"] = "relabel"
    per_persona: bool = False
    max_per_unit: int | None = Field(None, ge=1)
    correction: Literal[CORRECTIONS] = "holm"  # type: ignore[valid-type]
    alpha: Alpha = 0.05

    @classmethod
    def of(cls, options: DBPAOptions | dict | None = None, **values) -> DBPAOptions:
        """Options from a model, a mapping and/or keywords; None means "not given" (the default, or a
        family file's value, applies). A bad value is a SurveyError naming the field."""
        if isinstance(options, DBPAOptions):
            options = options.model_dump(include=options.model_fields_set)
        given = {k: v for k, v in {**(options or {}), **values}.items() if v is not None}
        return validated(cls, "", **given)

    def test_options(self) -> dict:
        """Keywords of the statistics in survey.stats.dbpa."""
        return dict(n_resamples=self.n_resamples, seed=self.seed, bins=self.bins, hist_range=self.hist_range)
