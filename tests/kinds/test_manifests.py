"""Every registered kind answers for every part of itself in one manifest (survey.common.kinds): response parsing,
analysis, power model, report view, text output, study-file knobs and segment simulator, each resolving to an
object of the base its consumer expects, or saying why the kind has none. And the registry's one duplicate
policy: a taken name is refused unless replaced explicitly."""

from __future__ import annotations

import pytest

from survey.cli.kind_output import KindText
from survey.common.kinds import KINDS, PARTS, KindManifest, Missing, kinds, register_kind
from survey.common.registry import Registry
from survey.errors import SurveyError
from survey.reporting.views.base import ReportView
from survey.responses import response_type
from survey.responses.base import ResponseType
from survey.stats.kinds.base import Kind
from survey.study.knobs import QuestionKnobs

BASES = {"analysis": Kind, "view": ReportView, "text": KindText, "knobs": QuestionKnobs}


@pytest.mark.parametrize("manifest", kinds(), ids=lambda m: m.name)
def test_every_registered_kind_has_every_part(manifest):
    for part in PARTS:
        entry = getattr(manifest, part)
        assert entry is not None, f"kind {manifest.name} does not say what its {part} is"
        obj = manifest.part(part, BASES.get(part))
        if isinstance(obj, Missing):
            assert obj.why, f"kind {manifest.name}: a missing {part} says why"
            continue
        if part in ("parsing", "segments", "humans"):
            assert callable(obj)
        if part == "power":  # a PowerModel (survey.stats.planning.model) that survey.plan takes
            assert isinstance(obj, type) and "delta" in obj.__dataclass_fields__ and callable(obj.resolve)
    assert manifest.part("analysis", Kind).name == manifest.name
    assert manifest.has("knobs") and manifest.has("view") and manifest.has("text")


@pytest.mark.parametrize("scale", ["binary", "likert5", "rating0-10", "choice", "pick3", "maxdiff3", "rank4", "ssr5"])
def test_each_scale_is_parsed_by_its_kind(scale):
    rtype = response_type(scale)
    assert isinstance(rtype, ResponseType) and KINDS[rtype.view.kind].name == rtype.view.kind


def test_one_duplicate_policy():
    reg = Registry("thing", base=int, entries={"one": 1})
    with pytest.raises(SurveyError, match="already registered"):
        reg.register("one", 2)
    reg.register("one", 2, replace=True)
    assert reg["one"] == 2
    with pytest.raises(SurveyError, match="expected a int"):
        reg.register("two", "two")
    reg.register("lazy", "math:pi")  # a "module:object" string is resolved and checked on first use
    with pytest.raises(SurveyError, match="expected a int"):
        reg["lazy"]
    with pytest.raises(SurveyError, match="already registered"):
        register_kind(KINDS["binary"].__class__(**{**{p: "x:y" for p in PARTS}, "name": "binary"}))


def test_a_kind_is_registered_once_by_its_manifest(monkeypatch):
    monkeypatch.setattr("survey.common.kinds.KINDS", KINDS.copy())
    from survey.common import kinds as registry

    toy = KindManifest("toy", *(Missing("a toy") for _ in PARTS))
    register_kind(toy)
    assert registry.manifest("toy") is toy and registry.kind_part("toy", "view") is None
    assert registry.missing_why("toy", "view") == "a toy"
