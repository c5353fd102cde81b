"""The local model writes a stated distribution (elicit = "distribution", survey.responses.stated) as a server's
structured output would: the JSON object's skeleton is forced (``{"Yes":``, ``,"No":``, ``}``) and each
probability is drawn from the model's next-token distribution restricted to what the number may continue with
(a one-number grammar: ``1``, ``0``, or ``0.`` and one or two digits). The model chooses every digit; nothing
makes the numbers sum to 1, so the parser's tolerance decides, as it does for a hosted model's reply.

At temperature 0 every choice is the most probable one: the model's single most likely statement.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import numpy as np

from survey.backends.llama_runtime import LlamaRuntime, log_softmax

DECIMALS = 2  # digits after "0."


class _Choices:
    """Token ids per choice a number may take next: a digit, the decimal point, or its end (a token opening
    with ',' or '}', which the JSON continues with)."""

    def __init__(self, rt: LlamaRuntime):
        vocab = rt.vocabulary()
        self.digit = {d: vocab.exactly(str(d).encode()) for d in range(10)}
        self.point = vocab.exactly(b".")
        self.end = vocab.starting_with(b",}")


_CHOICES: dict[str, _Choices] = {}  # model file sha256 -> its choices


def _pick(logprobs: np.ndarray, options: dict[str, np.ndarray], temperature: float, rng: np.random.Generator) -> str:
    """One of the options, by the model's probability mass on each option's tokens (argmax at temperature 0)."""
    names = [k for k, ids in options.items() if ids.size]
    mass = np.array([np.exp(logprobs[options[k]]).sum() for k in names])
    if temperature <= 0 or not mass.sum() > 0:
        return names[int(np.argmax(mass))]
    return names[int(rng.choice(len(names), p=mass / mass.sum()))]


def write_distribution(rt: LlamaRuntime, tokens: list[int], labels: Mapping[int, str], temperature: float,
                       rng: np.random.Generator) -> tuple[str, int]:
    """(the JSON reply, the number of digit and point choices the model made) after the prompt ``tokens``."""
    choices = _CHOICES.get(rt.sha256)
    if choices is None:
        choices = _CHOICES[rt.sha256] = _Choices(rt)
    text, made = "", 0

    def next_logprobs() -> np.ndarray:
        tail = rt.llm.tokenize(text.encode(), add_bos=False, special=False)
        return log_softmax(rt.next_logits(tokens + list(tail)), temperature or 1.0)

    for i, word in enumerate(labels.values()):
        text += ("{" if i == 0 else ",") + json.dumps(word, ensure_ascii=False) + ":"
        lead = _pick(next_logprobs(), {"0": choices.digit[0], "1": choices.digit[1]}, temperature, rng)
        text, made = text + lead, made + 1
        if lead == "1" or _pick(next_logprobs(), {".": choices.point, "": choices.end}, temperature, rng) == "":
            continue
        text, made = text + ".", made + 1
        for place in range(DECIMALS):
            options = {str(d): ids for d, ids in choices.digit.items()}
            if place:
                options[""] = choices.end
            digit = _pick(next_logprobs(), options, temperature, rng)
            if not digit:
                break
            text, made = text + digit, made + 1
    return text + "}", made
