"""Replay a sequential rule on a finished table: what it would have decided, and what it would have bought.

The table's paraphrase pairs are taken in their collection order (the pairing of survey.data.pairing:
design order when the store recorded it), and the rule runs over them round by round as if the data had
arrived that way. Per model: the decision, the look it stopped at, the queries it would have used, and
the fixed sign-flip test on every pair for comparison.

    res = replay(df, "sneakers", "boots", method="group-sequential", round_pairs=4)
    res["gpt"].result.decision, res["gpt"].queries_used
"""

from __future__ import annotations

from dataclasses import dataclass

from survey.data.sources import Source
from survey.errors import SurveyError
from survey.responses import response_type
from survey.stats.ab_tests import DECISION_TEST
from survey.stats.analysis import analyze
from survey.stats.comparison import Comparison
from survey.stats.kinds import CompareOptions
from survey.stats.sequential.design import SequentialDesign, make_design
from survey.stats.sequential.rule import SequentialResult, sequential_test


@dataclass
class ModelReplay:
    model: str
    comparison: Comparison
    result: SequentialResult
    queries_used: int  # 2 messages x pairs used x personas x replicates
    queries_table: int  # the same for every pair the table holds

    @property
    def statistic(self) -> float:
        return self.result.statistic

    @property
    def pvalue(self) -> float:
        return self.result.pvalue

    @property
    def saved(self) -> float:
        """Share of the table's paired queries the rule would not have bought."""
        return 1.0 - self.queries_used / self.queries_table if self.queries_table else 0.0

    def to_dict(self) -> dict:
        c = self.comparison
        return {"model": self.model, "a": c.a, "b": c.b, "n_personas": c.n_personas, "replicates": c.replicates,
                "pairs_in_table": c.n_paired, "queries_used": self.queries_used,
                "queries_table": self.queries_table, "saved": self.saved,
                "fixed_pvalue": float(c.tests[DECISION_TEST].pvalue), **self.result.to_dict()}


class Replay(dict):
    """model -> ModelReplay; ``left_out`` as in survey.stats.analysis.Analysis."""

    def __init__(self, replays=(), left_out=(), completeness=None):
        super().__init__((r.model, r) for r in replays)
        self.left_out = list(left_out)
        self.completeness = completeness

    def to_dict(self) -> dict:
        return {"results": [r.to_dict() for r in self.values()], "left_out": self.left_out}


def replay(source: Source, a: str | None = None, b: str | None = None, design: SequentialDesign | dict | None = None, *,
           models: list[str] | None = None, pairing=None, probabilities: bool = False, seed: int | None = 0,
           **options) -> Replay:
    """Run a sequential design over each model's pairs of a finished table, in collection order.

    ``design``: a SequentialDesign, or its fields as a dict or keywords (method, round_pairs, max_pairs,
    alpha, alternative, spending, futility, ...). Without max_pairs the table's pairs are the maximum
    (and a round never exceeds it). ``source``: a survey.data.sources.Source (``survey.sequential`` wraps a
    DataFrame).
    """
    base = make_design(design, **options)
    fixed_max = isinstance(design, SequentialDesign) or "max_pairs" in options or (
        isinstance(design, dict) and "max_pairs" in design)
    res = analyze(source, a, b, models=models, options=CompareOptions(
        alternative=base.alternative, seed=seed, pairing=pairing, probabilities=probabilities))
    if getattr(res, "sets", None):  # three or more messages and none named: a replay follows one pair
        raise SurveyError("a sequential replay follows one pair of messages: name the two messages with `a=` and "
                          f"`b=`; the table has {', '.join(res.sets[0].messages)}")
    if not res.view.per_message:
        raise SurveyError("the sequential replay runs over paraphrase pairs of two separately asked messages; "
                          "a forced-choice table is analysed by `survey analyze` without --sequential")
    out = []
    for c in res.values():
        top = base.max_pairs if fixed_max else c.n_paired
        d = make_design(base, max_pairs=top, round_pairs=min(base.round_pairs, top))
        # the betting test needs differences in [-1, 1]: a rating scale's are in +-(high - low) points
        span = response_type(c.scale).view.bounds[1] if d.method == "betting" else 1.0
        result = _in_points(sequential_test(c.d_perturbation[:top] / span, d, seed=seed), span)
        per_pair = 2 * c.n_personas * c.replicates
        out.append(ModelReplay(c.model, c, result, result.pairs * per_pair, c.n_paired * per_pair))
    return Replay(out, res.left_out, res.completeness)


def _in_points(result: SequentialResult, span: float) -> SequentialResult:
    """A result computed on differences divided by ``span``, with its means back in scale points."""
    if span == 1.0:
        return result
    result.statistic *= span
    for row in result.path:
        row["statistic"] *= span
    if result.confidence_sequence is not None:
        result.confidence_sequence = tuple(x * span for x in result.confidence_sequence)
    return result


sequential = replay  # survey.sequential(df, a, b, ...): the name the package exports
