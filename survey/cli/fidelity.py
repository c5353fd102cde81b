"""`survey fidelity SOURCE --humans FILE`: do the personas match people? Levels, effects, dispersion and the
prediction-powered estimate about humans, per model; with several studies' SOURCEs, the benchmark over them
(which model to trust). survey.stats.humans does the statistics, survey.reporting.benchmark the report."""

from __future__ import annotations

from pathlib import Path

import click

from survey import BOOTSTRAP_MAX, WHY, SurveyError, yes_no
from survey.cli.common import (
    count_type,
    echo_json,
    humans_file_options,
    humans_spec,
    json_option,
    print_table,
    require_file,
    scale_option,
    seed_option,
    study_option,
)

WIDE_TABLE = 100  # terminal columns from which the levels read as one table


def _ci(ci) -> str:
    return f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"


def _range(ci) -> str:
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def _mean(points, shares) -> float:
    return float(sum(p * s for p, s in zip(points, shares, strict=True)))


@click.command("fidelity")
@click.argument("sources", metavar="SOURCE...", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--humans", "humans", type=click.Path(dir_okay=False), default=None,
              help="human answers (.csv: one row per respondent x message, or a Qualtrics-style wide export) "
                   "[default: the file the store's study names]")
@click.option("--a", "a", default=None, help="message A (default: the first of the two the humans saw)")
@click.option("--b", "b", default=None, help="message B")
@click.option("--by", "by", default=None, help="an attribute of the respondents and personas: levels per segment")
@click.option("--out", "out", type=click.Path(file_okay=False), default=None,
              help="with several studies' stores: write the benchmark report OUT/index.html (+ results.json, "
                   "experiments.csv)")
@click.option("--confidence", type=float, default=0.95, show_default=True, help="level of every interval")
@click.option("--bootstrap", "n_boot", type=count_type(1, BOOTSTRAP_MAX, WHY["bootstrap"]), default=1000, show_default=True,
              help="bootstrap resamples of the level distances and the dispersion ratio")
@click.option("--question", "question", default=None, help="several questions: the one the humans answered")
@humans_file_options
@seed_option()
@scale_option
@study_option
@json_option
def fidelity_cmd(sources, humans, a, b, by, out, confidence, n_boot, seed, scale, study, question, as_json, humans_wide,
                 humans_id_column, humans_columns):
    """Compare the personas with human answers to the same messages, per model: answer levels (JSD,
    Wasserstein, human noise floor, baselines), the A - B effect (persona vs human, sign agreement), the
    dispersion ratio, and the human effect by prediction-powered inference when the models answered as
    each respondent (a study with humans = ... asks them). SOURCE: a store, a long table, or a study file
    (its store).

    Given several studies (each naming its humans), it is a benchmark: per model, how often
    the personas' effect has the humans' sign, and the correlation and calibration slope of persona on human
    effects over the experiments (at least 4), which says which model to trust for this kind of question."""
    for source in sources:
        require_file(source, "study" if str(source).endswith(".toml") else "source")
    if len(sources) > 1 or out is not None:
        humans_spec(humans, humans_wide, humans_id_column, humans_columns)  # options without --humans: refused
        _benchmark(sources, humans, a, b, by, out, confidence, n_boot, seed, scale, study, as_json)
        return
    source = sources[0]
    if humans is not None:
        require_file(humans, "humans")
    humans = humans_spec(humans, humans_wide, humans_id_column, humans_columns)
    from survey import HumanFidelity, fidelity, level_in_words, ppi_in_words

    res = fidelity(source, humans, a=a, b=b, study=study, by=by, confidence=confidence, n_boot=n_boot, seed=seed,
                   scale=scale, question=question)
    if as_json:
        echo_json(res.to_dict())
        return
    if not isinstance(res, HumanFidelity):  # the kind's own comparison (a ranking's)
        from survey.cli.humans_output import echo_people

        return echo_people(res)
    h = res.human_effect
    click.echo(res.basis)
    click.echo(f"human effect {res.a} − {res.b}: {h.estimate:+.4f} {_ci(h.ci)} ({res.unit}; humans alone)")
    _print_levels(res, level_in_words)
    print_table(f"effects {res.a} − {res.b} ({res.unit})",
                ["model", "personas", "humans", "human − persona", "p", "signs agree"],
                [[e["model"], f"{e['fidelity'].persona_effect:+.3f}", f"{e['fidelity'].human_effect:+.3f}",
                  f"{e['fidelity'].difference:+.3f} {_ci(e['fidelity'].ci)}", e["fidelity"].pvalue,
                  yes_no(e["fidelity"].sign_agrees)] for e in res.effects])
    print_table("dispersion: persona / human variance",
                ["model", "message", "ratio", "CI"],
                [[d["model"], d["message"], d["ratio"].ratio, f"[{d['ratio'].ci[0]:.3g}, {d['ratio'].ci[1]:.3g}]"]
                 for d in res.dispersion])
    if res.ppi:
        print_table(f"the human effect by prediction-powered inference ({res.design}-subjects)",
                    ["model", "estimate", "CI", "p", "lambda", "width vs humans only", "effective humans",
                     "in words"],
                    [[m, f"{p.estimate:+.4f}", _ci(p.ci), p.pvalue,
                      ", ".join(f"{x:.2f}" for x in (p.lam if isinstance(p.lam, tuple) else (p.lam,))),
                      p.width_ratio, p.effective_n, ppi_in_words(p)] for m, p in res.ppi.items()])
    for line in res.verdicts():
        click.echo(f"in words: {line}")
    click.echo(f"validity: {res.validity}")
    for note in res.notes:
        click.echo(f"note: {note}", err=True)


