"""The checkbox question's keys in the study file: ``type = "checkbox"`` with ``options`` (required: the same for
every message, shown numbered where the template says ``{choices}``), ``min_choices`` (default 1) and
``max_choices`` (default: every option)."""

from __future__ import annotations

from pydantic import Field

from survey.errors import SurveyError
from survey.kinds.checkbox.parsing import CheckboxScale
from survey.study.knobs import KindKeys, QuestionKnobs


class CheckboxKeys(KindKeys):
    options: list[str] | None = Field(None, description="checkbox: the options, shown numbered in {choices}")
    min_choices: int = Field(1, ge=0, description="checkbox: the fewest options a valid answer ticks (default 1)")
    max_choices: int | None = Field(None, ge=0, description="checkbox: the most options a valid answer ticks "
                                    "(default: all)")


class CheckboxKnobs(QuestionKnobs):
    families = {"checkbox": ()}
    keys = CheckboxKeys
    slots = ("perturbation", "choices")

    def build(self, family, spec):
        keys = spec.kind_keys or CheckboxKeys()
        if keys.options is None:
            raise SurveyError("type = 'checkbox' needs options (e.g. options = ['comfortable', 'stylish', "
                              "'good value'])")
        rtype = CheckboxScale(keys.options, keys.min_choices, keys.max_choices, spec.template, spec.max_tokens)
        if spec.template is not None:  # the question as asked: the template with its {choices} listed
            spec.template = rtype.template
        return rtype

    def misplaced(self, keys, type_name):
        return (f"{', '.join(keys)} only appl{'ies' if len(keys) == 1 else 'y'} to type = 'checkbox', not to type = "
                f"'{type_name}'")


KNOBS = CheckboxKnobs()
