"""Several questions per study on the local model: the forward-pass CPU of four questions against one.

Each question is asked in its own prompt after the persona and the paraphrase (the independent flow): the
persona's system prompt, then the question's template filled with the paraphrase. The queries of each side
go through the local backend's batch entry (LocalBackend.complete_many), which evaluates them sorted by
prompt: a persona's paraphrase is followed by its questions, so the part they share (chat header, persona,
the template's opening, the paraphrase) is evaluated once and each question costs only what follows.

Same personas and paraphrases on both sides (the demo study's shoppers and sneaker/boot paraphrases, SmolLM2,
exact mode, one thread); question 1 is the paper's, the other three are concept-test questions of the same
kind. Each repeat loads a fresh backend (load not timed) and times complete_many in CPU seconds; equal
repeats, medians. The first question's answers must be the same on both sides (the neighbours differ).
``--baseline`` adds both sides with kv_reuse = false (every prompt evaluated whole); ``--options`` compares,
on the four-question set, the backend with two other ways to share the prefix (bench/prefix_options.py).

    python bench/question_prefix.py [--personas 6] [--paraphrases 4] [--repeats 3] [--baseline] [--options]

Last line: ``ratio: X``, median CPU of four questions / median CPU of one (with prefix reuse).
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from timing import cpu_repeats, load, spread

from survey.backends import Query, create_backend
from survey.kinds.binary.parsing import PAPER_QUESTION
from survey.study.design import build_design
from survey.study.spec import load_study

ROOT = Path(__file__).resolve().parent.parent
OPENING = 'A customer said: "{perturbation}" Based on this, '
QUESTIONS = {  # a concept test: purchase intent (the paper's question), appeal, believability, uniqueness
    "intent": PAPER_QUESTION,
    "appeal": OPENING + "does the product they are describing appeal to you?",
    "believable": OPENING + "do you believe what they say about the product?",
    "unique": OPENING + "is the product they are describing different from others you know?",
}


def question_queries(questions: list[str], personas: int, paraphrases: int, study: str = "demo") -> list[Query]:
    """The independent flow's prompts: persona system prompt + question i's template with the paraphrase."""
    spec = load_study(ROOT / "studies" / f"{study}.toml")
    design = build_design(spec)
    model = next(m for m in spec.models if m.backend == "local" and m.model_id == "smollm2")
    common = design.settings(model)
    has_question = "question" in Query.__dataclass_fields__  # the question axis of the design, once merged
    out = []
    for persona in design.personas[:personas]:
        system = design.system_prompt(persona)
        for qid in questions:
            seen: dict[str, int] = {}
            for message, perturbation, user, _ in design.cell_prompts(QUESTIONS[qid]):
                seen[message] = seen.get(message, 0) + 1
                if seen[message] > paraphrases:
                    continue
                extra = {"question": qid} if has_question else {}
                out.append(Query(message=message, perturbation=perturbation, persona=str(persona.id),
                                 replicate=0, system=system, user=user, **extra, **common))
    return out


def measure(queries: list[Query], repeats: int, **options) -> tuple[list[float], dict, dict]:
    """CPU seconds of complete_many on a fresh backend per repeat; the last backend's stats and answers."""
    state: dict = {}

    def once():
        backend = state.pop("backend")
        replies = backend.complete_many(queries)
        state["stats"] = backend.stats()
        backend.close()
        return replies

    times = []
    for _ in range(repeats):
        state["backend"] = create_backend("local", "smollm2", n_threads=1, mode="exact", **options)
        t, replies = cpu_repeats(once, 1)
        times += t
    answers = {(q.persona, q.message, q.perturbation, q.user): r.p_yes for q, r in zip(queries, replies, strict=True)}
    return times, state["stats"], answers


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--personas", type=int, default=6)
    ap.add_argument("--paraphrases", type=int, default=4, help="per message (the demo has two messages)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--baseline", action="store_true", help="also both sides with kv_reuse = false")
    ap.add_argument("--options", action="store_true", help="also compare ways to share the prefix")
    args = ap.parse_args()

    sides = {"1 question": question_queries(["intent"], args.personas, args.paraphrases),
             "4 questions": question_queries(list(QUESTIONS), args.personas, args.paraphrases)}
    runs = [(name, qs, {}) for name, qs in sides.items()]
    if args.baseline:
        runs += [(f"{name}, no reuse", qs, {"kv_reuse": False}) for name, qs in sides.items()]
    print(f"load {load()} before; SmolLM2 exact, 1 thread, {args.personas} personas x {2 * args.paraphrases} "
          f"paraphrases, {args.repeats} repeats each (fresh backend per repeat, load not timed)")
    medians, answers = {}, {}
    for name, qs, options in runs:
        times, stats, answers[name] = measure(qs, args.repeats, **options)
        medians[name] = statistics.median(times)
        print(f"{name}: {len(qs)} queries, CPU s min / median / max {spread(times)}, {stats['forward_passes']} "
              f"passes, {stats['tokens_evaluated']} tokens evaluated ({stats['tokens_evaluated'] / len(qs):.1f} a "
              f"query); load {load()}")
    one = answers["1 question"]
    diff = max(abs(one[k] - answers["4 questions"][k]) for k in one)
    print(f"first question's P(Yes), alone vs among four questions: max difference {diff:.3g} over {len(one)} rows")
    if args.baseline:
        for name in sides:
            d = max(abs(answers[name][k] - answers[f"{name}, no reuse"][k]) for k in answers[name])
            print(f"{name}: reuse / no reuse CPU {medians[name] / medians[f'{name}, no reuse']:.3f}, "
                  f"max |P(Yes) difference| {d:.3g}")
    if args.options:
        from prefix_options import compare

        compare(sides["4 questions"], args.repeats)
    print(f"ratio: {medians['4 questions'] / medians['1 question']:.2f}")


if __name__ == "__main__":
    main()
