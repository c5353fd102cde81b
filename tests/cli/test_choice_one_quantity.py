"""A forced choice reports one preference: the same number under the same name in `survey analyze` (text and
--json), `survey compare` (text and --json) and the report (index.html and results.json).

Before, one preference showed as three numbers: the centred statistic (0.0926) in analyze's tests, the share
choosing A (0.593) beside it and in the report, and the A − B difference (+0.185) in compare."""

import json

import numpy as np
import pandas as pd
import pytest
from cli_result import run_cli

from survey.data.table import write_table
from survey.stats.choice import preference_name
from survey.stats.choice_model import choice_table, simulate_choice_counts

FLIPS = 99


@pytest.fixture(scope="module")
def choice_csv(tmp_path_factory):
    rng = np.random.default_rng(11)
    tables = [choice_table(simulate_choice_counts(12, 8, 3, rng, delta=d), 3, model=name)
              for name, d in (("x", 0.8), ("y", -0.3))]
    return write_table(pd.concat(tables), tmp_path_factory.mktemp("choice") / "choice.csv")


def test_analyze_compare_and_the_report_show_one_preference(capsys, choice_csv, tmp_path):
    name = preference_name("A", "B")
    code, out, err = run_cli(capsys, "analyze", choice_csv, "--flips", FLIPS, "--json")
    assert code == 0, err
    analyzed = {r["model"]: r for r in json.loads(out)["results"]}
    code, out, err = run_cli(capsys, "compare", choice_csv, "--flips", FLIPS, "--json")
    assert code == 0, err
    compared = {m["model"]: m for m in json.loads(out)["models"]["models"]}
    code, _, err = run_cli(capsys, "report", choice_csv, "--out", tmp_path / "rep", "--flips", FLIPS)
    assert code == 0, err
    reported = {r["model"]: r for r in json.loads((tmp_path / "rep" / "results.json").read_text())["results"]}
    html = " ".join((tmp_path / "rep" / "index.html").read_text().split())
    code, analyze_text, _ = run_cli(capsys, "analyze", choice_csv, "--flips", FLIPS)
    code2, compare_text, _ = run_cli(capsys, "compare", choice_csv, "--flips", FLIPS)
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
