"""Cost estimates: a model's price per 1M tokens, from the study or from its backend's list prices.

A study's model entry may set ``price_input`` and ``price_output`` (USD per 1M tokens); otherwise
the backend's declared capabilities give an approximate public list price, matched by the longest
model-id prefix ("ministral-8b-2512" uses "ministral-8b") and discounted for batch jobs where the
provider bills them lower. List prices change without notice: set them in the study when it matters.
"""

from __future__ import annotations

from survey.backends import backend_capabilities
from survey.study.spec import ModelSpec


def price_of(model: ModelSpec) -> tuple[float, float] | None:
    """(input, output) USD per 1M tokens, or None when unknown; free backends cost 0."""
    caps = backend_capabilities(model.backend, model.options)
    if not caps.paid:
        return (0.0, 0.0)
    # user-set prices are taken as the effective ones, batch discount included
    base = caps.list_price(model.model_id, batch=model.batch)
    price_in = model.price_input if model.price_input is not None else (base[0] if base else None)
    price_out = model.price_output if model.price_output is not None else (base[1] if base else None)
    if price_in is None or price_out is None:
        return None
    return price_in, price_out


def cost(price: tuple[float, float] | None, input_tokens: int, output_tokens: int) -> float | None:
    if price is None:
        return None
    return (input_tokens * price[0] + output_tokens * price[1]) / 1e6
