"""`survey demo`: the main job. Run the shipped study on the embedded models, analyse it, write the report."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from survey import SurveyError, fmt
from survey.cli.common import alpha_option, echo_completeness, echo_json, json_option, seed_option


def find_study(path: str) -> Path:
    """The path as given, else the same path among the shipped files (so `survey demo` works from anywhere);
    a bare name is a shipped study: `--study likert` is studies/likert.toml."""
    from survey import SHIPPED_ROOT

    p = Path(path)
    if p.exists():
        return p
    candidates = [SHIPPED_ROOT / path]
    if not p.suffix and len(p.parts) == 1:
        candidates.append(SHIPPED_ROOT / "studies" / f"{path}.toml")
    for shipped in candidates:
        if shipped.exists():
            return shipped
    names = sorted(f.stem for f in (SHIPPED_ROOT / "studies").glob("*.toml"))
    raise SurveyError(f"{path}: no such study file; the shipped studies are {', '.join(names)}")


@click.command("demo")
@click.option("--study", "study_path", default="studies/demo.toml", show_default=True,
              help="study file to run (free backends only: local or simulated), or a shipped study's name: "
                   "demo (Yes/No) or likert (5-point purchase intent)")
@click.option("--out", default=None, type=click.Path(file_okay=False),
              help="report folder  [default: reports/<study name>, e.g. reports/demo]")
@seed_option(help="seed of the analysis")
@alpha_option()
@json_option
def demo_cmd(study_path, out, seed, alpha, as_json):
    """Run a real survey on the embedded local models and write OUT/index.html, results.json, table.csv."""
    from survey import Study, report
    from survey.cli import kind_output

    study = Study.from_toml(find_study(study_path))
    out = out or f"reports/{study.spec.name}"
    paid = [m.name for m in study.spec.models if m.paid]
    if paid:
        raise SurveyError(f"the demo runs free backends only; model(s) {', '.join(paid)} would cost money. "
                          "Use `survey run` for paid studies.")
    plan = study.dry_run()
    if plan.to_send:
        if not as_json:
            click.echo(f"collecting {plan.to_send} answers on the embedded model(s) "
                       f"(stored answers are reused: {sum(m.replies for m in plan.models)})", err=True)
        result = study.run(progress=not as_json)
        if result.interrupted:
            from survey.cli.run import interrupted_status

            click.echo(f"interrupted: {result.stored} answers stored; rerun to resume", err=True)
            sys.exit(interrupted_status(result.report))
        if result.failed:
            raise SurveyError(f"{result.failed} queries failed; see `survey status {study.store_path}`")
    source = study.load()  # the store's rows with the study's context (question, sets, paraphrase texts)
    messages = [m.id or m.perturbations for m in study.spec.messages]
    results = report(source, out, title=f"Demo survey: {' vs '.join(messages)} "
                                    f"({', '.join(m.name for m in study.spec.models)})", seed=seed, alpha=alpha)
    index = Path(out) / "index.html"
    if as_json:
        echo_json({"report": str(index), "study": source.study, "completeness": source.completeness.to_dict(),
                   "results": results["results"]})
        return
    echo_completeness(source.completeness)
    for r in results["results"]:
        click.echo(kind_output.summary_line(r))
        if r.get("sentence"):  # the study's [segments] / [target]: for whom, and in which market
            click.echo(f"  for whom: {r['sentence']}")
    across = results.get("across_models")
    if across:  # two or more models: is the conclusion model-conditional?
        kappas = ", ".join(f"{p['model_a']} vs {p['model_b']} {fmt(p['kappa'], 3)} ({p['interpretation']})"
                           for p in across["agreement"]["pairs"])
        click.echo(f"across models: {across['models']['summary']} Cohen's κ of the cells' answers: {kappas}.")
    for line in (results.get("humans") or {}).get("verdicts", []):  # a study with humans = ...
        click.echo(f"does it match people? {line}")
    click.echo(f"report written to {index.resolve()}")


def register(cli: click.Group) -> None:
    cli.add_command(demo_cmd)
