"""Do a checkbox question's models agree? The across-models heterogeneity test compares like with like: per option
the models' effects on that option (every model on the same option, never each on its own deciding one), Holm
across the options, the smallest adjusted p deciding and its option named. Checked against an independent
computation (a brute-force sign flip per option on the indicator tables, statsmodels' Holm), under the null (no
difference between A and B in any model, models with different base rates: each option's test inside the 99%
binomial band of alpha, the smallest Holm p at most its top), and as a user reads it (survey compare text and
--json, the report, Python)."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from cli_result import run_cli
from scipy.stats import binom
from statsmodels.stats.multitest import multipletests

import survey
from survey.kinds.checkbox.parsing import CheckboxScale
from survey.kinds.checkbox.power import draw_ticks
from survey.stats.across_models import compare_models, model_heterogeneity
from survey.stats.tie_breaking import data_seed

OPTIONS = ["comfortable", "stylish", "good value", "durable"]


def models_table(effects: dict, n: int = 6, m: int = 8, r: int = 2, seed: int = 0) -> pd.DataFrame:
    """A checkbox table of several models sharing paraphrase pairs; model X's A replies shifted by effects[X]."""
    rng = np.random.default_rng(seed)
    scale = CheckboxScale(OPTIONS, 1, 3)
    rows = []
    for msg in ("A", "B"):
        for j in range(m):
            u = rng.normal(0, 0.5)
            for model, effect in effects.items():
                for i in range(n):
                    shift = (effect if msg == "A" else 0.0) + u + np.sin(i)
                    for k in range(r):
                        rows.append(dict(model=model, message=msg, perturbation=f"{msg}{j}", persona=f"p{i}",
                                         replicate=k, answer=scale.parse(scale.simulated_reply(shift, rng)),
                                         scale="checkbox4-1-3", options="|".join(OPTIONS)))
    return pd.DataFrame(rows)


def brute_heterogeneity(d: np.ndarray, u: float) -> float:
    """All 2^m sign vectors (one per pair, shared by the models), ties broken by ``u``, at least 2/2^m: two models
    the sign-flip test of D_j^1 − D_j^2, more the sum over models of (mean_j eps_j c_j^k)^2 on the centred c."""
    m = d.shape[1]
    signs = np.array(list(itertools.product((1, -1), repeat=m)), dtype=float)
    if len(d) == 2:
        stat, obs = np.abs(signs @ (d[0] - d[1])), abs((d[0] - d[1]).sum())
    else:
        c = d - d.mean(axis=0)
        stat, obs = ((c @ signs.T / m) ** 2).sum(axis=0), float((c.mean(axis=1) ** 2).sum())
    tol = 1e-9 * max(obs, 1e-12)
    beyond, tied = np.sum(stat > obs + tol), np.sum(np.abs(stat - obs) <= tol)
    return max(beyond + u * tied, 2) / len(signs)


