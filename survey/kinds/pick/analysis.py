"""Pick one of k messages shown together (survey.kinds.pick.statistics): the pairwise sign-flip tests over paraphrase
sets (Holm-adjusted over the pairs) decide, each message's order-averaged share and the position-bias test
come with every result. Pairs come from the rows themselves (the messages shown together)."""

from __future__ import annotations

import itertools

import pandas as pd

from survey.errors import SurveyError
from survey.kinds.pick.power import PickPlan
from survey.kinds.pick.table import compare_pick, pick_messages_shown, simulate_pick_table
from survey.stats.kinds.base import MessageLevels, ShownSetKind, unpaired_options


class Pick(ShownSetKind):
    name = "pick"
    decided_by = "sign_flip"
    weighted = True
    every_pair = True

    def compare(self, df, model, a, b, view, opts):
        return compare_pick(df, model, a, b, **unpaired_options(
            opts, "a pick-one-of-k table shows the j-th paraphrase of every message together; pairing does not apply"))

    def message_pairs(self, df: pd.DataFrame, model: str) -> list[tuple[str, str]]:
        """Every pair of the messages shown together to ``model``, in order of first appearance."""
        return list(itertools.combinations(pick_messages_shown(df, model), 2))

    def message_levels(self, results, view, confidence):
        """Every message's order-averaged share with its interval and the position test: the same in each
        pair's result (they all read every row of the model), so taken once."""
        r = results[0]
        pos = r.position
        notes = ["share chosen by position: " + ", ".join(f"{t + 1}: {s:.3f}" for t, s in enumerate(pos.shares))
                 + f"; position test p = {pos.pvalue:.4g} (exchanges {pos.exchanges})"]
        return MessageLevels("share chosen (positions averaged)", dict(r.shares), r.effect.confidence,
                             "sign-flip inversion over paraphrase sets", "these personas' share over new paraphrase "
                             "sets", tuple(notes + ([r.warning] if r.warning else [])),
                             {"position": pos.to_dict(), "warning": r.warning, "n_sets": r.n_sets,
                              "n_personas": r.n_personas, "replicates": r.replicates, "invalid": r.invalid})

    def fit(self, df, model, message, view, opts):
        raise SurveyError("a pick-one-of-k table has no response model to estimate: its shares, pairwise tests and "
                          "position bias are what `survey analyze` (survey.analyze) reports")

    def simulate(self, view, n, m, r, *, messages=None, seed=None, **params):
        """One survey from the multinomial-logit simulator (survey.kinds.pick.table): ``deltas`` (per message),
        ``sigma``, ``rho``, ``positions`` (a logit shift per position), ``tau``, ``invalid_rate``."""
        k = len(view.points)
        names = list(messages) if messages is not None else [chr(ord("A") + i) for i in range(k)]
        if len(names) != k:
            raise SurveyError(f"scale '{view.scale}' shows {k} messages; got {len(names)} names")
        return simulate_pick_table(n, m, r, names, seed=seed, **params)

    def plan_params(self, view, delta, *, sigma=None, rho=None, tau=None, positions=None, messages=None):
        """PickPlan: the power of the Holm-adjusted A vs B sign-flip test (survey.kinds.pick.power)."""
        k = len(view.points)
        if messages is not None and int(messages) != k:
            raise SurveyError(f"scale '{view.scale}' shows its {k} messages together, so `messages={messages}` "
                              f"does not apply (pick{messages} shows {messages})")
        return PickPlan(delta, view.scale, sigma, rho, positions, tau)

    def heterogeneity_null(self, view, a, b):
        return f"equal effects (every model's share choosing {a} minus share choosing {b} the same)"

    def effect_words(self, view, a, b):
        return (f"pick one of {len(view.points)}, positions averaged; effect = share choosing {a} − share choosing "
                f"{b}")

    def label_words(self, view, source):
        return f"the position nearest each cell's {source} position"


PICK = Pick()
