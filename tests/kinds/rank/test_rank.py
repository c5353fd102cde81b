"""Ranking the k messages shown together (survey.kinds.rank): the parsing table, the Borda scores and mean ranks
against a computation from scipy's rankdata, Holm against statsmodels, exact mode, weights, size and power by
simulation (small; bench/rank.py has the 2 000-survey table) and the bad inputs, one clear line each."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata, spearmanr
from statsmodels.stats.multitest import multipletests

from survey.data.humans import validate_humans
from survey.errors import SurveyError
from survey.kinds.ordinal.direction_sim import binomial_interval
from survey.kinds.rank.humans import compare_rankings_with_humans, human_ranks
from survey.kinds.rank.parsing import RankOrder, code_of, read_ranking
from survey.kinds.rank.simulation import rejection_rates, simulate_rank_table
from survey.kinds.rank.table import compare_rank, rank_arrays
from survey.responses import response_type

MESSAGES = ["sneakers", "boots", "sandals"]


@pytest.mark.parametrize("reply, k, expected", [
    ("2 > 1 > 3", 3, 213),
    ("2, 1, 3", 3, 213),
    ("2 1 3", 3, 213),
    ("2;1;3", 3, 213),
    ("213", 3, 213),
    ("**3 > 1 > 2**", 3, 312),
    ("Option 2 > Option 1 > Option 3", 3, 213),
    ("#3 -> #2 -> #1", 3, 321),
    ("My ranking: 3 > 1 > 2", 3, 312),
    ("2 > 1 > 3. Sneakers are what I wear.", 3, 213),
    ("2 > 1", 3, 213),  # the last place implied
    ("4 > 2 > 1", 4, 4213),
    ("7 6 5 4 3 2 1", 7, 7654321),
    ("2 > 2 > 1", 3, None),  # a number twice
    ("2", 3, None),  # fewer than k - 1 numbers
    ("2 > 1", 4, None),
    ("4 > 1 > 2", 3, None),  # outside 1..k
    ("2 = 1 > 3", 3, None),  # a tie
    ("2 > 1 = 3", 3, None),
    ("2 or 1 > 3", 3, None),  # a hedge
    ("2 > 1 or 3", 3, None),
    ("2/1/3", 3, None),
    ("2 > 1 > 3 or 1 > 2 > 3", 3, None),
    ("2 > 1 > 3 > 1", 3, None),  # the list goes on
    ("2 1 3 4", 3, None),
    ("2 > 1 >", 3, None),  # cut off
    ("21", 3, None),
    ("1. Option 2\n2. Option 1\n3. Option 3", 3, None),  # a list numbered by place is not read
    ("2.5 > 1 > 3", 3, None),
    ("", 3, None),
    (None, 3, None),
])
def test_the_parsing_table(reply, k, expected):
    assert response_type(f"rank{k}").parse(reply) == expected


def test_labels_are_every_ordering_and_parse_to_themselves():
    for k in (3, 5):
        rtype = RankOrder(k)
        assert len(rtype.labels) == len(list(itertools.permutations(range(k))))
        assert all(rtype.parse(label) == code for code, label in rtype.labels.items())
    assert read_ranking("3 > 1 > 2", 3) == [3, 1, 2] and code_of([3, 1, 2]) == 312


@pytest.mark.parametrize("scale, says", [("rank8", "3 to 7 messages; got 8"), ("rank2", "pick one of 2")])
def test_a_scale_outside_3_to_7_is_refused_in_one_line(scale, says):
    with pytest.raises(SurveyError, match=says) as err:
        response_type(scale)
    assert "\n" not in str(err.value)


def _table_from_utilities(n: int, m: int, r: int, seed: int) -> tuple[pd.DataFrame, dict]:
    """A ranking table whose every reply ranks random utilities with scipy's rankdata, and each message's
    order-averaged mean rank computed from those ranks directly (persona means first, as the statistics do)."""
    rng = np.random.default_rng(seed)
    k, rows = len(MESSAGES), []
    for j in range(m):
        order = rng.permutation(k)
        for s in range(k):
            shown = [MESSAGES[order[(s + t) % k]] for t in range(k)]
            for i in range(n):
                for rep in range(r):
                    util = rng.normal(size=k) + np.array([0.8 if msg == "sneakers" else 0.0 for msg in shown])
                    rank_of_position = rankdata(-util).astype(int)  # 1 = best
                    code = code_of(np.argsort(rank_of_position) + 1)
                    rows.append({"model": "m", "message": shown[0], "perturbation": f"{shown[0]}-{j}",
                                 "persona": f"p{i}", "replicate": rep, "answer": code, "scale": "rank3",
                                 "shown": "|".join(shown), "shown_perturbations": "|".join(f"{x}-{j}" for x in shown),
                                 "_ranks": dict(zip(shown, rank_of_position, strict=True)), "_set": j})
    df = pd.DataFrame(rows)
    long = pd.DataFrame([{"set": row["_set"], "shown": row["shown"], "persona": row["persona"], "message": msg,
                          "rank": rk} for row in rows for msg, rk in row["_ranks"].items()])
    # per set and message: mean over arrangements of the persona mean of the replicate mean rank
    direct = (long.groupby(["set", "shown", "message", "persona"])["rank"].mean()
              .groupby(["set", "shown", "message"]).mean().groupby(["set", "message"]).mean()
              .groupby("message").mean())
    return df.drop(columns=["_ranks", "_set"]), direct.to_dict()


def test_mean_ranks_and_borda_scores_equal_a_rankdata_computation():
    df, direct = _table_from_utilities(5, 6, 2, seed=3)
    res = compare_rank(df, "m", "sneakers", "boots", n_resamples=99)
    for msg in MESSAGES:
        assert res.mean_rank[msg][0] == pytest.approx(direct[msg], abs=1e-9)
        assert res.borda[msg][0] == pytest.approx(3 - direct[msg], abs=1e-9)
        lo, hi = res.mean_rank[msg][1]
        assert 1 <= lo <= res.mean_rank[msg][0] <= hi <= 3
    assert res.effect.estimate == pytest.approx(direct["boots"] - direct["sneakers"], abs=1e-9)
    assert sum(s for s, _ in res.borda.values()) == pytest.approx(3.0)  # the Borda points of one ranking


def test_holm_over_the_pairs_matches_statsmodels():
    df = simulate_rank_table(8, 8, 2, MESSAGES, seed=5, deltas={"sneakers": 0.6, "sandals": -0.4})
    res = compare_rank(df, "sim", "boots", "sandals", n_resamples=999)
    raw = [p["raw_pvalue"] for p in res.pairs]
    assert [p["pvalue"] for p in res.pairs] == pytest.approx(list(multipletests(raw, method="holm")[1]))
    mine = next(p for p in res.pairs if {p["a"], p["b"]} == {"boots", "sandals"})
    assert res.pair.pvalue == pytest.approx(mine["pvalue"]) and res.pair.raw_pvalue == pytest.approx(mine["raw_pvalue"])


def test_exact_mode_reads_the_expected_borda_scores():
    df = simulate_rank_table(5, 6, 1, MESSAGES, seed=2, deltas={"boots": 0.5})
    one_hot = df.assign(distribution=df["answer"].map(lambda c: json.dumps({str(int(c)): 1.0})))
    by_answer = compare_rank(df, "sim", "sneakers", "boots", n_resamples=99)
    by_mass = compare_rank(one_hot, "sim", "sneakers", "boots", n_resamples=99, probabilities=True)
    assert by_mass.borda == by_answer.borda
    halves = df.assign(distribution=json.dumps({"123": 0.5, "321": 0.5}))  # every position expects Borda 1
    flat = compare_rank(halves, "sim", "sneakers", "boots", n_resamples=99, probabilities=True)
    assert all(s == pytest.approx(1.0) for s, _ in flat.borda.values())


def test_position_bias_is_found_and_cancels_from_the_scores():
    df = simulate_rank_table(10, 8, 2, MESSAGES, seed=8, positions=[1.5, 0.0, -1.0])
    res = compare_rank(df, "sim", "sneakers", "boots", n_resamples=499)
    assert res.position.mean_ranks[0] < 2 < res.position.mean_ranks[2] and res.position.pvalue < 0.01
    assert "position bias" in res.warning
    assert all(abs(s - 1.0) < 0.3 for s, _ in res.borda.values())


def test_persona_weights_weigh_the_persona_means():
    df = simulate_rank_table(6, 8, 2, MESSAGES, seed=11, deltas={"boots": 0.5})
    personas = sorted(df["persona"].unique())
    plain = compare_rank(df, "sim", "sneakers", "boots", n_resamples=99)
    equal = compare_rank(df, "sim", "sneakers", "boots", n_resamples=99, weights=dict.fromkeys(personas, 2.0))
    assert equal.effect.estimate == pytest.approx(plain.effect.estimate, abs=1e-12)
    one = {p: (1.0 if p == personas[0] else 0.0) for p in personas}
    alone = compare_rank(df[df["persona"] == personas[0]], "sim", "sneakers", "boots", n_resamples=99)
    assert compare_rank(df, "sim", "sneakers", "boots", n_resamples=99, weights=one).effect.estimate == \
        pytest.approx(alone.effect.estimate, abs=1e-9)


def test_invalid_replies_are_counted_and_left_out():
    df = simulate_rank_table(6, 6, 2, MESSAGES, seed=4, invalid_rate=0.2)
    res = compare_rank(df, "sim", "sneakers", "boots", n_resamples=99)
    assert res.invalid == int(df["answer"].isna().sum()) > 0
    M, _, _ = rank_arrays(df, "sim")
    assert np.allclose(M.sum(axis=-1), 1.0)  # Borda shares of the valid replies sum to one


SURVEYS = 600


@pytest.mark.parametrize("rho", [0.0, 0.3, 0.6])
def test_size_inside_the_binomial_band(rho):
    """The pairwise test (messages 1 vs 2, a third far better, under position bias), Holm's family-wise error
    with no difference at all, and the position test without position bias."""
    lo, hi = binomial_interval(0.05, SURVEYS)
    pair = rejection_rates(SURVEYS, 10, 8, 1, 3, rho=rho, deltas=[0, 0, 1.5], positions=[0.8, 0, -0.3], tau=0.5,
                           n_resamples=99, seed=int(rho * 10))
    family = rejection_rates(SURVEYS, 10, 8, 1, 3, rho=rho, positions=[0.8, 0, -0.3], n_resamples=99, seed=5)
    position = rejection_rates(SURVEYS, 10, 8, 1, 3, rho=rho, deltas=[0.5, 0, -0.5], n_resamples=99, seed=7)
    assert lo <= pair["pair"] <= hi and family["holm_any"] <= hi and lo <= position["position"] <= hi


def test_power_with_the_right_sign():
    res = rejection_rates(300, 20, 10, 2, 4, rho=0.3, deltas=[0.6, 0, 0, 0], positions=[0.3, 0, 0, 0],
                          n_resamples=99, seed=4)
    assert res["pair_greater"] > 0.5 and res["pair_less"] == 0 and res["position"] > 0.8


def test_a_table_without_a_latin_square_is_refused():
    df = simulate_rank_table(4, 3, 1, MESSAGES, seed=1)
    first = df["shown"].str.split("|").str[0]
    with pytest.raises(SurveyError, match="Latin square"):
        compare_rank(df[first != "boots"], "sim", "sneakers", "boots")


def _human_file(ranks: dict) -> pd.DataFrame:
    return pd.DataFrame([{"respondent": rid, "message": msg, "answer": str(r), "age": 30 + i}
                         for i, (rid, given) in enumerate(ranks.items()) for msg, r in zip(MESSAGES, given, strict=True)])


def test_human_rankings_beside_the_models():
    people = _human_file({"r1": (1, 2, 3), "r2": (2, 1, 3), "r3": (1, 3, 2), "r4": (1, 2, 3)})
    humans = validate_humans(people, "rank3", MESSAGES)
    mine = human_ranks(humans)
    assert mine.mean_rank["sneakers"][0] == pytest.approx(1.25) and mine.borda["sandals"][0] == pytest.approx(3 - 2.75)
    assert mine.pair("sneakers", "boots")["difference"] == pytest.approx(2.0 - 1.25)
    df = simulate_rank_table(8, 8, 2, MESSAGES, seed=6, deltas={"sneakers": 1.0, "sandals": -1.0})
    res = compare_rank(df, "sim", "sneakers", "boots", n_resamples=99)
    both = compare_rankings_with_humans([res], humans)
    expected = spearmanr([res.mean_rank[m][0] for m in MESSAGES], [mine.mean_rank[m][0] for m in MESSAGES]).statistic
    assert both.models["sim"]["spearman"] == pytest.approx(expected)


@pytest.mark.parametrize("ranks, says", [
    ({"r1": (1, 1, 3)}, "respondent 'r1' gave ranks 1, 1, 3"),  # a rank twice
    ({"r1": (1, 2, 4)}, "from 1 \\(best\\) to 3; found '4'"),
    ({"r1": (1, 2, "best")}, "found 'best'"),
])
def test_bad_human_rankings_are_refused_in_one_line(ranks, says):
    with pytest.raises(SurveyError, match=says) as err:
        validate_humans(_human_file(ranks), "rank3", MESSAGES)
    assert "\n" not in str(err.value)


def test_a_respondent_who_ranked_only_some_messages_is_refused():
    people = _human_file({"r1": (1, 2, 3), "r2": (2, 1, 3)}).iloc[:-1]
    with pytest.raises(SurveyError, match="respondent 'r2' gave ranks 1, 2"):
        validate_humans(people, "rank3", MESSAGES)
