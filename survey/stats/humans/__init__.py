"""Humans beside the personas: fidelity of levels and effects, dispersion, and prediction-powered inference
about people from a study's store and a human file (survey.stats.humans.compare.human_fidelity)."""

from survey.stats.humans.compare import human_fidelity
from survey.stats.humans.result import HumanFidelity

__all__ = ["HumanFidelity", "human_fidelity"]
