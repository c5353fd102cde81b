"""The study file's ``[field]`` table: what `survey field` shows real people beside the questions (consent,
the attention check, the completion code) and how it assigns them to the messages (survey.field)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

DEFAULT_CONSENT = ("This is a short research survey about product descriptions. It takes a few minutes. Your "
                   "answers are stored without your name and used only for research. You may stop at any time.")


class FieldSpec(BaseModel):
    """``[field]``: the web questionnaire's consent text, attention check, completion code and design."""

    model_config = ConfigDict(extra="forbid")

    title: str | None = Field(None, description="the questionnaire's heading (default: the study's name)")
    consent: str = Field(DEFAULT_CONSENT, min_length=1, description="the consent text shown first")
    completion_code: str | None = Field(
        None, description="the panel's completion code shown on the last page (Prolific: the study's code)")
    completion_url: str | None = Field(
        None, description="where the last page links to (e.g. https://app.prolific.com/submissions/complete?cc=CODE)")
    attention_question: str = Field(
        "To show that you read carefully, please choose \"Blue\" below.", min_length=1,
        description="the attention check's wording")
    attention_options: list[str] = Field(["Red", "Blue", "Green"], min_length=2,
                                         description="the attention check's answers")
    attention_answer: str = Field("Blue", description="the attention check's right answer (one of the options)")
    respondents: int | None = Field(None, ge=1, description="stop accepting respondents after this many completes")
    ask: bool = Field(True, description="`survey run` also asks the models about each respondent who completed, "
                                        "rendered as a persona from their answers about themselves (persona ids "
                                        "'human-<respondent>'): the predictions prediction-powered inference needs")
    design: Literal["between", "within"] = Field(
        "between", description="between: each respondent sees one message (one of its paraphrases); within: every "
                               "message, in random order. Kinds that show the messages together are always within")

    @model_validator(mode="after")
    def _answer_is_an_option(self) -> FieldSpec:
        if self.attention_answer not in self.attention_options:
            raise ValueError(f"[field] attention_answer '{self.attention_answer}' is not one of attention_options "
                             f"({', '.join(self.attention_options)})")
        if len(set(self.attention_options)) != len(self.attention_options):
            raise ValueError("[field] attention_options must be distinct")
        return self
