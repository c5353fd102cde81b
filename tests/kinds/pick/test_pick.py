"""Pick one of k (survey.kinds.pick.statistics, survey.kinds.pick.table): the statistics against direct computations,
the k = 2 case against forced choice, Holm against statsmodels, and size and power by simulation (small;
bench/pick.py has the full table)."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from survey.kinds.choice.statistics import choice_test
from survey.kinds.ordinal.direction_sim import binomial_interval
from survey.kinds.pick.simulation import rejection_rates
from survey.kinds.pick.statistics import (
    cell_shares,
    message_shares,
    pick_test,
    position_pvalues,
    position_shares,
)
from survey.kinds.pick.table import compare_pick, pick_arrays, simulate_pick_arrays, simulate_pick_table

MESSAGES = ["sneakers", "boots", "sandals"]


def test_shares_from_the_table_equal_a_direct_computation():
    df = simulate_pick_table(7, 5, 3, MESSAGES, seed=3, deltas={"sneakers": 0.7}, positions=[0.6, 0.0, -0.2],
                             invalid_rate=0.1)
    M, at, info = pick_arrays(df, "sim")
    assert sorted(info["messages"]) == sorted(MESSAGES) and len(info["sets"]) == 5
    rows = df.assign(position=df["answer"], set=df["shown_perturbations"].map(lambda s: sorted(s.split("|"))[0]))
    rows = rows.dropna(subset=["answer"])
    for j, label in enumerate(sorted(rows["set"].unique())):
        block = rows[rows["set"] == label]
        for a, msg in enumerate(info["messages"]):
            # order-averaged: for each position t, the persona mean of the share choosing msg when shown at t
            by_position = []
            for t in range(3):
                shown_at = block[block["shown"].map(lambda s, t=t: s.split("|")[t]) == msg]
                per_persona = (shown_at["chosen"] == msg).groupby(shown_at["persona"]).mean()
                by_position.append(per_persona.mean())
            assert message_shares(M)[j, a] == pytest.approx(np.mean(by_position), abs=1e-12)
        for t in range(3):
            per_persona = (block["position"] == t + 1).groupby([block["persona"], block["shown"]]).mean()
            assert position_shares(M, at)[j, t] == pytest.approx(per_persona.groupby(level=1).mean().mean(), abs=1e-12)


def test_two_messages_are_forced_choice():
    """For k = 2 the pairwise test is forced choice's preference test, and the share its share choosing A."""
    chosen, valid, at = simulate_pick_arrays(1, 9, 8, 3, 2, deltas=[0.5, 0], positions=[0.4, 0], seed=1)
    chosen, valid, at = chosen[0], valid[0], at[0]
    first_a = np.array([[chosen[i, j, list(at[j, :, 0]).index(0), 0] for j in range(8)] for i in range(9)])
    first_b = np.array([[chosen[i, j, list(at[j, :, 0]).index(1), 1] for j in range(8)] for i in range(9)])
    v_a = np.array([[valid[i, j, list(at[j, :, 0]).index(0)] for j in range(8)] for i in range(9)])
    v_b = np.array([[valid[i, j, list(at[j, :, 0]).index(1)] for j in range(8)] for i in range(9)])
    fc = choice_test(first_a, v_a, first_b, v_b, flips=999)
    res = pick_test(cell_shares(chosen, valid), at, 0, 1, messages=["A", "B"], flips=999)
    assert res.pair.raw_pvalue == pytest.approx(fc.preference.pvalue, abs=1e-12)
    assert res.pair.pvalue == res.pair.raw_pvalue  # one pair: nothing to adjust
    assert res.shares["A"][0] == pytest.approx(fc.preference.share, abs=1e-12)
    assert res.position.shares[0] == pytest.approx(fc.position_bias.share, abs=1e-12)
    # the permutation of the two arrangements is the sign flip: the same p-value up to Monte Carlo error
    assert abs(res.position.pvalue - fc.position_bias.pvalue) < 0.03


def test_holm_over_the_pairs_matches_statsmodels():
    df = simulate_pick_table(12, 10, 2, MESSAGES, seed=5, deltas={"sneakers": 0.8})
    raw = [compare_pick(df, "sim", a, b, n_resamples=999).pair.raw_pvalue for a, b in itertools.combinations(MESSAGES, 2)]
    holm = multipletests(raw, method="holm")[1]
    for (a, b), q in zip(itertools.combinations(MESSAGES, 2), holm, strict=True):
        assert compare_pick(df, "sim", a, b, n_resamples=999).pair.pvalue == pytest.approx(q, abs=1e-12)
        assert compare_pick(df, "sim", b, a, n_resamples=999).pair.pvalue == pytest.approx(q, abs=1e-12)


