"""A model's backend options checked without starting the backend: no SDK client, no model loaded.

`survey run --dry-run` (and every run, before anything is sent) calls `check_backend_options` for each
model of the study, so a misspelt option key, a bad value, an extra provider parameter the backend does
not know, or a per-message option naming a message the study does not have is an error up front.

A backend class opts in by declaring (all optional; docs/providers.md):
  - ``options_model``: the pydantic model of its options (``extra="forbid"``: unknown keys are errors);
    when the parsed options have ``check_messages(messages)``, it is called with the study's message ids,
    and ``check_question(response_type)`` with the study's question;
  - ``allowed_params``: the provider parameters it accepts in a model's ``params`` (a set, or a function
    returning one); absent or None: the parameters go to the provider unchecked.
"""

from __future__ import annotations

from collections.abc import Iterable

from survey.backends import backend_class
from survey.backends.provider import api_key_from_env, parse_options
from survey.errors import SurveyError


def check_backend_options(backend: str, options: dict, *, params: dict | None = None,
                          messages: Iterable[str] | None = None, response=None, responses: list | None = None) -> None:
    """Raise SurveyError naming the first bad option or parameter of one model (see the module docstring).
    ``response``: the study's response type, for options that depend on the question (``check_question``);
    ``responses``: every question's, for a study of several (``check_questions``, else each ``check_question``)."""
    cls = backend_class(backend)
    model = getattr(cls, "options_model", None)
    if model is not None:
        parsed = parse_options(model, backend, options)
        if messages is not None and hasattr(parsed, "check_messages"):
            parsed.check_messages(list(messages))
        if response is not None and hasattr(parsed, "check_question"):
            parsed.check_question(response)
        if responses and hasattr(parsed, "check_questions"):
            parsed.check_questions(list(responses))
        elif responses and hasattr(parsed, "check_question"):
            for rtype in responses:
                parsed.check_question(rtype)
    allowed = getattr(cls, "allowed_params", None)
    if callable(allowed):
        allowed = allowed()
    unknown = sorted(set(params or {}) - set(allowed)) if allowed is not None else []
    if unknown:
        known = ", ".join(sorted(allowed)) or "none"
        raise SurveyError(f"{backend} backend: unknown params {', '.join(unknown)} (it accepts: {known}); "
                          "remove them or check their spelling")


def check_backend_key(backend: str, options: dict) -> None:
    """Raise the SurveyError creating the backend would raise when its API key variable is missing or empty
    (``api_key_env`` of a provider's options; the openai backend's ``key_env``, unless its server is
    self-hosted or on this machine, ``keyless``). The key itself is only tested for being there, never shown."""
    model = getattr(backend_class(backend), "options_model", None)
    if model is None:
        return
    parsed = parse_options(model, backend, options)
    var = getattr(parsed, "key_env", None) or getattr(parsed, "api_key_env", None)
    if var and not getattr(parsed, "keyless", False):
        api_key_from_env(var, backend)
