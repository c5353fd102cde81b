"""Report views: how one A/B result becomes the page's headline, its section (a template partial under
templates/views/), its warnings and its exact-mode rows. Each kind's view is a part of its manifest
(survey.common.kinds; the built-in ones in survey/kinds/<name>/view.py).

    view_for(analysis.view)   -> the ReportView of the table's kind

A kind without a view of its own gets the mean-score view (the ordinal kind's), which reads the AnalysisView's
words.
"""

from __future__ import annotations

from survey.common.kinds import kind_part
from survey.reporting.views.base import ReportView
from survey.responses.view import AnalysisView


def view_for(analysis_view: AnalysisView) -> ReportView:
    return kind_part(analysis_view.kind, "view", ReportView) or kind_part("ordinal", "view", ReportView)


__all__ = ["ReportView", "view_for"]
