"""A/B analysis of rating scales and forced choice: mean scores, the effect in scale points, the top-2-box,
and the dispatch of survey.analyze / survey.estimate on the table's scale, recomputed by hand."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import survey
from survey import analyze, estimate
from survey import sequential as replay
from survey.data.table import validate_table
from survey.errors import SurveyError, TableError
from survey.kinds.choice.model import choice_table, simulate_choice_counts
from survey.kinds.choice.table import compare_choice
from survey.kinds.ordinal.estimate import category_counts, estimate_ordinal
from survey.responses import response_type
from survey.stats.comparison import compare_messages
from survey.stats.simulation import simulate

RNG = np.random.default_rng(12)
PERSONAS, M, R = ["P1", "P2", "P3"], 6, 2
# scores[message][persona][j] = the r replies of that cell; one reply of A is invalid (None)
SCORES = {msg: {p: [list(RNG.integers(1 + shift, 6, size=R)) for _ in range(M)] for p in PERSONAS}
          for msg, shift in (("A", 1), ("B", 0))}
SCORES["A"]["P2"][3] = [5, None]


def likert_rows(scale_column: bool = True) -> pd.DataFrame:
    rows = [{"model": "m", "message": msg, "perturbation": f"{msg.lower()}{j + 1}", "persona": p, "replicate": k,
             "answer": x} for msg, by in SCORES.items() for p, cells in by.items()
            for j, cell in enumerate(cells) for k, x in enumerate(cell)]
    df = pd.DataFrame(rows)
    if not scale_column:  # a hand-made table: answers as written, no scale named
        return df
    return validate_table(df.assign(scale="likert5"))


def by_hand(value=lambda x: x):
    """Per-cell means of value(score) over valid replies, (persona, j), for A and B, in plain Python."""
    out = {}
    for msg, by in SCORES.items():
        out[msg] = np.array([[sum(value(x) for x in cell if x is not None) / sum(x is not None for x in cell)
                              for cell in by[p]] for p in PERSONAS])
    return out["A"], out["B"]


def exact_sign_flip(d) -> float:
    obs = abs(sum(d))
    hits = sum(abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= obs - 1e-12
               for signs in itertools.product((1, -1), repeat=len(d)))
    return hits / 2 ** len(d)


def test_mean_scores_tests_and_effect_recomputed_by_hand():
    c = compare_messages(likert_rows(), "m", "A", "B")
    ta, tb = by_hand()
    d = (ta - tb).mean(axis=0)
    assert c.scale == "likert5" and c.unit == "mean score (1–5)"
    assert c.d_perturbation == pytest.approx(d, abs=1e-12)
    assert c.effect.estimate == pytest.approx(d.mean(), abs=1e-12)
    assert c.means == pytest.approx({"A": ta.mean(), "B": tb.mean()}, abs=1e-12)
    assert c.sign_flip.pvalue == pytest.approx(exact_sign_flip(d), abs=1e-12)
    # the effect's interval: [q-th smallest, q-th largest] of the subset means, q = floor(0.05 * 2^(m-1)) = 1
    means = [np.mean(s) for k in range(1, M) for s in itertools.combinations(d, k)]
    assert c.effect.ci == pytest.approx((min(means), max(means)), abs=1e-9)
    d_persona = ta.mean(axis=1) - tb.mean(axis=1)
    assert c.wilcoxon.pvalue == pytest.approx(stats.wilcoxon(d_persona).pvalue)
    assert c.sign.pvalue == pytest.approx(stats.binomtest(int((d_persona > 0).sum()), 3).pvalue)
    # the unpaired test on the per-perturbation means, by enumerating every split of the 12 means
    pooled = np.concatenate([ta.mean(axis=0), tb.mean(axis=0)])
    obs = abs(pooled[:M].mean() - pooled[M:].mean())
    splits = [abs(pooled[list(s)].mean() - np.delete(pooled, list(s)).mean())
              for s in itertools.combinations(range(2 * M), M)]
    assert c.unpaired.pvalue == pytest.approx(np.mean(np.array(splits) >= obs - 1e-12), abs=1e-12)
    # the invalid reply is counted, and its cell's mean is its one valid reply
    assert c.invalid == {"A": 1, "B": 0, "total": 1}
    assert c.theta_bar["A"][3] == pytest.approx(np.mean([5, *[np.mean(SCORES["A"][p][3]) for p in ("P1", "P3")]]))


def test_top_two_box_by_hand():
    c = compare_messages(likert_rows(), "m", "A", "B")
    ta, tb = by_hand(lambda x: float(x >= 4))
    d = (ta - tb).mean(axis=0)
    tb_res = c.top_box
    assert tb_res.points == [4, 5]
    assert tb_res.shares == pytest.approx({"A": ta.mean(), "B": tb.mean()}, abs=1e-12)
    assert tb_res.statistic == pytest.approx(d.mean(), abs=1e-12)
    assert tb_res.effect.estimate == pytest.approx(d.mean(), abs=1e-12)
    assert tb_res.pvalue == pytest.approx(exact_sign_flip(d), abs=1e-12)
    doc = c.to_dict()["top_box"]
    assert doc["points"] == [4, 5] and doc["pvalue"] == tb_res.pvalue and doc["effect"]["ci"] == list(tb_res.ci)


@pytest.mark.parametrize("scale, bound", [("likert5", 4.0), ("rating0-10", 10.0), ("likert0-4", 4.0)])
def test_effect_interval_bounded_by_the_scale_width(scale, bound):
    # m = 3 pairs: no effect can be rejected at 95%, so the interval is the whole range of a difference
    df = simulate(5, 3, 2, scale=scale, seed=3)
    c = compare_messages(df, "simulated", "A", "B")
    assert c.effect.ci == (-bound, bound)
    assert c.top_box.ci == (-1.0, 1.0)
    binary = compare_messages(simulate(5, 3, 2, seed=3), "simulated", "A", "B")
    assert binary.effect.ci == (-1.0, 1.0) and binary.top_box is None and binary.unit == "P(Yes)"
    assert binary.to_dict()["scale"] == "binary" and binary.to_dict()["top_box"] is None


def test_scale_without_top_box_and_exact_mode():
    three = simulate(6, 4, 2, scale="likert3", seed=1)
    assert compare_messages(three, "simulated", "A", "B").top_box is None  # 3 points: no top-2-box
    df = simulate(8, 6, 2, scale="likert5", seed=4, delta=0.5)
    exact = compare_messages(df, "simulated", "A", "B", probabilities=True)
    expected = df.groupby(["message", "perturbation"])["expected"].mean()
    d = expected["A"].to_numpy() - expected["B"].to_numpy()
    assert exact.effect.estimate == pytest.approx(d.mean(), abs=1e-9)
    assert exact.top_box is None  # no distribution column: no exact top-2-box
    # with the distribution column the exact top-2-box is the probability of the points 4 and 5
    dist = {1: 0.1, 2: 0.1, 3: 0.2, 4: 0.3, 5: 0.3}
    other = {1: 0.3, 2: 0.3, 3: 0.2, 4: 0.1, 5: 0.1}
    df["distribution"] = np.where(df["message"] == "A", json.dumps(dist), json.dumps(other))
    box = compare_messages(df, "simulated", "A", "B", probabilities=True).top_box
    assert box.shares == pytest.approx({"A": 0.6, "B": 0.2}) and box.effect.estimate == pytest.approx(0.4)


def test_invalid_answers_are_counted_never_clipped():
    assert response_type("likert5").parse("7") is None and response_type("rating1-7").parse("0") is None
    df = likert_rows(scale_column=False)
    df.loc[0, "answer"] = 7
    with pytest.raises(TableError, match="column 'answer' in rows of scale 'likert5' must be"):
        validate_table(df, scale="likert5")


def test_analyze_dispatches_on_the_scale_and_takes_a_scale_for_a_bare_table():
    plain = likert_rows(scale_column=False)
    with pytest.raises(SurveyError, match=r"scale .binary. must be 1 \(Yes\), 0 \(No\)"):  # scores 2..5 refused
        survey.analyze(plain, scale="binary")
    res = survey.analyze(plain, scale="likert5")
    ref = compare_messages(likert_rows(), "m", "A", "B")
    assert res.scale == "likert5" and res["m"].to_dict() == ref.to_dict()
    doc = res.to_dict()
    assert doc["scale"] == "likert5" and doc["unit"] == "mean score (1–5)" and doc["decided_by"] == "sign_flip"
    with pytest.raises(SurveyError, match="unknown response type 'likert'"):
        survey.analyze(plain, scale="likert")


def choice_df(seed=5, position=0.75):
    counts = simulate_choice_counts(12, 8, 3, np.random.default_rng(seed), delta=0.7, position=position)
    return choice_table(counts, 3, messages=("sneakers", "boots"))


def test_analyze_on_a_choice_table_gives_compare_choice():
    df = choice_df()
    res = analyze(df, flips=999, seed=2)
    ref = compare_choice(df, "simulated", "sneakers", "boots", n_resamples=999, seed=2)
    got = res["simulated"]
    assert res.kind.name == "choice" and got.to_dict() == ref.to_dict()
    assert res.significant("simulated") == (ref.preference.pvalue <= 0.05)
    (doc,) = res.to_dict()["results"]
    assert doc["model"] == "simulated" and doc["scale"] == "choice" and res.to_dict()["decided_by"] == "preference"
    assert doc["preference"]["share"] == ref.preference.share and doc["position_bias"]["ci"] == list(ref.position_bias.ci)
    assert doc["warning"] == ref.warning and ref.warning  # position 0.75 is flagged
    with pytest.raises(SurveyError, match="forced-choice"):
        estimate(df, "sneakers")
    with pytest.raises(SurveyError, match="pairing"):
        analyze(df, pairing=[("sneakers-01", "boots-01")])
    with pytest.raises(SurveyError, match="forced-choice"):
        replay(df, method="group-sequential", round_pairs=2)
    with pytest.raises(SurveyError, match="compare_choice"):
        compare_messages(df, "simulated", "sneakers", "boots")


def test_mixed_and_free_text_scales_are_refused():
    mixed = pd.concat([likert_rows(), validate_table(simulate(3, 2, 2, seed=1, model="m"))], ignore_index=True)
    with pytest.raises(SurveyError, match="mixes scales"):
        analyze(mixed)
    text = likert_rows().assign(scale="text", answer=pd.NA).astype({"answer": "Int16"})
    with pytest.raises(SurveyError, match="free text"):
        analyze(text)


def test_estimate_on_a_rating_scale_is_the_ordinal_estimator():
    df = simulate(10, 5, 3, scale="likert5", seed=8)
    res = estimate(df, "A", bootstrap=10, seed=1)
    sub = df[df["message"] == "A"]
    counts = np.zeros((10, 5, 5))
    for (p, j, s), k in sub.groupby(["persona", "perturbation", "answer"]).size().items():
        counts[int(p[1:]) - 1, int(j[2:]) - 1, s - 1] = k
    assert np.array_equal(category_counts(df, "simulated", "A", 1, 5), counts)
    ref = estimate_ordinal(counts, n_boot=10, seed=1)
    assert res["simulated"].to_dict() == ref.to_dict()
    assert res.to_dict()["scale"] == "likert5"
    with pytest.raises(SurveyError, match="appendix-c"):
        estimate(df, "A", method="appendix-c")


def test_betting_replay_on_a_rating_scale_bets_on_differences_scaled_to_one():
    from survey.stats.sequential.rule import sequential_test

    df = simulate(20, 12, 3, scale="likert5", delta=1.5, seed=1)
    c = compare_messages(df, "simulated", "A", "B")
    got = replay(df, method="betting", round_pairs=2)["simulated"].result
    ref = sequential_test(c.d_perturbation / 4, method="betting", round_pairs=2, max_pairs=12)
    assert got.decision == ref.decision and got.pvalue == ref.pvalue  # wealth from D / (high - low) in [-1, 1]
    assert got.statistic == pytest.approx(4 * ref.statistic) and got.statistic == pytest.approx(
        c.d_perturbation[:got.pairs].mean())
    assert got.confidence_sequence == pytest.approx(tuple(4 * x for x in ref.confidence_sequence))
    assert [row["statistic"] for row in got.path] == pytest.approx([4 * row["statistic"] for row in ref.path])


def test_mean_scores_equal_in_exact_arithmetic_tie_exactly():
    # persona P1's mean scores are equal as fractions (29/9), but the floats differ by 8.9e-16: the
    # difference must be exactly 0, so the sign test drops it as a tie instead of counting a negative
    cells = {("A", "P1"): [[2, 3, 3], [5, 4, 4], [1, 2, 5]], ("B", "P1"): [[2, 3, 5], [4, 5, 1], [3, 4, 2]],
             ("A", "P2"): [[5, 5, 5], [4, 4, 4], [3, 3, 3]], ("B", "P2"): [[1, 1, 1], [2, 2, 2], [3, 3, 3]]}
    assert np.mean(np.array(cells["A", "P1"]).sum(1) / 3) != np.mean(np.array(cells["B", "P1"]).sum(1) / 3)
    df = pd.DataFrame([{"model": "m", "message": msg, "perturbation": f"{msg}{j}", "persona": p, "replicate": k,
                        "answer": x, "scale": "likert5"}
                       for (msg, p), rows in cells.items() for j, row in enumerate(rows) for k, x in enumerate(row)])
    c = compare_messages(validate_table(df), "m", "A", "B")
    assert c.d_persona[0] == 0.0 and c.d_persona[1] == pytest.approx(2.0)
    assert c.sign.n == 1 and c.sign.statistic == 1.0


def test_python_api_on_a_source_read_with_its_scale(tmp_path):
    path = tmp_path / "ratings.csv"
    likert_rows(scale_column=False).to_csv(path, index=False)
    with pytest.raises(SurveyError, match="`scale=likert5`"):
        survey.load_source(path)
    src = survey.load_source(path, scale="likert5")
    res = survey.analyze(src)
    assert res.scale == "likert5" and res.completeness is not None and res.to_dict()["completeness"]
    assert res["m"].effect.estimate == pytest.approx(compare_messages(likert_rows(), "m", "A", "B").effect.estimate)
    choice_path = tmp_path / "choice.csv"
    choice_df().to_csv(choice_path, index=False)
    assert survey.analyze(survey.load_source(choice_path), flips=999).kind.name == "choice"


def test_a_forced_choice_table_in_one_order_says_so():
    # it once said "the table has one message": every prompt showed A first, and B second
    counts = simulate_choice_counts(6, 4, 2, np.random.default_rng(5))
    df = choice_table(counts, 2)
    one = df[df["message"] == "A"]
    with pytest.raises(SurveyError, match="showed A first and B second; the preference test needs both orders"):
        survey.analyze(one)
