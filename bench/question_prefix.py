"""Several questions per study on the local model: the CPU of the 4-question concept study against its
one-question version, both run through the public path (survey.Study.run) on SmolLM2 in exact mode.

Both studies are derived from studies/concept.toml: the same personas, messages, paraphrases and replicates;
the one-question study keeps only the primary question (intent, the paper's Yes/No question), the other asks
all four (intent, appeal and believable as 5-point ratings, favourite as pick one of three), each in its own
prompt after the shared persona prompt (flow = "independent"). The models table is replaced by
SmolLM2 (backend = "local", mode = "exact", one thread). The engine sends the queries sorted by prompt, so the
local backend's KV cache keeps the prefix a prompt shares with the one before it.

Measured: process CPU (time.process_time, all threads) of the whole `Study.run` into a fresh store, i.e.
forward passes plus model load, design and store writes; equal repeats, medians, load average printed. The
backend's own counters (forward passes, tokens evaluated) are read from the backend the run created. The
token lengths of the concept texts (persona prompt, paraphrases, question templates and answer
instructions) are printed in SmolLM2's tokenizer.

``--baseline`` adds both studies with kv_reuse = false (every prompt evaluated whole); ``--options`` compares,
on the four-question study's distinct prompts, the backend with two other ways to share the prefix
(bench/prefix_options.py).

    python bench/question_prefix.py [--personas 4] [--paraphrases 2] [--repeats 3] [--baseline] [--options]

Last line: ``ratio: X``, median CPU of the four-question study / median CPU of the one-question study.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import tomllib
from pathlib import Path

from timing import cpu_repeats, load, spread

import survey.collect.runner as runner
from survey import Study

ROOT = Path(__file__).resolve().parent.parent
CONCEPT = ROOT / "studies" / "concept.toml"
LOCAL = [{"name": "smollm2", "backend": "local", "model_id": "smollm2", "options": {"mode": "exact", "n_threads": 1}}]


def concept(personas: int, paraphrases: int, *, one_question: bool | str, reuse: bool = True) -> dict:
    """studies/concept.toml on SmolLM2 exact, smaller; ``one_question`` keeps only the primary question (or
    the question it names); ``reuse = False``: every prompt evaluated whole (kv_reuse = false)."""
    spec = tomllib.loads(CONCEPT.read_text())
    spec["personas"]["count"] = personas
    for m in spec["messages"]:
        m["count"] = paraphrases
    spec["models"] = [{**m, "options": {**m["options"], "kv_reuse": reuse}} for m in LOCAL]
    if one_question:
        primary = spec["analysis"]["primary"] if one_question is True else one_question
        spec["questions"] = [q for q in spec["questions"] if q["id"] == primary]
        spec["analysis"] = {}
    return spec


class Recorder:
    """Keeps the backends the run creates, to read their counters afterwards (the run itself is untouched)."""

    def __init__(self):
        self.stats, self._create = {}, runner.create_backend

    def __call__(self, *args, **kwargs):
        backend = self._create(*args, **kwargs)
        close = backend.aclose

        async def aclose():  # the counters live with the model, which closing frees
            self.stats = dict(backend.stats())
            await close()

        backend.aclose = aclose
        return backend


def run_once(spec: dict, recorder: Recorder) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        spec = {**spec, "store": str(Path(tmp) / "store.sqlite")}
        study = Study(spec, base_dir=tmp, source="concept")
        result = study.run(yes=True, progress=False)
        assert result.stored == len(result.plan.models[0].queries), "every query stored"
        stats = recorder.stats
        stats["queries"] = result.stored
        return stats


def lengths(spec: dict) -> None:
    """Token lengths (SmolLM2's tokenizer) of what a concept-study prompt is made of."""
    from survey.backends.llama_runtime import LlamaRuntime, default_gguf_path
    from survey.study.design import build_design

    with tempfile.TemporaryDirectory() as tmp:
        study = Study({**spec, "store": str(Path(tmp) / "s.sqlite")}, base_dir=tmp, source="concept")
        design = build_design(study.spec)
    rt = LlamaRuntime(default_gguf_path(), n_threads=1)
    n = lambda text: len(rt.tokenize(text))  # noqa: E731
    persona = design.personas[0]
    system = design.system_prompt(persona)
    print(f"persona system prompt (shared by every question): {n(rt.render(system, ''))} tokens with the chat "
          f"template around it, {n(system)} alone")
    for q in design.questions:
        cells = design.cell_prompts(question=q)
        users = [c[2] for c in cells]
        full = [n(rt.render(system, u)) for u in users]
        print(f"question {q.id} ({q.type}): {len(users)} prompts a persona, user prompt {min(n(u) for u in users)}-"
              f"{max(n(u) for u in users)} tokens, whole prompt {min(full)}-{max(full)}; e.g. {users[0]!r}")
    paras = [c[1] for c in design.cell_prompts(question=design.questions[0])]
    print(f"paraphrases: {min(map(n, paras))}-{max(map(n, paras))} tokens")
    rt.close()


def evaluated(prev: list[int], tokens: list[int]) -> int:
    """Tokens the runtime evaluates for ``tokens`` after ``prev`` (LlamaRuntime.next_logits: the common prefix,
    at most all but two tokens and in whole ROW_GROUP groups, is kept)."""
    from survey.backends.llama_runtime import ROW_GROUP

    common = 0
    for a, b in zip(prev, tokens, strict=False):
        if a != b:
            break
        common += 1
    common = min(common, len(tokens) - 2, len(prev) - len(prev) % ROW_GROUP)
    return len(tokens) - max(0, common - common % ROW_GROUP)


def distinct(spec: dict) -> list:
    """The study's queries, one per distinct prompt (replicates dropped)."""
    with tempfile.TemporaryDirectory() as tmp:
        study = Study({**spec, "store": str(Path(tmp) / "s.sqlite")}, base_dir=tmp, source="concept")
        return list({(q.system, q.user): q for q in study.dry_run().models[0].queries}.values())


def breakdown(spec: dict) -> int:
    """Where the prompt tokens go: per question, the tokens evaluated per distinct prompt in the engine's
    order (prefix reuse with the prompt before), and how many of them are the answer instruction and the
    chat template's closing of the user turn + assistant header (label passes not counted)."""
    from survey.backends.base import prompt_order_key
    from survey.backends.llama_runtime import LlamaRuntime, default_gguf_path
    from survey.study.design import build_design

    with tempfile.TemporaryDirectory() as tmp:
        study = Study({**spec, "store": str(Path(tmp) / "s.sqlite")}, base_dir=tmp, source="concept")
        queries = list(study.dry_run().models[0].queries)
        design = build_design(study.spec)
    rt = LlamaRuntime(default_gguf_path(), n_threads=1)
    seen, prev, per = set(), [], {}
    for q in sorted(queries, key=prompt_order_key):
        if (q.system, q.user) in seen:
            continue  # a replicate: the first-token cache answers it
        seen.add((q.system, q.user))
        full = rt.render(q.system, q.user)
        tokens = rt.tokenize(full)
        tail = full[full.rindex(q.user) + len(q.user):]
        instruction = design.question(q.question).response.answer_instruction() if design.several else ""
        row = per.setdefault(q.question, [0, 0, 0, 0])
        row[0] += 1
        row[1] += evaluated(prev, tokens)
        row[2] += len(rt.tokenize(" " + instruction)) if instruction and q.user.endswith(instruction) else 0
        row[3] += len(tokens) - len(rt.tokenize(full.removesuffix(tail)))
        prev = tokens
    rt.close()
    total = sum(r[1] for r in per.values())
    print(f"{len(per)} question(s), {len(seen)} distinct prompts in prompt order, {total} prompt tokens evaluated:")
    for qid, (n, ev, ins, tail) in per.items():
        print(f"  {qid}: {n} prompts, {ev / n:.1f} tokens evaluated a prompt, of which answer instruction "
              f"{ins / n:.1f} and end of turn + assistant header {tail / n:.1f}")
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--personas", type=int, default=4)
    ap.add_argument("--paraphrases", type=int, default=2, help="per message (the concept study has three)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--baseline", action="store_true", help="also both studies with kv_reuse = false")
    ap.add_argument("--options", action="store_true", help="also compare, on the four-question study's prompts, "
                    "the backend with two other ways to share the prefix (bench/prefix_options.py)")
    args = ap.parse_args()
    sides = {"1 question": concept(args.personas, args.paraphrases, one_question=True),
             "4 questions": concept(args.personas, args.paraphrases, one_question=False)}
    lengths(sides["4 questions"])
    for spec in sides.values():
        breakdown(spec)
    apart = [breakdown(concept(args.personas, args.paraphrases, one_question=q["id"]))
             for q in tomllib.loads(CONCEPT.read_text())["questions"]]
    print(f"the four questions as four one-question studies: {sum(apart)} prompt tokens evaluated ({apart})")
    if args.baseline:
        sides |= {f"{name}, no reuse": {**spec, "models": [{**spec["models"][0], "options": {
            **spec["models"][0]["options"], "kv_reuse": False}}]} for name, spec in sides.items()}
    print(f"load {load()} before; studies/concept.toml on SmolLM2 exact, 1 thread, {args.personas} personas x "
          f"{3 * args.paraphrases} paraphrases x 2 replicates, {args.repeats} repeats each (fresh store and "
          f"backend per repeat; CPU of the whole Study.run, model load included)")
    recorder = Recorder()
    runner.create_backend = recorder
    medians = {}
    for name, spec in sides.items():
        times, stats = cpu_repeats(lambda spec=spec: run_once(spec, recorder), args.repeats)
        medians[name] = statistics.median(times)
        q = stats["queries"]
        print(f"{name}: {q} queries, CPU s min / median / max {spread(times)}, {stats['forward_passes']} passes, "
              f"{stats['cache_hits']} first-token cache hits, {stats['tokens_evaluated']} tokens evaluated "
              f"({stats['tokens_evaluated'] / q:.1f} a query); load {load()}")
    if args.options:
        from prefix_options import compare

        compare(distinct(sides["4 questions"]), args.repeats)
    print(f"ratio: {medians['4 questions'] / medians['1 question']:.2f}")


if __name__ == "__main__":
    main()
