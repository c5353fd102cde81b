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
    humans="survey.kinds.checkbox.humans:checkbox_fidelity",
    scale_names=("checkboxK (e.g. checkbox4), checkboxK-MIN-MAX (e.g. checkbox5-0-2)",),
)
