"""The human benchmark's local-model CPU with prefix sharing, against the old path without any reuse.

Three ways through the same queries, in the same run, each on a fresh local backend (load not timed):

- ``no reuse`` (the named baseline): design order (persona-major), kv_reuse = false: every prompt evaluated
  whole, as before the local backend kept any KV cells;
- ``reuse, design order``: the KV cells shared with the previous prompt kept (the path when the benchmark's
  cost was first measured);
- ``reuse, prompt order``: the same, with the queries sorted by prompt as the engine now sends them (equal
  prompts together, neighbours sharing persona, paraphrase opening and question).

Measured: a subset of the framing study (SmolLM2, exact mode, one thread): every k-th persona of its
design (synthetic panel and rendered respondents alike) with all its messages and paraphrases; CPU seconds
of this process (bench/timing.py), equal repeats, medians; every row's P(Yes) must be equal on all three.
Then all seven studies of `make benchmark` on both models, replayed on their tokenized prompts
(bench/prompt_order.py's replay): the tokens each way evaluates, since the CPU follows the tokens; a fourth
column replays prompt order without a between-subjects respondent's unseen message (not what a run sends:
the levels, persona effect and dispersion read that message, tests/humans/test_unseen_message.py).

    python bench/human_prefix.py [--every 7] [--repeats 1] [--no-replay]

Last line: ``ratio: X``, median CPU of ``reuse, prompt order`` / median CPU of ``no reuse`` on the subset.
"""

from __future__ import annotations

import argparse
import statistics

from prompt_order import ROOT, STUDIES, design_queries, replay
from timing import cpu_repeats, load, spread

from survey.backends import create_backend
from survey.collect.design_state import PromptOrdered
from survey.data.humans import HUMAN_PREFIX
from survey.study.spec import load_study


def run(queries, repeats: int, **options) -> tuple[list[float], dict, dict]:
    """CPU seconds of answering ``queries`` in the order given, on a fresh backend per repeat."""
    times, stats, answers = [], {}, {}
    for _ in range(repeats):
        backend = create_backend("local", "smollm2", n_threads=1, mode="exact", **options)
        t, answers = cpu_repeats(lambda b=backend: {q.key: b.complete_sync(q).p_yes for q in queries}, 1)
        times += t
        stats = backend.stats()
        backend.close()
    return times, stats, answers


def seen_only(study: str, queries: list) -> list:
    """``queries`` without a rendered respondent's message they did not see, in a between-subjects study."""
    humans = load_study(ROOT / "studies" / f"{study}.toml").load_humans()
    if humans is None or humans.design(*humans.messages[:2]) != "between":
        return queries
    saw: dict[str, set] = {}
    for r, msg in zip(humans.table["respondent"].astype(str), humans.table["message"].astype(str), strict=True):
        saw.setdefault(HUMAN_PREFIX + r, set()).add(msg)
    return [q for q in queries if q.persona not in saw or q.message in saw[q.persona]]


def replay_all() -> None:
    for model in ("smollm2", "gemma3-270m"):
        backend = create_backend("local", model, n_threads=1)
        rt = backend.runtime
        total = {"no reuse": 0, "reuse, design order": 0, "reuse, prompt order": 0, "seen only": 0}
        for study in STUDIES:
            qs = design_queries(study, model, None)
            seen = seen_only(study, qs)
            row = []
            for name, ordered, reuse in (("no reuse", qs, False), ("reuse, design order", qs, True),
                                         ("reuse, prompt order", list(PromptOrdered(qs)), True),
                                         ("seen only", list(PromptOrdered(seen)), True)):
                prompts = [rt.render(q.system, q.user) for q in ordered]
                tokens, _ = replay([rt.tokenize(p) for p in prompts], prompts, reuse=reuse)
                total[name] += tokens
                row.append(f"{tokens}")
            print(f"  {model} {study}: {len(qs)} queries ({len(seen)} seen only); tokens "
                  + " / ".join(row))
        backend.close()
        base = total["no reuse"]
        print(f"{model}, seven studies, tokens evaluated (no reuse / reuse, design order / reuse, prompt order / "
              "reuse, prompt order, seen only): "
              + " / ".join(str(v) for v in total.values())
              + " = 1 / " + " / ".join(f"{v / base:.3f}" for v in list(total.values())[1:]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--every", type=int, default=7, help="keep every k-th persona of the framing study")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--no-replay", action="store_true")
    args = ap.parse_args()

    queries = design_queries("humans", "smollm2", None)
    personas = list(dict.fromkeys(q.persona for q in queries))[::args.every]
    keep = set(personas)
    queries = [q for q in queries if q.persona in keep]
    sides = {"no reuse": (queries, {"kv_reuse": False}), "reuse, design order": (queries, {}),
             "reuse, prompt order": (list(PromptOrdered(queries)), {})}
    print(f"load {load()} before; framing study, SmolLM2 exact, 1 thread: {len(personas)} personas (every "
          f"{args.every}th), {len(queries)} queries, {args.repeats} repeat(s) each")
    medians, answers = {}, {}
    for name, (qs, options) in sides.items():
        times, stats, answers[name] = run(qs, args.repeats, **options)
        medians[name] = statistics.median(times)
        print(f"{name}: CPU s min / median / max {spread(times, '.1f')}, {stats['forward_passes']} passes, "
              f"{stats['tokens_evaluated']} tokens evaluated, {stats['cache_hits']} cache hits; load {load()}")
    ref = answers["no reuse"]
    diff = max(abs(answers[name][k] - ref[k]) for name in answers for k in ref)
    print(f"max |P(Yes) difference| between the three: {diff:.3g} over {len(ref)} rows")
    for name in list(sides)[1:]:
        print(f"{name} / no reuse: CPU {medians[name] / medians['no reuse']:.3f}")
    if not args.no_replay:
        replay_all()
    print(f"ratio: {medians['reuse, prompt order'] / medians['no reuse']:.3f}")


if __name__ == "__main__":
    main()
