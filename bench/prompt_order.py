"""The human benchmark's local-model passes: queries in design order (persona-major) vs sorted by prompt
(what the engine now does for a backend with Capabilities.prompt_order), same queries, CPU time.

Measured: a subset of one study (default: the framing study, SmolLM2, the first paraphrase of each
message for every persona, 350 queries) run through two fresh local backends, one per order, each once
(the same work both ways), CPU seconds of this process; both give every row's P(Yes | Yes or No), which
must be equal. Then the whole benchmark (the seven studies of `make benchmark`, both models) is extrapolated
from prompt tokens alone: the KV reuse of survey.backends.llama_runtime (common prefix, whole row groups)
and the backend's cache of recent prompts are replayed on the tokenized prompts in each order, and the
measured CPU per evaluated token converts tokens to seconds. Label-path passes beyond the first token
(none for Yes/No on these models) are not counted.

    python bench/prompt_order.py [--study humans] [--model smollm2] [--paraphrases 1] [--no-extrapolate]

Last line: ``ratio: X``, design-order CPU / prompt-order CPU on the measured subset.
"""

from __future__ import annotations

import argparse
import os
import time
from collections import OrderedDict
from pathlib import Path

from survey.backends import create_backend
from survey.backends.llama_runtime import ROW_GROUP
from survey.backends.local import FIRST_TOKEN_CACHE
from survey.collect.design_state import PromptOrdered
from survey.study.design import build_design
from survey.study.spec import load_study

ROOT = Path(__file__).resolve().parent.parent
STUDIES = ["humans", "humans_pew", "humans_disease", "humans_theatre", "humans_gamble", "humans_ask", "humans_gss"]


def design_queries(study: str, model_id: str, paraphrases: int | None):
    spec = load_study(ROOT / "studies" / f"{study}.toml")
    model = next(m for m in spec.models if m.model_id == model_id)
    queries = list(build_design(spec).queries(model))
    if paraphrases is None:
        return queries
    keep = {}
    for q in queries:
        keep.setdefault(q.message, [])
        if q.perturbation not in keep[q.message] and len(keep[q.message]) < paraphrases:
            keep[q.message].append(q.perturbation)
    return [q for q in queries if q.perturbation in keep[q.message]]


def replay(token_lists: list[list[int]], prompts: list[str], reuse: bool = True) -> tuple[int, int]:
    """(tokens evaluated, forward passes) of the local backend on these prompts in this order
    (``reuse=False``: kv_reuse = false, every prompt evaluated whole)."""
    held: list[int] = []
    grouped, tokens, passes = 0, 0, 0
    recent: OrderedDict[str, None] = OrderedDict()
    for toks, prompt in zip(token_lists, prompts, strict=True):
        if prompt in recent:
            recent.move_to_end(prompt)
            continue
        recent[prompt] = None
        if len(recent) > FIRST_TOKEN_CACHE:
            recent.popitem(last=False)
        common = 0
        for a, b in zip(held if reuse else [], toks, strict=False):
            if a != b:
                break
            common += 1
        common = min(common, len(toks) - 2, grouped)
        common -= common % ROW_GROUP
        common = max(common, 0)
        tokens += len(toks) - common
        passes += 1
        held, grouped = toks, len(toks) - len(toks) % ROW_GROUP
    return tokens, passes


def run(backend, queries) -> tuple[float, dict]:
    t0 = time.process_time()
    p = {q.key: backend.complete_sync(q).p_yes for q in queries}
    return time.process_time() - t0, p


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--study", default="humans")
    ap.add_argument("--model", default="smollm2")
    ap.add_argument("--paraphrases", type=int, default=1, help="paraphrases kept per message in the measured subset")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--no-extrapolate", action="store_true")
    args = ap.parse_args()

    queries = design_queries(args.study, args.model, args.paraphrases)
    sides = {"design order": queries, "prompt order": list(PromptOrdered(queries))}
    seconds, stats, answers = {}, {}, {}
    print(f"load average {os.getloadavg()[0]:.2f} before; {args.study}, {args.model}, {len(queries)} queries "
          f"({args.paraphrases} paraphrase(s) per message), {args.threads} thread(s)")
    for name, qs in sides.items():
        backend = create_backend("local", args.model, n_threads=args.threads, mode="exact")
        seconds[name], answers[name] = run(backend, qs)
        stats[name] = backend.stats()
        backend.close()
        s = stats[name]
        print(f"{name}: {seconds[name]:.1f} s CPU, {s['forward_passes']} passes, {s['tokens_evaluated']} tokens "
              f"evaluated, {s['cache_hits']} cache hits; load average {os.getloadavg()[0]:.2f}")
    diff = max(abs(answers["design order"][k] - answers["prompt order"][k]) for k in answers["design order"])
    print(f"max |P(Yes) design order - prompt order| = {diff:.3g} over {len(queries)} rows")
    per_token = seconds["design order"] / stats["design order"]["tokens_evaluated"]

    if not args.no_extrapolate:
        for model in ("smollm2", "gemma3-270m"):
            total = {"design order": 0, "prompt order": 0}
            backend = create_backend("local", model, n_threads=1)
            rt = backend.runtime
            for study in STUDIES:
                qs = design_queries(study, model, None)
                row = []
                for name, ordered in (("design order", qs), ("prompt order", list(PromptOrdered(qs)))):
                    prompts = [rt.render(q.system, q.user) for q in ordered]
                    tokens, passes = replay([rt.tokenize(p) for p in prompts], prompts)
                    total[name] += tokens
                    row.append(f"{name} {tokens} tokens in {passes} passes")
                print(f"  {model} {study}: {len(qs)} queries; " + "; ".join(row))
            backend.close()
            share = total["prompt order"] / total["design order"]
            line = f"{model}, seven studies: prompt order evaluates {share:.3f} of the design order's tokens"
            if model == args.model:
                line += (f"; at {per_token * 1e3:.2f} ms CPU per token measured above, {total['design order'] * per_token / 60:.1f}"
                         f" -> {total['prompt order'] * per_token / 60:.1f} CPU-minutes")
            print(line)
    print(f"ratio: {seconds['design order'] / seconds['prompt order']:.2f}")


if __name__ == "__main__":
    main()
