"""Build personas/shoppers.jsonl: the paper's 10 example shoppers plus seeded draws from stated distributions.

    python scripts/make_shoppers.py            # rewrite personas/shoppers.jsonl
    python scripts/make_shoppers.py --check    # exit 1 if the shipped file differs from a fresh build

Ids 0-9 are appendix A.2 (Table 4) of Helm & Priebe (2026), "When prompt perturbations break your A/B
test: A valid statistical test for generative surveying", verbatim. Ids 10.. are drawn persona by persona:
  age            band by weight, then uniform within the band (AGE_BANDS)
  gender         GENDERS
  occupation     age < 23: "Student" with prob. 0.5; age >= 65: "Retired <occupation>" with prob. 0.8;
                 otherwise uniform over OCCUPATIONS
  income         the occupation's typical bracket with prob. 0.7, else one of the other two, evenly;
                 students and retirees use their own weights (STUDENT_INCOME, RETIRED_INCOME)
  marital status weights by age band (MARITAL_BY_AGE)
Only random.Random(SEED).random() is used: Python guarantees that sequence across versions, unlike
choices()/randint() or numpy streams, so the file is reproducible byte for byte.
"""

from __future__ import annotations

import argparse
import bisect
import random
import sys
from itertools import accumulate
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from survey.registry import DEFAULT_TEMPLATE, PersonaSet  # noqa: E402

SEED = 4  # fixed: the shipped file is this seed's draw
COUNT = 100  # the paper uses the first 100 personas
OUT = ROOT / "personas" / "shoppers.jsonl"
DESCRIPTION = ("Shopper personas of Helm & Priebe (2026): ids 0-9 are the paper's Table 4 (appendix A.2) verbatim; the rest "
               "are drawn deterministically by scripts/make_shoppers.py from the distributions stated there.")

PAPER_ROWS = [  # Helm & Priebe (2026), appendix A.2, Table 4: id, age, gender, occupation, income, marital status
    (0, 25, "male", "Software Engineer", "high", "single"),
    (1, 32, "female", "Nurse", "medium", "married"),
    (2, 45, "non-binary", "Graphic Designer", "medium", "divorced"),
    (3, 60, "male", "Retired Teacher", "low", "widowed"),
    (4, 28, "female", "Marketing Manager", "high", "single"),
    (5, 55, "male", "Construction Worker", "medium", "married"),
    (6, 37, "non-binary", "Social Worker", "low", "single"),
    (7, 42, "female", "Lawyer", "high", "divorced"),
    (8, 65, "male", "Retired Mechanic", "low", "widowed"),
    (9, 30, "female", "Chef", "medium", "single"),
]

# (lowest age, highest age, weight): adult shoppers, roughly an adult population pyramid.
AGE_BANDS = [(18, 24, 0.12), (25, 34, 0.18), (35, 44, 0.17), (45, 54, 0.16), (55, 64, 0.16), (65, 85, 0.21)]
GENDERS = [("female", 0.48), ("male", 0.47), ("non-binary", 0.05)]
INCOMES = ("low", "medium", "high")
# occupation -> typical income bracket
OCCUPATIONS = {
    "Software Engineer": "high", "Nurse": "medium", "Graphic Designer": "medium", "Teacher": "medium",
    "Marketing Manager": "high", "Construction Worker": "medium", "Social Worker": "low", "Lawyer": "high",
    "Mechanic": "medium", "Chef": "medium", "Cashier": "low", "Retail Sales Associate": "low",
    "Accountant": "high", "Electrician": "medium", "Physician": "high", "Pharmacist": "high",
    "Truck Driver": "medium", "Warehouse Worker": "low", "Barista": "low", "Hairdresser": "low",
    "Police Officer": "medium", "Firefighter": "medium", "Architect": "high", "Civil Engineer": "high",
    "Data Analyst": "medium", "Journalist": "medium", "Librarian": "medium", "Dental Hygienist": "medium",
    "Plumber": "medium", "Farmer": "low", "Small Business Owner": "medium", "Real Estate Agent": "medium",
    "Financial Advisor": "high", "Professor": "high", "Musician": "low", "Photographer": "low",
    "Administrative Assistant": "low", "Customer Service Representative": "low", "Pilot": "high",
    "Homemaker": "low",
}
STUDENT_INCOME = [("low", 0.8), ("medium", 0.2)]
RETIRED_INCOME = [("low", 0.45), ("medium", 0.4), ("high", 0.15)]
MARITAL = ("single", "married", "divorced", "widowed")
MARITAL_BY_AGE = [  # (highest age of the band, weights in MARITAL order)
    (29, (0.70, 0.25, 0.05, 0.00)),
    (49, (0.30, 0.55, 0.13, 0.02)),
    (64, (0.15, 0.60, 0.17, 0.08)),
    (200, (0.08, 0.52, 0.12, 0.28)),
]


def pick(rng: random.Random, options, weights):
    """Weighted choice from one rng.random() draw (reproducible across Python versions)."""
    cum = list(accumulate(weights))
    return options[min(bisect.bisect_right(cum, rng.random() * cum[-1]), len(options) - 1)]


def uniform_int(rng: random.Random, lo: int, hi: int) -> int:
    return lo + min(int(rng.random() * (hi - lo + 1)), hi - lo)


def draw(rng: random.Random, pid: int) -> dict:
    lo, hi = pick(rng, [(lo, hi) for lo, hi, _ in AGE_BANDS], [w for *_, w in AGE_BANDS])
    age = uniform_int(rng, lo, hi)
    gender = pick(rng, [g for g, _ in GENDERS], [w for _, w in GENDERS])
    names = list(OCCUPATIONS)
    if age < 23 and rng.random() < 0.5:
        occupation, income = "Student", pick(rng, *zip(*STUDENT_INCOME, strict=True))
    elif age >= 65 and rng.random() < 0.8:
        base = pick(rng, names, [1] * len(names))
        occupation, income = f"Retired {base}", pick(rng, *zip(*RETIRED_INCOME, strict=True))
    else:
        occupation = pick(rng, names, [1] * len(names))
        typical = OCCUPATIONS[occupation]
        others = [i for i in INCOMES if i != typical]
        income = typical if rng.random() < 0.7 else pick(rng, others, [1, 1])
    weights = next(w for top, w in MARITAL_BY_AGE if age <= top)
    marital = pick(rng, MARITAL, weights)
    return {"id": str(pid), "age": age, "gender": gender, "occupation": occupation, "income": income,
            "marital_status": marital}


def build(count: int = COUNT, seed: int = SEED) -> PersonaSet:
    records = [dict(zip(("id", "age", "gender", "occupation", "income", "marital_status"), row, strict=True))
               for row in PAPER_ROWS]
    for r in records:
        r["id"] = str(r["id"])
    rng = random.Random(seed)
    records += [draw(rng, pid) for pid in range(len(records), count)]
    return PersonaSet(name="shoppers", template=DEFAULT_TEMPLATE, description=DESCRIPTION, personas=records)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=COUNT, help=f"personas in all (default {COUNT}, min 10)")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    args = ap.parse_args(argv)
    if args.count < len(PAPER_ROWS):
        ap.error(f"--count must be at least {len(PAPER_ROWS)} (the paper's rows)")
    text = build(args.count, args.seed).dumps()
    if args.check:
        same = args.out.is_file() and args.out.read_text(encoding="utf-8") == text
        print(f"{args.out}: {'up to date' if same else 'DIFFERS from a fresh build'}")
        return 0 if same else 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8", newline="\n")
    print(f"wrote {args.count} personas to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
