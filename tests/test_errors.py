"""Error messages a user reads: no pydantic jargon, a "did you mean" for a misspelt key, and a file
that stands where a folder is needed named as such."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from survey.data.store import Store
from survey.errors import SurveyError, allowed_keys, path_error_message, pydantic_message
from survey.freetext import DBPAOptions
from survey.study.spec import StudySpec, parse_study


class Inner(BaseModel):
    model_config = ConfigDict(extra="forbid")
    concurrency: int = 1

    @model_validator(mode="after")
    def _check(self):
        if self.concurrency == 2:
            raise ValueError("concurrency cannot be 2")
        return self


class Outer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    replicates: int = 1
    models: list[Inner] = []
    by_name: dict[str, Inner] = {}
    one: Inner | None = None


def _message(data: dict, model=Outer) -> str:
    with pytest.raises(ValidationError) as exc:
        Outer(**data)
    return pydantic_message(exc.value, "f.toml", model)


def test_pydantic_prefixes_and_root_are_left_out():
    msg = _message({"one": {"concurrency": 2}})
    assert msg == "f.toml: one: concurrency cannot be 2"  # was "one: Value error, concurrency cannot be 2"
    with pytest.raises(ValidationError) as exc:
        Inner(concurrency=2)
    assert pydantic_message(exc.value) == "concurrency cannot be 2"  # was "(root): Value error, ..."


def test_an_unknown_key_gets_the_closest_allowed_name():
    assert _message({"replicats": 2}) == "f.toml: replicats: unknown key (did you mean 'replicates'?)"
    assert _message({"models": [{"concurency": 2}]}).endswith("models.0.concurency: unknown key "
                                                               "(did you mean 'concurrency'?)")
    assert _message({"by_name": {"x": {"zzz": 1}}}).endswith("by_name.x.zzz: unknown key (allowed: concurrency)")
    assert _message({"replicats": 2}, model=None) == "f.toml: replicats: unknown key"
    assert allowed_keys(Outer, ("one",)) == ["concurrency"]


@pytest.mark.parametrize("data, hint", [
    ({"name": "s", "replicats": 2}, "replicats: unknown key (did you mean 'replicates'?)"),
    ({"name": "s", "personas": {"sett": "shoppers"}}, "personas.sett: unknown key (did you mean 'set'?)"),
    ({"name": "s", "budget": {"max_querys": 5}}, "budget.max_querys: unknown key (did you mean 'max_queries'?)"),
])
def test_a_study_spec_typo_gets_a_suggestion(data, hint):
    with pytest.raises(SurveyError) as exc:
        parse_study(data, "study.toml")
    assert hint in str(exc.value)
    assert "Extra inputs" not in str(exc.value) and "Value error" not in str(exc.value)
    assert "replicates" in allowed_keys(StudySpec, ())


def test_a_dbpa_option_typo_gets_a_suggestion():
    with pytest.raises(SurveyError, match="n_resample: unknown key \\(did you mean 'n_resamples'\\?\\)"):
        DBPAOptions.of({"n_resample": 10})


def test_a_file_where_a_folder_is_needed_is_named(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(SurveyError) as exc:  # used to be "afile: File exists"
        Store(afile / "store.sqlite")
    assert str(exc.value) == (f"store {afile / 'store.sqlite'}: cannot create its folder: {afile}: this is a "
                              "file, but a folder is needed here; choose another path or move the file")
    try:
        (afile / "x" / "y").mkdir(parents=True)
    except OSError as err:
        assert f"'{afile}' is a file, not a folder" in path_error_message(err)
    assert path_error_message(PermissionError(13, "Permission denied", "/x")) == "/x: Permission denied"
    assert Path(afile).read_text() == "x"


def test_other_checked_inputs_suggest_the_key_too(tmp_path):
    from survey.backends.provider import parse_options
    from survey.backends.simulated import SimulatedOptions
    from survey.freetext.family import load_family
    from survey.registry import load_perturbation_set

    with pytest.raises(SurveyError, match="simulated backend options: muu: unknown key \\(did you mean 'mu'\\?\\)"):
        parse_options(SimulatedOptions, "simulated", {"muu": 0.4})
    family = tmp_path / "family.yaml"
    family.write_text("base: {texts: [a, b]}\ncomparisons:\n  - {name: x, texts: [c]}\npermutatons: 10\n")
    with pytest.raises(SurveyError, match="permutatons: unknown key \\(did you mean 'permutations'\\?\\)"):
        load_family(family)
    paraphrases = tmp_path / "typo.yaml"
    paraphrases.write_text("message: m\nparaphrases:\n  - id: p1\n    text: hi\n  - idd: p2\n    text: yo\n")
    with pytest.raises(SurveyError, match="idd: Extra inputs are not permitted \\(did you mean 'id'\\? otherwise "
                                          "remove this key\\)"):
        load_perturbation_set(paraphrases)


def test_validated_takes_a_value_named_source_or_cls_like_any_other():
    from pydantic import BaseModel, ConfigDict

    from survey.errors import SurveyError, validated

    class Opts(BaseModel):
        model_config = ConfigDict(extra="forbid")
        source: str = "x"

    assert validated(Opts, "opts", source="y").source == "y"
    try:
        validated(Opts, "opts", cls=1)
    except SurveyError as exc:
        assert "cls" in str(exc)
    else:
        raise AssertionError("an unknown key 'cls' must be a SurveyError")
