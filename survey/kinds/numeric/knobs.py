"""The numeric question's keys in the study file: ``type = "numeric"`` with ``min``, ``max`` (required), ``unit``
(words for the question and the report, e.g. "US dollars") and ``summary`` ("mean", "log" or "trimmed": what the
persona x paraphrase cell mean is computed on, fixed before the run)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from survey.kinds.numeric.parsing import NumericScale
from survey.study.knobs import KindKeys, QuestionKnobs


class NumericKeys(KindKeys):
    min: float | None = Field(None, allow_inf_nan=False, description="numeric: the smallest valid answer")
    max: float | None = Field(None, allow_inf_nan=False, description="numeric: the largest valid answer")
    unit: str = Field("", description="numeric: what the number counts, e.g. 'US dollars' (question and report)")
    summary: Literal["mean", "log", "trimmed"] = Field(
        "mean", description="numeric: the cell mean on the values, on log(1 + value), or winsorized at the pooled "
                            "5th and 95th percentiles")


class NumericKnobs(QuestionKnobs):
    families = {"numeric": ()}
    keys = NumericKeys

    def build(self, family, spec):
        keys = spec.kind_keys or NumericKeys()
        if keys.min is None or keys.max is None:
            raise ValueError("type = 'numeric' needs min and max (the range of valid answers), e.g. min = 0, max = 100")
        return NumericScale(keys.min, keys.max, keys.summary, keys.unit, spec.template, spec.max_tokens)

    def misplaced(self, keys, type_name):
        return (f"{', '.join(keys)} only appl{'ies' if len(keys) == 1 else 'y'} to type = 'numeric', not to type = "
                f"'{type_name}'")


KNOBS = NumericKnobs()