def test_exact_mode_reads_the_distribution_over_positions():
    df = simulate_pick_table(5, 4, 1, MESSAGES, seed=2)
    onehot = df["answer"].map(lambda a: json.dumps({str(t): int(a == t) for t in (1, 2, 3)}))
    exact = compare_pick(df.assign(distribution=onehot), "sim", "sneakers", "boots", probabilities=True, n_resamples=99)
    counted = compare_pick(df, "sim", "sneakers", "boots", n_resamples=99)
    assert exact.effect.estimate == pytest.approx(counted.effect.estimate, abs=1e-12)
    flat = df.assign(distribution='{"1": 0.2, "2": 0.3, "3": 0.5}')
    res = compare_pick(flat, "sim", "sneakers", "boots", probabilities=True, n_resamples=99)
    assert res.position.shares == pytest.approx([0.2, 0.3, 0.5]) and res.effect.estimate == pytest.approx(0, abs=1e-12)


def test_position_pvalues_are_uniform_without_position_bias():
    chosen, valid, at = simulate_pick_arrays(400, 10, 6, 2, 3, deltas=[1.0, 0, -1.0], seed=8)
    p = position_pvalues(cell_shares(chosen, valid), at, n_resamples=99, seed=1)
    assert p.min() >= 0.01 and 0.35 < p.mean() < 0.65


SURVEYS = 800


@pytest.mark.parametrize("rho", [0.0, 0.6])
def test_size_inside_the_binomial_interval(rho):
    lo, hi = binomial_interval(0.05, SURVEYS)
    pair = rejection_rates(SURVEYS, 40, 12, 3, 3, rho=rho, deltas=[0, 0, 1.5], positions=[0.8, 0, -0.3], tau=0.5,
                           n_resamples=99, seed=int(rho * 10))
    position = rejection_rates(SURVEYS, 40, 12, 3, 3, rho=rho, deltas=[0.5, 0, -0.5], n_resamples=99, seed=7)
    assert lo <= pair["pair"] <= hi and lo <= position["position"] <= hi


def test_power_with_the_right_sign():
    res = rejection_rates(300, 30, 12, 2, 3, rho=0.3, deltas=[0.6, 0, 0], positions=[0.3, 0, 0], n_resamples=99, seed=4)
    assert res["pair_greater"] > 0.5 and res["pair_less"] == 0 and res["position"] > 0.8


def test_the_random_order_per_set_is_what_keeps_the_pair_test_valid():
    """One fixed cyclic order: a pair's neighbours differ between its positions, and a strong position bias
    with a third, much better message shows through; the random order per set cancels it."""
    lo, hi = binomial_interval(0.05, SURVEYS)
    kw = dict(rho=0.3, deltas=[0, 0, 2.5], positions=[2.0, 0, -1.0], n_resamples=99, seed=9)
    assert rejection_rates(SURVEYS, 30, 12, 2, 3, random_order=False, **kw)["pair"] > hi
    assert lo <= rejection_rates(SURVEYS, 30, 12, 2, 3, **kw)["pair"] <= hi


def test_a_table_without_a_latin_square_is_refused():
    df = simulate_pick_table(4, 3, 1, MESSAGES, seed=1)
    first = df["shown"].str.split("|").str[0]
    with pytest.raises(Exception, match="Latin square"):
        compare_pick(df[first != "boots"], "sim", "sneakers", "boots")
    assert isinstance(df, pd.DataFrame)


def test_persona_weights_weigh_the_persona_means():
    df = simulate_pick_table(6, 8, 2, MESSAGES, seed=11, deltas={"boots": 0.5})
    personas = sorted(df["persona"].unique())
    plain = compare_pick(df, "sim", "sneakers", "boots", n_resamples=99)
    equal = compare_pick(df, "sim", "sneakers", "boots", n_resamples=99, weights=dict.fromkeys(personas, 2.0))
    assert equal.effect.estimate == pytest.approx(plain.effect.estimate, abs=1e-12)
    one = {p: (1.0 if p == personas[0] else 0.0) for p in personas}
    alone = compare_pick(df[df["persona"] == personas[0]], "sim", "sneakers", "boots", n_resamples=99)
    assert compare_pick(df, "sim", "sneakers", "boots", n_resamples=99, weights=one).effect.estimate == \
        pytest.approx(alone.effect.estimate, abs=1e-9)
