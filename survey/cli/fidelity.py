"""`survey fidelity STORE_OR_TABLE --humans FILE`: do the personas match people? Levels, effects, dispersion
and the prediction-powered estimate about humans, per model (survey.stats.humans does the statistics)."""

from __future__ import annotations

import click

from survey.cli.common import (
    count_type,
    echo_json,
    json_option,
    print_table,
    require_file,
    scale_option,
    seed_option,
    study_option,
)
from survey.common.limits import BOOTSTRAP_MAX, WHY


def _ci(ci) -> str:
    return f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"


def _range(ci) -> str:
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def _mean(points, shares) -> float:
    return float(sum(p * s for p, s in zip(points, shares, strict=True)))


@click.command("fidelity")
@click.argument("source", metavar="STORE_OR_TABLE", type=click.Path(dir_okay=False))
@click.option("--humans", "humans", type=click.Path(dir_okay=False), default=None,
              help="human answers (.csv: one row per respondent x message, or a Qualtrics-style wide export) "
                   "[default: the file the store's study names]")
@click.option("--a", "a", default=None, help="message A (default: the first of the two the humans saw)")
@click.option("--b", "b", default=None, help="message B")
@click.option("--by", "by", default=None, help="an attribute of the respondents and personas: levels per segment")
@click.option("--confidence", type=float, default=0.95, show_default=True, help="level of every interval")
@click.option("--bootstrap", "n_boot", type=count_type(1, BOOTSTRAP_MAX, WHY["bootstrap"]), default=1000, show_default=True,
              help="bootstrap resamples of the level distances and the dispersion ratio")
@seed_option()
@scale_option
@study_option
@json_option
def fidelity_cmd(source, humans, a, b, by, confidence, n_boot, seed, scale, study, as_json):
    """Compare the personas with human answers to the same messages, per model: answer levels (JSD,
    Wasserstein, human noise floor, baselines), the A - B effect (persona vs human, sign agreement), the
    dispersion ratio, and the human effect by prediction-powered inference when the models answered as
    each respondent (a study with humans = ... asks them)."""
    require_file(source, "source")
    if humans is not None:
        require_file(humans, "humans")
    from survey.api.fidelity import fidelity

    res = fidelity(source, humans, a=a, b=b, study=study, by=by, confidence=confidence, n_boot=n_boot, seed=seed,
                   scale=scale)
    if as_json:
        echo_json(res.to_dict())
        return
    h = res.human_effect
    click.echo(res.basis)
    click.echo(f"human effect {res.a} − {res.b}: {h.estimate:+.4f} {_ci(h.ci)} ({res.unit}; humans alone)")
    rows = []
    for x in res.levels:
        f = x["fidelity"]
        j, w = f.distances["jsd"], f.distances.get("wasserstein")
        rows.append([x["model"], x["message"], *([x["segment"]] if res.by else []), f.n_humans,
                     _mean(f.points, f.human), _mean(f.points, f.persona), f"{j['value']:.3f} {_range(j['ci'])}",
                     j["noise_floor"], "" if w is None else f"{w['value']:.3f} {_range(w['ci'])}"])
    print_table("levels: humans vs personas (mean answer; JSD and Wasserstein with bootstrap CIs; floor: two "
                "halves of the humans)",
                ["model", "message", *(["segment"] if res.by else []), "humans", "human mean", "persona mean",
                 "JSD [CI]", "JSD floor", "Wasserstein [CI]"], rows)
    print_table(f"effects {res.a} − {res.b} ({res.unit})",
                ["model", "personas", "humans", "human − persona", "p", "signs agree"],
                [[e["model"], f"{e['fidelity'].persona_effect:+.3f}", f"{e['fidelity'].human_effect:+.3f}",
                  f"{e['fidelity'].difference:+.3f} {_ci(e['fidelity'].ci)}", e["fidelity"].pvalue,
                  e["fidelity"].sign_agrees] for e in res.effects])
    print_table("dispersion: persona / human variance",
                ["model", "message", "ratio", "CI"],
                [[d["model"], d["message"], d["ratio"].ratio, f"[{d['ratio'].ci[0]:.3g}, {d['ratio'].ci[1]:.3g}]"]
                 for d in res.dispersion])
    if res.ppi:
        print_table(f"the human effect by prediction-powered inference ({res.design}-subjects)",
                    ["model", "estimate", "CI", "p", "lambda", "width vs humans only", "effective humans"],
                    [[m, f"{p.estimate:+.4f}", _ci(p.ci), p.pvalue,
                      ", ".join(f"{x:.2f}" for x in (p.lam if isinstance(p.lam, tuple) else (p.lam,))),
                      p.width_ratio, p.effective_n] for m, p in res.ppi.items()])
    for line in res.verdicts():
        click.echo(f"in words: {line}")
    click.echo(f"validity: {res.validity}")
    for note in res.notes:
        click.echo(f"note: {note}", err=True)


def register(cli: click.Group) -> None:
    cli.add_command(fidelity_cmd)
