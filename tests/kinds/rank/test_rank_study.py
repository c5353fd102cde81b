"""A ranking study end to end, the way the fourth-kind test walks a plugin kind (tests/extension): the study file,
a run on the simulated backend, analyze (with segments and weights), plan, report and the command line (text and
--json), with the study-file mistakes refused in one line each."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_result import run_cli

import survey
from survey import RankPlan
from survey.errors import SurveyError

MESSAGES = ("sneakers", "boots", "sandals", "loafers")


def study_toml(messages=MESSAGES, question: str = 'type = "rank"') -> str:
    entries = "".join(f'\n[[messages]]\nid = "{m}"\nperturbations = "{m if m in MESSAGES else "sneakers"}"\ncount = 8\n'
                      for m in messages)
    return f"""
name = "rank-study"
store = "store.sqlite"
replicates = 2

[personas]
set = "shoppers"
count = 12
sample_seed = 1
{entries}
[question]
{question}

[segments]
by = "age:18-39,40+"

[[models]]
name = "sim"
backend = "simulated"
seed = 3

[models.options]
deltas = {{ sneakers = 1.2, loafers = -0.8 }}
positions = [0.6, 0.0, 0.0, -0.2]
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rank")
    (folder / "study.toml").write_text(study_toml())
    study = survey.Study.from_toml(folder / "study.toml")
    assert study.spec.question.type == "rank4"
    study.run(yes=True, progress=False)
    return folder


def test_the_study_runs_on_the_simulated_backend(store):
    table = survey.load_source(store / "store.sqlite").table
    assert set(table["scale"]) == {"rank4"} and table["answer"].notna().all()
    assert (table["ranking"].str.count(r"\|") == 3).all()
    first = table["ranking"].str.split("|").str[0]
    assert (first == table["shown"].str.split("|").str[0]).mean() > 0.25  # the first position leans ahead
    assert (first == "sneakers").mean() > 0.4


def test_analyze_with_segments_and_weights(store):
    src = survey.load_source(store / "store.sqlite")
    res = survey.analyze(src, "sneakers", "loafers", flips=999)
    r = res["sim"]
    assert r.effect.estimate > 0 and res.significant("sim")
    assert r.mean_rank["sneakers"][0] < r.mean_rank["loafers"][0] and r.position.mean_ranks[0] < 2.5
    assert len(r.pairs) == 6 and r.pair.pvalue >= r.pair.raw_pvalue
    assert [s.segment for s in r.segments.segments] == ["18-39", "40+"]  # the study's segments
    every = survey.analyze(src, every_pair=True, flips=99)
    assert len(every.results) == 6 and every.to_dict()["results"][0]["scale"] == "rank4"
    personas = sorted(src.table["persona"].unique())
    weighted = survey.analyze(src, "sneakers", "loafers", flips=99,
                              weights={p: (2.0 if i % 2 else 1.0) for i, p in enumerate(personas)})
    population = weighted["sim"].segments.population.result  # the ranking compared with persona weights
    assert population.effect.estimate != pytest.approx(r.effect.estimate, abs=1e-6) and population.effect.estimate > 0


def test_too_few_sets_for_holm_say_so(store):
    src = survey.load_source(store / "store.sqlite")
    few = src.table[src.table["shown_perturbations"].str.contains("-0[1-5]")]
    r = survey.analyze(few, "sneakers", "loafers", flips=99)["sim"]
    assert any("no pair can be called different" in n for n in r.notes)


def test_plan_simulates_the_power_of_the_holm_test():
    res = survey.plan(RankPlan(0.8, scale="rank4"), designs=["8,6,1", "20,12,2"], simulations=150)
    power = [x.power["sign_flip"] for x in res.results]
    assert power[0] < power[1] and power[1] > 0.5
    null = survey.plan(RankPlan(0.0, scale="rank3", rho=0.6), designs=["10,8,1"], simulations=400)
    assert null.results[0].power["sign_flip"] <= 0.05 + 2.576 * np.sqrt(0.05 * 0.95 / 400)
    assert res.to_dict()["params"]["scale"] == "rank4"