def _print_levels(res, level_in_words) -> None:
    """The levels table; below WIDE_TABLE columns as two (answers with their words, then distances), as the report
    shows them: nine columns' headers alone are wider than an 80-column terminal."""
    from rich.console import Console

    keys, answers, distances = ["model", "message", *(["segment"] if res.by else [])], [], []
    for x in res.levels:
        f = x["fidelity"]
        j, w = f.distances["jsd"], f.distances.get("wasserstein")
        key = [x["model"], x["message"], *([x["segment"]] if res.by else [])]
        answers.append([*key, f.n_humans, _mean(f.points, f.human), _mean(f.points, f.persona), level_in_words(f)])
        distances.append([*key, f"{j['value']:.3f} {_range(j['ci'])}", j["noise_floor"],
                          "" if w is None else f"{w['value']:.3f} {_range(w['ci'])}"])
    answer_columns = [*keys, "humans", "human mean", "persona mean", "in words"]
    distance_columns = [*keys, "JSD [CI]", "JSD floor", "Wasserstein [CI]"]
    if Console().width >= WIDE_TABLE:
        print_table("levels: humans vs personas (mean answer; JSD and Wasserstein with bootstrap CIs; floor: two "
                    "halves of the humans)", [*answer_columns[:-1], *distance_columns[len(keys):], "in words"],
                    [[*a[:-1], *d[len(keys):], a[-1]] for a, d in zip(answers, distances, strict=True)])
        return
    print_table("levels: humans vs personas (mean answer)", answer_columns, answers)
    print_table("levels: distances (JSD and Wasserstein with bootstrap CIs; floor: two halves of the humans)",
                distance_columns, distances)


def _benchmark(sources, humans, a, b, by, out, confidence, n_boot, seed, scale, study, as_json) -> None:
    given = [name for name, v in (("--humans", humans), ("--a", a), ("--b", b), ("--by", by), ("--scale", scale),
                                  ("--study", study)) if v is not None]
    if given:
        raise SurveyError(f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} to one study; a benchmark "
                          "reads each store's own study, humans and messages: give the stores alone")
    if len(sources) < 2:
        raise SurveyError("--out writes a benchmark report over several studies: give two or more stores (for one "
                          "study, `survey report STORE --out DIR` has the section \"Does it match people?\")")
    from survey import fidelity_benchmark

    bench = fidelity_benchmark(sources, confidence=confidence, n_boot=n_boot, seed=seed, progress=not as_json)
    index = None
    if out is not None:
        from survey import benchmark_report

        benchmark_report(bench, out)
        index = str(Path(out) / "index.html")
    if as_json:
        echo_json({**bench.to_dict(), **({"report": index} if index else {})})
        return
    firsts = {r["experiment"]: r for r in bench.experiments}
    print_table("experiments", ["experiment", "A", "B", "design", "humans", "human effect [CI]"],
                [[n, r["a"], r["b"], r["design"], r["n_humans"], f"{r['human_effect']:+.3f} {_ci(r['human_ci'])}"]
                 for n, r in firsts.items()])
    print_table(f"persona effects A − B ({bench.unit})",
                ["experiment", "model", "persona effect [CI]", "p (same effect)", "signs agree"],
                [[r["experiment"], r["model"], f"{r['persona_effect']:+.3f} {_ci(r['persona_ci'])}",
                  r["difference_pvalue"], yes_no(r["sign_agrees"])] for r in bench.experiments])
    print_table(f"per model over {len(bench.names)} experiments ({confidence:.0%} intervals)",
                ["model", "experiments", "sign agreement [CI]", "correlation [CI]", "calibration slope [CI]"],
                [[m, b.n_experiments, f"{b.sign_agreement:.2f} {_range(b.sign_agreement_ci)}",
                  f"{b.correlation:+.3f} {_ci(b.correlation_ci)}", f"{b.slope:+.3f} {_ci(b.slope_ci)}"]
                 for m, b in bench.models.items()]
                + [[m, sum(1 for r in bench.experiments if r["model"] == m), f"no summary: {why}", "—", "—"]
                   for m, why in bench.missing.items()])
    for line in bench.verdicts():
        click.echo(f"in words: {line}")
    from survey import RESTS_ON

    click.echo(f"rests on: {RESTS_ON}")
    if index:
        click.echo(f"report: {index}")
    for note in bench.notes:
        click.echo(f"note: {note}", err=True)


def register(cli: click.Group) -> None:
    cli.add_command(fidelity_cmd)
