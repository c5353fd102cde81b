"""Persona sets built to target margins (quota sampling): `survey personas generate --target margins.toml`.

    tf = read_target_file("margins.toml")
    pset = persona_set_to_target(tf, 200, "market", seed=1)      # offline: the shopper distributions
    write_atomic(Path("personas/market.jsonl"), pset.dumps())

The set's margins equal the quotas exactly: per attribute, share x N rounded by largest remainders; the joint
cells take the product of the shares, rounded with exact margins (survey.stats.segments.quotas says why).
A numeric attribute's level is a bin: each persona's value is drawn uniformly inside it (whole numbers when
both ends are whole; an open age bin such as 55+ ends at the shoppers' oldest age, 85). The attributes the
target does not give are drawn from the shopper distributions of Helm & Priebe (2026) given the targeted
ones (survey.registry.shoppers), or written by a model (survey.registry.generate_sets). The header records
the target: its file, sha256, margins and quotas. When every share x N is whole, raking the set to its own
target leaves every weight at 1 (design effect 1).
"""

from __future__ import annotations

import math
import random

from survey.common.limits import PERSONAS_MAX, WHY, check_count
from survey.data.targets import TargetFile
from survey.errors import SurveyError
from survey.registry.personas import DEFAULT_TEMPLATE, PersonaSet, template_fields
from survey.registry.shoppers import AGE_RANGE, ATTRIBUTES, draw, uniform_int
from survey.registry.targets import numeric_bins, target_of
from survey.stats.segments.quotas import joint_quotas

ALLOCATION = ("per attribute: share x N rounded by largest remainders; joint cells: the product of the shares "
              "(independent margins, what raking from equal cells gives), rounded with exact margins")
# the ends of an open bin, per attribute the shopper distributions know
OPEN_BIN_ENDS = {"age": AGE_RANGE}


def target_header(tf: TargetFile, quotas: dict, drawn_by: str) -> dict:
    """What a persona set's header records about the target it was built to."""
    return {**tf.to_dict(), "quotas": quotas, "allocation": ALLOCATION, "other_attributes": drawn_by}


def quota_cells(tf: TargetFile, count: int, seed: int) -> tuple[dict, list[tuple[dict, dict]]]:
    """(quotas, per persona in a seeded random order: (its targeted levels, its targeted values)), numeric
    values drawn in their bins. Only ``random.Random(seed).random()`` is used: a seed gives the same set on
    every Python."""
    check_count(count, "count", 1, PERSONAS_MAX, WHY["personas"])
    target_of(tf)  # the bins do not overlap
    draws = {attr: _bin_drawer(attr, list(shares)) for attr, shares in tf.margins.items()}
    quotas, cells = joint_quotas(tf.margins, count)
    rng = random.Random(seed)
    rows = [dict(zip(tf.margins, cell, strict=True)) for cell, k in cells for _ in range(k)]
    for i in range(len(rows) - 1, 0, -1):  # Fisher-Yates: a prefix of the set is not one cell
        j = uniform_int(rng, 0, i)
        rows[i], rows[j] = rows[j], rows[i]
    return quotas, [(row, {attr: (draws[attr](rng, level) if draws[attr] else level) for attr, level in row.items()})
                    for row in rows]


def _bin_drawer(attr: str, levels: list[str]):
    """None for a categorical attribute; else a function (rng, bin label) -> a value drawn inside the bin."""
    bins = numeric_bins(levels)
    if bins is None:
        return None
    ends = {}
    for b in bins:
        low, high = b.low, b.high
        if math.isinf(low) or math.isinf(high):
            if attr not in OPEN_BIN_ENDS:
                raise SurveyError(f"target bin '{b.label}' of {attr} is open-ended, so no value can be drawn in it; "
                                  "write it with both ends (e.g. 55-90)")
            low = OPEN_BIN_ENDS[attr][0] if math.isinf(low) else low
            high = OPEN_BIN_ENDS[attr][1] if math.isinf(high) else high
        if low > high:
            raise SurveyError(f"target bin '{b.label}' of {attr} holds no value to draw (drawn {attr} runs from "
                              f"{OPEN_BIN_ENDS[attr][0]} to {OPEN_BIN_ENDS[attr][1]}); write it with both ends")
        whole = float(low).is_integer() and float(high).is_integer()
        ends[b.label] = (int(low), int(high), True) if whole else (low, high, False)

    def drawer(rng: random.Random, label: str):
        low, high, whole = ends[label]
        return uniform_int(rng, low, high) if whole else round(low + (high - low) * rng.random(), 6)

    return drawer


def persona_set_to_target(tf: TargetFile, count: int, name: str, *, seed: int = 0,
                          template: str = DEFAULT_TEMPLATE, description: str | None = None) -> PersonaSet:
    """``count`` personas whose margins are the target's quotas; the other attributes drawn from the shopper
    distributions given the targeted ones (offline, seeded)."""
    fields = [f for f in template_fields(template) if f != "id"]
    unknown = [f for f in fields if f not in tf.margins and f not in ATTRIBUTES]
    if unknown:
        raise SurveyError(f"the template uses {', '.join('{' + f + '}' for f in unknown)}, which neither the target "
                          f"nor the shopper distributions give ({', '.join(ATTRIBUTES)}); add it to the target or "
                          "let a model write it (--model)")
    quotas, rows = quota_cells(tf, count, seed)
    rng = random.Random(seed + 1)  # its own stream: the quota draws above do not shift the shoppers'
    records = [draw(rng, i, given) for i, (_, given) in enumerate(rows)]
    drawn_by = "the shopper distributions of Helm & Priebe (2026), given the targeted attributes"
    desc = description or (f"{count} personas built to the target margins of {tf.path} (quota sampling, seed "
                           f"{seed}) with `survey personas generate --target`; other attributes from {drawn_by}.")
    return PersonaSet(name=name, template=template, description=desc, personas=records,
                      target=target_header(tf, quotas, drawn_by))


__all__ = ["ALLOCATION", "persona_set_to_target", "quota_cells", "target_header"]
