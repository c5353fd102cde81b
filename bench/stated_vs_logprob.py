"""Stated probabilities beside log-probabilities on the embedded models (SmolLM2-135M-Instruct and Gemma-3-270M).

The same design (N shopper personas x M paraphrases of a customer praising sneakers and of one panning them, the
paper's Yes/No question) asked
three ways of each model:

* ``logprob``: exact mode, P(Yes | Yes or No) from the next-token probabilities (the reference);
* ``stated, most likely``: elicit = "distribution" in exact mode, the model's single most likely JSON statement
  (temperature 0, survey.backends.stated_writer), parsed strictly (survey.responses.stated);
* ``stated, drawn``: elicit = "distribution" with constrain = true at temperature 1, R statements per cell, the
  cell's score the mean of the valid ones' expected scores.

Per way: the share of valid statements, the correlation over cells with the log-probability score and the mean
absolute difference (cells where both exist), and the sign-flip test's power on this design: the share of B
bootstrap resamples of the personas in which the test of praised vs panned rejects at 0.05 (each way on the
same resamples; a cell without a valid statement drops out of its paraphrase pair's mean). A line "renormalised"
shows what the drawn statements would give if any sum were renormalised (no tolerance): a diagnostic, not what the
parser does. Last line: CPU seconds of the whole run.

    python bench/stated_vs_logprob.py [N] [M] [R]
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from survey.backends import create_backend
from survey.responses.stated import parse_distribution
from survey.stats.permutation import sign_flip_pvalues
from survey.study.design import build_design
from survey.study.spec import parse_study

MODELS = ("smollm2", "gemma3-270m")
MESSAGES = ("praised", "panned")
# Two messages a shopper should tell apart: a customer praising the sneakers, a customer panning them (the paper's
# question asks whether the persona would buy what the customer describes).
PARAPHRASES = {
    "praised": ["These sneakers are the most comfortable shoes I have ever owned.",
                "I love these sneakers: light, sturdy and worth every cent.",
                "Best sneakers I have bought in years, I wear them every day.",
                "These sneakers fit perfectly and still look new after months.",
                "Great sneakers, comfortable from the first day and well made.",
                "I am thrilled with these sneakers, they are excellent value.",
                "Wonderful sneakers: soft, supportive and good looking.",
                "These sneakers exceeded my expectations in every way."],
    "panned": ["These sneakers fell apart after two weeks.",
               "I regret buying these sneakers: they hurt my feet and look cheap.",
               "Worst sneakers I have owned, the sole came off in a month.",
               "These sneakers are uncomfortable and badly made.",
               "Terrible sneakers, they gave me blisters on the first day.",
               "I am disappointed with these sneakers, a waste of money.",
               "Awful sneakers: stiff, flimsy and ugly.",
               "These sneakers were a bad buy in every way."],
}
BOOT, ALPHA = 200, 0.05


def design(n: int, m: int, elicit: str, sets: Path):
    spec = parse_study({"name": "stated-bench", "store": "unused.sqlite", "replicates": 1,
                        "personas": {"set": "shoppers", "count": n},
                        "messages": [{"id": msg, "perturbations": msg, "count": m} for msg in MESSAGES],
                        "question": {"type": "binary", "elicit": elicit},
                        "models": [{"name": "local", "backend": "local", "seed": 3}]}, sets_dir=sets)
    d = build_design(spec)
    return d, spec.models[0], spec.question.response


def scores(backend, queries, readers: dict, replicates: int = 1) -> dict[str, tuple[dict, int, int]]:
    """Per reader: cell (persona, message, perturbation) -> mean valid score, and (valid, asked) statement counts;
    every reader reads the same replies."""
    got: dict[str, dict[tuple, list[float]]] = {name: {} for name in readers}
    for q in queries:
        for k in range(replicates):
            reply = backend.complete_sync(replace(q, replicate=k))
            for name, read in readers.items():
                value = read(reply)
                got[name].setdefault((q.persona, q.message, q.perturbation), []).append(value)
    out = {}
    for name, cells in got.items():
        values = [v for vs in cells.values() for v in vs]
        out[name] = ({c: float(np.mean([v for v in vs if v is not None])) if any(v is not None for v in vs)
                      else np.nan for c, vs in cells.items()}, sum(v is not None for v in values), len(values))
    return out


def matrix(cells: dict, personas: list[str], items: dict[str, list[str]]) -> np.ndarray:
    """(2, n, m) scores: message, persona, paraphrase."""
    return np.array([[[cells[(p, msg, j)] for j in items[msg]] for p in personas] for msg in MESSAGES])


def power(theta: np.ndarray, resamples: np.ndarray) -> float:
    """Share of persona resamples whose sign-flip test (mean over personas of A - B per pair) rejects."""
    diff = theta[0] - theta[1]
    pvalues = []
    for rows in resamples:
        sub = diff[rows]
        seen = np.isfinite(sub)
        d = (np.where(seen, sub, 0).sum(axis=0) / np.maximum(seen.sum(axis=0), 1))[seen.any(axis=0)]
        pvalues.append(sign_flip_pvalues(d[None, :])[0] if d.size >= 5 else 1.0)
    return float(np.mean(np.asarray(pvalues) <= ALPHA))


def mean_effect(theta: np.ndarray) -> float:
    """The mean over pairs of the persona-mean difference A - B (pairs without a valid cell left out)."""
    diff = theta[0] - theta[1]
    seen = np.isfinite(diff)
    per_pair = np.where(seen, diff, 0).sum(axis=0) / np.maximum(seen.sum(axis=0), 1)
    return float(per_pair[seen.any(axis=0)].mean()) if seen.any() else float("nan")


def agreement(ref: np.ndarray, other: np.ndarray) -> tuple[float, float, int]:
    both = np.isfinite(ref) & np.isfinite(other)
    if both.sum() < 3:
        return float("nan"), float("nan"), int(both.sum())
    r = float(np.corrcoef(ref[both], other[both])[0, 1]) if np.std(other[both]) > 0 else float("nan")
    return r, float(np.abs(ref[both] - other[both]).mean()), int(both.sum())


def write_sets(folder: Path) -> Path:
    (folder / "perturbations").mkdir()
    for msg, texts in PARAPHRASES.items():
        lines = [f"message: {msg}", "paraphrases:"] + [f"- id: {msg}-{j}\n  text: {json.dumps(t)}"
                                                      for j, t in enumerate(texts)]
        (folder / "perturbations" / f"{msg}.yaml").write_text("\n".join(lines) + "\n")
    return folder


def run_model(name: str, n: int, m: int, r: int, sets: Path) -> None:
    exact_design, model, _ = design(n, m, "answer", sets)
    stated_design, _, stated_type = design(n, m, "distribution", sets)
    personas = [str(p.id) for p in exact_design.personas]
    items = {md.id: [str(p.id) for p in md.items] for md in exact_design.messages}
    resamples = np.random.default_rng(11).integers(0, n, size=(BOOT, n))

    def strict(reply):
        mass, _ = parse_distribution(stated_type.labels, reply.text)
        return None if mass is None else stated_type.exact_score(mass)

    def renormalised(reply):
        values = json.loads(reply.text)
        total = sum(values.values())
        return values["Yes"] / total if total > 0 else None

    ways = {}
    backend = create_backend("local", name, n_threads=1)
    ways["logprob"] = scores(backend, exact_design.queries(model), {"p": lambda reply: reply.p_yes})["p"]
    ways["stated, most likely"] = scores(backend, stated_design.queries(model), {"s": strict})["s"]
    backend.close()
    drawn = create_backend("local", name, n_threads=1, mode="sample", constrain=True)
    got = scores(drawn, stated_design.queries(model), {"s": strict, "r": renormalised}, r)
    ways[f"stated, drawn (r = {r})"], ways["  renormalised (diagnostic)"] = got["s"], got["r"]
    drawn.close()
    ways = {way: (matrix(cells, personas, items), valid, asked) for way, (cells, valid, asked) in ways.items()}
    ref = ways["logprob"][0]
    print(f"\n{name}: {n} personas x {m} paraphrase pairs ({' vs '.join(MESSAGES)}), Yes/No")
    print(f"{'way':<28} {'valid':>9} {'corr':>6} {'MAD':>6} {'cells':>5} {'effect':>7} {'power':>6}")
    for way, (theta, valid, asked) in ways.items():
        corr, mad, k = agreement(ref, theta)
        effect = mean_effect(theta)
        print(f"{way:<28} {valid:>4}/{asked:<4} {corr:>6.2f} {mad:>6.3f} {k:>5} {effect:>7.3f} "
              f"{power(theta, resamples):>6.2f}")


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    m = min(int(sys.argv[2]) if len(sys.argv) > 2 else 8, len(PARAPHRASES["praised"]))
    r = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    start = time.process_time()
    with tempfile.TemporaryDirectory() as folder:
        sets = write_sets(Path(folder))
        for name in MODELS:
            run_model(name, n, m, r, sets)
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end; CPU seconds of the whole run")
    print(f"seconds: {time.process_time() - start:.1f}")


if __name__ == "__main__":
    main()
