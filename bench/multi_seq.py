"""`bench/local.py --multi-seq N`: N cells of a persona decoded in one llama.cpp batch, one sequence each.

The alternative to the local backend's one-sequence path, measured here and not used by the backend
(docs/local-model.md, "Several cells in one batch"). Sequence 0 holds the persona prefix the cells
share; each cell's suffix goes into its own sequence, which first gets the prefix's KV cells with
``llama_memory_seq_cp``; one ``llama_decode`` evaluates every suffix and returns one row of logits
per cell. The same persona-major cells go through both paths, interleaved persona by persona, and
each cell's P(Yes | Yes or No) is compared with a fresh full evaluation.
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from survey.backends import Query, create_backend
from survey.backends.llama_runtime import log_softmax
from survey.responses import BINARY

N_BATCH = 1024  # tokens per decode: a 16-cell group of the paper's prompt is about 600


class MultiSequence:
    def __init__(self, path, n_seq: int, threads: int, unified: bool = True):
        from llama_cpp import Llama, _internals, llama_cpp

        self.c = llama_cpp
        self.llm = Llama(str(path), n_ctx=2048, n_batch=N_BATCH, n_ubatch=N_BATCH, n_threads=threads,
                         n_threads_batch=threads, verbose=False)
        # llama-cpp-python's Llama takes no n_seq_max: rebuild its context with n_seq + 1 sequences
        # sharing one KV buffer (kv_unified), so a copied prefix costs no memory.
        params = self.llm.context_params
        params.n_seq_max, params.kv_unified = n_seq + 1, unified
        old, self.llm._ctx = self.llm._ctx, _internals.LlamaContext(model=self.llm._model, params=params,
                                                                    verbose=False)
        old.close()
        self.mem, self.ctx = self.llm._ctx.memory, self.llm._ctx.ctx
        self.batch = llama_cpp.llama_batch_init(N_BATCH, 0, 1)
        self.n_vocab = self.llm.n_vocab()
        self.held: list[int] = []  # the prefix in sequence 0
        self.unified = unified
        self.tokens_evaluated = 0

    def _decode(self, items: list[tuple[int, int, int, bool]]) -> None:
        """items: (token, position, sequence, wants logits)."""
        b = self.batch
        for i, (tok, pos, seq, out) in enumerate(items):
            b.token[i], b.pos[i], b.n_seq_id[i], b.logits[i] = tok, pos, 1, out
            b.seq_id[i][0] = seq
        b.n_tokens = len(items)
        if self.c.llama_decode(self.ctx, b) != 0:
            raise RuntimeError("llama_decode failed")
        self.tokens_evaluated += len(items)

    def logits(self, prompts: list[list[int]]) -> list[np.ndarray]:
        """Next-token logits after each prompt; the group's common prefix is evaluated once."""
        shared = 0
        while all(len(t) > shared + 2 for t in prompts) and all(t[shared] == prompts[0][shared] for t in prompts):
            shared += 1
        keep = next((i for i, (x, y) in enumerate(zip(self.held, prompts[0][:shared], strict=False)) if x != y),
                    min(len(self.held), shared))
        self.c.llama_memory_seq_rm(self.mem, -1, keep, -1)  # every sequence, past the reusable prefix
        if shared > keep:
            self._decode([(t, keep + i, 0, False) for i, t in enumerate(prompts[0][keep:shared])])
        self.held = prompts[0][:shared]
        items, last = [], []
        for k, tokens in enumerate(prompts, start=1):
            # sequence 0 holds exactly the prefix; separate streams copy only whole sequences
            self.c.llama_memory_seq_cp(self.mem, 0, k, *((0, shared) if self.unified else (-1, -1)))
            items += [(t, shared + i, k, False) for i, t in enumerate(tokens[shared:])]
            items[-1] = (*items[-1][:3], True)
            last.append(len(items) - 1)
        self._decode(items)
        out = [np.ctypeslib.as_array(self.c.llama_get_logits_ith(self.ctx, i), shape=(self.n_vocab,)).copy()
               for i in last]
        for k in range(1, len(prompts) + 1):
            self.c.llama_memory_seq_rm(self.mem, k, -1, -1)
        return out

    def close(self) -> None:
        self.c.llama_batch_free(self.batch)
        self.llm.close()


def compare_multi_sequence(model: str, queries: list[Query], n_seq: int, threads: int) -> None:
    one = create_backend("local", model, n_threads=threads)
    rt = one.runtime
    multi = MultiSequence(one.gguf, n_seq, threads)
    labels = rt.label_tokens(BINARY.labels)

    def theta(logits: np.ndarray) -> float:
        mass = rt.label_mass(log_softmax(logits), labels)
        return mass[1] / (mass[1] + mass[0])

    groups = [[rt.tokenize(rt.render(q.system, q.user)) for q in group]
              for _, group in itertools.groupby(queries, key=lambda q: q.persona)]
    rt.next_logits(groups[0][0])  # warm-up of both contexts on one prompt
    multi.logits(groups[0][:1])
    seconds = {"one": 0.0, "multi": 0.0}
    diff = {"one": 0.0, "multi": 0.0}
    tokens0 = rt.tokens_evaluated
    multi_tokens, one_tokens = multi.tokens_evaluated, 0
    for prompts in groups:
        t0 = time.process_time()
        got_one = [rt.next_logits(p) for p in prompts]
        t1 = time.process_time()
        got_multi = [x for s in range(0, len(prompts), n_seq) for x in multi.logits(prompts[s:s + n_seq])]
        t2 = time.process_time()
        seconds["one"] += t1 - t0
        seconds["multi"] += t2 - t1
        one_tokens += rt.tokens_evaluated - tokens0
        fresh = [theta(rt.next_logits(p, reuse=False)) for p in prompts]  # the reference, not timed
        tokens0 = rt.tokens_evaluated
        diff["one"] = max(diff["one"], *(abs(theta(x) - f) for x, f in zip(got_one, fresh, strict=True)))
        diff["multi"] = max(diff["multi"], *(abs(theta(x) - f) for x, f in zip(got_multi, fresh, strict=True)))
    n = sum(len(g) for g in groups)
    multi_tokens = multi.tokens_evaluated - multi_tokens
    for name, toks in (("one", one_tokens), ("multi", multi_tokens)):
        label = "one sequence" if name == "one" else f"{n_seq} sequences"
        print(f"{label:>13}: {n} cells in {seconds[name]:.1f} s = {n / seconds[name]:.2f} cells/s, "
              f"{toks / n:.1f} tokens evaluated/cell, max |P(Yes|Yes or No) - fresh| = {diff[name]:.2e}")
    multi.close()
    one.close()
    print(f"ratio: {seconds['one'] / seconds['multi']:.2f}")
