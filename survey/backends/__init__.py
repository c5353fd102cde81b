"""Backend registry: name -> class, loaded lazily so that a missing optional SDK only matters when used.

Adding a provider: write survey/backends/<name>.py with a class implementing base.Backend whose
constructor is ``Cls(model_id: str, **options)`` (options validated by the backend's own pydantic
model), then add one line to BACKENDS. The engine never changes.
"""

from __future__ import annotations

import importlib

from survey.backends.base import Backend, BackendError, BatchBackend, Query, Reply
from survey.errors import SurveyError

BACKENDS = {
    "simulated": "survey.backends.simulated:SimulatedBackend",
    "local": "survey.backends.local:LocalBackend",
    "mistral": "survey.backends.mistral:MistralBackend",
    "dashscope": "survey.backends.dashscope:DashScopeBackend",
}


def backend_class(name: str):
    if name not in BACKENDS:
        raise SurveyError(f"unknown backend '{name}'; choose one of {', '.join(BACKENDS)}")
    module, _, attr = BACKENDS[name].partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except ImportError as exc:
        raise SurveyError(f"backend '{name}' is not available: {exc}") from exc


def create_backend(name: str, model_id: str = "", **options) -> Backend:
    """Instantiate a backend by registry name, e.g. create_backend("mistral", "ministral-8b-2512")."""
    return backend_class(name)(model_id=model_id, **options)


def parse_model_ref(ref: str) -> tuple[str, str]:
    """'backend:model_id' (e.g. 'local:smollm2', 'mistral:mistral-small-latest') -> (backend, model_id)."""
    backend, sep, model_id = ref.partition(":")
    if not sep and backend not in BACKENDS:
        raise SurveyError(f"--model must look like BACKEND:MODEL_ID (e.g. mistral:mistral-small-latest); got '{ref}'")
    backend_class(backend)
    return backend, model_id


__all__ = ["BACKENDS", "Backend", "BackendError", "BatchBackend", "Query", "Reply", "backend_class",
           "create_backend", "parse_model_ref"]
