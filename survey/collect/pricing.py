"""Built-in list prices (USD per 1M tokens) for cost estimates; a study's model entry overrides them.

These are approximate public list prices and change without notice: set ``price_input`` and
``price_output`` on a model in the study file for anything that matters. Model ids match by the
longest known prefix, so "ministral-8b-2512" uses the "ministral-8b" entry.
"""

from __future__ import annotations

from survey.study.spec import ModelSpec

PRICES: dict[str, dict[str, tuple[float, float]]] = {
    "mistral": {
        "ministral-3b": (0.04, 0.04),
        "ministral-8b": (0.10, 0.10),
        "ministral-14b": (0.20, 0.20),
        "mistral-small": (0.10, 0.30),
        "mistral-medium": (0.40, 2.00),
        "mistral-large": (2.00, 6.00),
        "open-mistral-nemo": (0.15, 0.15),
    },
    "dashscope": {  # international endpoint, non-thinking mode
        "qwen3-8b": (0.18, 0.70),
        "qwen3-14b": (0.35, 1.40),
        "qwen3-32b": (0.70, 2.80),
        "qwen-turbo": (0.05, 0.20),
        "qwen-plus": (0.40, 1.20),
        "qwen-max": (1.60, 6.40),
    },
}
BATCH_DISCOUNT = {"mistral": 0.5}  # Mistral bills batch jobs at half price


def price_of(model: ModelSpec) -> tuple[float, float] | None:
    """(input, output) USD per 1M tokens, or None when unknown; free backends cost 0."""
    if not model.paid:
        return (0.0, 0.0)
    table = PRICES.get(model.backend, {})
    match = max((k for k in table if model.model_id.startswith(k)), key=len, default=None)
    base = table.get(match) if match else None
    if base and model.batch:  # user-set prices are taken as the effective ones, discount included
        base = tuple(x * BATCH_DISCOUNT.get(model.backend, 1.0) for x in base)
    price_in = model.price_input if model.price_input is not None else (base[0] if base else None)
    price_out = model.price_output if model.price_output is not None else (base[1] if base else None)
    if price_in is None or price_out is None:
        return None
    return price_in, price_out


def cost(price: tuple[float, float] | None, input_tokens: int, output_tokens: int) -> float | None:
    if price is None:
        return None
    return (input_tokens * price[0] + output_tokens * price[1]) / 1e6
