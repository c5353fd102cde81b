"""An independent reference for the local backend's probabilities: a fresh llama.cpp model keeping all
logits, one full evaluation of the prompt, and a float64 softmax."""

from __future__ import annotations

from pathlib import Path

import numpy as np


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
