"""The slider's response type: a position from 0 to 100, answered as a number."""

from __future__ import annotations

from types import MappingProxyType

from survey.kinds.ordinal.parsing import NumericLabels


class Slider(NumericLabels):
    scale = "slider"
    labels = MappingProxyType({v: str(v) for v in range(0, 101)})
    template = 'A customer said: "{perturbation}" From 0 to 100, how close are you to buying it?'
    max_tokens = 4
    kind = "slider"
    quantity = "mean position"
    ordered = True
    points, low, high = 101, 0, 100  # what the simulated backend draws positions from (the ordinal model)


def from_name(scale: str) -> Slider | None:
    return Slider() if scale == "slider" else None
