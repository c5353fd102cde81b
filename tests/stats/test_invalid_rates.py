"""Nothing silent: when message A's and message B's replies are invalid (or unrated) at different rates, the
result says so (survey.stats.invalid_rates), in Python, the command line's text and --json, and the report; and
no kind counts an invalid reply as an answer: it is left out, exactly as if it had never been asked."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from cli_result import run_cli
from scipy.stats import binom, fisher_exact

import survey
from survey.stats.invalid_rates import INVALID_ALPHA, invalid_rates
from survey.stats.simulation import simulate


def _invalid(df: pd.DataFrame, share: float, message: str | None, seed: int, would_say=None) -> pd.DataFrame:
    """``share`` of the rows of ``message`` (every row when None) made invalid at random; ``would_say``: only among
    the rows that answered that (a model that balks when it would have said it)."""
    out = df.copy()
    rng = np.random.default_rng(seed)
    rows = out.index if message is None else out.index[out["message"] == message]
    pool = rows if would_say is None else rows[out.loc[rows, "answer"] == would_say]
    chosen = rng.choice(pool, size=int(round(share * len(rows))), replace=False)
    out.loc[chosen, "answer"] = pd.NA
    return out


def test_fisher_p_value_equals_scipy_and_the_warning_needs_both_chance_and_size():
    r = invalid_rates("A", "B", {"A": (500, 10), "B": (480, 75)})
    assert r.pvalue == pytest.approx(fisher_exact([[10, 490], [75, 405]]).pvalue, rel=1e-12)
    assert r.differ and "2.0% of A's (10 of 500)" in r.warning and "15.6% of B's (75 of 480)" in r.warning
    big = invalid_rates("A", "B", {"A": (200_000, 20_000), "B": (200_000, 21_000)})  # 10.0% vs 10.5%
    assert big.pvalue < INVALID_ALPHA and not big.differ and big.warning is None  # significant, immaterial
    small = invalid_rates("A", "B", {"A": (20, 0), "B": (20, 3)})  # 15 points apart on 20 replies each
    assert small.pvalue > INVALID_ALPHA and small.warning is None
    assert invalid_rates("A", "B", {"A": (40, 0), "B": (40, 0)}).pvalue == 1.0
    assert invalid_rates("A", "B", {"A": (40, 3), "B": (40, 4)}).to_dict()["A"] == {"queries": 40, "invalid": 3,
                                                                                  "rate": 3 / 40}


def test_equal_invalid_rates_warn_no_more_often_than_alpha():
    """Replies invalid at the same rate for A and B (independently): warned in at most 1% of studies."""
    rng = np.random.default_rng(7)
    sims, n = 1000, 480
    warned = sum(invalid_rates("A", "B", {"A": (n, ia), "B": (n, ib)}).differ
                 for ia, ib in rng.binomial(n, 0.1, size=(sims, 2)))
    assert warned <= binom.ppf(0.999, sims, INVALID_ALPHA)  # at most alpha = 0.01, within its binomial band


def test_invalid_replies_of_b_only_are_warned_in_python_json_text_and_report(tmp_path, capsys):
    df = simulate(40, 6, 2, seed=3)  # no effect: A and B answer alike
    clean = survey.analyze(df, "A", "B")
    assert clean["simulated"].warnings == [] and clean.to_dict()["results"][0]["warnings"] == []
    # a model that balks at B when it would have said No: 15% of B's replies, the effect moves though A = B
    balks = _invalid(df, 0.15, "B", seed=4, would_say=0)
    res = survey.analyze(balks, "A", "B")
    (warning,) = res["simulated"].warnings
    assert "0.0% of A's (0 of 480)" in warning and "15.0% of B's (72 of 480)" in warning and "biased" in warning
    assert res.to_dict()["results"][0]["warnings"] == [warning]
    assert any(warning in note for note in res.display_parts()[2])
    assert f"WARNING: {warning}" in res["simulated"].display_parts()[2]
    path = tmp_path / "balks.csv"
    balks.to_csv(path, index=False)
    code, out, _ = run_cli(capsys, "analyze", path, "--a", "A", "--b", "B", "--json")
    assert code == 0 and json.loads(out)["results"][0]["warnings"] == [warning]
    code, out, _ = run_cli(capsys, "analyze", path, "--a", "A", "--b", "B")
    assert code == 0 and f"WARNING: {warning}" in " ".join(out.split())
    code, _, _ = run_cli(capsys, "report", path, "--out", tmp_path / "report", "--a", "A", "--b", "B")
    html = " ".join((tmp_path / "report" / "index.html").read_text(encoding="utf-8").split())
    assert code == 0 and "invalid replies differ between the messages: 0.0% of A&#39;s" in html


def test_unrated_free_text_replies_count_as_left_out_for_semantic_similarity_rating():
    from survey.kinds.ssr.analysis import SSR
    from survey.stats.kinds import CompareOptions

    df = pd.DataFrame({"model": "m", "message": ["A"] * 100 + ["B"] * 100, "perturbation": "p",
                       "persona": [f"P{i}" for i in range(200)], "replicate": 0,
                       "answer": [3] * 200, "expected": [3.0] * 180 + [np.nan] * 20})
    assert SSR.invalid_counts(df, "m", "A", "B", CompareOptions()) == {"A": (100, 0), "B": (100, 20)}


def _effect(df, a="A", b="B"):
    (result,) = survey.analyze(df, a, b, flips=999).results
    return result.effect


@pytest.mark.parametrize("scale", ["binary", "likert5"])
def test_an_invalid_reply_is_left_out_as_if_never_asked_per_message_kinds(scale):
    """Yes/No and rating scales: marking replies invalid gives the same effect as deleting those rows: an invalid
    reply is not counted as No, as the scale's lowest point, or as anything."""
    df = simulate(15, 6, 3, scale=scale, seed=5, delta=0.4)
    marked = _invalid(df, 0.3, "B", seed=6)
    dropped = marked[marked["answer"].notna()]
    e_marked, e_dropped = _effect(marked), _effect(dropped)
    assert e_marked.estimate == pytest.approx(e_dropped.estimate, abs=1e-12)
    assert e_marked.ci == pytest.approx(e_dropped.ci, abs=1e-12)
    assert e_marked.estimate != pytest.approx(_effect(df).estimate, abs=1e-6)  # the rows did matter


def test_an_invalid_reply_is_left_out_as_if_never_asked_forced_choice_and_pick():
    from survey.kinds.choice.model import choice_table, simulate_choice_counts
    from survey.kinds.pick.table import simulate_pick_table

    choice = choice_table(simulate_choice_counts(10, 6, 2, np.random.default_rng(8), delta=0.3), 2)
    pick = simulate_pick_table(10, 4, 2, ["A", "B", "C"], seed=9)
    for df in (choice, pick):
        marked = _invalid(df, 0.25, None, seed=10)
        dropped = marked[marked["answer"].notna()]
        assert _effect(marked).estimate == pytest.approx(_effect(dropped).estimate, abs=1e-12)
        (result,) = survey.analyze(marked, "A", "B", flips=999).results
        assert result.warnings == []  # one shared rate: nothing to compare
