"""The two result protocols every analysis kind's results follow (survey.stats.kinds).

Like scipy.stats, where each family of tests returns one result shape, an A/B comparison of any kind
(Yes/No, rating scale, forced choice) answers the same questions, and so does any fitted response model.
Across-model and across-message comparisons, the command line and the report read these attributes and
nothing kind-specific.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from survey.stats.effect import EffectResult


@runtime_checkable
class ABResult(Protocol):
    """Message A vs message B for one model.

    - ``effect``: A - B in ``unit`` with its interval (survey.stats.effect);
    - ``decision``: the deciding test (``.statistic``, ``.pvalue``, ``.method``, ``.exact``): the
      sign-flip test over paraphrase pairs, valid whatever share rho of the paraphrase variance all
      personas share;
    - ``tests``: every test run, by name (some only for comparison: see survey.stats.ab_tests);
    - ``per_pair()``: each paraphrase pair's contribution to the effect, by pair label;
    - ``n_personas``, ``n_paired``, ``replicates``; ``to_dict()``: the JSON `survey analyze` prints;
    - ``sequential``: the stored sequential test that decides on data collected in rounds, else None;
      ``segments``: the comparison per segment and in the target population (survey.stats.segments), else
      None. A result is a dataclass: analyze builds it with both (dataclasses.replace), never adds them later;
    - ``warnings``: what makes the result doubtful, in words, set by analyze the same way (e.g. A's and B's
      replies invalid at different rates, survey.stats.invalid_rates); shown by the command line, its
      ``--json`` (``warnings``) and the report.
    """

    model: str
    a: str
    b: str
    scale: str
    unit: str
    effect: EffectResult
    n_personas: int
    replicates: int
    sequential: object | None
    segments: object | None
    warnings: list

    @property
    def decision(self): ...

    @property
    def n_paired(self) -> int: ...

    @property
    def tests(self) -> dict: ...

    def per_pair(self) -> dict: ...

    def to_dict(self) -> dict: ...


@runtime_checkable
class Fit(Protocol):
    """A fitted response model of one message.

    - ``params``: name -> estimate, in the order reports show them; ``se`` and ``ci``: bootstrap
      standard errors and 95% percentile intervals by name (empty without a bootstrap);
    - ``notes``: what the estimator is known to do (bias, clamping, fallbacks);
    - ``estimator``: the method's name; ``model_name``: the model's, for people.
    """

    se: dict
    ci: dict
    model_name: str

    @property
    def params(self) -> dict: ...

    @property
    def notes(self) -> list: ...

    @property
    def estimator(self) -> str: ...

    def to_dict(self) -> dict: ...


__all__ = ["ABResult", "Fit"]
