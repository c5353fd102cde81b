"""The A/B test registry: one entry is all a new test needs, and "permutation" stays an alias of sign_flip."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from click.testing import CliRunner

from survey import analyze, validate
from survey.cli import cli
from survey.errors import SurveyError
from survey.kinds.binary.power import BinaryPlan
from survey.stats import ab_tests
from survey.stats.ab_tests import ABTest, ByTest, canonical_keys, with_aliases
from survey.stats.beta_logit import simulate
from survey.stats.comparison import compare_messages
from survey.stats.planning import plan


@pytest.fixture(scope="module")
def table():
    return simulate(16, 8, 2, rho=0.3, delta=1.5, seed=4)


def test_builtin_tests_and_their_validity_flags():
    assert ab_tests.names() == ("sign_flip", "unpaired", "sign", "wilcoxon")
    assert ab_tests.names(power=True) == ("sign_flip", "sign", "wilcoxon")
    valid = {name: t.valid_when_rho_positive for name, t in ab_tests.AB_TESTS.items()}
    assert valid == {"sign_flip": True, "unpaired": True, "sign": False, "wilcoxon": False}
    assert [t.paired for t in ab_tests.AB_TESTS.values()] == [True, False, True, True]
    assert ab_tests.get("permutation") is ab_tests.AB_TESTS["sign_flip"]
    with pytest.raises(SurveyError, match="unknown test 'nope'"):
        ab_tests.get("nope")


def test_by_test_accepts_the_deprecated_name_but_iterates_current_names():
    d = ByTest({"sign_flip": 0.01, "sign": 0.2})
    assert d["permutation"] == 0.01 and "permutation" in d and d.get("permutation") == 0.01
    assert list(d) == ["sign_flip", "sign"]
    assert d == {"permutation": 0.01, "sign": 0.2} and d == {"sign_flip": 0.01, "sign": 0.2}
    assert d != {"permutation": 0.02, "sign": 0.2} and not (d != {"permutation": 0.01, "sign": 0.2})
    assert with_aliases(d) == {"sign_flip": 0.01, "permutation": 0.01, "sign": 0.2}
    assert list(with_aliases(d)) == ["sign_flip", "permutation", "sign"]
    assert canonical_keys({"permutation": 1, "sign": 2}) == {"sign_flip": 1, "sign": 2}  # an old file
    assert canonical_keys(with_aliases(d)) == dict(d)


def test_register_refuses_a_taken_name_or_an_unknown_data_kind():
    spec = ab_tests.AB_TESTS["sign"]
    with pytest.raises(SurveyError, match="already registered"):
        ab_tests.register(spec)
    with pytest.raises(SurveyError, match="already registered"):
        ab_tests.register(ABTest("permutation", "x", "pairs", spec.run, spec.batched, True, "k"))
    with pytest.raises(SurveyError, match="data must be one of"):
        ab_tests.register(ABTest("x", "x", "cells", spec.run, spec.batched, True, "k"))
    assert ab_tests.names() == ("sign_flip", "unpaired", "sign", "wilcoxon")


def test_sign_flip_and_its_permutation_alias_are_the_same_result(table):
    c = compare_messages(table, "simulated", "A", "B")
    assert c.permutation is c.sign_flip is c.tests["sign_flip"] is c.tests["permutation"]
    tests = c.to_dict()["tests"]
    assert list(tests) == ["sign_flip", "permutation", "unpaired", "sign", "wilcoxon"]
    assert tests["permutation"] == tests["sign_flip"] and tests["sign_flip"]["exact"] is True
    with pytest.raises(AttributeError):
        c.no_such_test  # noqa: B018


# --- a new test is one registry entry ------------------------------------------------------------

def _dummy_run(d, *, alternative, n_resamples, seed):
    # A scipy-like result without to_dict: the statistic is T (the sign-flip statistic), p depends on its sign.
    t = float(np.nanmean(d))
    return SimpleNamespace(statistic=t, pvalue=0.01 if t < 0 else 0.5)


def _dummy_batched(D, *, alternative, n_resamples, exact_max_m, seed):
    return np.where(np.nanmean(D, axis=1) < 0, 0.01, 0.5)


@pytest.fixture
def dummy():
    ab_tests.register(ABTest("dummy", "dummy mean sign (paraphrase pairs)", "pairs", _dummy_run, _dummy_batched,
                             valid_when_rho_positive=True, color="#2ca02c"))
    try:
        yield
    finally:
        ab_tests.unregister("dummy")
    assert "dummy" not in ab_tests.names()


def test_a_registered_test_reaches_analyze_and_its_json(table, dummy):
    res = analyze(table, "A", "B")
    c = res["simulated"]
    assert c.dummy.statistic == pytest.approx(c.sign_flip.statistic) and c.dummy.pvalue == 0.01  # B preferred
    row = json.loads(json.dumps(res.to_dict()))["results"][0]
    assert row["tests"]["dummy"] == {"statistic": pytest.approx(c.sign_flip.statistic), "pvalue": 0.01}


def test_a_registered_test_reaches_the_cli_analyze_output(tmp_path, table, dummy):
    path = tmp_path / "t.csv"
    table.to_csv(path, index=False)
    out = CliRunner().invoke(cli, ["analyze", str(path), "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["results"][0]["tests"]["dummy"]["pvalue"] == 0.01
    text = CliRunner().invoke(cli, ["analyze", str(path)], env={"COLUMNS": "200"})  # rich: no wrapping
    assert "dummy mean sign (paraphrase pairs)" in text.output


def test_a_registered_test_reaches_the_power_planner(dummy):
    res = plan(BinaryPlan(2.0, rho=0.3), designs=["6,8,2"], simulations=40)
    (row,) = res.to_dict()["results"]
    assert set(row["power"]) == {"sign_flip", "permutation", "sign", "wilcoxon", "dummy"}
    assert row["power"]["dummy"] > 0.9  # delta = 2 on B: the mean difference A - B is almost always < 0
    assert res.results[0].power["dummy"] == row["power"]["dummy"]


def test_a_registered_test_reaches_validity(table, dummy):
    res = validate(table, message="A", configs=["8,4,2"], draws=20)
    (row,) = res.to_dict()["results"]
    assert set(row["tests"]) == {"sign_flip", "permutation", "unpaired", "sign", "wilcoxon", "dummy"}
    assert set(row["ecdf"]) == set(row["tests"])
    assert 0 <= row["tests"]["dummy"]["rate"] <= 1 and row["tests"]["dummy"]["draws"] == 20
