"""Build personas/us_adults.jsonl: 130 synthetic US adults (age, gender, education), drawn with a fixed seed
from stated shares, for the human-benchmark studies. Not real respondents: the shares are rounded
national figures for adults (age bands, an even gender split, educational attainment), written here.

With ``--voters`` it builds personas/us_voters.jsonl instead: 130 synthetic US adults with a party as well
(age, gender and education from the same shares), for the General Social Survey benchmark
(studies/humans_gss.toml). us_adults.jsonl is drawn exactly as before, so its bytes never change."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

PERSONAS = Path(__file__).resolve().parents[1] / "personas"
OUT = PERSONAS / "us_adults.jsonl"
VOTERS_OUT = PERSONAS / "us_voters.jsonl"
AGE_BANDS = [((18, 29), 0.21), ((30, 44), 0.25), ((45, 64), 0.33), ((65, 85), 0.21)]
EDUCATION = [("less than high school", 0.10), ("high school", 0.28), ("some college", 0.28),
             ("a bachelor's degree or higher", 0.34)]
# Unweighted shares among the 2 315 respondents of the General Social Survey 2018 (NORC at the University of
# Chicago) with a party identification, from the `gss_abortion` extract of the R package stevedata: strong and
# not strong Democrats -> Democrat, likewise Republican, the three independent codes -> independent (0.4233,
# 0.3158, 0.2276, 0.0333 before rounding). The same mapping builds the benchmark's respondents.
PARTY = [("independent", 0.42), ("Democrat", 0.32), ("Republican", 0.23), ("another party", 0.03)]
TEMPLATE = ("You are roleplaying as an adult living in the United States. Your profile: Age {age}, {gender}, "
            "education: {education}. Answer ONLY 'Yes' or 'No'. Do not explain.")
VOTERS_TEMPLATE = ("You are roleplaying as an adult living in the United States. Your profile: Age {age}, {gender}, "
                   "education: {education}, party: {party}. Answer ONLY 'Yes' or 'No'. Do not explain.")


def build(out: Path, *, n: int, seed: int, template: str, id_prefix: str, description: str,
          party: bool = False) -> None:
    """Draw n personas with a fixed seed; the draws come in a fixed order (age bands, education, [party], then
    each persona's age and gender), so us_adults.jsonl, drawn without a party, is the same file it always was."""
    rng = np.random.default_rng(seed)
    bands = rng.choice(len(AGE_BANDS), size=n, p=[p for _, p in AGE_BANDS])
    edu = rng.choice(len(EDUCATION), size=n, p=[p for _, p in EDUCATION])
    parties = rng.choice(len(PARTY), size=n, p=[p for _, p in PARTY]) if party else None
    lines = [json.dumps({"template": template, "description": description})]
    for i in range(n):
        lo, hi = AGE_BANDS[bands[i]][0]
        record = {"id": f"{id_prefix}{i + 1:03d}", "age": int(rng.integers(lo, hi + 1)),
                  "gender": str(rng.choice(["female", "male"])), "education": EDUCATION[edu[i]][0]}
        if parties is not None:
            record["party"] = PARTY[parties[i]][0]
        lines.append(json.dumps(record))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {n} personas to {out}")


def main(n: int = 130, seed: int = 2008) -> None:
    build(OUT, n=n, seed=seed, template=TEMPLATE, id_prefix="a", description=(
        f"{n} synthetic US adults drawn by scripts/make_us_adults.py (seed {seed}) from stated shares of age bands, "
        "gender and education: not real respondents."))


def voters(n: int = 130, seed: int = 2018) -> None:
    """personas/us_voters.jsonl: age, gender and education as us_adults, plus a party from PARTY."""
    build(VOTERS_OUT, n=n, seed=seed, template=VOTERS_TEMPLATE, id_prefix="v", party=True, description=(
        f"{n} synthetic US adults drawn by scripts/make_us_adults.py --voters (seed {seed}) from stated shares of "
        "age bands, gender, education and party (the party shares: General Social Survey 2018, unweighted): not "
        "real respondents."))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--voters", action="store_true", help="build personas/us_voters.jsonl (with a party)")
    voters() if parser.parse_args().voters else main()
