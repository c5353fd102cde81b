"""One estimator default everywhere: `survey estimate`, `survey compare --fit` and the report print the same
fit on the same data (they once printed rho-hat 0.243 and 0.065: moments against appendix C)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import survey
from survey.cli import main


@pytest.mark.parametrize("scale", ["binary", "likert5"])
def test_estimate_compare_and_report_print_the_same_fit(tmp_path, capsys, scale):
    df = pd.concat([survey.simulate(n=16, m=8, r=3, seed=3, scale=scale),
                    survey.simulate(n=16, m=8, r=3, seed=4, scale=scale).assign(model="other")])
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    main(["estimate", str(path), "--message", "A", "--bootstrap", "0", "--json"])
    est = {r["model"]: r for r in json.loads(capsys.readouterr().out)["results"]}
    main(["compare", str(path), "--flips", "99", "--json"])
    cmp = {m["model"]: m["fit"] for m in json.loads(capsys.readouterr().out)["models"]["models"]}
    report = survey.report(str(path), out=tmp_path / "r", flips=99)
    names = ("mu", "kappa", "sigma", "rho") if scale == "binary" else ("tau", "sigma", "rho")
    for model in ("simulated", "other"):
        for p in names:
            assert est[model][p] == pytest.approx(cmp[model][p], abs=1e-12)
            assert est[model][p] == pytest.approx(report["fits"][model]["A"][p], abs=1e-12)
