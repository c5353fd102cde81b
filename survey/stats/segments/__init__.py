"""Segments and target populations: who prefers which message, and what the personas say about a market.

    segment_by(attributes, "age:18-34,35-54,55+")       -> Segmentation (persona ids per segment)
    rake(attributes, Target({"gender": {...}}))         -> PersonaWeights (design effect, margins)
    interaction_test(d, sizes)                          -> do the segments' effects differ?
    segment_analysis(...)                               -> per-segment effects, interaction, population

survey.analyze(source, by=..., weights=...) runs them for every model and pair of messages.
"""

from survey.stats.segments.analysis import (
    MIN_SEGMENT_PERSONAS,
    PopulationEffect,
    SegmentAnalysis,
    SegmentEffect,
    segment_analysis,
)
from survey.stats.segments.definition import Segmentation, segment_by
from survey.stats.segments.interaction import InteractionResult, interaction_test
from survey.stats.segments.weights import PersonaWeights, Target, UnreachableTargetError, given_weights, rake

__all__ = ["MIN_SEGMENT_PERSONAS", "InteractionResult", "PersonaWeights", "PopulationEffect", "SegmentAnalysis",
           "SegmentEffect", "Segmentation", "Target", "UnreachableTargetError", "given_weights", "interaction_test",
           "rake", "segment_analysis", "segment_by"]
