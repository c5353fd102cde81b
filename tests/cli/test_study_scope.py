"""A study cut from 30 personas to 10 and run again: analyze, compare and the report analyse the 10 of
the current design and name the 20 personas whose rows the store still holds (it used to read all 30)."""

import json

from click.testing import CliRunner

from survey.api.study import Study
from survey.cli import cli
from survey.reporting.entry import report


def spec(personas: int) -> dict:
    return {"name": "cut", "store": "store.sqlite", "replicates": 1,
            "personas": {"set": "shoppers", "count": personas},
            "messages": [{"id": "sneakers", "perturbations": "sneakers", "count": 3},
                         {"id": "boots", "perturbations": "boots", "count": 3}],
            "models": [{"name": "sim", "backend": "simulated", "seed": 7,
                        "options": {"mu": 0.45, "deltas": {"boots": -0.4}}}]}


def test_a_study_cut_from_30_to_10_personas_is_analysed_with_10(tmp_path):
    assert Study(spec(30), base_dir=tmp_path).run().stored == 180
    assert Study(spec(10), base_dir=tmp_path).run().stored == 0  # nothing new to send
    store = str(tmp_path / "store.sqlite")
    doc = json.loads(CliRunner().invoke(cli, ["analyze", store, "--json"], catch_exceptions=False).output)
    (res,) = doc["results"]
    assert res["n_personas"] == 10 and doc["study"] == "cut"
    c = doc["completeness"]
    assert c["complete"] is True and c["models"][0]["expected"] == c["models"][0]["stored"] == 60
    assert c["outside_design"]["rows"] == 120 and len(c["outside_design"]["personas"]) == 20
    out = CliRunner().invoke(cli, ["analyze", store], catch_exceptions=False).output
    assert "WARNING: the store holds 120 rows of study 'cut' outside the study's current design " \
           "(20 personas no longer in it: 10, 11, 12" in out and "10 personas" in out
    doc = json.loads(CliRunner().invoke(cli, ["compare", store, "--json", "--flips", "99"]).output)
    assert doc["models"]["models"][0]["n_personas"] == 10
    res = report(store, tmp_path / "report")
    assert res["results"][0]["n_personas"] == 10 and res["summary"][0]["personas"] == 10
    assert "20 personas no longer in it" in (tmp_path / "report" / "index.html").read_text()


def test_the_python_api_is_scoped_the_same_way(tmp_path):
    import survey

    Study(spec(30), base_dir=tmp_path).run()
    study = Study(spec(10), base_dir=tmp_path)
    study.run()
    assert study.table()["persona"].nunique() == 10
    res = survey.analyze(study.load())
    assert res["sim"].n_personas == 10 and res.completeness.outside["rows"] == 120
    assert res.to_dict()["study"] == "cut" and res.completeness.complete is True
