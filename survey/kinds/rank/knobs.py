"""Ranking's knobs in the study file: ``type = "rank"`` takes k from the study's messages (``rankK`` fixes it), and
its template shows them in ``{options}``. No key of its own."""

from __future__ import annotations

from survey.errors import SurveyError
from survey.kinds.rank.parsing import RankOrder
from survey.study.knobs import QuestionKnobs


class RankKnobs(QuestionKnobs):
    families = {"rank": ()}
    slots = ("options",)

    def build(self, family, spec):
        return RankOrder(3, spec.template, spec.max_tokens)  # k is the number of messages: show_messages sets it

    def show_messages(self, spec, k):
        if spec.named:
            if spec.response.k != k:
                raise ValueError(f"type = '{spec.type}' ranks {spec.response.k} messages; the study has {k}: write "
                                 "type = 'rank' (k is the number of [[messages]])")
            return
        try:
            spec.complete_response(RankOrder(k, spec.template, spec.max_tokens))
        except SurveyError as exc:
            raise ValueError(str(exc)) from exc


KNOBS = RankKnobs()
