"""Analysis kinds: how a response kind's answers are compared, fitted and simulated.

    kind_of("likert5")          -> the ordinal kind
    table_view(df)              -> the table's AnalysisView (survey.responses.view)

A response type names its kind (``ResponseType.kind``); the kind's manifest (survey.common.kinds) names the
``Kind`` (survey.stats.kinds.base) that analyses it, in the kind's own folder (survey/kinds/<name>/analysis.py).
survey.stats.analysis.analyze, the across-model and across-message comparisons, the command line and the
report then work on it unchanged.
"""

from __future__ import annotations

import re

import pandas as pd

from survey.common.kinds import kind_part
from survey.data.scale_columns import table_scale
from survey.errors import SurveyError
from survey.responses import response_type
from survey.responses.view import AnalysisView
from survey.stats.kinds.base import CompareOptions, FitOptions, Kind


def scale_view(scale: str) -> AnalysisView:
    """The AnalysisView of a scale name (a SurveyError names the known scales for an unknown one)."""
    return response_type(scale).view


def table_view(df: pd.DataFrame, what: str = "the table") -> AnalysisView:
    """The AnalysisView of a table's one scale (a table that mixes scales is refused)."""
    return scale_view(table_scale(df, what))


def kind_of(view: AnalysisView | str) -> Kind:
    """The analysis kind of a view or scale name; a SurveyError when nothing can compare its answers."""
    view = scale_view(view) if isinstance(view, str) else view
    kind = kind_part(view.kind, "analysis", Kind)
    if kind is None:
        if not view.points:
            raise SurveyError(f"scale '{view.scale}' has no scores to compare (free text); compare the texts with "
                              "`survey dbpa` instead")
        raise SurveyError(f"scale '{view.scale}' has no analysis (kind '{view.kind}' is not registered)")
    return kind


def plan_params(scale: str, delta, **given):
    """A question kind's power-plan parameters for ``scale`` (survey.stats.planning: PickPlan, MaxDiffPlan), or
    None where `survey plan`'s own models apply (Yes/No and rating scales) or no simulator does.
    ``given``: sigma, rho, tau, positions, messages (Kind.plan_params)."""
    try:
        view = scale_view(scale)
    except SurveyError as exc:
        if re.fullmatch(r"(pick|maxdiff)\d+", str(scale)):
            raise SurveyError(f"scale '{scale}': pick one of k shows 2 to 9 messages (pick2 .. pick9), best-worst "
                              "scaling 3 to 9 per block (maxdiff3 .. maxdiff9)") from None
        if not str(exc).startswith("unknown response type"):
            raise  # a kind refused the name in its own words ("rank8": a ranking shows 3 to 7 messages)
        return None
    kind = kind_part(view.kind, "analysis", Kind)
    return kind.plan_params(view, delta, **given) if kind else None


__all__ = ["CompareOptions", "FitOptions", "Kind", "kind_of", "plan_params", "scale_view", "table_view"]
