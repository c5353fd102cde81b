"""Numbers for people and for strict JSON, shared by the CLI, the report and results' to_dict().

Pure (no I/O): statistics may use it too. Strict JSON has no NaN or Infinity, so they become null.
"""

from __future__ import annotations

import json
import math
import sys


def finite(x) -> float | None:
    """A number as a float, or None when it is missing, NaN or infinite."""
    if x is None:
        return None
    value = float(x)
    return value if math.isfinite(value) else None


def _default(o):
    np = sys.modules.get("numpy")  # numpy is not imported here: without it there is no numpy object to convert
    if np is None:
        raise TypeError(f"not JSON serialisable: {type(o).__name__}")
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def json_safe(o):
    """Replace non-finite floats by None, recursively through dicts, lists and tuples."""
    if isinstance(o, float) and not math.isfinite(o):
        return None
    if isinstance(o, dict):
        return {k: json_safe(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [json_safe(v) for v in o]
    return o


def to_json(obj) -> str:
    """``obj`` as indented JSON, numpy values and non-finite floats made JSON-safe (json_safe)."""
    return json.dumps(json_safe(json.loads(json.dumps(obj, default=_default))), indent=2)


def fmt(x, digits: int = 4) -> str:
    """A number for a table cell: ``digits`` decimals (significant digits below 0.001); "—" when missing."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "—"
    if isinstance(x, float):
        return f"{x:.{digits}g}" if abs(x) < 1e-3 and x != 0 else f"{x:.{digits}f}"
    return str(x)


def yes_no(flag: bool | None) -> str:
    """A three-way answer for a table cell: yes, no, or a dash when there is none (e.g. an effect of exactly 0)."""
    return {True: "yes", False: "no", None: "—"}[flag]


def percent(level: float) -> str:
    """A confidence level in percent with the digits a Bonferroni level keeps: 0.95 -> "95%", 0.9875 -> "98.75%"."""
    return f"{100 * level:.4g}%"
