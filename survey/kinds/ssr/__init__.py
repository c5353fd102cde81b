"""Semantic-similarity rating: free text rated on K points by its similarity to anchor statements."""

from survey.common.kinds import KindManifest, Missing  # noqa: F401

MANIFEST = KindManifest(
    name="ssr",
    parsing="survey.kinds.ssr.parsing:ssr_from_name",
    analysis="survey.kinds.ssr.analysis:SSR",
    power=Missing("semantic-similarity rating has no power model of its own: plan the rating scale it maps to"),
    view="survey.kinds.ssr.view:VIEW",
    text="survey.kinds.ssr.text:TEXT",
    knobs="survey.kinds.ssr.knobs:KNOBS",
    segments=Missing("semantic-similarity rating has no segment model (Yes/No, rating scales and forced choice have)"),
    scale_names=("ssrK (e.g. ssr5)",),
)
