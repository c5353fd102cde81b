"""A study's segments and target market: how its answers are analysed for whom, and weighted to which market.

    [segments]
    by = "age:18-34,35-54,55+"                          # an attribute, or bins of a numeric one
    # or named filters instead of by:
    # young_high = "age < 35 and income == 'high'"

    [target]
    file = "margins.toml"                               # relative to the study file; or inline:
    # [target.gender]
    # male = 0.49
    # female = 0.51

Both are checked against the study's personas before anything is bought (`survey run --dry-run` refuses an
unknown attribute, an empty segment or a target cell without a persona), and recorded with the study's
context, so that `survey analyze` and `survey report` on its store show the segments and the weighted
population effect without being told again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from survey.errors import SurveyError


class SegmentsSpec(BaseModel):
    """``by`` (an attribute, or NAME:BIN,BIN) or named filters (every other key: name = "pandas filter")."""

    model_config = ConfigDict(extra="allow")
    by: str | None = Field(None, description="a persona attribute ('gender') or bins of a numeric one "
                                             "('age:18-34,35-54,55+')")

    @model_validator(mode="after")
    def _one_kind(self) -> SegmentsSpec:
        filters = self.filters
        if self.by is not None and filters:
            raise ValueError(f"give either by = \"...\" or named filters, not both (found by and "
                             f"{', '.join(filters)})")
        if self.by is None and not filters:
            raise ValueError("name the segments: by = \"gender\", by = \"age:18-34,35-54,55+\" or named filters "
                             "such as young = \"age < 35\"")
        for name, expr in filters.items():
            if not isinstance(expr, str) or not expr.strip():
                raise ValueError(f"segment '{name}' must be a filter in quotes, e.g. {name} = \"age < 35\"")
        if self.by is not None and ":" in self.by:
            from survey.stats.segments.definition import check_bins, parse_bin

            attr, _, spec = self.by.partition(":")
            try:
                check_bins([parse_bin(x) for x in spec.split(",") if x.strip()], attr.strip())
            except SurveyError as exc:
                raise ValueError(str(exc)) from None
        return self

    @property
    def filters(self) -> dict[str, str]:
        return dict(self.__pydantic_extra__ or {})

    @property
    def definition(self) -> str | dict[str, str]:
        """What survey.analyze(by=...) takes."""
        return self.by if self.by is not None else self.filters


class TargetSpec(BaseModel):
    """``file`` (TOML or CSV of shares) or inline tables, one per attribute: [target.gender] male = 0.49."""

    model_config = ConfigDict(extra="allow")
    file: str | None = Field(None, description="a target-margins file (.toml or .csv), relative to the study file")

    @model_validator(mode="after")
    def _one_source(self) -> TargetSpec:
        inline = self.inline
        if self.file is not None and inline:
            raise ValueError(f"give either file = \"...\" or inline margins, not both (found file and "
                             f"{', '.join(inline)})")
        if self.file is None and not inline:
            raise ValueError("give the target margins: file = \"margins.toml\" or [target.gender] male = 0.49 ...")
        if inline:
            from survey.stats.segments import Target

            try:
                Target(inline, "the study file")
            except SurveyError as exc:
                raise ValueError(str(exc)) from None
        return self

    @property
    def inline(self) -> dict[str, Any]:
        return dict(self.__pydantic_extra__ or {})


def target_of(spec: TargetSpec, resolve) -> Any:
    """The study's Target (survey.stats.segments): its file read (``resolve`` maps a study-relative path)
    or its inline margins."""
    from survey.stats.segments import Target

    if spec.file is not None:
        from survey.registry.targets import read_target

        return read_target(resolve(spec.file))
    return Target(spec.inline, "the study file")


def analysis_context(study, personas: list) -> dict | None:
    """The segments and target margins a study's analysis uses, checked against its personas (an unknown
    attribute, an empty segment or a target cell without a persona is a SurveyError naming the fix), as
    recorded in the study's context; None when the study defines neither."""
    if study.segments is None and study.target is None:
        return None
    from survey.data.attributes import attributes_frame
    from survey.stats.segments import rake, segment_by

    attrs = attributes_frame(list(personas))
    out: dict[str, Any] = {}
    if study.segments is not None:
        try:
            segment_by(attrs, study.segments.definition)
        except SurveyError as exc:
            raise SurveyError(f"[segments]: {exc}") from None
        out["segments"] = study.segments.definition
    if study.target is not None:
        # a margins file is found like the study's sets: beside the study file (also for a shipped study run in place)
        target = target_of(study.target, lambda ref: study.sets_dir / Path(ref).expanduser())
        try:
            rake(attrs, target)
        except SurveyError as exc:
            raise SurveyError(f"[target]: {exc}") from None
        out["target"] = target.to_dict()
    return out


__all__ = ["SegmentsSpec", "TargetSpec", "analysis_context", "target_of"]