def test_report_and_command_line(store, tmp_path, capsys):
    doc = survey.report(survey.load_source(store / "store.sqlite"), out=tmp_path / "r")
    page = (tmp_path / "r" / "index.html").read_text()
    assert "ranked several messages shown together" in page and "Borda score" in page and "mean rank" in page
    assert doc["results"][0]["pairs"]
    code, out, err = run_cli(capsys, "analyze", store / "store.sqlite", "--a", "sneakers", "--b", "loafers")
    assert code == 0, err
    assert "ranking of 4, positions averaged" in out and "mean rank by position" in out and "Holm p" in out
    code, out, _ = run_cli(capsys, "analyze", store / "store.sqlite", "--a", "sneakers", "--b", "loafers", "--json")
    r = json.loads(out)["results"][0]
    assert code == 0 and r["scale"] == "rank4" and r["effect"]["estimate"] > 0 and len(r["pairs"]) == 6
    code, out, _ = run_cli(capsys, "plan", "--scale", "rank4", "--delta", "0.8", "--design", "10,8,1",
                           "--simulations", "50", "--json")
    assert code == 0 and json.loads(out)["params"]["scale"] == "rank4"


@pytest.mark.parametrize("messages, question, says", [
    ([f"m{i}" for i in range(8)], 'type = "rank"', "a ranking shows 3 to 7 messages; got 8"),
    (["sneakers", "boots"], 'type = "rank"', "ranking two is pick one of 2"),
    (["sneakers", "boots", "sandals"], 'type = "rank4"', "type = 'rank4' ranks 4 messages; the study has 3"),
    (["sneakers", "boots", "sandals"], 'type = "rank"\nsubset = 3', "subset only applies to type = 'maxdiff'"),
])
def test_study_file_mistakes_are_one_line(tmp_path, capsys, messages, question, says):
    (tmp_path / "study.toml").write_text(study_toml(messages, question).replace(
        "positions = [0.6, 0.0, 0.0, -0.2]", ""))
    with pytest.raises(SurveyError, match=says):
        survey.Study.from_toml(tmp_path / "study.toml")
    code, out, err = run_cli(capsys, "run", tmp_path / "study.toml", "--dry-run")
    assert code == 2 and says.split(";")[0] in err and "Traceback" not in err
    code, out, _ = run_cli(capsys, "run", tmp_path / "study.toml", "--dry-run", "--json")
    assert code == 2 and set(json.loads(out)) == {"error"}


def test_duplicate_message_ids_are_refused(tmp_path):
    (tmp_path / "study.toml").write_text(study_toml(["sneakers", "boots", "sneakers"]).replace(
        "positions = [0.6, 0.0, 0.0, -0.2]", ""))
    with pytest.raises(SurveyError, match="sneakers"):
        survey.Study.from_toml(tmp_path / "study.toml").run(yes=True, progress=False)


@pytest.mark.parametrize("args, says", [
    (["--scale", "rank8", "--delta", "0.5"], "a ranking shows 3 to 7 messages; got 8"),
    (["--scale", "rank3", "--delta", "0.5", "--messages", "4"], "ranks its 3 messages together"),
    (["--scale", "rank3", "--delta", "0.5,0"], "3 finite numbers"),
    (["--scale", "rank3", "--delta", "0.5", "--mu", "0.4"], "--mu does not apply to scale 'rank3'"),
])
def test_plan_mistakes_are_one_line(capsys, args, says):
    code, out, err = run_cli(capsys, "plan", *args, "--design", "4,4,1", "--simulations", "50", "--json")
    assert code == 2 and says in json.loads(out)["error"]
    code, out, err = run_cli(capsys, "plan", *args, "--design", "4,4,1", "--simulations", "50")
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1


def test_unequal_paraphrase_counts_are_refused_in_the_rank_words(tmp_path):
    toml = study_toml(["sneakers", "boots", "sandals"]).replace("positions = [0.6, 0.0, 0.0, -0.2]", "")
    (tmp_path / "study.toml").write_text(toml.replace('perturbations = "boots"\ncount = 8', 'perturbations = "boots"\ncount = 7'))
    with pytest.raises(SurveyError, match="type = 'rank3' shows the j-th paraphrase of every message together"):
        survey.Study.from_toml(tmp_path / "study.toml").run(yes=True, progress=False)


