"""Build personas/us_adults.jsonl: 130 synthetic US adults (age, gender, education), drawn with a fixed seed
from stated shares, for the human-benchmark studies. Not real respondents: the shares are rounded
national figures for adults (age bands, an even gender split, educational attainment), written here."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "personas" / "us_adults.jsonl"
AGE_BANDS = [((18, 29), 0.21), ((30, 44), 0.25), ((45, 64), 0.33), ((65, 85), 0.21)]
EDUCATION = [("less than high school", 0.10), ("high school", 0.28), ("some college", 0.28),
             ("a bachelor's degree or higher", 0.34)]
TEMPLATE = ("You are roleplaying as an adult living in the United States. Your profile: Age {age}, {gender}, "
            "education: {education}. Answer ONLY 'Yes' or 'No'. Do not explain.")


def main(n: int = 130, seed: int = 2008) -> None:
    rng = np.random.default_rng(seed)
    bands = rng.choice(len(AGE_BANDS), size=n, p=[p for _, p in AGE_BANDS])
    edu = rng.choice(len(EDUCATION), size=n, p=[p for _, p in EDUCATION])
    lines = [json.dumps({"template": TEMPLATE, "description": (
        f"{n} synthetic US adults drawn by scripts/make_us_adults.py (seed {seed}) from stated shares of age bands, "
        "gender and education: not real respondents.")})]
    for i in range(n):
        lo, hi = AGE_BANDS[bands[i]][0]
        lines.append(json.dumps({"id": f"a{i + 1:03d}", "age": int(rng.integers(lo, hi + 1)),
                                 "gender": str(rng.choice(["female", "male"])), "education": EDUCATION[edu[i]][0]}))
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {n} personas to {OUT}")


if __name__ == "__main__":
    main()
