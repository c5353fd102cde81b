"""A study with [sequential] is bought in rounds of paraphrase pairs and stops when the test decides."""
import pytest

import survey
from survey.collect.sequential import read_paths
from survey.collect.store import Store
from survey.errors import SurveyError

STUDY = """
name = "seq"
store = "seq.sqlite"
replicates = 2
[personas]
set = "shoppers"
count = 20
[[messages]]
id = "sneakers"
perturbations = "sneakers"
count = 20
[[messages]]
id = "boots"
perturbations = "boots"
count = 20
[[models]]
name = "sim"
backend = "simulated"
seed = 3
[models.options]
rho = 0.3
deltas = {{ boots = {delta} }}
[sequential]
round_pairs = 4
spending = "pocock"
{extra}
"""


def _study(tmp_path, delta, extra=""):
    path = tmp_path / "seq.toml"
    path.write_text(STUDY.format(delta=delta, extra=extra))
    return survey.Study.from_toml(path)


def _paths(study):
    with Store(study.store_path) as s:
        return read_paths(s, study.name)


def test_a_clear_effect_stops_early_and_stores_the_path(tmp_path):
    study = _study(tmp_path, -2.0)
    study.run(yes=True, progress=False)
    doc = _paths(study)["sim"]
    assert doc["decision"] == "reject" and doc["pairs"] < 20
    assert [p["look"] for p in doc["path"]] == list(range(1, doc["look"] + 1))
    assert {"pairs", "statistic", "boundary", "spent_alpha"} <= set(doc["path"][-1])
    df = study.table()
    assert df.groupby("message").perturbation.nunique().to_dict() == {"sneakers": doc["pairs"], "boots": doc["pairs"]}
    assert len(df) == 2 * doc["pairs"] * 20 * 2 == doc["queries_used"]
    # the pairs bought are the first ones in design order, and replaying the table gives the same decision
    again = survey.sequential(df, "sneakers", "boots", round_pairs=4, spending="pocock", max_pairs=20)["sim"]
    assert again.result.decision == "reject" and again.result.look == doc["look"]
    # a second run buys nothing more
    study.run(yes=True, progress=False)
    assert len(study.table()) == len(df) and _paths(study)["sim"]["look"] == doc["look"]


def test_no_effect_runs_to_the_maximum_unless_futility_stops_it(tmp_path):
    study = _study(tmp_path, 0.0, "max_pairs = 8")
    study.run(yes=True, progress=False)
    doc = _paths(study)["sim"]
    assert doc["max_pairs"] == 8 and doc["pairs"] <= 8
    assert doc["decision"] in ("max-reached", "reject")
    assert study.table().perturbation.nunique() == 2 * doc["pairs"]


def test_bad_sequential_table_is_one_line(tmp_path):
    with pytest.raises(SurveyError, match="sequential"):
        _study(tmp_path, 0.0, 'spending = "linear"')
    study = _study(tmp_path, 0.0, 'a = "sandals"')
    with pytest.raises(SurveyError, match="sandals"):
        study.run(yes=True, progress=False)


def test_cli_run_prints_the_decision(tmp_path):
    from click.testing import CliRunner

    from survey.cli import cli

    _study(tmp_path, -2.0)
    out = CliRunner().invoke(cli, ["run", str(tmp_path / "seq.toml"), "--yes"], catch_exceptions=False).output
    assert "sim: sequential group-sequential test of sneakers vs boots: reject at look" in out
    assert survey.Study.from_toml(tmp_path / "seq.toml").sequential_results()["sim"]["decision"] == "reject"


def test_report_of_a_study_bought_in_rounds_plots_the_path(tmp_path):
    study = _study(tmp_path, -2.0)
    study.run(yes=True, progress=False)
    res = survey.report(study.store_path, tmp_path / "report")
    doc = res["sequential"]["sim"]
    assert doc["decision"] == "reject"
    html = (tmp_path / "report" / "index.html").read_text()
    assert "Sequential collection: the path against the boundary" in html and "saved" in html
