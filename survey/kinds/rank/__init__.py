"""Rank the k messages shown together: mean rank and Borda score per message, Holm-adjusted pairwise tests,
position bias."""

from survey.common.kinds import KindManifest, Missing  # noqa: F401

MANIFEST = KindManifest(
    name="rank",
    parsing="survey.kinds.rank.parsing:rank_from_name",
    analysis="survey.kinds.rank.analysis:RANK",
    power="survey.kinds.rank.power:RankPlan",
    view="survey.kinds.rank.view:VIEW",
    text="survey.kinds.rank.text:TEXT",
    knobs="survey.kinds.rank.knobs:KNOBS",
    segments="survey.kinds.rank.segments:simulate_cells",
    humans="survey.kinds.rank.humans:rank_fidelity",
    scale_names=("rankK (e.g. rank4)",),
)
