"""A stand-in for the embedded llama.cpp models: a study's `backend = "local"` models answer as simulated
respondents (the Beta-logit model), so a shipped study on a real model runs its whole path in seconds.
It declares what the local backend declares and accepts its options (exact or sample mode, threads, ...)."""

from __future__ import annotations

from survey.backends.local import LocalBackend, LocalOptions
from survey.backends.simulated import SimulatedBackend


class SimulatedLocalBackend(SimulatedBackend):
    name = "local"
    capabilities = LocalBackend.capabilities
    options_model = LocalOptions
    allowed_params = LocalBackend.allowed_params

    def __init__(self, model_id: str = "", **options):
        super().__init__(model_id=model_id or "smollm2")  # the local options mean nothing to the simulation
