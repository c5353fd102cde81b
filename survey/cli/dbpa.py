"""`survey dbpa`: DBPA semantic tests on free-text answers (Rauba, Wei & van der Schaar; docs/dbpa.md).

Two forms:
- ``survey dbpa TABLE_OR_STORE --a MSG --b MSG``: message A vs B per model, on the long table's
  ``response`` column, permuting whole perturbations (default) or single outputs;
- ``survey dbpa --family FILE``: many perturbations (or models) vs one base, with multiplicity
  adjustment, TPR/FPR/AUC for control/target roles, or alignment with a reference model.
"""

from __future__ import annotations

from pathlib import Path

import click

from survey import FLIPS_MAX, WHY, SurveyError
from survey.cli.common import (
    alpha_option,
    count_type,
    echo_json,
    json_option,
    print_table,
    require_file,
    seed_option,
)
from survey.cli.texts import CORRECTIONS, OMEGAS

# The embeddings and statistics (numpy, pandas, scipy) are imported inside the command: --help stays light.


def _options(f):
    """Options shared by both forms; None = not given (a family file's value then applies)."""
    opts = [
        click.option("--omega", "omegas", multiple=True, type=click.Choice(OMEGAS),
                     help="discrepancy; repeat for several (default js: JS divergence, its distance reported too)"),
        click.option("--embedder", type=click.Choice(["minilm", "mistral-embed", "dashscope"]), default=None,
                     help="text embedder (default minilm: local all-MiniLM-L6-v2, no network)"),
        click.option("--embed-url", default=None, help="provider API root for mistral-embed / dashscope"),
        click.option("--permutations", "n_perm", type=count_type(1, FLIPS_MAX, WHY["permutations"]), default=None,
                     help="relabelings B (default 1000: each one recomputes the discrepancy between two sets of "
                          "embeddings, far costlier than a sign flip); fewer possible relabelings are enumerated "
                          "exactly"),
        click.option("--bins", type=int, default=None, help="histogram bins for js (default 30, at most 10,000)"),
        click.option("--range", "hist_range", default=None,
                     help="histogram range for js: pooled (default, [min, max] of P0 and P1), all-pairs, or LO,HI"),
        click.option("--cache", "cache_path", type=click.Path(dir_okay=False), default=None,
                     help="embedding cache (SQLite); default: the store itself, or TABLE.embeddings.sqlite"),
        click.option("--no-cache", is_flag=True, help="embed without reading or writing a cache"),
        seed_option(default=None, help="random seed (default 0)"),
        click.option("--plot", "plot", type=click.Path(dir_okay=False), default=None,
                     help="also save a PNG of the P0/P1 histograms and null distribution here (none unless given)"),
        click.option("--no-plot", is_flag=True, help="write no plot (the default; kept for scripts)"),
        json_option,
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


@click.command("dbpa")
@click.argument("source", required=False, type=click.Path(dir_okay=False))
@click.option("--family", "family_file", type=click.Path(dir_okay=False), default=None,
              help="family file (YAML/JSON): base outputs vs many perturbations or models (docs/dbpa.md)")
@click.option("--a", "a", default=None, help="message A (default: the first of two)")
@click.option("--b", "b", default=None, help="message B (default: the second of two)")
@click.option("--study", default=None, help="the study, when a store holds several")
@click.option("--model", "models", multiple=True, help="only these models (default: each model in the table)")
@click.option("--unit", type=click.Choice(["perturbation", "output"]), default="perturbation", show_default=True,
              help="what the permutation moves; 'output' is invalid when perturbations shift all personas")
@click.option("--scheme", type=click.Choice(["relabel", "swap"]), default="relabel", show_default=True,
              help="perturbation units: relabel any of them, or swap pair j of A with pair j of B (sign-flip analogue)")
@click.option("--per-persona", is_flag=True, help="also test A vs B inside each persona, adjusted across personas")
@click.option("--correction", type=click.Choice(CORRECTIONS), default=None, help="multiplicity adjustment (default holm)")
@alpha_option(default=None, help="level for rejections and TPR/FPR (default 0.05)")
@click.option("--max-per-unit", type=int, default=None,
              help="keep at most N outputs per (message, perturbation), drawn with --seed")
@_options
def dbpa_cmd(source, family_file, a, b, study, models, unit, scheme, per_persona, correction, alpha,
             max_per_unit, omegas, embedder, embed_url, n_perm, bins, hist_range, cache_path, no_cache, seed,
             plot, no_plot, as_json):
    """DBPA on free-text answers: does the distribution of meanings change between A and B?

    Reads the `response` column of a long table or store (SOURCE), or runs a --family file.
    """
    if family_file and (source or a or b or models or per_persona or max_per_unit):
        raise SurveyError("--family takes its data, selections and messages from the file; "
                          "drop SOURCE, --a, --b, --model, --per-persona and --max-per-unit")
    if not family_file and not source:
        raise SurveyError("give a long table or store (SOURCE), or a family file with --family")
    require_file(source, "source")
    from survey import DBPAOptions, dbpa, dbpa_family, parse_hist_range, progress_bar, study_store

    given = dict(omegas=list(omegas) or None, embedder=embedder, embed_url=embed_url, n_resamples=n_perm,
                 bins=bins, hist_range=None if hist_range is None else parse_hist_range(hist_range, "--range"),
                 cache=False if no_cache else None, cache_path=cache_path, seed=seed, correction=correction,
                 alpha=alpha)
    if family_file:
        options = DBPAOptions.of(**given)
        with progress_bar("embedding", None, not as_json) as bar:
            res = dbpa_family(Path(family_file), options, study=study, progress=bar.update)
        written = res.write_plots(plot) if plot and not no_plot else []  # a reading command writes only when asked
        _print_family(res, written, as_json)
        return
    options = DBPAOptions.of(**given, unit=unit, scheme=scheme, per_persona=per_persona or None,
                             max_per_unit=max_per_unit)
    source, study = study_store(source, study)
    with progress_bar("embedding", None, not as_json) as bar:
        res = dbpa(Path(source), a, b, models=list(models), study=study, options=options, progress=bar.update)
    written = res.write_plots(plot) if plot and not no_plot else []
    _print_messages(res, written, as_json)


def _print_messages(res, written, as_json: bool) -> None:
    out = res.to_dict()
    if as_json:
        echo_json({**out, "plots": [str(p) for p in written]})
        return
    omega = res.options.omegas[0]
    for item in out["results"]:
        a, b = item["a"], item["b"]
        click.echo(f"\nmodel {item['model']}: {a} vs {b} — outputs {item['outputs']}, perturbations "
                   f"{item['perturbations']}, {item['unit']}-level ({item['scheme']}); embedder {res.embedder}"
                   + (f"; {item['dropped_empty']} empty response(s) left out" if item["dropped_empty"] else ""))
        rows = [[o, t["statistic"], t["pvalue"], t["n_resamples"], "exact" if t["exact"] else "monte-carlo",
                 t.get("js_distance")] for o, t in item["tests"].items()]
        print_table("DBPA (omega: larger = more change; p one-sided)",
                    ["omega", "statistic", "p", "relabelings", "p computed", "JS distance"], rows)
        if "per_persona" in item:
            pp = item["per_persona"]
            print_table(f"per persona ({omega}, {pp['correction']}-adjusted, alpha {pp['alpha']:g})",
                        ["persona", "statistic", "p", "p adjusted", "rejected"],
                        [[t["name"], t["statistic"], t["pvalue"], t["pvalue_adjusted"], str(t["rejected"])]
                         for t in pp["tests"]])
    if res.models and res.options.unit == "output":
        click.echo("note: output-level permutations assume independent outputs; a perturbation that shifts "
                   "every persona makes them oversized (docs/dbpa.md). Use --unit perturbation for conclusions.")
    for p in written:
        click.echo(f"plot: {p}")


def _print_family(res, written, as_json: bool) -> None:
    if as_json:
        echo_json({**res.to_dict(), "plots": [str(p) for p in written]})
        return
    fam, opts = res.family, res.options
    click.echo(f"{res.path.name}: {res.design}, {len(fam.names)} comparison(s) vs {res.base_label} "
               f"({res.outputs['base']} outputs), omega {opts.omegas[0]}, embedder {res.embedder}, "
               f"B = {opts.n_resamples}")
    print_table(f"DBPA family ({opts.correction}-adjusted, alpha {opts.alpha:g})",
                ["name", "role", "outputs", "statistic", "p", "p adjusted", "rejected"],
                [[n, r or "", res.outputs[n], t.statistic, t.pvalue, adj, str(rej)]
                 for n, r, t, adj, rej in zip(fam.names, fam.roles, fam.results, fam.adjusted, fam.rejected,
                                              strict=True)])
    if fam.roc is not None:
        click.echo(f"TPR/FPR at alpha {opts.alpha:g} (raw p): TPR {fam.roc.tpr_at_alpha:.3f}, "
                   f"FPR {fam.roc.fpr_at_alpha:.3f}; AUC over all thresholds {fam.roc.auc:.3f}")
    for p in written:
        click.echo(f"plot: {p}")


def register(cli) -> None:
    cli.add_command(dbpa_cmd)
