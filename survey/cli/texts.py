"""Choices, defaults and words the commands' options show in --help, copied from the statistics modules.

``survey --help``, ``survey CMD --help`` and a bad flag must not import numpy, pandas or scipy (about two
seconds of CPU): importing any ``survey.stats`` module loads them. The commands therefore read these
copies when their options are declared and import the statistics inside the command functions.
tests/cli/test_light_cli.py checks that every copy equals its original.
"""

from __future__ import annotations

# survey.kinds.ordinal.table.SCALE_CHOICES
SCALE_CHOICES = ("binary, likertK (scores 1..K, e.g. likert5), likertLOW-HIGH or ratingLOW-HIGH "
                 "(e.g. likert0-4, rating0-10)")
# survey.stats.multiplicity.ADJUSTMENTS and survey.stats.dbpa.family.CORRECTIONS
ADJUSTMENTS = ("holm", "bonferroni", "bh", "none")
CORRECTIONS = ("holm", "bonferroni", "bh", "none")
# survey.stats.agreement.TIES, WEIGHTS
TIES = ("drop", "no", "yes", "low", "high")
WEIGHTS = ("auto", "none", "linear", "quadratic")
# survey.stats.dbpa.omega.OMEGAS
OMEGAS = ("js", "js-distance", "energy-cosine", "energy-l1", "energy-l2", "wasserstein", "ks", "mean-diff")
# survey.stats.planning.validity.DEFAULT_DRAWS
DEFAULT_DRAWS = 200
# survey.stats.beta_logit.DELTA_MEANING
DELTA_MEANING = ("logit shift of message B over A: a positive delta makes B more often Yes, so the effect "
                 "T = P(Yes|A) - P(Yes|B) is negative")
# survey.stats.ab_tests.DECISION_TEST
DECISION_TEST = "sign_flip"

# survey.registry.personas.DEFAULT_TEMPLATE
DEFAULT_TEMPLATE = ("You are roleplaying as a shopper. Your profile: Age {age}, {gender}, {occupation}, "
                    "income: {income}, marital status: {marital_status}. Answer ONLY 'Yes' or 'No'. "
                    "Do not explain.")
# survey.registry.dedup.NEAR_THRESHOLD
NEAR_THRESHOLD = 0.95

# name here -> (module, name there)
ORIGINALS = {
    "SCALE_CHOICES": ("survey.kinds.ordinal.table", "SCALE_CHOICES"),
    "ADJUSTMENTS": ("survey.stats.multiplicity", "ADJUSTMENTS"),
    "CORRECTIONS": ("survey.stats.dbpa.family", "CORRECTIONS"),
    "TIES": ("survey.stats.agreement", "TIES"),
    "WEIGHTS": ("survey.stats.agreement", "WEIGHTS"),
    "OMEGAS": ("survey.stats.dbpa.omega", "OMEGAS"),
    "DEFAULT_DRAWS": ("survey.stats.planning.validity", "DEFAULT_DRAWS"),
    "DELTA_MEANING": ("survey.stats.beta_logit", "DELTA_MEANING"),
    "DECISION_TEST": ("survey.stats.ab_tests", "DECISION_TEST"),
    "DEFAULT_TEMPLATE": ("survey.registry.personas", "DEFAULT_TEMPLATE"),
    "NEAR_THRESHOLD": ("survey.registry.dedup", "NEAR_THRESHOLD"),
}
