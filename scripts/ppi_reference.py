"""Reference values for survey.stats.ppi from the reference package ppi_py (PyPI ppi-python), computed once.

ppi_py is not a dependency of survey (it needs numba and gdown); run this in a scratch environment:

    python -m venv /tmp/ppi_venv && /tmp/ppi_venv/bin/pip install ppi-python==0.2.3
    /tmp/ppi_venv/bin/python scripts/ppi_reference.py > tests/fixtures/ppi_reference.json

It writes five seeded datasets (answers and predictions rounded to 6 decimals, so the stored inputs are the
inputs ppi_py saw) and ppi_py's point estimates, intervals and p-values for tuned and fixed lambda, two of
them also with weights on the humans and the personas.
"""

import json
import sys
from importlib.metadata import version

import numpy as np
from ppi_py import ppi_mean_ci, ppi_mean_pointestimate, ppi_mean_pval


def datasets():
    rng = np.random.default_rng(20251125)
    n, big_n = 40, 200
    x, xu = rng.normal(size=n), rng.normal(size=big_n)
    yield "continuous, correlated", 1 + x + rng.normal(size=n), 0.8 + 0.9 * x, 0.8 + 0.9 * xu
    p, pu = 1 / (1 + np.exp(-x)), 1 / (1 + np.exp(-xu))
    yield "yes/no with probabilities", (rng.random(n) < p).astype(float), p, pu
    yield "predictions reversed (negative covariance, lambda clipped to 0)", 2 + x + rng.normal(size=n), -x, -xu
    yield "attenuated predictions (lambda clipped to 1)", 3 + x + 0.1 * rng.normal(size=n), 3 + 0.4 * x, 3 + 0.4 * xu
    latent = 3 + 1.2 * x + rng.normal(size=n)
    yield "five-point answers", np.clip(np.round(latent), 1, 5), 3 + 0.5 * x, 3 + 0.5 * xu


def main():
    out = {"ppi_py": version("ppi-python"), "numpy": np.__version__, "cases": []}
    for name, y, f, fu in datasets():
        y, f, fu = (np.round(np.asarray(a, dtype=float), 6) for a in (y, f, fu))
        case = {"name": name, "y": y.tolist(), "yhat": f.tolist(), "yhat_unlabeled": fu.tolist(), "checks": []}
        for lam in (None, 0.0, 0.5, 1.0):
            case["checks"].append({"what": "pointestimate", "lam": lam,
                                   "value": float(np.ravel(ppi_mean_pointestimate(y, f, fu, lam=lam))[0])})
            for alpha in (0.05, 0.1):
                lo, hi = ppi_mean_ci(y, f, fu, alpha=alpha, lam=lam)
                case["checks"].append({"what": "ci", "lam": lam, "alpha": alpha, "alternative": "two-sided",
                                       "value": [float(np.ravel(lo)[0]), float(np.ravel(hi)[0])]})
        # ppi_py drops `alternative` when it tunes lambda (it recurses without it): one-sided only at fixed lambda
        for lam in (0.3, 1.0):
            for ours, theirs in (("greater", "larger"), ("less", "smaller")):
                lo, hi = ppi_mean_ci(y, f, fu, alpha=0.05, alternative=theirs, lam=lam)
                case["checks"].append({"what": "ci", "lam": lam, "alpha": 0.05, "alternative": ours,
                                       "value": [float(np.ravel(lo)[0]), float(np.ravel(hi)[0])]})
                p = ppi_mean_pval(y, f, fu, null=2.0, alternative=theirs, lam=lam)
                case["checks"].append({"what": "pvalue", "lam": lam, "null": 2.0, "alternative": ours,
                                       "value": float(np.ravel(p)[0])})
            p = ppi_mean_pval(y, f, fu, null=0.5, alternative="two-sided", lam=lam)
            case["checks"].append({"what": "pvalue", "lam": lam, "null": 0.5, "alternative": "two-sided",
                                   "value": float(np.ravel(p)[0])})
        out["cases"].append(case)
    # weighted humans and personas (weights to a target population), on two of the datasets
    wrng = np.random.default_rng(7)
    for case in (out["cases"][0], out["cases"][4]):
        y, f, fu = (np.asarray(case[k]) for k in ("y", "yhat", "yhat_unlabeled"))
        w, wu = np.round(wrng.uniform(0.5, 2.0, len(y)), 6), np.round(wrng.uniform(0.5, 2.0, len(fu)), 6)
        case["w"], case["w_unlabeled"] = w.tolist(), wu.tolist()
        for lam in (None, 0.0, 0.5, 1.0):
            case["checks"].append({"what": "pointestimate", "lam": lam, "weighted": True, "value": float(
                np.ravel(ppi_mean_pointestimate(y, f, fu, lam=lam, w=w, w_unlabeled=wu))[0])})
            lo, hi = ppi_mean_ci(y, f, fu, alpha=0.05, lam=lam, w=w, w_unlabeled=wu)
            case["checks"].append({"what": "ci", "lam": lam, "alpha": 0.05, "alternative": "two-sided",
                                   "weighted": True, "value": [float(np.ravel(lo)[0]), float(np.ravel(hi)[0])]})
        p = ppi_mean_pval(y, f, fu, null=2.0, alternative="two-sided", lam=0.5, w=w, w_unlabeled=wu)
        case["checks"].append({"what": "pvalue", "lam": 0.5, "null": 2.0, "alternative": "two-sided",
                               "weighted": True, "value": float(np.ravel(p)[0])})
    json.dump(out, sys.stdout, allow_nan=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
