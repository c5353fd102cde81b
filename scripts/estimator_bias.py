"""Measure both estimators of the Beta-logit model (the moment estimator and appendix C of Helm & Priebe)
on simulated data with known parameters: bias, RMSE and the coverage of the 95% bootstrap intervals.

Writes docs/estimator-bias.md (and prints the table). It takes a while: run it in the background,

    nohup python scripts/estimator_bias.py > /tmp/estimator_bias.log 2>&1 &

Options: --datasets D per grid cell (default 60), --bootstrap B resamples per dataset (default 100),
--jobs J worker processes (default 1), --out PATH (default docs/estimator-bias.md).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from survey.stats.beta_logit import make_params, simulate_counts
from survey.stats.beta_logit_estimate import (
    bootstrap_draws,
    estimate_counts,
    moment_estimate,
    summarize_draws,
)

N, M, MU, KAPPA = 100, 50, 0.5, 4.0
GRID = list(itertools.product((0.5, 1.0, 2.0), (0.0, 0.3, 0.6), (2, 5, 20)))
SHOWN = ("mu", "kappa", "sigma", "rho")


def run_cell(args) -> dict:
    """Estimates and 95% intervals of both estimators on `datasets` simulated surveys of one grid cell."""
    (sigma, rho, r), datasets, n_boot, seed = args
    params = make_params(mu=MU, kappa=KAPPA, sigma=sigma, rho=rho)
    rng = np.random.default_rng(seed)
    out = {meth: {p: {"est": [], "lo": [], "hi": []} for p in SHOWN} for meth in ("moments", "appendix-c")}
    for d in range(datasets):
        yes, _ = simulate_counts(params, N, M, 2, r, rng)
        valid = np.full_like(yes, r)
        fits = {"moments": moment_estimate(yes, valid, n_boot, seed=d)}
        appc = estimate_counts(yes, valid)
        appc.se, appc.ci = summarize_draws(bootstrap_draws(yes, valid, n_boot, seed=d))
        fits["appendix-c"] = appc
        for meth, fit in fits.items():
            for p in SHOWN:
                out[meth][p]["est"].append(getattr(fit, p))
                lo, hi = fit.ci[p]
                out[meth][p]["lo"].append(lo)
                out[meth][p]["hi"].append(hi)
    return {"cell": (sigma, rho, r), "results": out}


def summarize(values: dict, truth: float) -> dict:
    est, lo, hi = (np.asarray(values[k], float) for k in ("est", "lo", "hi"))
    ok = np.isfinite(est)
    err = est[ok] - truth
    covered = (lo <= truth) & (truth <= hi)
    return {"bias": err.mean(), "mc": err.std(ddof=1) / np.sqrt(len(err)), "rmse": np.sqrt((err**2).mean()),
            "cover": covered.mean(), "n": len(est)}


def table(cells: list[dict], datasets: int, n_boot: int) -> str:
    cover_mc = np.sqrt(0.95 * 0.05 / datasets)
    lines = [
        f"Simulated surveys: n = {N} personas, m = {M} paraphrases, mu = {MU}, kappa = {KAPPA}; {datasets} "
        f"datasets per row, {n_boot} bootstrap resamples (personas and paraphrases) per dataset. Regenerate "
        "with `python scripts/estimator_bias.py` (see its options; it takes a while, run it in the background).",
        "",
        "Cells: bias (estimate − truth, mean over datasets) ± its Monte Carlo standard error; RMSE; cover: share "
        f"of datasets whose 95% bootstrap percentile interval holds the truth (Monte Carlo s.e. about "
        f"{cover_mc:.3f} at 0.95). mu and kappa: bias only.",
        "",
        "| sigma | rho | r | estimator | mu bias | kappa bias | sigma bias | sigma RMSE | sigma cover "
        "| rho bias | rho RMSE | rho cover |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for cell in cells:
        sigma, rho, r = cell["cell"]
        for meth in ("moments", "appendix-c"):
            res = cell["results"][meth]
            s = {p: summarize(res[p], t) for p, t in zip(SHOWN, (MU, KAPPA, sigma, rho), strict=True)}
            lines.append(
                f"| {sigma} | {rho} | {r} | {meth} | {s['mu']['bias']:+.3f} | {s['kappa']['bias']:+.2f} "
                f"| {s['sigma']['bias']:+.3f} ± {s['sigma']['mc']:.3f} | {s['sigma']['rmse']:.3f} "
                f"| {s['sigma']['cover']:.2f} | {s['rho']['bias']:+.3f} ± {s['rho']['mc']:.3f} "
                f"| {s['rho']['rmse']:.3f} | {s['rho']['cover']:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=int, default=60)
    ap.add_argument("--bootstrap", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "docs" / "estimator-bias.md")
    args = ap.parse_args(argv)
    tasks = [(cell, args.datasets, args.bootstrap, 1000 + k) for k, cell in enumerate(GRID)]
    start = time.time()
    with ProcessPoolExecutor(args.jobs) as pool:
        cells = []
        for res in pool.map(run_cell, tasks):
            cells.append(res)
            print(f"{res['cell']} done after {time.time() - start:.0f} s", file=sys.stderr, flush=True)
    text = table(cells, args.datasets, args.bootstrap)
    header = args.out.read_text().split("<!-- table -->")[0] if args.out.exists() else ""
    if "<!-- table -->" not in (args.out.read_text() if args.out.exists() else ""):
        header = "# Bias of the estimators of the Beta-logit model\n\n"
    args.out.write_text(header + "<!-- table -->\n\n" + text)
    print(text)


if __name__ == "__main__":
    main()
