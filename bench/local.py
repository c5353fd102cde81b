"""Local backend, exact mode: cells per second with prefix KV reuse vs a naive full re-evaluation.

Workload: 5 shopper personas x 8 sneaker perturbations (the persona prompt and question of Helm &
Priebe 2026), queried persona-major as the engine sends them, one replicate per cell. Both backends
load the same GGUF; the cells are interleaved (naive cell c, then reused cell c) so that load from
other processes on the machine hits both sides alike; both are timed in CPU seconds (time.process_time).
The baseline is the same backend with ``kv_reuse = false``: every prompt is evaluated from its first token.

Also printed: evaluated tokens per cell, the largest P(Yes|Yes or No) difference between the two
(should be 0), and queries per second at r = 3 (the replicates of a cell reuse its one pass).
The last line is the cells-per-second ratio, reuse / naive.

``--multi-seq N`` measures instead the alternative to today's one-sequence path: N cells of a persona
decoded in one llama.cpp batch, one sequence each, sharing the persona prefix (KV cells copied with
seq_cp). It prints both paths' cells/s, the largest difference of P(Yes|Yes or No) from a fresh
evaluation, and last ``ratio: multi / one-sequence``. ``--model gemma3-270m`` runs either on Gemma.
"""

from __future__ import annotations

import argparse
import time

from survey.backends import Query, create_backend
from survey.kinds.binary.parsing import PAPER_QUESTION
from survey.registry import load_persona_set, load_perturbation_set


def cells(n_personas: int, n_perturbations: int) -> list[Query]:
    """Persona-major cells: the sneaker paraphrases, then the boot ones when more are asked for."""
    personas = load_persona_set("shoppers")
    perts = (load_perturbation_set("sneakers").items + load_perturbation_set("boots").items)[:n_perturbations]
    return [Query(study="bench", model="smollm2", message="sneakers", perturbation=p.id, persona=persona.id,
                  replicate=0, system=personas.system_prompt(persona),
                  user=PAPER_QUESTION.format(perturbation=p.text), seed=1)
            for persona in personas.personas[:n_personas] for p in perts]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--personas", type=int, default=5)
    ap.add_argument("--perturbations", type=int, default=8)
    ap.add_argument("--threads", type=int, default=1, help="1 is fastest on a busy 2-core machine")
    ap.add_argument("--model", default="smollm2", help="local model id or GGUF path (smollm2, gemma3-270m)")
    ap.add_argument("--multi-seq", type=int, default=0, metavar="N",
                    help="compare N-cell multi-sequence batches against the one-sequence path")
    args = ap.parse_args()

    queries = cells(args.personas, args.perturbations)
    if args.multi_seq:
        from multi_seq import compare_multi_sequence  # bench/multi_seq.py, next to this file

        compare_multi_sequence(args.model, queries, args.multi_seq, args.threads)
        return
    reuse = create_backend("local", args.model, n_threads=args.threads)
    naive = create_backend("local", args.model, n_threads=args.threads, kv_reuse=False)
    for b in (reuse, naive):  # warm-up on an unrelated prompt: first-call allocations are not measured
        b.complete_sync(Query("warm", "m", "x", "x", "x", 0, "You are a shopper.", "Hello?"))
    t = {"reuse": 0.0, "naive": 0.0}
    tok0 = {name: b.stats()["tokens_evaluated"] for name, b in (("reuse", reuse), ("naive", naive))}
    max_diff = 0.0
    for q in queries:
        t0 = time.process_time()
        a = naive.complete_sync(q)
        t1 = time.process_time()
        b = reuse.complete_sync(q)
        t2 = time.process_time()
        t["naive"] += t1 - t0
        t["reuse"] += t2 - t1
        max_diff = max(max_diff, abs(a.p_yes - b.p_yes))
    n = len(queries)
    for name, b in (("naive", naive), ("reuse", reuse)):
        toks = (b.stats()["tokens_evaluated"] - tok0[name]) / n
        print(f"{name:>5}: {n} cells in {t[name]:.1f} s CPU = {n / t[name]:.2f} cells/s, {toks:.1f} tokens evaluated/cell")
    print(f"max |P(Yes|Yes or No) reuse - naive| = {max_diff:.2e}")

    # r = 3 replicates per cell on a fresh persona: one forward pass per cell, replicates free.
    persona_cells = cells(args.personas + 1, args.perturbations)[-args.perturbations:]
    passes = reuse.stats()["forward_passes"]
    t0 = time.process_time()
    for q in persona_cells:
        for k in range(3):
            reuse.complete_sync(Query(**{**q.__dict__, "replicate": k}))
    dt = time.process_time() - t0
    print(f"r = 3: {3 * len(persona_cells)} queries in {dt:.1f} s = {3 * len(persona_cells) / dt:.2f} queries/s, "
          f"{reuse.stats()['forward_passes'] - passes} forward passes for {len(persona_cells)} cells")
    reuse.close()
    naive.close()
    print(f"ratio: {(n / t['reuse']) / (n / t['naive']):.2f}")


if __name__ == "__main__":
    main()
