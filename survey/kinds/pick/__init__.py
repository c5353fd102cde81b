"""Pick one of k messages shown together: order-averaged shares, Holm-adjusted pairwise tests, position bias."""

from survey.common.kinds import KindManifest, Missing  # noqa: F401

MANIFEST = KindManifest(
    name="pick",
    parsing="survey.kinds.pick.parsing:pick_from_name",
    analysis="survey.kinds.pick.analysis:PICK",
    power="survey.kinds.pick.power:PickPlan",
    view="survey.kinds.pick.view:VIEW",
    text="survey.kinds.pick.text:TEXT",
    knobs="survey.kinds.pick.knobs:KNOBS",
    segments=Missing("pick one of k has no segment model (Yes/No, rating scales and forced choice have)"),
    scale_names=("pickK (e.g. pick3)",),
)
