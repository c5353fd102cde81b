"""Paraphrase pairing: by the design order (a store's ``seq``), else by natural sort of the ids, or as
given; never by the order rows happen to appear in, which shifts when a row is missing."""

import numpy as np
import pandas as pd
import pytest

from survey.data.sources import load_long_table
from survey.data.store import Store
from survey.data.table import validate_table
from survey.errors import SurveyError
from survey.stats import compare_messages

COLS = ["model", "message", "perturbation", "persona", "replicate", "answer"]


def table(rows):
    return validate_table(pd.DataFrame(rows, columns=COLS))


def missing_first_b_table():
    """2 personas, r = 1; persona p0 has no b1 row, so b1 first appears after b2 and b3."""
    a = {"a1": (0, 1), "a2": (0, 0), "a3": (1, 0)}  # answers of p0, p1
    rows = []
    for persona in (0, 1):
        rows += [("m", "A", pert, f"p{persona}", 0, ans[persona]) for pert, ans in a.items()]
        rows += [("m", "B", pert, f"p{persona}", 0, 0) for pert in ("b1", "b2", "b3")
                 if (persona, pert) != (0, "b1")]
    return table(rows)


def test_a_missing_row_does_not_shift_the_pairs():
    res = compare_messages(missing_first_b_table(), "m", "A", "B")
    # by label: (a1, b1) = 1 (p1 only), (a2, b2) = 0, (a3, b3) = 0.5; order of appearance gave 1/6
    assert res.d_perturbation.tolist() == [1.0, 0.0, 0.5]
    assert res.effect.estimate == pytest.approx(0.5)
    assert res.pairs == [("a1", "b1"), ("a2", "b2"), ("a3", "b3")]
    d = res.to_dict()
    assert d["pairs"] == [["a1", "b1"], ["a2", "b2"], ["a3", "b3"]]
    assert d["unpaired_perturbations"] == {"A": [], "B": []}
    assert "natural order" in d["pairing_rule"]


def test_ids_pair_in_natural_order_whatever_the_row_order():
    rows = [("m", msg, f"{msg.lower()}{j}", f"p{i}", 0, (i + j) % 2)
            for msg in ("A", "B") for j in range(1, 12) for i in range(3)]
    rng = np.random.default_rng(0)
    shuffled = table([rows[k] for k in rng.permutation(len(rows))])
    res = compare_messages(shuffled, "m", "A", "B")
    assert res.pairs == [(f"a{j}", f"b{j}") for j in range(1, 12)]  # b2 before b10
    assert res.effect.estimate == compare_messages(table(rows), "m", "A", "B").effect.estimate


def test_unequal_counts_leave_the_last_ids_unpaired():
    rows = [("m", "A", f"a{j}", "p0", 0, 1) for j in (1, 2, 10)] + [("m", "B", f"b{j}", "p0", 0, 0) for j in (1, 2)]
    res = compare_messages(table(rows), "m", "A", "B")
    assert res.pairs == [("a1", "b1"), ("a2", "b2")]
    assert res.to_dict()["unpaired_perturbations"] == {"A": ["a10"], "B": []}


def test_explicit_pairing_is_used_and_reported():
    df = missing_first_b_table()
    res = compare_messages(df, "m", "A", "B", pairing=[("a1", "b3"), ("a3", "b2")])
    assert res.pairs == [("a1", "b3"), ("a3", "b2")] and res.n_paired == 2
    assert res.d_perturbation.tolist() == [0.5, 0.5]
    assert res.to_dict()["unpaired_perturbations"] == {"A": ["a2"], "B": ["b1"]}
    assert res.to_dict()["pairing_rule"] == "as given"
    assert res.n_perturbations == {"A": 3, "B": 3}  # the unpaired test and D-hat_i still use all


@pytest.mark.parametrize("pairing, match", [
    ([("a1", "b9")], "'b9' is not a perturbation of message 'B'"),
    ([("a1", "b1"), ("a1", "b2")], "'a1' appears in more than one pair"),
    ([], "at least one pair"),
    ([("a1",)], "pairing"),
])
def test_bad_explicit_pairing_is_a_user_error(pairing, match):
    with pytest.raises(SurveyError, match=match):
        compare_messages(missing_first_b_table(), "m", "A", "B", pairing=pairing)


def test_store_tables_pair_in_design_order(tmp_path):
    # The sets list their paraphrases in an order that is not alphabetical; persona p0's first
    # B query failed, so its row is absent from the table.
    order = {"A": ["short", "formal", "casual"], "B": ["terse", "polite", "chatty"]}
    answers = {"short": (0, 1), "formal": (0, 0), "casual": (1, 0)}
    path = tmp_path / "s.sqlite"
    with Store(path) as st:
        seq = 0
        for persona in (0, 1):
            for msg in ("A", "B"):
                for pert in order[msg]:
                    ok = (persona, pert) != (0, "terse")
                    ans = answers[pert][persona] if msg == "A" else 0
                    st.record(("st", "m", msg, pert, f"p{persona}", 0), status="ok" if ok else "failed",
                              response="Yes" if ans else "No", answer=ans if ok else None, seq=seq)
                    seq += 1
    df = load_long_table(path)
    res = compare_messages(df, "m", "A", "B")
    assert res.pairs == [("short", "terse"), ("formal", "polite"), ("casual", "chatty")]
    assert res.d_perturbation.tolist() == [1.0, 0.0, 0.5]
    assert "design order" in res.to_dict()["pairing_rule"]


def test_dbpa_swap_pairs_paraphrases_in_natural_order(monkeypatch):
    from survey.stats.dbpa import family

    seen = {}
    monkeypatch.setattr(family, "dbpa_units", lambda *a, pairs=None, **k: seen.setdefault("pairs", pairs))
    perts = ["a10", "a2", "a1", "b2", "b10", "b1"]  # as rows happen to come, e.g. a missing first row
    family.compare_messages_dbpa(np.eye(6), [p[0] == "a" for p in perts], perts, scheme="swap")
    assert [(x.split("\x1f")[1], y.split("\x1f")[1]) for x, y in seen["pairs"]] == [
        ("a1", "b1"), ("a2", "b2"), ("a10", "b10")]


def test_analyze_passes_the_pairing_to_every_model():
    from survey import analyze

    df = missing_first_b_table()
    two = pd.concat([df, df.assign(model="n")], ignore_index=True)
    res = analyze(two, "A", "B", pairing=[("a1", "b3"), ("a3", "b2")])
    assert [c.pairs for c in res.values()] == [[("a1", "b3"), ("a3", "b2")]] * 2
    assert res.to_dict()["results"][1]["pairs"] == [["a1", "b3"], ["a3", "b2"]]
    with pytest.raises(SurveyError, match="pairing"):
        analyze(two, "A", "B", pairing=[("a1", "b1", "c1")])
