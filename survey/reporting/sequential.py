"""The report section of a study bought in rounds: each model's path against the boundary and the queries saved."""

from __future__ import annotations

from survey.reporting import Section, fig_png


def sequential_section(results: dict[str, dict]) -> Section:
    """results: model -> the stored sequential result (survey.collect.sequential.read_paths, or a replay's)."""
    from survey.plots.sequential import path_plot

    sec = Section("Sequential collection: the path against the boundary")
    rows = []
    for model, d in results.items():
        per_pair = d["queries_used"] / d["pairs"] if d.get("pairs") else 0
        full = round(per_pair * d["max_pairs"])
        saved = 1 - d["queries_used"] / full if full else 0.0
        rows.append([model, d["method"], d["decision"], d["look"], f"{d['pairs']} of {d['max_pairs']}",
                     d["queries_used"], full, f"{saved:.0%}", f"{d['pvalue']:.4g}"])
    sec.paragraphs.append(
        "The pairs were bought in rounds and tested after each; collection stopped at the first boundary crossing "
        "(or futility). The test holds its type I error at every stopping time (group-sequential sign-flip test "
        "with alpha spending, or the betting test); queries saved are against buying every pair.")
    sec.tables.append({"columns": ["model", "method", "decision", "look", "pairs", "queries used",
                                   "queries at the maximum", "saved", "p-value"], "rows": rows})
    sec.figures.append(fig_png(path_plot(results), "Each look's statistic against the boundary it had to cross "
                                                  "(group-sequential) or the wealth against 1/alpha (betting)."))
    return sec
