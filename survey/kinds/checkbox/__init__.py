"""Several options ticked ("which of these describe the product?"): per option the share ticking it by
message, a sign-flip test per option, Holm across the options; the report a dot plot of the shares."""

from survey.common.kinds import KindManifest, Missing  # noqa: F401

MANIFEST = KindManifest(
    name="checkbox",
    parsing="survey.kinds.checkbox.parsing:from_name",
    analysis="survey.kinds.checkbox.analysis:CHECKBOX",
    power="survey.kinds.checkbox.power:CheckboxPlan",
    view="survey.kinds.checkbox.view:VIEW",
    text="survey.kinds.checkbox.text:TEXT",
    knobs="survey.kinds.checkbox.knobs:KNOBS",
    segments="survey.kinds.checkbox.segments:simulate_cells",
    humans=Missing("comparing checkbox answers with people's (each option's share ticked by the humans beside each "
                   "model's) is not available yet; the human file is read (survey.load_humans): compare its "
                   "answers with the table's yourself"),
    scale_names=("checkboxK (e.g. checkbox4), checkboxK-MIN-MAX (e.g. checkbox5-0-2)",),
)
