"""Forced choice between two messages shown together in both orders: preference and position bias."""

from survey.common.kinds import KindManifest, Missing  # noqa: F401

MANIFEST = KindManifest(
    name="choice",
    parsing="survey.kinds.choice.parsing:from_name",
    analysis="survey.kinds.choice.analysis:CHOICE",
    power="survey.kinds.choice.power:ChoicePlan",
    view="survey.kinds.choice.view:VIEW",
    text="survey.kinds.choice.text:TEXT",
    knobs="survey.study.knobs:NO_KNOBS",
    segments="survey.kinds.choice.segments:simulate_cells",
    scale_names=(),
)
