"""The shopper distributions of Helm & Priebe (2026), "When prompt perturbations break your A/B test: A valid
statistical test for generative surveying", as stated there, and a persona drawn from them:

  age            band by weight, then uniform within the band (AGE_BANDS)
  gender         GENDERS
  occupation     age < 23: "Student" with prob. 0.5; age >= 65: "Retired <occupation>" with prob. 0.8;
                 otherwise uniform over OCCUPATIONS
  income         the occupation's typical bracket with prob. 0.7, else one of the other two, evenly;
                 students and retirees use their own weights (STUDENT_INCOME, RETIRED_INCOME)
  marital status weights by age band (MARITAL_BY_AGE)

``draw(rng, pid, given)`` keeps the ``given`` attributes (a quota's levels) and draws the others given them
where the distributions condition (occupation and marital status on age, income on occupation).
Only random.Random(seed).random() is used: Python guarantees that sequence across versions, unlike
choices()/randint() or numpy streams, so scripts/make_shoppers.py rebuilds its file byte for byte.
"""

from __future__ import annotations

import bisect
import random
from itertools import accumulate

ATTRIBUTES = ("age", "gender", "occupation", "income", "marital_status")
AGE_RANGE = (18, 85)  # the youngest and oldest shopper drawn: the ends of an open age bin

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


def draw(rng: random.Random, pid: int, given: dict | None = None) -> dict:
    """One shopper with id ``pid``; the ``given`` attributes are kept as they are (extra ones are added) and
    the others drawn given them. Without ``given`` the random stream is the shipped file's."""
    given = given or {}
    if "age" in given:
        age = given["age"]
    else:
        lo, hi = pick(rng, [(lo, hi) for lo, hi, _ in AGE_BANDS], [w for *_, w in AGE_BANDS])
        age = uniform_int(rng, lo, hi)
    gender = given["gender"] if "gender" in given else pick(rng, [g for g, _ in GENDERS], [w for _, w in GENDERS])
    years = age if isinstance(age, int | float) else None  # a categorical age conditions nothing
    if "occupation" in given:
        occupation, income = given["occupation"], _income_of(rng, str(given["occupation"]))
    else:
        occupation, income = _occupation(rng, years, given.get("income"))
    income = given.get("income", income)
    if "marital_status" in given:
        marital = given["marital_status"]
    else:
        weights = next(w for top, w in MARITAL_BY_AGE if years is None or years <= top)
        marital = pick(rng, MARITAL, weights if years is not None else [1] * len(MARITAL))
    record = {"id": str(pid), "age": age, "gender": gender, "occupation": occupation, "income": income,
              "marital_status": marital}
    return {**record, **{k: v for k, v in given.items() if k not in record}}


def _occupation(rng: random.Random, age, income: str | None = None) -> tuple[str, str]:
    """An occupation and its income bracket. With ``income`` given, a working occupation is drawn from its
    posterior given that bracket (weight 0.7 where it is typical, 0.15 elsewhere, by Bayes' rule)."""
    names = list(OCCUPATIONS)
    if age is not None and age < 23 and rng.random() < 0.5:
        return "Student", pick(rng, *zip(*STUDENT_INCOME, strict=True))
    if age is not None and age >= 65 and rng.random() < 0.8:
        base = pick(rng, names, [1] * len(names))
        return f"Retired {base}", pick(rng, *zip(*RETIRED_INCOME, strict=True))
    if income in INCOMES:
        return pick(rng, names, [0.7 if OCCUPATIONS[o] == income else 0.15 for o in names]), income
    occupation = pick(rng, names, [1] * len(names))
    return occupation, _income_of(rng, occupation)


def _income_of(rng: random.Random, occupation: str) -> str:
    """The income bracket of an occupation: its typical one with prob. 0.7 (students and retirees: their weights)."""
    if occupation == "Student":
        return pick(rng, *zip(*STUDENT_INCOME, strict=True))
    if occupation.startswith("Retired "):
        return pick(rng, *zip(*RETIRED_INCOME, strict=True))
    typical = OCCUPATIONS.get(occupation)
    if typical is None:
        return pick(rng, INCOMES, [1, 1, 1])
    others = [i for i in INCOMES if i != typical]
    return typical if rng.random() < 0.7 else pick(rng, others, [1, 1])


__all__ = ["AGE_BANDS", "AGE_RANGE", "ATTRIBUTES", "GENDERS", "OCCUPATIONS", "draw", "pick", "uniform_int"]
