"""Optional report sections: planning, validity, DBPA (from the commands' --json files) and the
across-model comparison (computed from the table when it holds two or more models)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from ..cli.common import fmt  # noqa: E402
from ..errors import SurveyError  # noqa: E402
from . import Section, fig_png  # noqa: E402


def parse_sizes(text: str | None) -> dict[str, float] | None:
    """'m1=3e9,m2=8e9' -> {'m1': 3e9, 'm2': 8e9}."""
    if not text:
        return None
    out = {}
    for part in text.split(","):
        name, sep, value = part.partition("=")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep or not name.strip():
            raise SurveyError(f"--sizes takes MODEL=SIZE pairs separated by commas, e.g. 'a=3e9,b=8e9'; got '{part}'")
    return out


def records_table(records: list[dict], columns: list[str] | None = None) -> dict:
    """A list of flat dicts as a report table (nested values are shown compactly)."""
    columns = columns or list(dict.fromkeys(k for r in records for k in r))
    return {"columns": columns, "rows": [[_cell(r.get(c)) for c in columns] for r in records]}


def _cell(v) -> str:
    if isinstance(v, dict):
        return ", ".join(f"{k}: {_cell(x)}" for k, x in v.items())
    if isinstance(v, list):
        return "[" + ", ".join(_cell(x) for x in v) + "]"
    return fmt(v, 3) if isinstance(v, float) else ("—" if v is None else str(v))


def plan_section(plan: dict) -> Section:
    rows = plan.get("results", [])
    if not rows:
        raise SurveyError("--plan: no 'results' in the file; pass the output of `survey plan --json`")
    df = pd.json_normalize(rows)
    power_cols = [c for c in df.columns if c.startswith("power.")]
    fig, axes = plt.subplots(1, len(power_cols), figsize=(3.4 * len(power_cols), 3.2), sharey=True, squeeze=False)
    for ax, col in zip(axes[0], power_cols, strict=True):
        for strategy, g in df.groupby("strategy", sort=False):
            g = g.sort_values("budget")
            ax.plot(g["budget"], g[col], marker="o", ms=3, label=str(strategy))
        ax.set_title(col.split(".", 1)[1])
        ax.set_xlabel("budget N = 2·n·m·r")
        ax.axhline(0.8, color="#999", lw=0.8, ls=":")
    axes[0][0].set_ylabel("power")
    axes[0][-1].legend(fontsize=7, title="n:m:r")
    fig.tight_layout()
    sec = Section("Planning: power by budget and allocation")
    sec.figures.append(fig_png(fig, "Simulated power against total budget, one line per n:m:r allocation "
                                    "(dotted line: 80% power)."))
    cheapest = plan.get("cheapest")
    if cheapest:
        sec.paragraphs.append("Cheapest design reaching the target power: " + _cell(cheapest) + ".")
    sec.tables.append(records_table(rows))
    return sec


def json_section(title: str, data: dict, caption: str) -> Section:
    """A faithful table view of another command's JSON results (list-valued keys become tables)."""
    sec = Section(title, paragraphs=[caption])
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            sec.tables.append(records_table(value))
        elif not isinstance(value, (list, dict)):
            sec.paragraphs.append(f"{key}: {_cell(value)}")
    return sec


def extra_sections(df: pd.DataFrame, extras: dict, *, alpha: float, sizes: dict | None,
                   a: str | None, b: str | None) -> tuple[list[Section], dict]:
    sections, extra_json = [], {}
    if extras.get("plan"):
        sections.append(plan_section(extras["plan"]))
        extra_json["plan"] = extras["plan"]
    if extras.get("validate"):
        sections.append(json_section("Validity on this data (null split and sub-sampling)", extras["validate"],
                                     "Rejection rates of each test on sub-samples; a valid test rejects a true null "
                                     f"at most α = {alpha} of the time."))
        extra_json["validate"] = extras["validate"]
    if extras.get("dbpa"):
        sections.append(json_section("Free-text answers (DBPA)", extras["dbpa"],
                                     "Distribution-based perturbation analysis of the free-text answers."))
        extra_json["dbpa"] = extras["dbpa"]
    return sections, extra_json
