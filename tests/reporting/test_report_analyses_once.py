"""A report analyses once: its across-model, across-message and human views take the one Analysis it computed,
so each (model, pair of messages) is tested once, not once per view."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pandas as pd

import survey

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "humans"))
from synthetic import synthetic  # noqa: E402


def _two_models_three_messages():
    table, humans = synthetic("between", n_humans=40, n_personas=12, m=4, seed=21)
    third = table[table["message"] == "b"].assign(message="c", perturbation=lambda d: "c" + d["perturbation"].str[1:])
    one = pd.concat([table, third], ignore_index=True)
    return pd.concat([one, one.assign(model="toy2")], ignore_index=True), humans


def test_a_two_model_report_with_humans_tests_each_model_and_pair_once(tmp_path, monkeypatch):
    table, humans = _two_models_three_messages()
    kind = survey.analyze(table, "a", "b", flips=99).kind
    calls = Counter()
    compare = kind.compare

    def spy(df, model, a, b, view, opts):
        calls[(model, a, b, opts.probabilities)] += 1
        return compare(df, model, a, b, view, opts)

    monkeypatch.setattr(kind, "compare", spy)
    results = survey.report(table, tmp_path / "r", a="a", b="b", flips=99, humans=humans)
    assert results["humans"]["a"] == "a" and "across_models" in results and "across_messages" in results
    tested = Counter({k[:3]: n for k, n in calls.items() if not k[3]})
    pairs = [("a", "b"), ("a", "c"), ("b", "c")]
    assert set(tested) == {(m, x, y) for m in ("toy", "toy2") for x, y in pairs}
    assert set(tested.values()) == {1}, tested  # one per (model, pair): the views took the report's analysis
    # exact mode, when the rows carry each cell's score, tests those other scores: at most once per (model, pair)
    assert all(n == 1 for k, n in calls.items() if k[3])
