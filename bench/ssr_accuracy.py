"""How well semantic-similarity rating reads purchase intent: the confusion of a labelled set of replies.

bench/data/ssr_replies.csv holds free-text replies written for this package, each labelled with the point it
says (1 = would not buy .. 5 = would buy), hedges such as "I'm on the fence about buying this" (labelled 3)
and replies that say nothing about buying (labelled "irrelevant"). Each reply is rated as `survey run` rates
an ``ssr`` question (survey.collect.similarity_rating: MiniLM embeddings, the mapping of Maier et al. (2025),
"Measuring synthetic consumer purchase intent using semantic-similarity ratings") and its most similar point
is compared with the label, twice:

- before: the three anchor sets shipped first (BEFORE below), every reply rated;
- after: the shipped anchors/purchase_intent.yaml and the embedder's relevance floor (a reply whose best
  cosine similarity to any anchor statement is below it is unrated, not a middle-of-the-scale answer).

It also rates the simulated backend's replies (every opening x reason of survey.backends.simulated, 9 per
level) against the level they say. Prints both confusion matrices (rows: label, columns: most similar point
or "unrated") and the accuracies; docs/question-kinds.md quotes them. About 10 s of CPU.

    python bench/ssr_accuracy.py
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from survey.backends.simulated import worded_replies  # noqa: E402
from survey.collect.similarity_rating import rate_texts  # noqa: E402
from survey.embed import create_embedder  # noqa: E402
from survey.registry.anchors import AnchorSet, load_anchor_set  # noqa: E402

DATA = ROOT / "bench" / "data" / "ssr_replies.csv"
BEFORE = AnchorSet.model_validate({"name": "purchase_intent (first version)", "points": 5, "sets": [
    {"id": "plain", "statements": ["I would definitely not buy it.", "I probably would not buy it.",
                                   "I am not sure whether I would buy it or not.", "I would probably buy it.",
                                   "I would definitely buy it."]},
    {"id": "likelihood", "statements": ["There is no chance at all that I purchase this.",
                                        "It is unlikely that I would purchase this.",
                                        "I might or might not purchase this; it could go either way.",
                                        "It is likely that I would purchase this.", "I am certain I would purchase this."]},
    {"id": "interest", "statements": ["This does not interest me; I would never spend money on it.",
                                      "It does not really appeal to me, so I would mostly pass on it.",
                                      "It is fine, but I have no strong feelings about buying it.",
                                      "It appeals to me and I would be inclined to buy it.",
                                      "I love it and would buy it right away."]}]})
COLUMNS = ["1", "2", "3", "4", "5", "unrated"]


def labelled() -> list[dict]:
    with DATA.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def simulated() -> list[dict]:
    return [{"reply": reply, "label": str(level + 1), "group": "simulated"}
            for level in range(5) for reply in worded_replies(level)]


def rate(rows: list[dict], anchors: AnchorSet, embedder, floor: float | None) -> list[str]:
    """The most similar point of each reply as a string, or "unrated"."""
    pmf, best = rate_texts([r["reply"] for r in rows], anchors, embedder, relevance_floor=floor, with_best=True)
    return ["unrated" if not np.isfinite(p).all() else str(int(np.argmax(p)) + 1) for p in pmf], best


def confusion(rows: list[dict], rated: list[str]) -> dict:
    table = {}
    for row, got in zip(rows, rated, strict=True):
        table.setdefault(row["label"], dict.fromkeys(COLUMNS, 0))[got] += 1
    return table


def summary(rows: list[dict], rated: list[str]) -> dict:
    points = [(r, g) for r, g in zip(rows, rated, strict=True) if r["label"] != "irrelevant"]
    exact = sum(g == r["label"] for r, g in points)
    near = sum(g != "unrated" and abs(int(g) - int(r["label"])) <= 1 for r, g in points)
    irrelevant = [g for r, g in zip(rows, rated, strict=True) if r["label"] == "irrelevant"]
    fence = [g for r, g in zip(rows, rated, strict=True) if r["group"] == "hedge"]
    return {"n": len(rows), "accuracy": exact / len(points), "within_one": near / len(points),
            "relevant_unrated": sum(g == "unrated" for _, g in points),
            "irrelevant_unrated": f"{sum(g == 'unrated' for g in irrelevant)}/{len(irrelevant)}",
            "hedges_on_4_or_5": f"{sum(g in ('4', '5') for g in fence)}/{len(fence)}"}


def markdown(table: dict) -> str:
    lines = ["| label \\ rated | " + " | ".join(COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    for label in ["1", "2", "3", "4", "5", "irrelevant"]:
        if label in table:
            lines.append(f"| {label} | " + " | ".join(str(table[label][c]) for c in COLUMNS) + " |")
    return "\n".join(lines)


def main() -> None:
    embedder = create_embedder("minilm")
    rows, sims = labelled(), simulated()
    after = load_anchor_set("purchase_intent")
    floor = embedder.relevance_floor
    results = {}
    for name, anchors, cut in (("before", BEFORE, None), ("after", after, floor)):
        rated, best = rate(rows, anchors, embedder, cut)
        results[name] = summary(rows, rated)
        print(f"## {name}: anchors {anchors.name} ({len(anchors.sets)} sets), relevance floor {cut}")
        print(markdown(confusion(rows, rated)))
        print(results[name])
        lowest = min(b for r, b in zip(rows, best, strict=True) if r["label"] != "irrelevant")
        highest = max(b for r, b in zip(rows, best, strict=True) if r["label"] == "irrelevant")
        print(f"best similarity: lowest of a relevant reply {lowest:.3f}, highest of an irrelevant one {highest:.3f}")
        sim_rated, _ = rate(sims, anchors, embedder, cut)
        print(f"simulated replies ({len(sims)}):")
        print(markdown(confusion(sims, sim_rated)))
        print(summary(sims, sim_rated) | {"n": len(sims)})
        print()
    print(f"accuracy: {results['before']['accuracy']:.3f} -> {results['after']['accuracy']:.3f}")


if __name__ == "__main__":
    import time

    start = time.process_time()
    main()
    print(f"seconds: {time.process_time() - start:.1f}")  # CPU time of the whole measurement
