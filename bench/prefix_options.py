"""Three ways to evaluate a shared prompt prefix once for several questions, on the same prompts (SmolLM2).

- ``last prompt's KV``: what the backend does (survey.backends.llama_runtime.next_logits): prompts sorted,
  the KV cells of the common prefix with the previous prompt kept, the rest evaluated;
- ``saved prefix state``: per group of prompts sharing a persona and paraphrase, their common prefix is
  evaluated (itself reusing the previous group's cells), saved with ``llama_state_seq_get_data`` and restored
  with ``llama_state_seq_set_data`` before each question's suffix is evaluated;
- ``one batch, a sequence per question``: the group's prefix in sequence 0, copied to one sequence per
  question, and every suffix decoded in one batch (bench/multi_seq.py's MultiSequence).

Called by bench/question_prefix.py --options: CPU seconds of the forward passes (equal repeats, median) and
the largest |P(Yes | Yes or No)| difference from the backend's (which equals a fresh evaluation's: tests).
"""

from __future__ import annotations

import ctypes
import itertools
import statistics
import time

import numpy as np
from multi_seq import MultiSequence
from timing import load

from survey.backends import create_backend
from survey.backends.base import prompt_order_key
from survey.backends.llama_runtime import ROW_GROUP, log_softmax
from survey.responses import BINARY


class SavedPrefix:
    """The runtime's context, with each group's common prefix saved once and restored before each suffix."""

    def __init__(self, rt):
        self.rt, self.c, self.ctx = rt, rt._c, rt.llm._ctx.ctx

    def group_logits(self, prompts: list[list[int]]) -> list[np.ndarray]:
        rt, llm = self.rt, self.rt.llm
        shared = next((i for i, col in enumerate(zip(*prompts, strict=False)) if len(set(col)) > 1),
                      min(map(len, prompts)))
        shared = min(shared, min(map(len, prompts)) - 2)
        shared -= shared % ROW_GROUP  # cells a fresh evaluation computes alike (see llama_runtime)
        rt.next_logits(prompts[0][:shared])  # the prefix, reusing what the previous group left
        size = self.c.llama_state_seq_get_size(self.ctx, 0)
        buf = (ctypes.c_uint8 * size)()
        self.c.llama_state_seq_get_data(self.ctx, buf, size, 0)
        out = []
        for tokens in prompts:
            if not self.c.llama_state_seq_set_data(self.ctx, buf, size, 0):
                raise RuntimeError("llama_state_seq_set_data failed")
            llm.n_tokens = shared
            llm.input_ids[:shared] = tokens[:shared]
            llm.eval(tokens[shared:])
            rt.tokens_evaluated += len(tokens) - shared
            out.append(rt._read_logits())
        last = prompts[-1]  # what the context now holds, in whole row groups as next_logits expects
        rt._grouped, rt._last_logits = len(last) - len(last) % ROW_GROUP, None
        return out


def compare(queries, repeats: int) -> None:
    backend = create_backend("local", "smollm2", n_threads=1, mode="exact")
    rt = backend.runtime
    labels = rt.label_tokens(BINARY.labels)

    def theta(logits: np.ndarray) -> float:
        mass = rt.label_mass(log_softmax(logits), labels)
        return mass[1] / (mass[1] + mass[0])

    ordered = sorted(queries, key=prompt_order_key)
    groups = [[rt.tokenize(rt.render(q.system, q.user)) for q in group]
              for _, group in itertools.groupby(ordered, key=lambda q: (q.persona, q.perturbation))]
    n_seq = max(map(len, groups))
    multi = MultiSequence(backend.gguf, n_seq, 1)
    streams = MultiSequence(backend.gguf, n_seq, 1, unified=False)
    saved = SavedPrefix(rt)
    ways = {
        "last prompt's KV": lambda g: [rt.next_logits(p) for p in g],
        "saved prefix state": saved.group_logits,
        f"one batch, {n_seq} sequences": multi.logits,
        f"one batch, {n_seq} sequences in their own KV streams": streams.logits,
    }
    seconds: dict[str, list[float]] = {name: [] for name in ways}
    thetas: dict[str, list[float]] = {}
    for _ in range(repeats):
        for name, way in ways.items():  # interleaved, so each way sees the same machine
            rt.llm.reset()
            rt._grouped = 0
            multi.held = streams.held = []
            t0 = time.process_time()
            got = [x for g in groups for x in way(g)]
            seconds[name].append(time.process_time() - t0)
            thetas[name] = [theta(x) for x in got]
    ref = thetas["last prompt's KV"]
    print(f"prefix options, {sum(map(len, groups))} prompts in {len(groups)} groups, {repeats} repeats, "
          f"load {load()}:")
    for name in ways:
        diff = max(abs(a - b) for a, b in zip(thetas[name], ref, strict=True))
        print(f"  {name}: CPU s median {statistics.median(seconds[name]):.2f} "
              f"(min {min(seconds[name]):.2f}, max {max(seconds[name]):.2f}), "
              f"max |P(Yes) - backend's| {diff:.3g}")
    multi.close()
    streams.close()
    backend.close()
