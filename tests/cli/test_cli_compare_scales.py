"""`survey compare` on a rating-scale table and a forced-choice table: wording, --kappa-weights, --json; a forced
choice's one preference, the same number under the same name in analyze, compare and the report."""

import json

import numpy as np
import pandas as pd
import pytest
from cli_result import run_cli
from sklearn.metrics import cohen_kappa_score

from survey.data.table import validate_table, write_table
from survey.kinds.choice.model import choice_table, simulate_choice_counts
from survey.kinds.choice.statistics import preference_name
from survey.kinds.choice.table import compare_choice
from survey.kinds.ordinal.table import scale_params, simulate_table
from survey.stats.agreement import model_agreement


@pytest.fixture(scope="module")
def likert_csv(tmp_path_factory):
    tables = [simulate_table(scale_params("likert5", tau=1.0, sigma=0.5, rho=0.5, delta=d), 15, 8, 3, seed=s, model=name)
              for name, d, s in (("x", 1.2, 1), ("y", -1.2, 2))]
    return write_table(pd.concat(tables), tmp_path_factory.mktemp("likert") / "likert.csv")


@pytest.fixture(scope="module")
def choice_csv(tmp_path_factory):
    rng = np.random.default_rng(5)
    tables = [choice_table(simulate_choice_counts(15, 8, 3, rng, delta=d), 3, model=name)
              for name, d in (("x", 1.0), ("y", -1.0))]
    return write_table(pd.concat(tables), tmp_path_factory.mktemp("choice") / "choice.csv")


def test_compare_on_a_likert_table_speaks_in_mean_scores(capsys, likert_csv):
    code, out, err = run_cli(capsys, "compare", likert_csv, "--flips", 99)
    assert code == 0, err
    text = " ".join(out.split())  # rich wraps long titles at the terminal's width
    assert "effect = mean score(A) − mean score(B), in points of the likert5 scale" in text
    assert "P(Yes)" not in out and "Beta-logit" not in out
    assert "ordinal-model parameters" in text and "quadratic-weighted kappas" in text
    assert "CONCLUSION DEPENDS ON THE MODEL" in out
    code, out, _ = run_cli(capsys, "compare", likert_csv, "--flips", 99, "--kappa-weights", "linear")
    assert code == 0 and "linear-weighted kappas" in out


@pytest.mark.parametrize("weights", ["auto", "linear", "none"])
def test_compare_json_on_a_likert_table(capsys, likert_csv, weights):
    code, out, err = run_cli(capsys, "compare", likert_csv, "--flips", 99, "--kappa-weights", weights, "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["models"]["scale"] == "likert5" and d["models"]["unit"] == "mean score (1–5)"
    assert d["models"]["direction"]["conflict"] is True
    ag = d["agreement"]
    used = {"auto": "quadratic"}.get(weights, weights)
    assert ag["scale"] == "likert5" and ag["weights"] == used
    labels = model_agreement(validate_table(pd.read_csv(likert_csv, dtype={"persona": str}))).labels.dropna()
    ref = cohen_kappa_score(labels["x"], labels["y"], labels=[1, 2, 3, 4, 5],
                            weights=None if used == "none" else used)
    assert ag["pairs"][0]["kappa"] == pytest.approx(ref, abs=1e-12)
    assert "P(Yes)" not in out


def test_compare_on_forced_choice_reports_the_preference(capsys, choice_csv):
    code, out, err = run_cli(capsys, "compare", choice_csv, "--flips", 99)
    assert code == 0, err
    assert "share A" not in out
    assert "effect = preference for A: share choosing A − share choosing B" in " ".join(out.split())
    assert "P(Yes)" not in out and "Beta-logit" not in out and "Cohen kappa" in out
    code, out, err = run_cli(capsys, "compare", choice_csv, "--flips", 99, "--json")
    assert code == 0, err
    d = json.loads(out)
    df = validate_table(pd.read_csv(choice_csv, dtype={"persona": str}))
    for s in d["models"]["models"]:
        ref = compare_choice(df, s["model"], "A", "B", n_resamples=99).preference
        assert s["share_a"] == pytest.approx(ref.share) and s["pvalues"]["sign_flip"] == pytest.approx(ref.pvalue)
        assert s["share_a_ci"] == pytest.approx(list(ref.ci))  # the share form, kept as an alias
        assert s["effect"]["estimate"] == pytest.approx(ref.statistic) == pytest.approx(2 * ref.share - 1)
    assert d["models"]["scale"] == "choice" and d["agreement"]["weights"] == "none"


def test_bad_kappa_weights_exit_2(capsys, likert_csv):
    code, _, err = run_cli(capsys, "compare", likert_csv, "--kappa-weights", "cubic")
    assert code == 2 and "cubic" in err


# Before, one preference showed as three numbers: the centred statistic (0.0926) in analyze's tests, the
# share choosing A (0.593) beside it and in the report, and the A − B difference (+0.185) in compare.

def test_analyze_compare_and_the_report_show_one_preference(capsys, choice_csv, tmp_path):
    name = preference_name("A", "B")
    code, out, err = run_cli(capsys, "analyze", choice_csv, "--flips", 99, "--json")
    assert code == 0, err
    analyzed = {r["model"]: r for r in json.loads(out)["results"]}
    code, out, err = run_cli(capsys, "compare", choice_csv, "--flips", 99, "--json")
    assert code == 0, err
    compared = {m["model"]: m for m in json.loads(out)["models"]["models"]}
    code, _, err = run_cli(capsys, "report", choice_csv, "--out", tmp_path / "rep", "--flips", 99)
    assert code == 0, err
    reported = {r["model"]: r for r in json.loads((tmp_path / "rep" / "results.json").read_text())["results"]}
    html = " ".join((tmp_path / "rep" / "index.html").read_text().split())
    code, analyze_text, _ = run_cli(capsys, "analyze", choice_csv, "--flips", 99)
    code2, compare_text, _ = run_cli(capsys, "compare", choice_csv, "--flips", 99)
    assert code == code2 == 0
    compare_text = " ".join(compare_text.split())  # rich wraps long titles

    assert set(analyzed) == set(compared) == set(reported) == {"x", "y"}
    for model, a in analyzed.items():
        value = a["effect"]["estimate"]
        # one name, one number: the JSON of analyze, compare and the report, under the same keys
        assert a["quantity"] == reported[model]["quantity"] == name
        assert a["preference"]["quantity"] == "share choosing A − share choosing B, both orders averaged"
        assert value == a["preference"]["estimate"] == a["preference"]["statistic"]
        assert value == reported[model]["effect"]["estimate"] == reported[model]["preference"]["estimate"]
        assert value == pytest.approx(compared[model]["effect"]["estimate"], abs=1e-12)
        assert a["effect"]["ci"] == a["preference"]["estimate_ci"] == reported[model]["effect"]["ci"]
        assert a["preference"]["share"] == pytest.approx((1 + value) / 2)  # the alias is the share form of it
        # the text shows that number, under that name, and not its share or centred forms
        assert f"{name} = {value:+.4f}" in analyze_text
        assert f"{value:+.3f}" in compare_text and f"{value:+.3f}" in html
        for other in ((1 + value) / 2, value / 2):
            assert f"{other:.3f}" not in analyze_text.replace(f"{value:+.4f}", "")
            assert f"{other:.3f}" not in html
    assert "effect = preference for A: share choosing A − share choosing B" in compare_text
    assert f"the {name} is" in html
