"""A synthetic study with humans: personas (population and rendered respondents) answering two messages on
several paraphrases, and human respondents whose Yes-probability the model predicts with a known quality."""

from __future__ import annotations

import numpy as np
import pandas as pd

from survey.data.humans import validate_humans


def synthetic(design: str = "between", n_humans: int = 120, n_personas: int = 60, m: int = 6, seed: int = 0,
              link: float = 0.4, human_shift: float = 0.0, model_effect: float = 0.8,
              human_slope: float = 0.4):
    """(long table, Humans). Each unit has a trait x; humans say Yes to A with expit(human_slope x + 0.5 + shift),
    to B with expit(human_slope x - 0.5 + shift); the model's P(Yes) is expit(link x +- model_effect / 2)."""
    rng = np.random.default_rng(seed)
    expit = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
    people = [f"r{i:03d}" for i in range(n_humans)]
    x_h = rng.normal(size=n_humans)
    ages = rng.choice(["young", "old"], n_humans)
    x_p = rng.normal(size=n_personas)
    rows = []
    units = [(f"p{j}", x_p[j], rng.choice(["young", "old"])) for j in range(n_personas)]
    units += [(f"human-{r}", x, age) for r, x, age in zip(people, x_h, ages, strict=True)]
    for pid, x, age in units:
        for msg, sign in (("a", 1), ("b", -1)):
            for k in range(m):
                p = expit(link * x + sign * model_effect / 2 + rng.normal(0, 0.2))
                rows.append({"model": "toy", "message": msg, "perturbation": f"{msg}{k}", "persona": pid,
                             "replicate": 0, "answer": int(rng.random() < p), "expected": p, "scale": "binary",
                             "age": age})
    table = pd.DataFrame(rows)
    hum = []
    for i, (r, x) in enumerate(zip(people, x_h, strict=True)):
        shown = ("a", "b") if design == "within" else (("a",) if i % 2 == 0 else ("b",))
        u = rng.random()
        for msg in shown:
            p = expit(human_slope * x + (0.5 if msg == "a" else -0.5) + human_shift)
            hum.append({"respondent": r, "message": msg, "answer": "Yes" if u < p else "No", "age": ages[i]})
    return table, validate_humans(pd.DataFrame(hum), "binary", ["a", "b"])
