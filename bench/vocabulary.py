"""Vocabulary scans of the embedded models: CPU seconds per process before and after the on-disk cache.

Per model (SmolLM2: 49 152 tokens, Gemma-3-270M: 262 144), the model loaded once, then three ways to
answer what the local backend asks of the vocabulary (the Yes/No label tokens and the tokens that
continue a word, survey.backends.vocabulary):

- baseline: the two Python loops the runtime ran in every process (each renders every token through
  llama_token_to_piece and decodes it);
- cold: the first process on this model file: one rendering, numpy over the bytes, written to the
  cache (an empty temporary XDG_CACHE_HOME);
- warm: any later process: the cache read back.

Last line: CPU seconds of the warm path on Gemma.
"""

from __future__ import annotations

import os
import tempfile
import time

import numpy as np

from survey.backends import vocabulary as vocab_mod
from survey.backends.llama_runtime import LlamaRuntime
from survey.backends.local_models import gemma3_270m_path, smollm2_path
from survey.responses import BINARY


def baseline(rt: LlamaRuntime) -> None:
    score_of = {label.strip().casefold(): value for value, label in BINARY.labels.items()}
    found = {value: [] for value in BINARY.labels}
    for tok in range(rt.n_vocab):
        value = score_of.get(rt.piece(tok).decode("utf-8", "ignore").strip().casefold())
        if value is not None:
            found[value].append(tok)
    np.array([rt.piece(tok).decode("utf-8", "ignore")[:1].isalnum() for tok in range(rt.n_vocab)])


def cached(rt: LlamaRuntime) -> None:
    vocab = rt.vocabulary()
    vocab.label_tokens(BINARY.labels)
    vocab.continues()


def cpu(fn, *args) -> float:
    t0 = time.process_time()
    fn(*args)
    return time.process_time() - t0


def main() -> None:
    os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="vocab-bench-")
    warm_gemma = None
    for name, path in (("SmolLM2", smollm2_path()), ("Gemma-3-270M", gemma3_270m_path())):
        rt = LlamaRuntime(path, n_threads=1)
        base = cpu(baseline, rt)
        vocab_mod._MEMO.clear()
        cold = cpu(cached, rt)
        vocab_mod._MEMO.clear()  # a new process: only the disk remembers
        warm = cpu(cached, rt)
        print(f"{name:13s} {rt.n_vocab:6d} tokens: baseline {base:.3f} s CPU, cold {cold:.3f} s, warm {warm:.3f} s "
              f"(baseline / warm {base / warm:.0f}x); load average {os.getloadavg()[0]:.2f}")
        rt.llm.close()
        if name.startswith("Gemma"):
            warm_gemma = warm
    print(f"seconds: {warm_gemma:.3f}")


if __name__ == "__main__":
    main()
