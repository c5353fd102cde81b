"""Best-worst scaling on subsets of the messages: best-minus-worst scores, Holm-adjusted pairwise tests."""

from survey.common.kinds import KindManifest, Missing  # noqa: F401

MANIFEST = KindManifest(
    name="maxdiff",
    parsing="survey.kinds.maxdiff.parsing:maxdiff_from_name",
    analysis="survey.kinds.maxdiff.analysis:MAXDIFF",
    power="survey.kinds.maxdiff.power:MaxDiffPlan",
    view="survey.kinds.maxdiff.view:VIEW",
    text="survey.kinds.maxdiff.text:TEXT",
    knobs="survey.kinds.maxdiff.knobs:KNOBS",
    segments=Missing("best-worst scaling has no segment model (Yes/No, rating scales and forced choice have)"),
    scale_names=("maxdiffS (e.g. maxdiff3)",),
)
