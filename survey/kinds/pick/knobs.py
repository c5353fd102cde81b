"""Pick one of k's knobs in the study file: ``type = "pick"`` takes k from the study's messages (``pickK`` fixes
it), and its template shows them in ``{options}``."""

from __future__ import annotations

from survey.errors import SurveyError
from survey.kinds.pick.parsing import PickOne
from survey.study.knobs import QuestionKnobs


class PickKnobs(QuestionKnobs):
    families = {"pick": ()}
    slots = ("options",)

    def build(self, family, spec):
        return PickOne(2, spec.template, spec.max_tokens)  # k is the number of messages: show_messages sets it

    def show_messages(self, spec, k):
        if spec.named:
            if spec.response.k != k:
                raise ValueError(f"type = '{spec.type}' shows {spec.response.k} messages; the study has {k}: write "
                                 "type = 'pick' (k is the number of [[messages]])")
            return
        try:
            spec.complete_response(PickOne(k, spec.template, spec.max_tokens))
        except SurveyError as exc:
            raise ValueError(str(exc)) from exc


KNOBS = PickKnobs()
