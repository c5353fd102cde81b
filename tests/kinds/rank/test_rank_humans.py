"""A ranking study beside people through the kind's own comparison with people (its manifest's ``humans`` part):
survey.fidelity, `survey fidelity` (text and --json), `survey analyze --humans` and the report show the humans'
mean ranks and Borda scores beside each model's, every pair's Borda difference with intervals and Spearman's
correlation; the numbers are those of numpy, scipy.stats.t and scipy.stats.spearmanr on the file's table."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_result import run_cli
from scipy import stats
from test_rank_study import study_toml

import survey
from survey.common.kinds import manifest
from survey.errors import SurveyError

MESSAGES = ["sneakers", "boots", "sandals"]
RANKS = [(1, 2, 3), (1, 3, 2), (2, 1, 3), (1, 2, 3), (3, 1, 2), (1, 2, 3), (2, 3, 1), (1, 3, 2)]
FAST = {"flips": 999}


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rank-humans")
    rows = ["respondent,age," + ",".join(MESSAGES)] + [f"r{i},{30 + i},{a},{b},{c}" for i, (a, b, c) in enumerate(RANKS)]
    (folder / "ranks.csv").write_text("\n".join(rows) + "\n")
    toml = study_toml(MESSAGES).replace("positions = [0.6, 0.0, 0.0, -0.2]", "").replace(", loafers = -0.8", "")
    (folder / "study.toml").write_text(toml.replace("replicates = 2", 'replicates = 1\n\n[humans]\nfile = "ranks.csv"\n'
                                                                       "ask = false"))
    survey.Study.from_toml(folder / "study.toml").run(yes=True, progress=False)
    return folder


def t_interval(x, k, confidence=0.95):
    x = np.asarray(x, dtype=float)
    lo, hi = stats.t.interval(confidence, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    return max(lo, 1 - k if x.min() < 0 else 1), min(hi, k - 1 if x.min() < 0 else k)


def test_each_manifest_names_its_comparison_with_people():
    assert manifest("rank").humans == "survey.kinds.rank.humans:rank_fidelity"
    assert manifest("checkbox").humans == "survey.kinds.checkbox.humans:checkbox_fidelity"  # plugged in by one line
    assert manifest("binary").part("humans").__name__ == "human_fidelity"  # the per-message comparison by default


def test_the_numbers_are_numpy_and_scipy_on_the_table(study):
    res = survey.fidelity(study / "study.toml", **FAST)
    table = np.array(RANKS, dtype=float)  # respondents x messages
    k = len(MESSAGES)
    assert res.messages == MESSAGES and res.respondents == len(RANKS) and not res.weighted
    for i, m in enumerate(MESSAGES):
        assert res.mean_rank[m][0] == pytest.approx(table[:, i].mean())
        assert res.mean_rank[m][1] == pytest.approx(t_interval(table[:, i], k))
        assert res.borda[m][0] == pytest.approx(k - table[:, i].mean())
    for p in res.pairs:
        d = table[:, MESSAGES.index(p["b"])] - table[:, MESSAGES.index(p["a"])]  # Borda a − Borda b
        assert p["difference"] == pytest.approx(d.mean()) and p["ci"] == pytest.approx(t_interval(d, k))
    model = survey.analyze(survey.load_source(study / "store.sqlite"), "sneakers", "boots", **FAST).results[0]
    sim = res.models["sim"]
    assert {m: v["rank"] for m, v in sim["mean_rank"].items()} == pytest.approx(
        {m: v for m, (v, _) in model.mean_rank.items()})
    rho = stats.spearmanr([model.mean_rank[m][0] for m in MESSAGES], table.mean(axis=0)).statistic
    assert sim["spearman"] == pytest.approx(rho)
    for p in sim["pairs"]:  # the model's Borda differences: those of its pairwise tests, with an interval around them
        same = next(q for q in model.pairs if {q["a"], q["b"]} == {p["a"], p["b"]})
        sign = 1 if same["a"] == p["a"] else -1
        assert p["difference"] == pytest.approx(sign * same["difference"]) and p["ci"][0] <= p["difference"] <= p["ci"][1]
    assert sim["difference"] == pytest.approx({m: model.mean_rank[m][0] - table[:, i].mean()
                                               for i, m in enumerate(MESSAGES)})


def test_python_shows_it_briefly(study):
    res = survey.fidelity(study / "study.toml", **FAST)
    text = repr(res)
    assert len(text) < 1000 and "Spearman" in text and "sim mean rank" in text
    page = res._repr_html_()
    assert "<table>" in page and "sim mean rank" in page and "sandals" in page
    assert json.loads(json.dumps(res.to_dict()))["models"]["sim"]["spearman"] == pytest.approx(res.models["sim"]["spearman"])


def test_survey_fidelity_text_and_json(study, capsys):
    code, out, err = run_cli(capsys, "fidelity", study / "study.toml", "--seed", "0")
    assert code == 0, err
    for words in ("8 respondents", "mean rank (1 = best)", "pairs: Borda score A − Borda score B", "Spearman",
                  "sneakers − boots", "sim: mean rank"):
        assert words in out, words
    code, out, err = run_cli(capsys, "fidelity", study / "study.toml", "--json")
    assert code == 0, err
    got = json.loads(out)
    py = survey.fidelity(study / "study.toml")
    assert got["kind"] == "rank" and got["mean_rank"]["boots"]["rank"] == pytest.approx(17 / 8)
    assert got["models"]["sim"]["spearman"] == pytest.approx(py.models["sim"]["spearman"])


def test_by_is_refused_in_one_line(study, capsys):
    code, out, err = run_cli(capsys, "fidelity", study / "study.toml", "--by", "age")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "segments" in err and "Traceback" not in err
    code, out, err = run_cli(capsys, "fidelity", study / "study.toml", "--by", "age", "--json")
    assert code == 2 and list(json.loads(out)) == ["error"]
    with pytest.raises(SurveyError, match="a ranking is compared with people over all respondents"):
        survey.fidelity(study / "study.toml", by="age")


def test_analyze_with_humans_shows_the_ranking_comparison(study, capsys):
    store, humans = study / "store.sqlite", study / "ranks.csv"
    code, out, err = run_cli(capsys, "analyze", store, "--humans", humans, "--a", "sneakers", "--b", "boots")
    assert code == 0, err
    assert "mean rank (1 = best)" in out and "Spearman" in out
    code, out, err = run_cli(capsys, "analyze", store, "--humans", humans, "--a", "sneakers", "--b", "boots", "--json")
    assert code == 0, err
    got = json.loads(out)
    assert got["humans"]["kind"] == "rank" and got["humans"]["mean_rank"]["sneakers"]["rank"] == pytest.approx(1.5)
    model = got["results"][0]["mean_rank"]  # the comparison takes the analysis' own results
    assert got["humans"]["models"]["sim"]["mean_rank"]["boots"]["rank"] == pytest.approx(model["boots"]["rank"])


def test_the_report_shows_the_section_with_its_tables_and_figure(study):
    src = survey.load_source(study / "store.sqlite")
    survey.report(src, out=study / "report")
    page = (study / "report" / "index.html").read_text()
    section = page[page.index("<h2>Does it match people?</h2>"):]
    section = section[:section.index("<h2>", 5)]
    for words in ("<caption>mean rank (1 = best) and Borda score (k − mean rank)</caption>",
                  "<caption>pairs: Borda score A − Borda score B", "Spearman", "sim: mean rank",
                  "Mean rank of each message (1 = best) given by the humans"):
        assert words in section, words
    assert "No comparison with people" not in page
    results = json.loads((study / "report" / "results.json").read_text())
    assert results["humans"]["kind"] == "rank" and results["humans"]["respondents"] == len(RANKS)


def test_pick_keeps_its_one_line_refusal(tmp_path, capsys):
    toml = study_toml(MESSAGES, 'type = "pick"').replace("positions = [0.6, 0.0, 0.0, -0.2]", "").replace(
        ", loafers = -0.8", "")
    rows = ["respondent,message,answer"] + [f"r{i},{m},1" for i in range(3) for m in MESSAGES]
    (tmp_path / "h.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "study.toml").write_text(toml.replace("replicates = 2", "replicates = 1"))
    survey.Study.from_toml(tmp_path / "study.toml").run(yes=True, progress=False)
    code, out, err = run_cli(capsys, "fidelity", tmp_path / "store.sqlite", "--humans", tmp_path / "h.csv")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "about the messages shown together" in err


def test_a_message_every_respondent_ranks_alike_says_its_interval_leaves_out_their_spread():
    """All 20 respondents rank sneakers first: its t interval is [1, 1], zero width, though a message ranked first
    with probability 0.98 is ranked first by all 20 two times in three. The result says so in a note."""
    import pandas as pd

    from survey.kinds.rank.humans import human_ranks

    rng = np.random.default_rng(0)
    rows = []
    for i in range(20):
        rest = rng.permutation([2, 3])
        rows += [{"respondent": f"r{i}", "message": m, "answer": int(r), "weight": 1.0}
                 for m, r in zip(MESSAGES, [1, *rest], strict=True)]
    people = human_ranks(type("H", (), {"table": pd.DataFrame(rows), "path": None})())
    assert people.mean_rank["sneakers"] == (1.0, (1.0, 1.0))
    assert len(people.notes) == 1 and "sneakers (rank 1)" in people.notes[0] and "zero width" in people.notes[0]
    assert "boots" not in people.notes[0] and "zero width" in repr(people)
    assert people.to_dict()["notes"] == people.notes
