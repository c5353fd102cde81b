"""`survey dbpa`: DBPA semantic tests on free-text answers (SPEC §2; docs/dbpa.md).

Two forms:
- ``survey dbpa TABLE_OR_STORE --a MSG --b MSG``: message A vs B per model, on the long table's
  ``response`` column, permuting whole perturbations (default) or single outputs;
- ``survey dbpa --family FILE``: many perturbations (or models) vs one base, with multiplicity
  adjustment, TPR/FPR/AUC for control/target roles, or alignment with a reference model.
"""

from __future__ import annotations

from pathlib import Path

import click

from survey.cli.common import echo_json, json_option, print_table
from survey.cli.dbpa_inputs import embed_column, open_cache, parse_range, pick_messages, plot_path, text_rows
from survey.common.threads import one_blas_thread
from survey.errors import SurveyError
from survey.stats.dbpa.family import CORRECTIONS, compare_messages_dbpa, per_persona_dbpa
from survey.stats.dbpa.omega import OMEGAS


def _options(f):
    """Options shared by both forms; None = not given (a family file's value then applies)."""
    opts = [
        click.option("--omega", "omegas", multiple=True, type=click.Choice(OMEGAS),
                     help="discrepancy; repeat for several (default js: JS divergence, its distance reported too)"),
        click.option("--embedder", type=click.Choice(["minilm", "mistral-embed", "dashscope"]), default=None,
                     help="text embedder (default minilm: local all-MiniLM-L6-v2, no network)"),
        click.option("--embed-url", default=None, help="provider API root for mistral-embed / dashscope"),
        click.option("--permutations", "n_perm", type=int, default=None,
                     help="relabelings B (default 1000); fewer possible relabelings are enumerated exactly"),
        click.option("--bins", type=int, default=None, help="histogram bins for js (default 30)"),
        click.option("--range", "hist_range", default=None,
                     help="histogram range for js: pooled (default, [min, max] of P0 and P1), all-pairs, or LO,HI"),
        click.option("--cache", "cache_path", type=click.Path(dir_okay=False), default=None,
                     help="embedding cache (SQLite); default: the store itself, or TABLE.embeddings.sqlite"),
        click.option("--no-cache", is_flag=True, help="embed without reading or writing a cache"),
        click.option("--seed", type=int, default=None, help="random seed (default 0)"),
        click.option("--plot", "plot", type=click.Path(dir_okay=False), default=None,
                     help="PNG of the P0/P1 histograms and null distribution (default dbpa.png / FILE.dbpa.png)"),
        click.option("--no-plot", is_flag=True, help="write no plot"),
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
@click.option("--alpha", type=float, default=None, help="level for rejections and TPR/FPR (default 0.05)")
@click.option("--max-per-unit", type=int, default=None,
              help="keep at most N outputs per (message, perturbation), drawn with --seed")
@_options
def dbpa_cmd(source, family_file, a, b, study, models, unit, scheme, per_persona, correction, alpha,
             max_per_unit, omegas, embedder, embed_url, n_perm, bins, hist_range, cache_path, no_cache, seed,
             plot, no_plot, as_json):
    """DBPA on free-text answers: does the distribution of meanings change between A and B?

    Reads the `response` column of a long table or store (SOURCE), or runs a --family file.
    """
    common = dict(omegas=list(omegas) or None, embedder=embedder, embed_url=embed_url, n_perm=n_perm, bins=bins,
                  hist_range=hist_range, cache_path=cache_path, no_cache=no_cache, seed=seed, plot=plot,
                  no_plot=no_plot, as_json=as_json, correction=correction, alpha=alpha)
    if family_file:
        if source or a or b or models or per_persona or max_per_unit:
            raise SurveyError("--family takes its data, selections and messages from the file; "
                              "drop SOURCE, --a, --b, --model, --per-persona and --max-per-unit")
        from survey.cli.dbpa_family import run_family

        with one_blas_thread():  # small products: threads only contend on 2 shared cores
            run_family(Path(family_file), study=study, **common)
        return
    if not source:
        raise SurveyError("give a long table or store (SOURCE), or a family file with --family")
    with one_blas_thread():
        _run_messages(Path(source), a, b, study, list(models), unit, scheme, per_persona, max_per_unit, **common)


def _run_messages(source, a, b, study, models, unit, scheme, per_persona, max_per_unit, *, omegas, embedder,
                  embed_url, n_perm, bins, hist_range, cache_path, no_cache, seed, plot, no_plot, as_json,
                  correction, alpha):
    omegas = omegas or ["js"]
    n_perm = 1000 if n_perm is None else n_perm
    bins = 30 if bins is None else bins
    range_ = parse_range(hist_range or "pooled")
    seed = 0 if seed is None else seed
    correction, alpha = correction or "holm", 0.05 if alpha is None else alpha
    df, dropped, is_store = text_rows(source, study)
    a, b = pick_messages(df, a, b)
    all_models = list(dict.fromkeys(df["model"]))
    bad = [m for m in models if m not in all_models]
    if bad:
        raise SurveyError(f"model(s) {', '.join(bad)} not in the table; it has {', '.join(all_models)}")
    df = df[df["message"].isin([a, b]) & df["model"].isin(models or all_models)]
    if max_per_unit is not None:
        if max_per_unit < 1:
            raise SurveyError("--max-per-unit must be >= 1")
        df = (df.sample(frac=1.0, random_state=seed).groupby(["model", "message", "perturbation"], sort=False)
              .head(max_per_unit).sort_index())
    with open_cache(source, is_store, cache_path, no_cache) as cache:
        emb, name = embed_column(df["response"].tolist(), embedder or "minilm", embed_url, cache, quiet=as_json)
    out, figures = [], []
    run_models = [m for m in all_models if m in set(df["model"])]
    for model in run_models:
        m = (df["model"] == model).to_numpy()
        sub = df[m]
        is_a = (sub["message"] == a).to_numpy()
        if is_a.sum() < 2 or (~is_a).sum() < 1:
            raise SurveyError(f"model '{model}': DBPA needs at least 2 text answers for {a} and 1 for {b}")
        opts = dict(omega=omegas, n_resamples=n_perm, seed=seed, bins=bins, hist_range=range_)
        res = compare_messages_dbpa(emb[m], is_a, sub["perturbation"].to_numpy(), unit=unit, scheme=scheme, **opts)
        item = {"model": model, "a": a, "b": b, "unit": unit, "scheme": scheme if unit == "perturbation" else "subset",
                "outputs": {a: int(is_a.sum()), b: int((~is_a).sum())},
                "perturbations": {a: int(sub.loc[is_a, "perturbation"].nunique()),
                                  b: int(sub.loc[~is_a, "perturbation"].nunique())},
                "dropped_empty": int(dropped.get(model, 0)),
                "tests": {o: r.to_dict() for o, r in res.items()}}
        if per_persona:
            fam = per_persona_dbpa(emb[m], is_a, sub["perturbation"].to_numpy(), sub["persona"].to_numpy(),
                                   omega=omegas[0], correction=correction, alpha=alpha, n_resamples=n_perm,
                                   seed=seed, bins=bins, hist_range=range_, scheme=scheme)
            item["per_persona"] = fam.to_dict()
        out.append(item)
        figures.append((model, list(res.values())))
    written = []
    if not no_plot:
        from survey.plots.dbpa import dbpa_figure

        for model, results in figures:
            path = plot_path(plot, "dbpa.png", model if len(figures) > 1 else None)
            dbpa_figure(results, title=f"{model}: {a} vs {b} ({unit}-level permutations)",
                        labels=(a, b)).savefig(path, dpi=110)
            written.append(str(path))
    if as_json:
        echo_json({"source": str(source), "embedder": name, "results": out, "plots": written})
        return
    for item in out:
        click.echo(f"\nmodel {item['model']}: {a} vs {b} — outputs {item['outputs']}, perturbations "
                   f"{item['perturbations']}, {item['unit']}-level ({item['scheme']}); embedder {name}"
                   + (f"; {item['dropped_empty']} empty response(s) left out" if item["dropped_empty"] else ""))
        rows = [[o, t["statistic"], t["pvalue"], t["n_resamples"], "exact" if t["exact"] else "monte-carlo",
                 t.get("js_distance")] for o, t in item["tests"].items()]
        print_table("DBPA (omega: larger = more change; p one-sided)",
                    ["omega", "statistic", "p", "relabelings", "p computed", "JS distance"], rows)
        if "per_persona" in item:
            pp = item["per_persona"]
            print_table(f"per persona ({omegas[0]}, {pp['correction']}-adjusted, alpha {pp['alpha']:g})",
                        ["persona", "statistic", "p", "p adjusted", "rejected"],
                        [[t["name"], t["statistic"], t["pvalue"], t["pvalue_adjusted"], str(t["rejected"])]
                         for t in pp["tests"]])
    if out and unit == "output":
        click.echo("note: output-level permutations assume independent outputs; a perturbation that shifts "
                   "every persona makes them oversized (docs/dbpa.md). Use --unit perturbation for conclusions.")
    for p in written:
        click.echo(f"plot: {p}")


def register(cli) -> None:
    cli.add_command(dbpa_cmd)

