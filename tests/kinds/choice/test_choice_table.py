"""compare_choice: the forced-choice tests read from the long table (pairs, both orders, invalid replies)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from survey.errors import TableError
from survey.kinds.choice.model import choice_table, simulate_choice_counts
from survey.kinds.choice.statistics import choice_test
from survey.kinds.choice.table import compare_choice


def row(persona, first, first_id, second, second_id, replicate, answer, model="m1", **extra):
    return {"model": model, "message": first, "perturbation": first_id, "persona": persona,
            "replicate": replicate, "answer": answer, "scale": "choice", "second": second,
            "second_perturbation": second_id, **extra}


def table(rows) -> pd.DataFrame:
    df = pd.DataFrame(rows)
    df["answer"] = df["answer"].astype("Int16")
    return df


def hand_table() -> pd.DataFrame:
    """Two personas, pairs (s2, b7) and (s10, b1), two replicates per order; ids pair as the rows say."""
    rows = []
    for p, (ab1, ba1, ab2, ba2) in {"P1": ((1, 1), (2, 1), (1, 2), (2, 2)),
                                    "P2": ((1, 2), (2, None), (2, 2), (1, 2))}.items():
        for k in range(2):
            rows += [row(p, "shoe", "s2", "boot", "b7", k, ab1[k]), row(p, "boot", "b7", "shoe", "s2", k, ba1[k]),
                     row(p, "shoe", "s10", "boot", "b1", k, ab2[k]), row(p, "boot", "b1", "shoe", "s10", k, ba2[k])]
    return table(rows)


def test_a_hand_made_table_gives_the_hand_computed_shares():
    res = compare_choice(hand_table(), "m1", "shoe", "boot")
    assert res.pairs == [("s2", "b7"), ("s10", "b1")]  # natural order of the shoe ids: s2 before s10
    # pair (s2, b7): shoe first chosen by P1 2/2, P2 1/2; boot first: shoe (position 2) chosen by P1 1/2, P2 1/1
    d1 = ((2 / 2 + 1 / 2) / 2 + (1 / 2 + 1 / 1) / 2) / 2 - 0.5
    # pair (s10, b1): shoe first chosen by P1 1/2, P2 0/2; boot first: shoe chosen by P1 2/2, P2 1/2
    d2 = ((1 / 2 + 0 / 2) / 2 + (2 / 2 + 1 / 2) / 2) / 2 - 0.5
    np.testing.assert_allclose(res.d_pair, [d1, d2])
    assert res.preference.share == pytest.approx((d1 + d2) / 2 + 0.5)
    p1 = ((2 / 2 + 1 / 2) / 2 - (1 / 2 + 1 / 1) / 2) / 2
    p2 = ((1 / 2 + 0 / 2) / 2 - (2 / 2 + 1 / 2) / 2) / 2
    np.testing.assert_allclose(res.position_pair, [p1, p2])
    assert res.position_bias.share == pytest.approx((p1 + p2) / 2 + 0.5)
    assert (res.n_personas, res.n_pairs, res.replicates, res.invalid, res.empty_cells) == (2, 2, 2, 1, 0)
    assert res.pairs_one_order == {} and res.pairs_left_out == []


def test_the_table_gives_the_same_result_as_the_counts():
    rng = np.random.default_rng(8)
    counts = simulate_choice_counts(12, 8, 3, rng, delta=0.5, rho=0.4, position=0.7, invalid=0.3)
    df = choice_table(counts, 3, ("sneakers", "boots"), model="m")
    assert set(df["answer"].dropna().unique()) == {1, 2} and df["answer"].isna().any()
    from_table = compare_choice(df, "m", "sneakers", "boots", seed=1)
    direct = choice_test(*counts.arrays(), a="sneakers", b="boots", seed=1)
    np.testing.assert_allclose(from_table.d_pair, direct.d_pair)
    np.testing.assert_allclose(from_table.position_pair, direct.position_pair)
    assert from_table.preference.to_dict() == direct.preference.to_dict()
    assert from_table.position_bias.to_dict() == direct.position_bias.to_dict()
    assert from_table.invalid == int(df["answer"].isna().sum())
    assert from_table.empty_cells == direct.empty_cells and from_table.replicates == 3
    assert from_table.pairs[0] == ("sneakers-01", "boots-01")
    # A and B swapped: the preference flips, the position bias stays
    swapped = compare_choice(df, "m", "boots", "sneakers", seed=1)
    assert swapped.preference.share == pytest.approx(1 - from_table.preference.share)
    assert swapped.position_bias.share == pytest.approx(from_table.position_bias.share)
    assert swapped.pvalue == pytest.approx(from_table.pvalue)


def test_a_pair_asked_in_one_order_only_is_reported_and_left_out():
    df = hand_table()
    df = pd.concat([df, table([row("P1", "shoe", "s3", "boot", "b3", 0, 1),
                               row("P2", "shoe", "s3", "boot", "b3", 0, 1)])], ignore_index=True)
    res = compare_choice(df, "m1", "shoe", "boot")
    assert res.pairs == [("s2", "b7"), ("s10", "b1")] and res.n_pairs == 2
    assert res.pairs_one_order == {("s3", "b3"): "A first only"}
    assert any("one order only" in n and "s3/b3" in n for n in res.notes)
    assert res.to_dict()["pairs_one_order"] == [["s3", "b3", "A first only"]]
    assert res.preference.to_dict() == compare_choice(hand_table(), "m1", "shoe", "boot").preference.to_dict()
    only = table([row("P1", "boot", "b3", "shoe", "s3", 0, 1), row("P1", "boot", "b4", "shoe", "s4", 0, 2)])
    with pytest.raises(TableError, match="no pair of 'shoe' and 'boot' was asked in both orders"):
        compare_choice(only, "m1", "shoe", "boot")


def test_a_pair_without_valid_replies_in_one_order_is_left_out():
    df = hand_table()
    df.loc[(df["message"] == "boot") & (df["perturbation"] == "b1"), "answer"] = pd.NA
    res = compare_choice(df, "m1", "shoe", "boot")
    assert res.pairs == [("s2", "b7")] and res.pairs_left_out == [("s10", "b1")]
    assert res.invalid == 5 and res.empty_cells == 2


def test_rows_of_other_scales_models_and_messages_are_ignored():
    df = hand_table()
    other = table([row("P1", "shoe", "s2", "boot", "b7", 5, 1, scale="binary"),
                   row("P1", "shoe", "s2", "boot", "b7", 0, 2, model="m2"),
                   row("P1", "shoe", "s2", "sandal", "x1", 0, 2), row("P1", "sandal", "x1", "shoe", "s2", 0, 2)])
    res = compare_choice(pd.concat([df, other], ignore_index=True), "m1", "shoe", "boot")
    assert res.preference.to_dict() == compare_choice(df, "m1", "shoe", "boot").preference.to_dict()


def test_exact_mode_reads_the_expected_position():
    df = hand_table()
    df["expected"] = 1.25  # P(first) = 0.75 in every cell, in both orders: pure position bias
    res = compare_choice(df, "m1", "shoe", "boot", probabilities=True)
    np.testing.assert_allclose(res.d_pair, [0.0, 0.0], atol=1e-12)
    assert res.position_bias.share == pytest.approx(0.75) and "reads position" in res.warning
    with pytest.raises(TableError, match="expected"):
        compare_choice(hand_table(), "m1", "shoe", "boot", probabilities=True)


def test_table_problems_are_named():
    with pytest.raises(TableError, match="missing column.*second"):
        compare_choice(hand_table().drop(columns=["second"]), "m1", "shoe", "boot")
    with pytest.raises(TableError, match="no forced-choice rows for model 'nope'"):
        compare_choice(hand_table(), "nope", "shoe", "boot")
    with pytest.raises(TableError, match="no forced-choice rows of 'shoe' against 'sandal'; it has boot vs shoe"):
        compare_choice(hand_table(), "m1", "shoe", "sandal")
    twice = pd.concat([hand_table(), table([row("P1", "shoe", "s2", "boot", "b9", 0, 1),
                                            row("P1", "boot", "b9", "shoe", "s2", 0, 1)])], ignore_index=True)
    with pytest.raises(TableError, match="paraphrase 's2' of 'shoe' is paired with b7, b9"):
        compare_choice(twice, "m1", "shoe", "boot")
