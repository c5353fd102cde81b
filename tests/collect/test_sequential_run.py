"""A study with [sequential] is bought in rounds of paraphrase pairs and stops when the test decides."""
import pytest
from batch_jobs import keep_job

import survey
from survey.data.sequential_paths import read_paths
from survey.data.store import Store
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


class _BatchJobs:
    """Simulated answers through a batch API kept across runs (class-level, like a provider's)."""

    jobs: dict = {}
    submits: list = []
    hold = None  # a job id: polling it interrupts the run, leaving the job open


def _batch_backend():
    from survey.backends.base import Capabilities
    from survey.backends.simulated import SimulatedBackend

    class SimBatch(SimulatedBackend):
        capabilities = Capabilities(paid=False, needs_model_id=False, batch=True)

        async def submit_batch(self, queries):
            return keep_job(_BatchJobs.jobs, _BatchJobs.submits, queries)

        async def batch_status(self, job_id):
            if job_id == _BatchJobs.hold:
                raise KeyboardInterrupt  # the run stops while this job is open
            return "SUCCESS"

        async def fetch_batch(self, job_id):
            return {q.custom_id: await self.complete(q) for q in _BatchJobs.jobs[job_id]}

    return SimBatch


SimBatch = None


def test_batch_backend_one_job_per_round_and_a_resume_never_resubmits(tmp_path, monkeypatch):
    from survey.backends import BACKENDS, register_backend

    global SimBatch
    SimBatch = _batch_backend()
    monkeypatch.setitem(BACKENDS, "simbatch", "")
    register_backend("simbatch", f"{__name__}:SimBatch", replace=True)
    _BatchJobs.jobs, _BatchJobs.submits, _BatchJobs.hold = {}, [], None
    path = tmp_path / "seq.toml"
    path.write_text(STUDY.format(delta=-2.0, extra="").replace('backend = "simulated"',
                                                               'backend = "simbatch"\nbatch = true'))
    study = survey.Study.from_toml(path)
    study.run(yes=True, progress=False, poll_interval=0.0)
    doc = study.sequential_results()["sim"]
    assert doc["decision"] == "reject"
    assert len(_BatchJobs.submits) == doc["look"]  # one batch job per round
    sizes = [len(_BatchJobs.jobs[j]) for j in _BatchJobs.submits]
    assert sizes == [2 * 4 * 20 * 2] * doc["look"]  # each round: 4 new pairs x 2 messages x personas x r
    with Store(study.store_path) as s:
        assert {j["job_id"] for j in s.batch_jobs("seq", "sim")} == set(_BatchJobs.submits)


def test_a_run_interrupted_during_a_rounds_batch_job_resumes_that_job(tmp_path, monkeypatch):
    from survey.backends import BACKENDS, register_backend

    global SimBatch
    SimBatch = _batch_backend()
    monkeypatch.setitem(BACKENDS, "simbatch", "")
    register_backend("simbatch", f"{__name__}:SimBatch", replace=True)
    _BatchJobs.jobs, _BatchJobs.submits, _BatchJobs.hold = {}, [], "job-2"
    path = tmp_path / "seq.toml"
    path.write_text(STUDY.format(delta=-0.8, extra="").replace('backend = "simulated"',
                                                               'backend = "simbatch"\nbatch = true'))
    study = survey.Study.from_toml(path)
    first = study.run(yes=True, progress=False, poll_interval=0.0)
    assert first.interrupted and _BatchJobs.submits == ["job-1", "job-2"]
    with Store(study.store_path) as s:
        assert [j["job_id"] for j in s.batch_jobs("seq", "sim", open_only=True)] == ["job-2"]
    _BatchJobs.hold = None
    study.run(yes=True, progress=False, poll_interval=0.0)
    doc = study.sequential_results()["sim"]
    held = {q.custom_id for q in _BatchJobs.jobs["job-2"]}
    later = [j for j in _BatchJobs.submits[2:]]
    assert not any(held & {q.custom_id for q in _BatchJobs.jobs[j]} for j in later)  # never resubmitted
    assert len(study.table()) == 2 * doc["pairs"] * 20 * 2


def test_a_study_that_stopped_early_is_complete_for_what_it_bought(tmp_path):
    # Before, the queries the stopping rule chose not to buy counted as "missing" and every analysis warned
    # that the study was incomplete.
    study = _study(tmp_path, -2.0)
    study.run(yes=True, progress=False)
    doc = _paths(study)["sim"]
    m = study.load().completeness.model("sim")
    assert m.expected == 2 * doc["pairs"] * 20 * 2 == m.stored and m.missing == 0 and m.complete
    assert "stopped by the sequential test (reject)" in m.stopped and not study.load().completeness.warnings()
    assert m.to_dict()["stopped"] == m.stopped


def test_analysis_of_a_sequential_store_is_decided_by_the_sequential_test(tmp_path, capsys):
    # O'Brien-Fleming over 3 looks of 4 pairs: at this seed the 12 pairs collected give a fixed-design
    # sign-flip p of .0488, while the test the study stopped by reached its maximum at p = .0566. The
    # headline once said "significant, p = 0.0488".
    import json

    from survey.cli import main

    text = (STUDY.format(delta=-0.35, extra="max_pairs = 12")
            .replace('spending = "pocock"', 'spending = "obrien-fleming"').replace("seed = 3", "seed = 8")
            .replace('perturbations = "sneakers"\ncount = 20', 'perturbations = "sneakers"\ncount = 12')
            .replace('perturbations = "boots"\ncount = 20', 'perturbations = "boots"\ncount = 12'))
    (tmp_path / "seq.toml").write_text(text)
    study = survey.Study.from_toml(tmp_path / "seq.toml")
    study.run(yes=True, progress=False)
    res = survey.analyze(study.load())
    r = res["sim"]
    assert r.tests["sign_flip"].pvalue == pytest.approx(0.0488, abs=5e-4)  # fixed design: would "reject"
    assert r.decision.method == "group-sequential" and r.decision.decision == "max-reached"
    assert r.decision.pvalue == pytest.approx(0.0566, abs=5e-4) and not res.significant("sim")
    doc = res.to_dict()["results"][0]
    assert doc["decided_by"] == "sequential" and doc["significant"] is False
    assert "not valid for the stopping rule" in doc["sequential"]["note"]
    main(["analyze", str(study.store_path), "--json"])
    cli = json.loads(capsys.readouterr().out)["results"][0]
    assert cli["decided_by"] == "sequential" and cli["significant"] is False
    # B vs A reads the same test with the statistic's sign turned
    flipped = survey.analyze(study.load(), a="boots", b="sneakers")["sim"]
    assert flipped.decision.statistic == -r.decision.statistic and flipped.decision.pvalue == r.decision.pvalue


def test_a_sequential_run_reports_every_round_and_its_decision(tmp_path, capsys):
    # it once printed "1920 replies stored in 2.5 s" (the last round) for 9 600 stored, and --json had no decision
    import json

    from survey.cli import main

    study = _study(tmp_path, 0.0, "max_pairs = 8")
    try:
        main(["run", str(tmp_path / "seq.toml"), "--json"])
    except SystemExit as exc:
        assert exc.code in (0, None)
    doc = json.loads(capsys.readouterr().out)
    assert doc["run"]["stored"] == len(study.table())  # every round, not the last
    assert doc["sequential"]["sim"]["decision"] in ("reject", "max-reached", "futility")
    assert doc["sequential"]["sim"]["pairs"] == study.sequential_results()["sim"]["pairs"]
