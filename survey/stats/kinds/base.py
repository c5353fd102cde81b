"""What an analysis kind is: the one object that says how answers of one response kind are compared,
fitted and simulated. survey.stats.analysis.analyze is the only loop over models and message pairs; it
asks the table's kind (``kind_of``) for each comparison, so a new kind's ``Kind`` is one module in its folder,
named by its manifest (survey.common.kinds).

The result of ``compare`` follows one protocol (survey.stats.results.ABResult), the result of ``fit``
another (survey.stats.results.Fit), so that across-model and across-message comparisons, the command
line and the report read every kind alike.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import pandas as pd

from survey.common.limits import BOOTSTRAP_MAX, WHY, check_alpha, check_count, check_flips, check_seed
from survey.data.table import expected_column, messages_in
from survey.errors import SurveyError
from survey.responses.view import AnalysisView
from survey.stats.permutation import check_alternative


@dataclass(frozen=True)
class CompareOptions:
    """How one A/B comparison is run, checked once here (a bad value is a SurveyError naming it): every test,
    interval and kind downstream trusts it. ``confidence`` None is 1 - alpha."""

    alternative: str = "two-sided"
    alpha: float = 0.05
    confidence: float | None = None  # stored resolved: 1 - alpha when not given
    flips: int = 9999
    seed: int | None = 0
    probabilities: bool = False
    pairing: list[tuple[str, str]] | None = None
    weights: dict | None = None  # persona id -> weight (a target population); only kinds with ``weighted``

    def __post_init__(self):
        check_alternative(self.alternative)
        alpha = check_alpha(self.alpha, "alpha")
        confidence = 1 - alpha if self.confidence is None else self.confidence
        if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0 < confidence < 1:
            raise SurveyError(f"confidence must be a level between 0 and 1 (exclusive), e.g. 0.95; got {confidence}")
        object.__setattr__(self, "alpha", alpha)
        object.__setattr__(self, "confidence", float(confidence))
        object.__setattr__(self, "flips", check_flips(self.flips, "flips"))
        object.__setattr__(self, "seed", check_seed(self.seed, "seed"))
        if not isinstance(self.probabilities, bool):
            raise SurveyError(f"probabilities must be True or False; got {self.probabilities!r}")
        if self.pairing is not None:
            object.__setattr__(self, "pairing", [_pair(p) for p in self.pairing])


def _pair(pair) -> tuple[str, str]:
    if isinstance(pair, str) or len(pair) != 2:
        raise SurveyError(f"pairing: give (A id, B id) pairs; got {pair!r}")
    return str(pair[0]), str(pair[1])


@dataclass(frozen=True)
class FitOptions:
    """How a response model is fitted, checked once here: ``bootstrap`` resamples (0: none), the seed, and the
    estimator (``method``: moments or appendix-c; each kind says which it offers)."""

    bootstrap: int = 200
    seed: int | None = 0
    method: str = "moments"

    def __post_init__(self):
        object.__setattr__(self, "bootstrap", check_count(self.bootstrap, "bootstrap", 0, BOOTSTRAP_MAX,
                                                          WHY["bootstrap"]))
        object.__setattr__(self, "seed", check_seed(self.seed, "seed"))
        if self.method not in FIT_METHODS:
            raise SurveyError(f"method must be one of {', '.join(FIT_METHODS)}; got '{self.method}'")


FIT_METHODS = ("moments", "appendix-c")


@dataclass(frozen=True)
class MessageLevels:
    """Each message's own level in a study of several messages (its share chosen, best-minus-worst score or
    mean), with its interval: the first table of a k-message analysis (survey.stats.message_set).
    ``values``: message -> (estimate, (lo, hi)); ``quantity``: what an estimate is, for a column header;
    ``method``: how the interval was found; ``covers``: what it covers; ``notes``: what else the kind says
    once about the whole set (e.g. pick one of k's position test); ``extra``: the same for --json."""

    quantity: str
    values: dict
    confidence: float
    method: str
    covers: str = ""
    notes: tuple = ()
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"quantity": self.quantity, "confidence": self.confidence, "method": self.method,
                "covers": self.covers, "notes": list(self.notes), **self.extra,
                "levels": [{"message": m, "estimate": e, "ci": list(ci)} for m, (e, ci) in self.values.items()]}


