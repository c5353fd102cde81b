"""`survey report`: a self-contained HTML report (plus JSON and CSV) from a store or a long table."""

from __future__ import annotations

import json
from pathlib import Path

import click

from survey import SurveyError
from survey.cli.common import (
    FLIPS_HELP_ONE_TEST,
    alpha_option,
    echo_completeness,
    echo_json,
    flips_option,
    humans_file_options,
    humans_spec,
    json_option,
    require_file,
    scale_option,
    seed_option,
)
from survey.cli.segments import segment_arguments, segment_options


def _read_json(path: str | None, option: str) -> dict | None:
    if path is None:
        return None
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError as exc:
        raise SurveyError(f"{option} {path}: no such file") from exc
    except json.JSONDecodeError as exc:
        raise SurveyError(f"{option} {path}: not JSON ({exc.msg} at line {exc.lineno}); pass the file "
                          f"written by the command's --json output") from exc
    if not isinstance(data, dict):
        raise SurveyError(f"{option} {path}: not the JSON object that the command's --json output writes")
    return data


@click.command("report")
@click.argument("source", type=click.Path(dir_okay=False))
@click.option("--out", required=True, type=click.Path(file_okay=False), help="output folder, e.g. reports/NAME/")
@click.option("--study", default=None, help="study name, when the store holds several")
@click.option("--a", "a", default=None, help="message A (default: every pair of messages)")
@click.option("--b", "b", default=None, help="message B")
@click.option("--title", default=None)
@alpha_option()
@click.option("--sizes", default=None, help="model sizes for ordering, e.g. 'm1=3B,m2=8e9'")
@click.option("--plan", "plan_json", type=click.Path(dir_okay=False), help="`survey plan --json` output")
@click.option("--validate", "validate_json", type=click.Path(dir_okay=False), help="`survey validate --json` output")
@click.option("--dbpa", "dbpa_json", type=click.Path(dir_okay=False), help="`survey dbpa --json` output")
@click.option("--humans", "humans", type=click.Path(dir_okay=False), default=None,
              help="human answers to the same messages: adds \"Does it match people?\" (default: the file the "
                   "store's study names)")
@humans_file_options
@flips_option(9999, FLIPS_HELP_ONE_TEST)
@seed_option()
@click.option("--family", "family", type=click.Choice(["holm", "bh"]), default=None,
              help="several questions: the adjustment over questions x pairs, Holm (family-wise error) or "
                   "Benjamini-Hochberg (false discovery rate)  [default: the study's [analysis] family, else holm]")
@segment_options
@scale_option
@json_option
def report_cmd(source, out, study, a, b, title, alpha, sizes, plan_json, validate_json, dbpa_json, flips, seed,
               by, filters, target, personas, adjust, pooled, scale, as_json, humans, humans_wide, humans_id_column,
               humans_columns, family):
    """Write OUT/index.html (plots inlined), OUT/results.json and OUT/table.csv.

    A study of several questions opens with a scorecard per message pair (each question's effect, family-adjusted
    p-value and which message wins), then each question's own section; in conversation flow, the order effect."""
    require_file(source, "source")
    require_file(humans, "humans")
    from survey import open_source, report
    from survey.cli.compare import parse_sizes

    extras = {"plan": _read_json(plan_json, "--plan"), "validate": _read_json(validate_json, "--validate"),
              "dbpa": _read_json(dbpa_json, "--dbpa")}
    segments = segment_arguments(by, filters, target, personas, pooled)
    # opened here so the output can say what the report rests on; its table.csv shows the provenance
    src = open_source(source, study, scale=scale, provenance=True,
                      humans=humans_spec(humans, humans_wide, humans_id_column, humans_columns))
    results = report(src, out, title=title, a=a, b=b, alpha=alpha, seed=seed, flips=flips,
                     sizes=parse_sizes(sizes), extras=extras, adjust=adjust, family=family, **segments)
    index = Path(out) / "index.html"
    if as_json:
        echo_json({"report": str(index), "study": results.get("study"),
                   "completeness": results.get("completeness"), "results": results["results"],
                   **({"scorecard": results["scorecard"]} if "scorecard" in results else {})})
    else:
        echo_completeness(src.completeness)
        click.echo(f"report written to {index}")


def register(cli: click.Group) -> None:
    cli.add_command(report_cmd)
