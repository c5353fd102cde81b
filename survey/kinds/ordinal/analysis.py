"""Rating scales (likert, rating): mean scores per cell compared by every A/B test of
survey.stats.comparison (effect in scale points, top-2-box beside it), the ordinal model's moment
estimator (survey.kinds.ordinal.estimate) and its simulator (survey.kinds.ordinal.table).

Helm & Priebe (2026) note that their sign-flip test needs only a paraphrase-level summary, such as
mean ratings. A scale asked in both directions adds the direction effect (survey.kinds.ordinal.direction)."""

from __future__ import annotations

from dataclasses import replace

from survey.data.table import first_appearance
from survey.errors import SurveyError
from survey.kinds.ordinal.direction import compare_directions, has_directions
from survey.kinds.ordinal.estimate import category_counts, estimate_ordinal
from survey.kinds.ordinal.table import scale_params, simulate_table
from survey.stats.comparison import compare_messages
from survey.stats.kinds.base import Kind


class Ordinal(Kind):
    name = "ordinal"
    weighted = True
    fit_params = ("tau", "sigma", "rho")

    def compare(self, df, model, a, b, view, opts):
        c = compare_messages(df, model, a, b, alternative=opts.alternative, n_resamples=opts.flips,
                             seed=opts.seed, confidence=opts.confidence, probabilities=opts.probabilities,
                             pairing=opts.pairing, weights=opts.weights)
        if has_directions(df):  # a balanced scale: its direction effect beside the A/B result
            personas = first_appearance(df.loc[(df["model"] == model) & df["message"].isin([a, b]), "persona"])
            c = replace(c, direction=compare_directions(df, model, a, b, c.pairing, personas, span=view.span,
                                                        options=opts))
        return c

    def fit(self, df, model, message, view, opts):
        if opts.method not in self.methods:
            raise SurveyError(f"method '{opts.method}' is the Beta-logit model's (Yes/No); scale '{view.scale}' is "
                              "fitted by the ordinal model's moment estimator (method 'moments')")
        counts = category_counts(df, model, message, int(view.low), int(view.high))
        return estimate_ordinal(counts, n_boot=opts.bootstrap, seed=opts.seed)

    def simulate(self, view, n, m, r, *, mu=None, kappa=None, seed=None, m_b=None, messages=("A", "B"),
                 model="simulated", **shape):
        """``shape``: the ordinal model's tau, cuts, sigma, rho and delta (survey.kinds.ordinal.table.scale_params)."""
        if mu is not None or kappa is not None:
            raise SurveyError(f"mu and kappa belong to the binary model; scale '{view.scale}' takes tau (persona "
                              "s.d.) and cuts (cut points) instead")
        params = scale_params(view.scale, **shape)
        return simulate_table(params, n, m, r, seed, m_b, model, messages)


ORDINAL = Ordinal()
