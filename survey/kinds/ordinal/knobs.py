"""Rating scales' knobs in the study file: ``type = "likert"`` with points, labels and scores, ``type = "rating"``
with low and high, and order = 'both' (the scale reversed on odd replicates, survey.kinds.ordinal.balanced)."""

from __future__ import annotations

from survey.errors import SurveyError
from survey.kinds.ordinal.balanced import ReversedScale
from survey.kinds.ordinal.parsing import OrdinalScale, likert, rating
from survey.study.knobs import QuestionKnobs


class RatingKnobs(QuestionKnobs):
    families = {"likert": ("points", "labels", "scores"), "rating": ("low", "high")}
    examples = {"likert": "likert7", "rating": "rating1-7"}

    def build(self, family, spec):
        if family == "rating":
            return rating(0 if spec.low is None else spec.low, 10 if spec.high is None else spec.high)
        points = spec.points or (len(spec.labels) if spec.labels else len(spec.scores or ()) or 5)
        for what, seq in (("labels", spec.labels), ("scores", spec.scores)):
            if seq is not None and len(seq) != points:
                raise SurveyError(f"{what} has {len(seq)} entries for {points} points; give one per point")
        return likert(points, spec.labels, spec.scores, max_tokens=spec.max_tokens)

    def reversible(self, rtype):
        return isinstance(rtype, OrdinalScale)

    def reverse(self, rtype, template):
        return ReversedScale(rtype, template)


KNOBS = RatingKnobs()
