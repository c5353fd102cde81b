"""Shared by the local backend's tests: the shopper prompt they query, and an independent reference for
its probabilities (a fresh llama.cpp model keeping all logits, one full evaluation, a float64 softmax)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from survey.backends import Query

# llama.cpp threads; the suite shares 2 cores, where one thread is fastest (see docs/local-model.md).
THREADS = 1
PERSONA = ("You are roleplaying as a shopper. Your profile: Age 59, female, Professor, income: high, "
           "marital status: single. Answer ONLY 'Yes' or 'No'. Do not explain.")
# a study's [[models]] table for the local model in exact mode (appended to tests/shoe_study.py's study)
LOCAL_EXACT_MODEL_TOML = f"""
[[models]]
name = "smollm2"
backend = "local"
model_id = "smollm2"
seed = 11
[models.options]
mode = "exact"
n_threads = {THREADS}
"""
QUESTION = ('A customer said: "{p}" Based on this, would you personally be interested in buying the '
            'product they are describing?')
PERTURBATIONS = ["I'd like to buy a pair of sneakers.", "I'm looking to purchase some new trainers.",
                 "I want to shop for a pair of athletic casual shoes."]


def shopper_query(model: str, perturbation: int = 0, replicate: int = 0, **kw) -> Query:
    """The paper's question on paraphrase ``perturbation`` for the 59-year-old shopper; ``kw`` overrides."""
    base = dict(study="t", model=model, message="sneakers", perturbation=f"p{perturbation}", persona="p59",
                replicate=replicate, system=PERSONA, user=QUESTION.format(p=PERTURBATIONS[perturbation]), seed=7)
    base.update(kw)
    return Query(**base)


def fresh_next_token_probabilities(gguf: Path, tokens: list[int], threads: int = 1) -> np.ndarray:
    """P(next token) after ``tokens``, from a new Llama(logits_all=True) that shares nothing with the backend."""
    from llama_cpp import Llama

    fresh = Llama(str(gguf), n_ctx=512, n_threads=threads, n_threads_batch=threads, logits_all=True,
                  verbose=False)
    try:
        fresh.eval(tokens)
        logits = fresh.scores[len(tokens) - 1].astype(np.float64)
    finally:
        fresh.close()
    p = np.exp(logits - logits.max())
    return p / p.sum()
