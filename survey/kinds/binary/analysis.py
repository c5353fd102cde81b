"""Yes/No answers (Helm & Priebe (2026), "When prompt perturbations break your A/B test"): P(Yes) per
cell, every A/B test of survey.stats.comparison, the Beta-logit model (survey.stats.beta_logit_estimate) and its
simulator (survey.stats.beta_logit)."""

from __future__ import annotations

from survey.errors import SurveyError
from survey.stats import beta_logit
from survey.stats.beta_logit_estimate import METHODS, fit_beta_logit
from survey.stats.comparison import compare_messages
from survey.stats.heterogeneity import HETEROGENEITY_NULL
from survey.stats.kinds.base import Kind


class Binary(Kind):
    name = "binary"
    weighted = True
    fit_params = ("mu", "kappa", "sigma", "rho")
    methods = METHODS
    exact_column = "p_yes"
    exact_key = "exact_probabilities"
    means_key = "mean_yes"
    cell_label = "majority"

    def compare(self, df, model, a, b, view, opts):
        return compare_messages(df, model, a, b, alternative=opts.alternative, n_resamples=opts.flips,
                                seed=opts.seed, confidence=opts.confidence, probabilities=opts.probabilities,
                                pairing=opts.pairing, weights=opts.weights)

    def fit(self, df, model, message, view, opts):
        return fit_beta_logit(df, model, message, bootstrap=opts.bootstrap, seed=opts.seed, method=opts.method)

    def simulate(self, view, n, m, r, *, mu=None, kappa=None, tau=None, cuts=None, **params):
        if tau is not None or cuts is not None:
            raise SurveyError("tau and cuts belong to rating scales; a binary survey takes mu and kappa")
        return beta_logit.simulate(n, m, r, mu=0.5 if mu is None else mu, kappa=4.0 if kappa is None else kappa,
                                   **params)

    def heterogeneity_null(self, view, a, b):
        return HETEROGENEITY_NULL

    def label_words(self, view, source):
        return source  # "p_yes" or "majority": the labels are the answers themselves

    def heterogeneity_claim(self, view):
        return "equal effects on the probability scale"


BINARY = Binary()
