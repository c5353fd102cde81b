"""Options and printing of sequential collection shared by `survey analyze --sequential` and `survey plan
--sequential`; the commands call survey.stats.sequential and print what it returns."""

from __future__ import annotations

import click

from survey.cli.common import echo_basis, echo_json, print_table

METHOD = click.Choice(["group-sequential", "betting"])


def sequential_options(what: str):
    """--sequential METHOD and the design's options (survey.stats.sequential.SequentialDesign)."""
    options = [
        click.option("--sequential", "seq_method", type=METHOD, default=None,
                     help=f"{what}: group-sequential sign-flip test with alpha spending (planned looks, "
                          "batch jobs) or the betting test (monitor at any time)"),
        click.option("--round-pairs", "seq_round_pairs", type=int, default=None,
                     help="sequential: paraphrase pairs per round  [default: 4]"),
        click.option("--max-pairs", "seq_max_pairs", type=int, default=None,
                     help="sequential: most pairs bought  [default: analyze: the table's; plan: 40]"),
        click.option("--spending", "seq_spending", default=None,
                     help="sequential: obrien-fleming, pocock, power:<g> or hsd:<g>  [default: obrien-fleming]"),
        click.option("--futility", "seq_futility", type=float, default=None,
                     help="sequential: stop for futility when conditional power falls below this (non-binding)"),
        click.option("--futility-from", "seq_futility_from", type=float, default=None,
                     help="sequential: share of max pairs bought before futility is considered  [default: 0.5]"),
    ]

    def decorate(f):
        for opt in reversed(options):
            f = opt(f)
        return f
    return decorate


def design_options(seq: dict) -> dict:
    """The SequentialDesign fields given on the command line (None: the design's default)."""
    names = {"seq_method": "method", "seq_round_pairs": "round_pairs", "seq_max_pairs": "max_pairs",
             "seq_spending": "spending", "seq_futility": "futility", "seq_futility_from": "futility_from"}
    return {names[k]: v for k, v in seq.items() if k in names and v is not None}


def analyze_sequential(source, a, b, alternative, alpha, seed, probabilities, as_json, seq: dict,
                       pooled: bool = False) -> None:
    """`survey analyze --sequential`: replay the rule over the table's pairs in collection order (the pooled rule:
    a study's [segments] and [target] are refused unless --pooled)."""
    from survey import sequential as replay

    res = replay(source, a, b, alternative=alternative, alpha=alpha, seed=seed, probabilities=probabilities,
                 pooled=pooled, **design_options(seq))
    if as_json:
        echo_json(res.to_dict())
        return
    echo_basis(res)
    for r in res.values():
        s, c = r.result, r.comparison
        click.echo(f"\nmodel {r.model}: {c.a} vs {c.b}, {c.n_paired} pairs in collection order; {s.design.describe()}")
        boundary = "wealth needed" if s.method == "betting" else "boundary |mean|"
        extra = "wealth" if s.method == "betting" else "spent alpha"
        key = "wealth" if s.method == "betting" else "spent_alpha"
        print_table("path", ["look", "pairs", "mean difference", boundary, extra, "p-value"],
                    [[p["look"], p["pairs"], p["statistic"], p["boundary"], p[key], p["pvalue"]] for p in s.path])
        click.echo(f"decision: {s.decision} at look {s.look} after {s.pairs} pairs; queries {r.queries_used} of "
                   f"{r.queries_table} ({r.saved:.0%} saved); fixed sign-flip test on all pairs: "
                   f"p = {c.tests['sign_flip'].pvalue:.4g}")
        if s.confidence_sequence is not None:
            lo, hi = s.confidence_sequence
            click.echo(f"effect, {1 - s.alpha:.0%} confidence sequence (valid at any stopping time): [{lo:+.4f}, {hi:+.4f}]")


def print_sequential_plan(rows: list[dict]) -> None:
    """`survey plan --sequential`: per design, the rule's power and expected queries beside the fixed design's."""
    click.echo(f"sequential rule: {rows[0]['design'].split(': rounds')[0]}, up to each design's m pairs")
    print_table("sequential vs fixed (N = queries; ratio = expected N / fixed N)",
                ["budget", "strategy", "n", "m", "r", "fixed N", "fixed power", "seq. power", "seq. E[N]", "ratio",
                 "futility"],
                [[r["budget"], r["strategy"], r["n"], r["m"], r["r"], r["fixed_queries"], r["fixed_power"], r["power"],
                  round(r["expected_queries"]), r["ratio"], r["futility_rate"]] for r in rows])


def print_run_decisions(results: dict[str, dict]) -> None:
    """After `survey run` of a study with [sequential]: each model's decision and the queries bought."""
    for model, d in results.items():
        click.echo(f"{model}: sequential {d['method']} test of {d['a']} vs {d['b']}: {d['decision']} at look "
                   f"{d['look']} after {d['pairs']} of {d['max_pairs']} pairs ({d['queries_used']} queries; "
                   f"mean difference {d['statistic']:+.4f}, p = {d['pvalue']:.4g})")