class Kind:
    """One analysis kind. Subclasses set ``name`` (the AnalysisView.kind they handle) and implement
    ``compare``; ``fit`` and ``simulate`` are optional (a kind without a response model says so)."""

    name: str
    decided_by: str = "sign_flip"  # the deciding test, as `survey analyze --json` names it
    fit_params: tuple[str, ...] = ()  # the fitted model's parameters, in the order reports show them
    methods: tuple[str, ...] = ("moments",)  # estimators ``fit`` offers; the first is the default
    every_pair: bool = True  # whether every pair of messages can be compared from the same answers
    exact_column: str = "expected"  # exact mode's per-row score
    exact_key: str = "exact_expected"  # the report's results.json key of the comparisons on exact scores
    means_key: str = "mean_score"  # the JSON key of the messages' means across messages
    cell_label: str = "mean"  # how agreement labels a cell without exact scores (survey.stats.agreement)
    # whether ``compare`` honours CompareOptions.weights (paraphrase-level means weighted over personas); a
    # kind without it is refused a weighted analysis rather than silently answering unweighted
    weighted: bool = False

    def compare(self, df: pd.DataFrame, model: str, a: str, b: str, view: AnalysisView, opts: CompareOptions):
        raise NotImplementedError

    def message_pairs(self, df: pd.DataFrame, model: str) -> list[tuple[str, str]]:
        """The pairs of messages ``analyze(every_pair=True)`` compares for one model, in table order."""
        return list(itertools.combinations(messages_in(df, model), 2))

    def message_levels(self, results: list, view: AnalysisView, confidence: float) -> MessageLevels | None:
        """Each message's level with its interval, from one model's pairwise ``results`` (every message appears
        in one): a message's mean over its paraphrases (P(Yes) on Yes/No, the mean score on a rating scale) with
        the t interval over its paraphrase means (survey.stats.comparison.mean_interval). None for a kind whose
        reply is not about one message (forced choice)."""
        if not view.per_message:
            return None
        from survey.stats.comparison import MEAN_COVERS, mean_interval

        values = {}
        for r in results:
            for msg, bar in getattr(r, "theta_bar", {}).items():
                if msg not in values:
                    got = mean_interval(bar, confidence, view.low, view.high)
                    values[msg] = (got["mean"], tuple(got["ci"]))
        return MessageLevels(view.quantity, values, confidence, "t interval over paraphrase means", MEAN_COVERS)

    def fit(self, df: pd.DataFrame, model: str, message: str, view: AnalysisView, opts: FitOptions):
        raise SurveyError(f"a {view.scale} table has no response model to estimate: what `survey analyze` "
                          "(survey.analyze) reports is its result")

    def simulate(self, view: AnalysisView, n: int, m: int, r: int, **params) -> pd.DataFrame:
        raise SurveyError(f"scale '{view.scale}' has no simulation model")

    def plan_params(self, view: AnalysisView, delta, **given):
        """This kind's power model (its manifest's ``power``, survey.stats.planning.model) from the effects given, or None
        where `survey plan`'s own models apply (Yes/No and rating scales) or no simulator does."""
        return None

    def heterogeneity_null(self, view: AnalysisView, a: str, b: str) -> str:
        """The null of the across-model heterogeneity test, in this kind's unit."""
        return f"{self.heterogeneity_claim(view)} (every model's {view.of(a)} − {view.of(b)} the same)"

    def heterogeneity_claim(self, view: AnalysisView) -> str:
        """That null in a few words, for sentences."""
        return f"equal effects in {view.quantity}"

    def effect_words(self, view: AnalysisView, a: str, b: str) -> str:
        """What an effect is, for a table's title: "effect = mean score(A) − mean score(B), in points ..."."""
        points = f", in points of the {view.scale} scale" if view.ranged else ""
        return f"effect = {view.of(a)} − {view.of(b)}{points}"

    def measured_in(self, df: pd.DataFrame, view: AnalysisView) -> tuple[str, str | None]:
        """(what an effect is a difference of, for titles; what one unit of it is called in sentences, None for
        points: percentage points on a 0–1 range) for the rows ``df``: a kind whose rows name their unit says it."""
        return view.unit, None

    def label_words(self, view: AnalysisView, source: str) -> str:
        """Where agreement's cell labels come from (``source``: "expected" or "mean"), for people."""
        return f"the {view.scale} point nearest each cell's {source} score"

    def exact_rows(self, df: pd.DataFrame, model: str, a: str, b: str) -> pd.DataFrame:
        """The rows whose exact-mode score an exact comparison of A and B would read."""
        return df[(df["model"] == model) & df["message"].isin([a, b])]

    def has_exact(self, df: pd.DataFrame, model: str, a: str, b: str) -> bool:
        """Whether every row of the comparison carries exact mode's score."""
        rows = self.exact_rows(df, model, a, b)
        return self.exact_column in df and not rows.empty and bool(rows[self.exact_column].notna().all())

    def query_rows(self, df: pd.DataFrame, model: str, a: str, b: str) -> pd.DataFrame:
        """The rows (queries) behind one comparison, valid or not: what its invalid rate counts."""
        return df[(df["model"] == model) & df["message"].isin([a, b])]

    def invalid_counts(self, df: pd.DataFrame, model: str, a: str, b: str, opts: CompareOptions) -> dict | None:
        """message -> (queries, replies the comparison leaves out) of A and of B: an invalid answer, or in exact
        mode a row without its exact score (survey.stats.invalid_rates compares the two rates). None for a
        kind whose every reply shows A and B together (forced choice, a shown set): they share one rate."""
        rows = self.query_rows(df, model, a, b)
        read = expected_column(rows) if opts.probabilities else rows["answer"]
        left_out = rows["answer"].isna() if read is None else read.isna()
        return {m: (int((rows["message"] == m).sum()), int(left_out[rows["message"] == m].sum())) for m in (a, b)}

    def __repr__(self) -> str:
        return f"<kind {self.name}>"


