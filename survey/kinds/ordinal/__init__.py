"""Rating scales (likert, rating): mean scores, the ordinal model, a balanced scale's direction effect."""

from survey.common.kinds import KindManifest, Missing  # noqa: F401

MANIFEST = KindManifest(
    name="ordinal",
    parsing="survey.kinds.ordinal.parsing:from_name",
    analysis="survey.kinds.ordinal.analysis:ORDINAL",
    power="survey.kinds.ordinal.power:RatingPlan",
    view="survey.kinds.ordinal.view:VIEW",
    text="survey.kinds.ordinal.text:TEXT",
    knobs="survey.kinds.ordinal.knobs:KNOBS",
    segments="survey.kinds.ordinal.segments:simulate_cells",
    scale_names=("likertK (e.g. likert5)", "likertLO-HI (e.g. likert0-4)", "ratingLO-HI (e.g. rating0-10)"),
)
