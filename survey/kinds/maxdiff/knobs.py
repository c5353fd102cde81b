"""Best-worst scaling's knobs in the study file: ``type = "maxdiff"`` with ``subset`` (messages per prompt), a
cyclic block design on the study's messages, shown in the template's ``{options}``."""

from __future__ import annotations

from pydantic import Field

from survey.kinds.maxdiff.parsing import BestWorst
from survey.study.knobs import KindKeys, QuestionKnobs


class MaxDiffKeys(KindKeys):
    subset: int | None = Field(None, ge=3, le=9, description="maxdiff: messages shown per prompt (default 3), a "
                               "cyclic block design on the study's messages")


class MaxDiffKnobs(QuestionKnobs):
    families = {"maxdiff": ()}
    keys = MaxDiffKeys
    slots = ("options",)

    def build(self, family, spec):
        keys = spec.kind_keys or MaxDiffKeys()
        return BestWorst(keys.subset or 3, spec.template, spec.max_tokens)

    def misplaced(self, keys, type_name):
        return f"subset only applies to type = 'maxdiff', not to type = '{type_name}'"

    def show_messages(self, spec, k):
        if spec.response.s > k:
            raise ValueError(f"type = 'maxdiff' shows subsets of {spec.response.s} messages; the study has {k}: "
                             "lower subset or add [[messages]]")


KNOBS = MaxDiffKnobs()
