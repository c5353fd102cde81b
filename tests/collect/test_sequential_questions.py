"""A study of several questions with [sequential]: every question bought for each round's pairs, the
stopping rule on the primary question's rows only, and a refusal when no primary is named."""
import pytest

import survey
from survey.data.sequential_paths import read_paths
from survey.data.store import Store
from survey.errors import SurveyError

STUDY = """
name = "seqq"
store = "seqq.sqlite"
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
[[questions]]
id = "appeal"
type = "likert"
points = 5
[[questions]]
id = "intent"
type = "binary"
[[questions]]
id = "price"
type = "rating"
{analysis}
[[models]]
name = "sim"
backend = "simulated"
seed = 3
[models.options]
rho = 0.3
deltas = {{ boots = -2.0 }}
[sequential]
round_pairs = 4
spending = "pocock"
"""


def _study(tmp_path, analysis):
    path = tmp_path / "seqq.toml"
    path.write_text(STUDY.format(analysis=analysis))
    return survey.Study.from_toml(path)


def test_a_strong_primary_stops_early_with_every_question_bought_for_each_pair(tmp_path):
    study = _study(tmp_path, '[analysis]\nprimary = "intent"')
    study.run(yes=True, progress=False)
    with Store(study.store_path) as s:
        doc = read_paths(s, study.name)["sim"]
    assert doc["decision"] == "reject" and doc["pairs"] < 20
    df = study.table()
    # each question holds the same rows: the round's pairs of both messages, every persona and replicate
    per_question = df.groupby("question").size().to_dict()
    assert per_question == {q: 2 * doc["pairs"] * 20 * 2 for q in ("appeal", "intent", "price")}
    cells = df.groupby("question").apply(lambda g: frozenset(zip(g.message, g.perturbation, g.persona,
                                                                 g.replicate, strict=True)), include_groups=False)
    assert cells.nunique() == 1
    # the decision is the primary question's: replaying its rows alone gives the same look
    intent = df[df.question == "intent"]
    again = survey.sequential(intent, "sneakers", "boots", round_pairs=4, spending="pocock", max_pairs=20)["sim"]
    assert again.result.decision == "reject" and again.result.look == doc["look"]
    # the analysis: the primary decided by the sequential test, the others as fixed designs
    res = survey.analyze(survey.load_source(study.store_path))
    by_q = {r.question: r for r in res.results}
    assert by_q["intent"].result.sequential is not None
    assert by_q["appeal"].result.sequential is None and by_q["price"].result.sequential is None
    # a second run buys nothing more
    study.run(yes=True, progress=False)
    assert len(study.table()) == len(df)


def test_several_questions_without_a_primary_are_refused_in_one_line(tmp_path):
    with pytest.raises(SurveyError) as exc:
        _study(tmp_path, "")
    assert "[analysis] primary" in str(exc.value) and "\n" not in str(exc.value)
    assert not (tmp_path / "seqq.sqlite").exists()
