"""Free text (DBPA's data): the reply is the datum; there is no score and no invalid reply."""

from __future__ import annotations

from survey.responses.base import ResponseType

TEXT_QUESTION = ('A customer said: "{perturbation}" In one or two sentences, how do you react to '
                 'what this customer said?')


class FreeText(ResponseType):
    """No labels: parse always gives None and the answer column stays empty."""

    scale = "text"
    template = TEXT_QUESTION
    max_tokens = 80
    kind = "text"
    quantity = "text"
    ranged = False
