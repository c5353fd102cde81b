"""A benchmark report: which model to trust for this kind of question? OUT/index.html (plots inlined),
OUT/results.json and OUT/experiments.csv from a survey.stats.humans.benchmark.FidelityBenchmark (nothing is
computed here): per model, sign agreement, correlation and calibration slope of persona on human effects, the
experiments side by side, and each experiment's answer levels against its human noise floor."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from survey import __version__
from survey.common.formatting import fmt, to_json, yes_no
from survey.reporting import Section, fig_png
from survey.reporting.html_env import html_environment
from survey.reporting.humans import distance, distance_ci
from survey.stats.humans.in_words import level_in_words, ppi_in_words

TITLE = "Which model to trust? Persona against human effects over experiments"


def _ci(ci) -> str:
    return f"{fmt(ci[0], 3)} to {fmt(ci[1], 3)}"


def benchmark_sections(bench) -> list[Section]:
    from survey.plots.benchmark import benchmark_plot
    from survey.stats.humans.benchmark import RESTS_ON

    top = Section("Which model to trust?")
    top.paragraphs += bench.verdicts()
    top.figures.append(fig_png(benchmark_plot(bench), "One point per experiment: the personas' effect (x, with its "
                               "sign-flip interval) against the humans' (y, with its interval). Dashed: y = x, "
                               "a persona effect predicting the same human effect; points in the top-right and bottom-left quadrants have "
                               "the humans' sign."))
    top.tables.append({"columns": ["model", "experiments", "sign agreement (CI)", "correlation (CI)",
                                   "calibration slope (CI)"],
                       "rows": [[m, b.n_experiments, f"{fmt(b.sign_agreement, 2)} ({_ci(b.sign_agreement_ci)})",
                                 f"{fmt(b.correlation, 3)} ({_ci(b.correlation_ci)})",
                                 f"{fmt(b.slope, 3)} ({_ci(b.slope_ci)})"] for m, b in bench.models.items()]
                       + [[m, _answered(bench, m), f"no summary: {why}", "—", "—"]
                          for m, why in bench.missing.items()]})
    top.paragraphs.append(f"What it rests on: {RESTS_ON} Intervals: Wilson for the sign agreement, Fisher's z for "
                          "the correlation, t for the slope of the human on the persona effects (Hewitt, Ashokkumar, "
                          "Ghezae & Willer, \"Predicting Results of Social Science Experiments Using Large Language "
                          "Models\").")
    exp = Section("The experiments")
    exp.tables.append({"columns": ["experiment", "A", "B", "design", "humans", "human effect (CI)", "model",
                                   "persona effect (CI)", "p (same effect)", "signs agree"],
                       "rows": [[r["experiment"], r["a"], r["b"], r["design"], r["n_humans"],
                                 f"{fmt(r['human_effect'], 3)} ({_ci(r['human_ci'])})", r["model"],
                                 f"{fmt(r['persona_effect'], 3)} ({_ci(r['persona_ci'])})",
                                 fmt(r["difference_pvalue"], 3), yes_no(r["sign_agrees"])]
                                for r in bench.experiments]})
    levels = Section("Answer levels per experiment")
    levels.paragraphs.append("Jensen–Shannon divergence (base 2) between the humans' and the personas' answers to "
                             "each message, beside the noise floor: the same distance between two random halves of "
                             "the humans, sampling noise at half the sample (a model answering exactly like the people's "
                             "population, with as many answers as there are humans, scores about half of it).")
    levels.tables.append({"columns": ["experiment", "model", "message", "human mean", "persona mean", "JSD (CI)",
                                      "noise floor", "in words"],
                          "rows": [[name, x["model"], x["message"], fmt(_mean(x["fidelity"].points, x["fidelity"].human), 3),
                                    fmt(_mean(x["fidelity"].points, x["fidelity"].persona), 3),
                                    distance_ci(x["fidelity"].jsd, x["fidelity"].distances["jsd"]["ci"]),
                                    distance(x["fidelity"].distances["jsd"]["noise_floor"]), level_in_words(x["fidelity"])]
                                   for name, res in bench.results.items() for x in res.levels
                                   if x["segment"] == "all"]})
    out = [top, exp, levels]
    ppi = [[name, m, fmt(p.estimate, 3), _ci(p.ci), fmt(p.width_ratio, 3), fmt(p.effective_n, 1), ppi_in_words(p)]
           for name, res in bench.results.items() for m, p in res.ppi.items()]
    if ppi:
        out.append(Section("About the humans: prediction-powered estimates", paragraphs=[
            "Where the models also answered as each human respondent, the human effect by prediction-powered "
            "inference (Angelopoulos, Bates, Fannjiang, Jordan & Zrnic, \"Prediction-powered inference\"): a valid "
            "statement about people, never narrower than the humans' own when the model is uninformative."],
            tables=[{"columns": ["experiment", "model", "human effect", "CI", "width vs humans alone",
                                 "effective humans", "in words"], "rows": ppi}]))
    return out


def _answered(bench, model: str) -> int:
    return sum(1 for r in bench.experiments if r["model"] == model)


def _mean(points, shares) -> float:
    return float(sum(p * s for p, s in zip(points, shares, strict=True)))


def headlines(bench) -> tuple[list[str], list[str]]:
    """The finding in words, and the warnings (models without a summary; every interval still including 0)."""
    head = []
    for model, b in bench.models.items():
        rows = [r for r in bench.experiments if r["model"] == model]
        agree = sum(1 for r in rows if r["sign_agrees"])
        lo, hi = b.correlation_ci
        rise = ("larger where people's are" if lo > 0 else "smaller where people's are larger" if hi < 0
                else "not shown to rise or fall with people's")
        head.append(f"{model}, over the {b.n_experiments} experiments it answered: the humans' direction in {agree} "
                    f"of {len(rows)}; its effects are {rise} (correlation {b.correlation:+.2f}, {bench.confidence:.0%} "
                    f"CI {lo:+.2f} to {hi:+.2f}).")
    if not any(b.correlation_ci[0] > 0 for b in bench.models.values()):
        head.append("No model's effects are shown to rise with people's. For small models this is the expected "
                    "finding, not a failure: their persona tests remain valid statements about the models, not about "
                    "people.")
    warnings = [f"{m}: no summary ({why})." for m, why in bench.missing.items()] + list(bench.notes)
    return head, warnings


def benchmark_report(bench, out_dir, *, title: str | None = None) -> dict:
    """Write OUT/index.html, OUT/results.json and OUT/experiments.csv; return the results dict."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results = {"benchmark": bench.to_dict(),
               "experiments": {name: res.to_dict() for name, res in bench.results.items()}}
    head, warnings = headlines(bench)
    env = html_environment()
    html = env.get_template("benchmark.html.j2").render(
        title=title or TITLE, generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), version=__version__,
        n_experiments=len(bench.names), headlines=head, warnings=warnings, sections=benchmark_sections(bench))
    (out / "index.html").write_text(html, encoding="utf-8")
    (out / "results.json").write_text(to_json(results), encoding="utf-8")
    pd.DataFrame(bench.to_dict()["experiments"]).to_csv(out / "experiments.csv", index=False)
    return results


__all__ = ["TITLE", "benchmark_report", "benchmark_sections", "headlines"]
