"""Bounds on the seeds, counts and sizes a user may ask for, each with its reason.

A value past a bound is refused with one line that states the bound and why, instead of a numpy
traceback, a MemoryError or a run that takes hours. The CLI checks its flags with these (so a bad
flag stops before any file is read or model loaded) and the library calls check them again, so
Python callers get the same messages. The ``Seed``, ``Flips``, ``Alpha`` types plug into pydantic
option models.
"""

from __future__ import annotations

import math
import numbers
import sys

from survey.errors import SurveyError

SEED_MAX = 2**63 - 1  # numpy takes any seed >= 0; a store or a JSON reader may not take more than 64 bits
FLIPS_MAX = 100_000
BOOTSTRAP_MAX = 10_000
SIMULATED_ROWS_MAX = 2_000_000
PLAN_BUDGET_MAX = 1_000_000
SIMULATION_WORK_MAX = 10_000_000_000
STUDY_QUERIES_MAX = 10_000_000
PERSONAS_MAX = 100_000  # personas in one generated set
PARAPHRASES_MAX = 1_000  # paraphrases in one generated set
SEGMENTS_MAX = 20  # segments in one segment plan
PLAN_PAIRS_MAX = 1_000  # paraphrase pairs in one segment plan
HUMAN_RESPONDENTS_MAX = 1_000_000

WHY = {
    "seed": "numpy's random generators take no negative seed, and seeds are stored as 64-bit integers",
    "flips": "p-values then resolve to 1/(flips + 1) = 1e-5, finer than any alpha in use; more flips cost "
             "memory (8 bytes per flip and paraphrase pair) and time without changing a decision",
    "permutations": "p-values then resolve to 1/(B + 1) = 1e-5, finer than any alpha in use; more relabelings "
                    "only take longer",
    "bootstrap": "standard errors from 10,000 resamples are already within 1% of their limit; more only take longer",
    "rows": "a table that size takes about 1 GB of memory and 15 s; the tests need far fewer answers",
    "budget": "every simulated survey draws each of its answers: a plan at a million queries takes tens of "
              "seconds, larger ones take hours",
    "personas": "a study asks every persona every paraphrase, so a larger set could not be collected: at 100 "
                "queries a persona it is already a study's 10,000,000-query limit; building one takes about a "
                "second per 10,000 personas",
    "paraphrases": "each new paraphrase is compared with every one kept to drop near duplicates, so the time grows "
                   "with the square of the count: 1,000 take about a second, 4,000 about 15 s; a study asks every "
                   "persona every paraphrase, and its tests need tens of paraphrases, not thousands",
    "segments": "each segment's test then runs at alpha / 20 (0.0025 at alpha 0.05) and the plan simulates every "
                "segment: more segments need more paraphrase pairs than a set holds and hours of simulation; "
                "merge segments",
    "pairs": "no paraphrase set holds more, and the plan simulates every pair of every persona",
    "humans": "each respondent is a row, and the noise floor and bootstraps resample them: a million take "
              "seconds and about a GB of memory, more take minutes; a random sample of a million estimates "
              "shares to within 0.001",
    "queries": "a study that size could not be collected in reasonable time or money; "
               "its design alone would take minutes and gigabytes to build",
}


def _fail(what: str, value, bound: str, why: str) -> None:
    raise SurveyError(f"{what} must be {bound}; got {value} ({why})".strip())


def check_seed(seed, what: str = "seed") -> int | None:
    """A seed for numpy's generators: None, or a whole number from 0 to 2^63 - 1. (A numpy Generator or
    SeedSequence a Python caller passes goes through unchanged.)"""
    np = sys.modules.get("numpy")  # not imported: the seed cannot be a numpy object (the CLI stays light)
    if seed is None or np is not None and isinstance(seed, (np.random.Generator, np.random.SeedSequence)):
        return seed
    if isinstance(seed, float) and seed.is_integer():
        seed = int(seed)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed <= SEED_MAX:
        _fail(what, seed, "a whole number from 0 to 2^63 - 1", WHY["seed"])
    return int(seed)


def check_count(value, what: str, low: int, high: int, why: str) -> int:
    """A whole number in [low, high]; ``why`` says where the upper bound comes from."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and math.isfinite(value) and value == int(value):
            value = int(value)
        else:
            _fail(what, value, f"a whole number from {low:,} to {high:,}", why)
    if value < low:
        raise SurveyError(f"{what} must be at least {low:,}; got {value}".strip())
    if value > high:
        _fail(what, value, f"at most {high:,}", why)
    return int(value)


def check_flips(flips, what: str = "flips") -> int:
    """A number of random sign vectors: a whole number from 1 to FLIPS_MAX."""
    return check_count(flips, what, 1, FLIPS_MAX, WHY["flips"])


def check_alpha(alpha, what: str = "alpha") -> float:
    """A significance level strictly between 0 and 1, as a float."""
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise SurveyError(f"{what} must be a level between 0 and 1 (exclusive), e.g. 0.05; got {alpha}".strip())
    return float(alpha)


def check_simulated_rows(rows: int, how: str) -> None:
    """A simulated table of ``rows`` rows (``how`` spells out the product)."""
    if rows > SIMULATED_ROWS_MAX:
        raise SurveyError(f"{how} = {rows:,} rows; simulate writes at most {SIMULATED_ROWS_MAX:,} ({WHY['rows']})")


def check_simulation_work(work: float, how: str, fix: str) -> None:
    """Simulated answers plus sign flips a planning or validity run would compute."""
    if work > SIMULATION_WORK_MAX:
        raise SurveyError(f"this would compute about {work:.2g} simulated answers and sign flips ({how}); "
                          f"the limit is {SIMULATION_WORK_MAX:.0e}, about a minute: {fix}")


def _pydantic(check):
    from pydantic import AfterValidator

    def run(value):
        try:
            return check(value, "")
        except SurveyError as exc:  # pydantic wraps a ValueError and names the field itself
            raise ValueError(str(exc)) from None
    return AfterValidator(run)


# The pydantic types Seed, Flips and Alpha are built on first use, so the CLI's flag checks import no pydantic.
_ANNOTATED = {"Seed": (int, check_seed), "Flips": (int, check_flips), "Alpha": (float, check_alpha)}


def __getattr__(name: str):
    if name not in _ANNOTATED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from typing import Annotated

    kind, check = _ANNOTATED[name]
    value = Annotated[kind, _pydantic(check)]
    globals()[name] = value
    return value
