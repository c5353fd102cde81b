"""A toy fourth kind, the way a user's plugin adds one: this folder holds every part of a 0-100 slider ("how
close are you to buying it?"), and its manifest below is registered once (survey.common.kinds.register_kind, or an
entry point in the group ``survey.kinds``). Nothing in the package is touched."""

from survey.common.kinds import KindManifest

MANIFEST = KindManifest(
    name="slider",
    parsing="slider_kind.parsing:from_name",
    analysis="slider_kind.analysis:SLIDER",
    power="slider_kind.power:SliderPlan",
    view="slider_kind.view:VIEW",
    text="slider_kind.text:TEXT",
    knobs="survey.study.knobs:NO_KNOBS",  # the study file names it in full: type = "slider"
    segments="slider_kind.segments:simulate_cells",
    scale_names=("slider",),
)