def test_a_study_with_human_rankings(tmp_path, capsys):
    """A wide human file (one column per message, each cell the rank given): read through the study, set beside
    the model by survey.compare_rankings_with_humans, and by survey.fidelity, the report and `survey fidelity`
    through the kind's own comparison with people (tests/kinds/rank/test_rank_humans.py checks its numbers)."""
    rows = ["respondent,age,sneakers,boots,sandals"] + [f"r{i},{30 + i},{a},{b},{c}" for i, (a, b, c) in
                                                      enumerate([(1, 2, 3), (1, 3, 2), (2, 1, 3), (1, 2, 3)])]
    (tmp_path / "ranks.csv").write_text("\n".join(rows) + "\n")
    toml = study_toml(["sneakers", "boots", "sandals"]).replace("positions = [0.6, 0.0, 0.0, -0.2]", "").replace(
        ", loafers = -0.8", "")
    (tmp_path / "study.toml").write_text(toml.replace('replicates = 2', 'replicates = 1\n\n[humans]\nfile = "ranks.csv"\n'
                                                                      'ask = false'))
    study = survey.Study.from_toml(tmp_path / "study.toml")
    study.run(yes=True, progress=False)
    src = survey.load_source(tmp_path / "store.sqlite")
    assert src.humans is not None and sorted(src.humans.table["answer"].unique()) == [1, 2, 3]
    res = survey.analyze(src, every_pair=True, flips=99)
    people = survey.compare_rankings_with_humans(res, src.humans)
    assert people.mean_rank["sneakers"][0] == pytest.approx(1.25) and -1 <= people.models["sim"]["spearman"] <= 1
    assert people.to_dict()["models"]["sim"]["pair"]["humans"] == people.pair(res.results[0].a,
                                                                               res.results[0].b)["difference"]
    assert survey.fidelity(src, flips=99).mean_rank == people.mean_rank
    survey.report(src, out=tmp_path / "r")
    assert "No comparison with people" not in (tmp_path / "r" / "index.html").read_text()
    code, out, err = run_cli(capsys, "fidelity", tmp_path / "store.sqlite", "--json")
    assert code == 0 and json.loads(out)["kind"] == "rank", err


@pytest.mark.parametrize("ask", ["", "\nask = true"])
def test_a_ranking_does_not_ask_the_models_about_its_respondents(tmp_path, capsys, ask):
    """A ranking has no prediction-powered estimate, so asking the models about each human respondent buys
    nothing and would add them to the persona population: left at its default, ask is skipped (12 personas
    only); set to true by the user, it is refused in one line before anything is sent."""
    rows = ["respondent,age,sneakers,boots,sandals"] + [f"r{i},{30 + i},1,2,3" for i in range(4)]
    (tmp_path / "ranks.csv").write_text("\n".join(rows) + "\n")
    toml = study_toml(["sneakers", "boots", "sandals"]).replace("positions = [0.6, 0.0, 0.0, -0.2]", "").replace(
        ", loafers = -0.8", "")
    (tmp_path / "study.toml").write_text(toml.replace("replicates = 2", f'replicates = 1\n\n[humans]\nfile = "ranks.csv"{ask}'))
    if ask:
        code, out, err = run_cli(capsys, "run", tmp_path / "study.toml", "--yes", "--json")
        assert code == 2 and "ask = true" in json.loads(out)["error"] and not (tmp_path / "store.sqlite").exists()
        return
    survey.Study.from_toml(tmp_path / "study.toml").run(yes=True, progress=False)
    table = survey.load_source(tmp_path / "store.sqlite").table
    assert table["persona"].nunique() == 12 and not table["persona"].astype(str).str.startswith("human-").any()


def test_the_mean_rank_line_lists_the_messages_as_the_borda_table_does(store):
    """The levels' note of mean ranks follows the set's message order, whatever order the results came in (it
    kept the kind's own order while the Borda rows were put in the set's)."""
    from survey.stats.analysis_results import Analysis
    from survey.stats.message_set import message_set_analysis

    res = survey.analyze(survey.load_source(store / "store.sqlite"), flips=99)
    inner = Analysis(res.results, res.left_out, res.completeness, res.alpha, res.view, res.options)
    for order in (list(MESSAGES), list(reversed(MESSAGES)), ["sandals", "sneakers", "loafers", "boots"]):
        levels = message_set_analysis(inner, {"sim": order}).sets[0].levels
        assert list(levels.values) == order
        line = next(n for n in levels.notes if n.startswith("mean rank: "))
        assert [x.split()[0] for x in line.removeprefix("mean rank: ").split(", ")] == order
        assert list(levels.extra["mean_rank"]) == order
