"""A bounded number (willingness to pay, a 0-100 probability, a count): the persona x paraphrase cell mean
(on the values, their log, or winsorized) through the sign-flip test; the report shows the distributions."""

from survey.common.kinds import KindManifest, Missing  # noqa: F401

MANIFEST = KindManifest(
    name="numeric",
    parsing="survey.kinds.numeric.parsing:from_name",
    analysis="survey.kinds.numeric.analysis:NUMERIC",
    power="survey.kinds.numeric.power:NumericPlan",
    view="survey.kinds.numeric.view:VIEW",
    text="survey.kinds.numeric.text:TEXT",
    knobs="survey.kinds.numeric.knobs:KNOBS",
    segments="survey.kinds.numeric.segments:simulate_cells",
    scale_names=("numericLOtoHI (e.g. numeric0to100, numeric0to500_log)",),
)
