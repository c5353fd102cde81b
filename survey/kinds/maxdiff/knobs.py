"""Best-worst scaling's knobs in the study file: ``type = "maxdiff"`` with ``subset`` (messages per prompt), a
cyclic block design on the study's messages, shown in the template's ``{options}``."""

from __future__ import annotations

from survey.kinds.maxdiff.parsing import BestWorst
from survey.study.knobs import QuestionKnobs


class MaxDiffKnobs(QuestionKnobs):
    families = {"maxdiff": ()}
    own_keys = ("subset",)
    slots = ("options",)

    def build(self, family, spec):
        return BestWorst(spec.subset or 3, spec.template, spec.max_tokens)

    def misplaced(self, keys, type_name):
        return f"subset only applies to type = 'maxdiff', not to type = '{type_name}'"

    def show_messages(self, spec, k):
        if spec.response.s > k:
            raise ValueError(f"type = 'maxdiff' shows subsets of {spec.response.s} messages; the study has {k}: "
                             "lower subset or add [[messages]]")


KNOBS = MaxDiffKnobs()
