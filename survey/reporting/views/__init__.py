"""Report views, one module per response kind: how one A/B result becomes the page's headline, its section
(a template partial under templates/views/), its warnings and its exact-mode rows.

    view_for(analysis.view)   -> the ReportView of the table's kind

A kind without a view of its own gets the mean-score view (survey.reporting.views.ordinal), which reads
the AnalysisView's words; a new kind's view is one module with a ReportView and one ``register`` line.
"""

from __future__ import annotations

from survey.reporting.views.base import ReportView
from survey.responses.view import AnalysisView

VIEWS: dict[str, ReportView] = {}


def register(view: ReportView) -> ReportView:
    VIEWS[view.kind] = view
    return view


def view_for(analysis_view: AnalysisView) -> ReportView:
    from survey.reporting.views import binary, choice, maxdiff, ordinal, pick, ssr  # noqa: F401  (they register themselves)

    return VIEWS.get(analysis_view.kind) or VIEWS["ordinal"]


__all__ = ["VIEWS", "ReportView", "register", "view_for"]