def unpaired_options(opts: CompareOptions, refusal: str) -> dict:
    """The keyword arguments of a comparison whose rows already pair paraphrases (forced choice, pick one of k,
    best-worst scaling), where ``opts.pairing`` does not apply and is refused with ``refusal``."""
    if opts.pairing:
        raise SurveyError(refusal)
    return dict(alternative=opts.alternative, alpha=opts.alpha, confidence=opts.confidence, n_resamples=opts.flips,
                seed=opts.seed, probabilities=opts.probabilities, weights=opts.weights)


class ShownSetKind(Kind):
    """A kind whose every row shows a set of messages (column ``shown``: pick one of k, best-worst scaling): a
    comparison of A and B reads every row of the model that showed a set, and exact mode stores each row's answer
    distribution (column ``distribution``) rather than one score."""

    def exact_rows(self, df, model, a, b):
        return df[(df["model"] == model) & df["shown"].notna()] if "shown" in df else df.iloc[:0]

    def has_exact(self, df, model, a, b):
        rows = self.exact_rows(df, model, a, b)
        return "distribution" in df and not rows.empty and bool(rows["distribution"].notna().all())

    def query_rows(self, df, model, a, b):
        return self.exact_rows(df, model, a, b)

    def invalid_counts(self, df, model, a, b, opts):
        return None  # every reply shows A and B: one invalid rate for both

    def heterogeneity_claim(self, view):
        return "equal effects"
