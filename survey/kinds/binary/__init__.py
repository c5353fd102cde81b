"""Yes/No answers: P(Yes) per cell, the Beta-logit model (survey.stats.beta_logit), every A/B test."""

from survey.common.kinds import KindManifest, Missing  # noqa: F401

MANIFEST = KindManifest(
    name="binary",
    parsing="survey.kinds.binary.parsing:from_name",
    analysis="survey.kinds.binary.analysis:BINARY",
    power="survey.kinds.binary.power:BinaryPlan",
    view="survey.kinds.binary.view:VIEW",
    text="survey.kinds.binary.text:TEXT",
    knobs="survey.study.knobs:NO_KNOBS",
    segments="survey.kinds.binary.segments:simulate_cells",
    scale_names=(),
)
