"""Backend registry: name -> "module:Class", imported lazily so a missing optional SDK only matters when used.

Adding a backend is one module and one line: write a module with a class that implements
base.Backend (``Cls(model_id: str, **options)``, ``async complete(query) -> Reply``, ``async aclose()``)
and declares ``capabilities = Capabilities(...)`` (free or paid, batch, list prices, path options),
then add its "module:Class" to BACKENDS (a survey.common.registry.Registry), or call
``register_backend(name, "module:Class")`` from your own code. Nothing else changes: the study, pricing, runner, engine and report read the capabilities.
docs/providers.md has a complete example.
"""

from __future__ import annotations

from survey.backends.base import (
    Backend,
    BackendError,
    BatchBackend,
    Capabilities,
    Query,
    Reply,
    capabilities_of,
)
from survey.common.registry import Registry
from survey.errors import SurveyError

BACKENDS = Registry("backend", entries={
    "simulated": "survey.backends.simulated:SimulatedBackend",
    "local": "survey.backends.local:LocalBackend",
    "mistral": "survey.backends.mistral:MistralBackend",
    "dashscope": "survey.backends.dashscope:DashScopeBackend",
    "openai": "survey.backends.openai_compat:OpenAIBackend",
})


def backend_class(name: str):
    if name not in BACKENDS:
        raise SurveyError(f"unknown backend '{name}'; choose one of {', '.join(BACKENDS)}")
    try:
        return BACKENDS[name]
    except ImportError as exc:
        raise SurveyError(f"backend '{name}' is not available: {exc}") from exc


def register_backend(name: str, target: str, *, replace: bool = False) -> None:
    """Make backend ``name`` available to studies and --model: target is "module:Class" (imported on use).
    A taken name is refused unless ``replace``."""
    module, _, attr = target.partition(":")
    if not name or ":" in name or not module or not attr:
        raise SurveyError(f"register_backend('{name}', '{target}'): give a name without ':' and a "
                          "'module:Class' target")
    BACKENDS.register(name, target, replace=replace)


def backend_capabilities(name: str, options: dict | None = None) -> Capabilities:
    """What backend ``name`` declares: paid, batch, list prices, path options, model id requirement.
    ``options`` (a model's [models.options]) matter for backends that declare ``capabilities_for``."""
    return capabilities_of(backend_class(name), options)


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


__all__ = ["BACKENDS", "Backend", "BackendError", "BatchBackend", "Capabilities", "Query", "Reply",
           "backend_capabilities", "backend_class", "capabilities_of", "create_backend", "parse_model_ref",
           "register_backend"]
