"""Field a study to real people: the study file served as a web questionnaire (Starlette under uvicorn),
its completed answers stored in the study's store as human rows that `survey fidelity` and
`survey analyze --humans` read.

    survey.field("study.toml", port=8000, respondents=200)     # serves until Ctrl-C
    fs = survey.field.field_server("study.toml")               # the ASGI app, for tests or another server
    survey.field.export_instrument("study.toml", "qualtrics", "study.qsf")   # the same instrument for Qualtrics

The parts: survey.field.instrument (demographics, conditions, items), survey.field.widgets (each kind's
form input), survey.field.storage (sessions, balance counters, one transaction per response),
survey.field.quotas, survey.field.app (the respondent's pages), survey.field.admin (the researcher's page),
survey.field.qualtrics (the instrument as a Qualtrics survey file).
"""

from survey.field.qualtrics import export_instrument
from survey.field.server import FieldServer, field, field_server

__all__ = ["FieldServer", "export_instrument", "field", "field_server"]


class _CallableModule(__import__("types").ModuleType):
    """``survey.field(...)`` calls ``field``: once this package is imported the name survey.field is the package,
    and calling it serves the study as the function does."""

    def __call__(self, *args, **kwargs):
        return field(*args, **kwargs)


__import__("sys").modules[__name__].__class__ = _CallableModule