@pytest.mark.parametrize("effects", [{"m1": 1.5, "m2": -0.5}, {"m1": 1.5, "m2": 0.0, "m3": -1.0}])
def test_each_option_is_compared_across_models_against_an_independent_computation(effects):
    df = models_table(effects)
    res = compare_models(df, "A", "B", n_resamples=999)
    het = res.heterogeneity
    assert het.part_word == "option" and [x["option"] for x in het.parts] == OPTIONS
    raw = []
    for i, part in enumerate(het.parts):
        ticked = df.assign(v=df["answer"].astype(int) // (1 << i) % 2)
        para = ticked.groupby(["model", "message", "perturbation", "persona"])["v"].mean().groupby(
            ["model", "message", "perturbation"]).mean()
        d = np.array([para[x]["A"].to_numpy() - para[x]["B"].to_numpy() for x in effects])  # (K, m) on option i
        u = np.random.default_rng(data_seed(0, i, d)).random()  # option i's U: the seed (0), its index, its data
        assert part["pvalue"] == pytest.approx(brute_heterogeneity(d, u)), part
        raw.append(part["pvalue"])
    holm = multipletests(raw, method="holm")[1]
    assert [x["holm"] for x in het.parts] == pytest.approx(list(holm))
    assert het.pvalue == pytest.approx(min(holm)) and het.part == OPTIONS[int(np.lexsort((raw, holm))[0])]
    doc = res.to_dict()["heterogeneity"]
    assert doc["option"] == het.part and doc["adjustment"] == "holm over the options"
    assert "every option's share" in doc["null"] and "deciding option's share" not in doc["null"]


class _Drawn:
    """A model's checkbox result as the heterogeneity test reads it: option -> {pair: difference}."""

    part_word, interaction_ties = "option", "random"

    def __init__(self, model: str, d: np.ndarray):
        self.model, self.d = model, d  # (m, k)

    def interaction_parts(self) -> dict:
        return {o: {j: float(x) for j, x in enumerate(self.d[:, i])} for i, o in enumerate(OPTIONS)}


STUDIES = 1000
LOW, HIGH = binom.interval(0.99, STUDIES, 0.05) / np.array(STUDIES)


def test_the_null_holds_the_size_with_models_of_different_base_rates():
    """No difference between A and B in any of 3 models whose base rates differ (locations −1, 0, 1.5), paraphrase
    shifts shared by the models: each option's test rejects inside the 99% band of alpha, the smallest Holm p at
    most the band's top."""
    rng = np.random.default_rng(11)
    n, m, r, K = 6, 8, 2, 3
    base = np.array([-1.0, 0.0, 1.5])[:, None, None]  # (K, 1, 1)
    raw, decided = [], []
    for s in range(STUDIES):
        shift = rng.normal(0, 0.5, (2, 1, 1, m))  # per message and pair, shared by the models
        persona = rng.normal(0, 1, (K, n, 1))
        loc = base + persona + shift  # (2, K, n, m)
        ticks = draw_ticks(4, 1, 3, loc, r, rng).mean(axis=(-2))  # (2, K, n, m, k): shares per cell
        d = (ticks[0] - ticks[1]).mean(axis=1)  # (K, m, k)
        het = model_heterogeneity([_Drawn(f"m{k}", d[k]) for k in range(K)], n_resamples=999, seed=s)
        raw.append([x["pvalue"] for x in het.parts])
        decided.append(het.pvalue)
    rates = (np.array(raw) <= 0.05).mean(axis=0)
    assert ((LOW <= rates) & (rates <= HIGH)).all(), rates
    assert np.mean(np.array(decided) <= 0.05) <= HIGH


def test_compare_says_which_option_decides_in_text_json_report_and_python(tmp_path, capsys):
    df = models_table({"m1": 1.5, "m2": -0.5})
    df.to_csv(tmp_path / "t.csv", index=False)
    res = survey.compare(df, "A", "B", n_resamples=999).models
    het = res.heterogeneity
    code, out, err = run_cli(capsys, "compare", tmp_path / "t.csv", "--a", "A", "--b", "B", "--flips", "999")
    assert code == 0, err
    assert f"the smallest Holm p over the 4 options, option '{het.part}'" in out
    assert "on option" in out and "98.75% CI" in out  # each model's effect names its option, at its level
    code, out, err = run_cli(capsys, "compare", tmp_path / "t.csv", "--a", "A", "--b", "B", "--flips", "999",
                             "--json")
    assert code == 0, err
    doc = json.loads(out)["models"]
    assert doc["heterogeneity"]["option"] == het.part and len(doc["heterogeneity"]["per_option"]) == 4
    assert [x["option"] for x in doc["models"]] == [s.comparison.decision.option for s in res.models]
    survey.report(df, out=tmp_path / "r", a="A", b="B")
    html = (tmp_path / "r" / "index.html").read_text()
    assert f"option &#39;{het.part}&#39;" in html or f"option '{het.part}'" in html
