"""survey plan: rounding rule, batched tests against scipy row by row, power by simulation, CLI."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats

from survey.cli import cli
from survey.errors import SurveyError
from survey.kinds.binary.power import BinaryPower
from survey.stats.batched import sign_pvalues, wilcoxon_pvalues
from survey.stats.beta_logit import make_params, simulate, simulate_counts
from survey.stats.classic import sign_test, wilcoxon_test
from survey.stats.permutation import sign_flip_pvalues, sign_flip_test
from survey.stats.planning.power import (
    DEFAULT_STRATEGIES,
    MINIMUM,
    allocate,
    cheapest_design,
    designs_for,
    estimate_power,
    parse_design,
    parse_strategy,
    simulate_pvalues,
)

SCIPY_REFERENCE = json.loads((Path(__file__).parents[2] / "fixtures" / "scipy_reference.json").read_text())

ALTS = ("two-sided", "greater", "less")


# --- the rounding rule -------------------------------------------------------------------------

def test_allocation_never_exceeds_the_budget_and_leaves_no_unit_unspent():
    rng = np.random.default_rng(0)
    strategies = list(DEFAULT_STRATEGIES) + [":".join(f"{x:.2f}" for x in rng.uniform(0.2, 9, 3))
                                             for _ in range(6)]
    budgets = list(range(8, 400)) + list(rng.integers(400, 50_000, 150))
    for s in strategies:
        for budget in budgets:
            n, m, r = allocate(s, int(budget))
            assert 2 * n * m * r <= budget
            assert n >= 2 and m >= 2 and r >= 1
            # Maximal: adding one to any factor would exceed the budget.
            for k in range(3):
                c = [n, m, r]
                c[k] += 1
                assert 2 * math.prod(c) > budget, (s, budget, (n, m, r))


def test_allocation_follows_the_strategy():
    assert allocate("1:4:1", 1000) == (5, 20, 5)  # exact: 2*5*20*5 = 1000
    assert allocate("4:1:1", 1000) == (20, 5, 5)
    n, m, r = allocate("1:16:1", 2000)
    assert m > 10 * max(n, r)  # the perturbation-heavy shape survives rounding
    assert allocate("1:1:1", 16) == (2, 2, 2)
    assert allocate("1:1:1", 8) == MINIMUM


def test_allocation_and_parsing_errors():
    with pytest.raises(SurveyError, match="below the smallest design"):
        allocate("1:1:1", 7)
    for bad in ("1:4", "1:0:1", "a:b:c", "1:-2:1"):
        with pytest.raises(SurveyError, match="three positive numbers"):
            parse_strategy(bad)
    assert parse_design("10,20,3") == (10, 20, 3)
    with pytest.raises(SurveyError, match="n >= 2"):
        parse_design("1,20,3")
    with pytest.raises(SurveyError, match="whole numbers"):
        parse_design("10,20")


# --- batched tests row by row ------------------------------------------------------------------

def _rows(rng, length, kind, rows):
    if kind == "continuous":
        D = rng.normal(0.3, 1, (rows, length))
    elif kind == "ties":
        D = rng.integers(-3, 4, (rows, length)).astype(float)  # ties and zeros
    else:  # ties without zeros
        D = rng.choice([-2.0, -1.0, 1.0, 2.0, 3.0], (rows, length))
    D[rng.random(D.shape) < 0.05] = np.nan
    return D


@pytest.mark.parametrize("length", [1, 4, 9, 30, 50, 51, 70])
def test_batched_sign_and_wilcoxon_equal_scipy_row_by_row(length):
    """Every branch of scipy's method choice: exact (no ties), sign-flip enumeration (ties or zeros,
    length <= 13), and the normal approximation with tie correction."""
    rng = np.random.default_rng(length)
    # scipy's own sign-flip path (ties, length <= 13) costs ~0.1-0.3 s a call: fewer rows there.
    slow = length == 9
    for kind in ("continuous", "ties", "ties-no-zero"):
        D = _rows(rng, length, kind, rows=2 if slow else 4)
        for alt in ALTS[:1] if slow and kind == "continuous" else ALTS:
            ps, pw = sign_pvalues(D, alt), wilcoxon_pvalues(D, alt)
            for s, d in enumerate(D):
                if np.isnan(d).all():
                    continue
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    assert ps[s] == pytest.approx(sign_test(d, alt).pvalue, rel=1e-9, abs=1e-12)
                    # classic.wilcoxon_test is scipy.stats.wilcoxon with its defaults, NaN dropped.
                    assert pw[s] == pytest.approx(wilcoxon_test(d, alt).pvalue, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("length", [13, 14])
def test_batched_sign_and_wilcoxon_equal_scipy_at_the_edge_of_its_enumeration(length):
    """Lengths 13 and 14 with ties, zeros and NaN, where scipy takes ~0.2 s a call: its p-values were
    computed once (scripts/scipy_reference.py)."""
    cases = [c for c in SCIPY_REFERENCE["sign_wilcoxon"] if c["length"] == length]
    assert {c["kind"] for c in cases} == {"continuous", "ties", "ties-no-zero"}
    D = np.array([[np.nan if x is None else x for x in c["d"]] for c in cases])
    for alt in ALTS:
        ps, pw = sign_pvalues(D, alt), wilcoxon_pvalues(D, alt)
        for s, case in enumerate(cases):
            assert ps[s] == pytest.approx(case["sign"][alt], rel=1e-9, abs=1e-12)
            assert pw[s] == pytest.approx(case["wilcoxon"][alt], rel=1e-9, abs=1e-12)


def test_batched_sign_test_equals_binomtest_directly():
    rng = np.random.default_rng(1)
    D = rng.integers(-2, 3, (60, 25)).astype(float)
    for alt in ALTS:
        got = sign_pvalues(D, alt)
        for s, d in enumerate(D):
            nz = d[d != 0]
            want = stats.binomtest(int((nz > 0).sum()), len(nz), 0.5, alternative=alt).pvalue
            assert got[s] == pytest.approx(want, rel=1e-9)


def test_all_zero_rows_give_p_one():
    D = np.zeros((3, 6))
    assert np.all(sign_pvalues(D) == 1.0) and np.all(wilcoxon_pvalues(D) == 1.0)


def test_simulated_batch_equals_single_survey_functions():
    """simulate_pvalues' batch = the per-survey functions on the same simulated counts."""
    params = make_params(mu=0.4, kappa=3, sigma=1.0, rho=0.3, delta=0.3)
    n, m, r, S = 9, 7, 3, 40
    got = simulate_pvalues(params, n, m, r, S, np.random.default_rng(11))
    rng = np.random.default_rng(11)
    rng.integers(2**63)  # simulate_pvalues draws the flip seed first
    ya, yb = simulate_counts(params, n, m, m, r, rng, size=(S,))
    diff = (ya - yb).astype(float)
    for s in range(S):
        d_pert = diff[s].mean(axis=0) / r  # D-bar_j
        assert got["permutation"][s] == pytest.approx(sign_flip_test(d_pert).pvalue, rel=1e-12)
        # The batch uses the integer sums; the tests are scale-free, and integers keep ties exact.
        d_pers = diff[s].sum(axis=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert got["sign"][s] == pytest.approx(sign_test(d_pers).pvalue, rel=1e-12)
            assert got["wilcoxon"][s] == pytest.approx(wilcoxon_test(d_pers).pvalue, rel=1e-12)


def test_batched_permutation_equals_single_survey_and_scipy():
    rng = np.random.default_rng(4)
    D = rng.normal(size=(25, 8))
    D[:5] = np.round(D[:5])  # ties
    batch = sign_flip_pvalues(D)
    for s, d in enumerate(D):
        assert batch[s] == pytest.approx(sign_flip_test(d).pvalue, rel=1e-12)
        ref = stats.permutation_test((d,), np.mean, permutation_type="samples", n_resamples=10**4,
                                     vectorized=True).pvalue  # exact: 2^8 < 10^4
        assert batch[s] == pytest.approx(ref, rel=1e-9)


# --- power by simulation -----------------------------------------------------------------------

def _mc(p, s):
    return math.sqrt(p * (1 - p) / s)


def test_null_power_of_permutation_test_is_at_most_alpha():
    params = BinaryPower(make_params(mu=0.5, kappa=4, sigma=1.0, rho=0.3, delta=0.0))
    S, alpha = 2000, 0.05
    for n, m, r in ((8, 10, 3), (6, 20, 2)):  # exact, and 1000 random flips
        res = estimate_power(params, designs_for([], [], [(n, m, r)]), simulations=S, alpha=alpha, seed=1)
        rate = res[0].power["permutation"]
        assert rate <= alpha + 3 * _mc(alpha, S), (n, m, r, rate)
        assert rate > alpha - 6 * _mc(alpha, S)  # not degenerate either


def test_power_approaches_one_at_large_delta():
    params = BinaryPower(make_params(mu=0.5, kappa=4, sigma=1.0, rho=0.3, delta=3.0))
    res = estimate_power(params, designs_for([], [], [(10, 20, 3)]), simulations=500, seed=2)
    assert res[0].power["permutation"] > 0.97


def test_power_rises_with_budget_under_perturbation_heavy_strategy():
    params = BinaryPower(make_params(mu=0.5, kappa=4, sigma=1.0, rho=0.3, delta=0.4))
    S = 1000
    res = estimate_power(params, designs_for(["1:4:1"], [300, 1000, 3000]), simulations=S, seed=3)
    power = [x.power["permutation"] for x in res]
    for lo, hi in zip(power, power[1:], strict=False):
        assert hi - lo > 3 * math.hypot(_mc(lo, S), _mc(hi, S)), power


def test_perturbations_beat_replicates_when_rho_is_positive():
    """Helm & Priebe's finding: at a fixed budget, spend on m rather than r."""
    params = BinaryPower(make_params(mu=0.5, kappa=4, sigma=1.0, rho=0.5, delta=0.4))
    S = 1000
    res = estimate_power(params, designs_for(["1:4:1", "1:1:4"], [2000]), simulations=S, seed=4)
    pert, rep = (x.power["permutation"] for x in res)
    assert pert - rep > 3 * math.hypot(_mc(pert, S), _mc(rep, S)), (pert, rep)


def test_cheapest_design_reaches_the_target_and_is_not_beaten_by_the_grid():
    params = BinaryPower(make_params(mu=0.5, kappa=4, sigma=1.0, rho=0.3, delta=0.6))
    S = 300
    res = estimate_power(params, designs_for(["1:4:1", "4:1:1"], [500, 1000, 2000, 4000]), S, seed=5)
    best = cheapest_design(params, res, 0.8, S, seed=5)
    assert best is not None and best["power"]["permutation"] >= 0.8
    assert best["budget"] == 2 * best["n"] * best["m"] * best["r"]
    grid_hits = [x.design.queries for x in res if x.power["permutation"] >= 0.8]
    assert best["budget"] <= min(grid_hits)
    tiny = estimate_power(params, designs_for(["1:1:4"], [100]), S, seed=5)
    assert cheapest_design(params, tiny, 0.9, S, seed=5) is None


# --- CLI ---------------------------------------------------------------------------------------

def _run(args):
    res = CliRunner().invoke(cli, args)
    return res


def test_plan_json_shape_plot_and_warning(tmp_path):
    out = tmp_path / "plan.json"
    res = _run(["plan", "--delta", "0.5", "--rho", "0.3", "--budget", "300,1000", "--strategy", "1:4:1",
                "--strategy", "1:1:4", "--design", "6,10,3", "--simulations", "200", "--target-power", "0.5",
                "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert json.loads(out.read_text()) == doc
    assert (tmp_path / "plan.png").stat().st_size > 10_000
    assert len(doc["results"]) == 5
    for row in doc["results"]:
        assert set(row) == {"strategy", "budget", "n", "m", "r", "power"}
        # sign_flip, and "permutation", its deprecated alias kept for scripts, with the same value
        assert set(row["power"]) == {"sign_flip", "permutation", "sign", "wilcoxon"}
        assert row["power"]["permutation"] == row["power"]["sign_flip"]
        assert 2 * row["n"] * row["m"] * row["r"] <= row["budget"]
    assert [b["budget"] for b in doc["best"]] == [300, 1000]
    assert doc["cheapest"] is None or doc["cheapest"]["power"]["permutation"] >= 0.5
    assert "cheapest" in doc and any("INVALID" in w for w in doc["warnings"])
    res0 = _run(["plan", "--delta", "0.5", "--rho", "0", "--design", "4,6,2", "--simulations", "50",
                 "--no-plot", "--json"])
    assert res0.exit_code == 0 and json.loads(res0.output)["warnings"] == []


def test_plan_reads_parameters_from_estimate_json_and_from_a_table(tmp_path):
    est = tmp_path / "est.json"
    est.write_text(json.dumps({"results": [
        {"model": "m1", "message": "A", "mu": 0.3, "kappa": 5.0, "a": 1.5, "b": 3.5, "sigma": 0.7, "rho": 0.2,
         "se": {}},
        {"model": "m2", "message": "A", "mu": 0.6, "kappa": 2.0, "a": 1.2, "b": 0.8, "sigma": 1.1, "rho": 0.4,
         "se": {}}]}))
    base = ["plan", "--delta", "0.3", "--design", "4,6,2", "--simulations", "30", "--no-plot", "--json"]
    res = _run([*base, "--from-estimate", str(est), "--model", "m2", "--sigma", "0.9"])
    assert res.exit_code == 0, res.output
    p = json.loads(res.output)["params"]
    assert (p["mu"], p["kappa"], p["rho"], p["sigma"], p["delta"]) == (0.6, 2.0, 0.4, 0.9, 0.3)
    res = _run([*base, "--from-estimate", str(est)])
    assert res.exit_code != 0 and "--model" in str(res.exception or res.output)
    table = tmp_path / "t.csv"
    simulate(30, 10, 3, rho=0.3, seed=1).to_csv(table, index=False)
    res = _run([*base, "--from-table", str(table), "--message", "A"])
    assert res.exit_code == 0, res.output
    assert 0 < json.loads(res.output)["params"]["mu"] < 1


@pytest.mark.parametrize("args, message", [
    (["--budget", "5"], "smallest design"),
    (["--strategy", "1:x:1"], "three positive numbers"),
    (["--alpha", "1.5"], "alpha"),
    (["--simulations", "3"], "simulations"),
    (["--target-power", "2"], "target_power"),
    (["--from-estimate", "nope.json"], "no such file"),
])
def test_plan_user_errors_are_one_line_exit_2(args, message, capsys):
    from survey.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["plan", "--delta", "0.3", "--no-plot", *args])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_plan_from_estimate_rejects_another_commands_json(tmp_path, capsys):
    from survey.cli import main

    other = tmp_path / "plan.json"  # `survey plan --json` output, not `survey estimate --json`
    other.write_text(json.dumps({"results": [{"strategy": "1:1:1", "budget": 200, "power": {"sign": 0.1}}]}))
    with pytest.raises(SystemExit) as exc:
        main(["plan", "--delta", "0.3", "--no-plot", "--from-estimate", str(other)])
    assert exc.value.code == 2 and "as written by `survey estimate --json`" in capsys.readouterr().err


def test_plan_options_are_checked_once_per_plan_call(monkeypatch):
    """PlanOptions checks its numbers when built; plan() reuses that check instead of running it again."""
    from survey.kinds.binary.power import BinaryPlan
    from survey.stats.planning import PlanOptions, plan, planner

    checks = []
    real = planner.validated

    def counting(cls, **values):
        checks.append(cls.__name__)
        return real(cls, **values)

    monkeypatch.setattr(planner, "validated", counting)
    plan(BinaryPlan(0.5), designs=["10,6,1"], simulations=20, flips=50)
    assert checks == ["PlanNumbers"]
    checks.clear()
    options = PlanOptions(designs=["10,6,1"], simulations=20, flips=50)
    plan(BinaryPlan(0.5), options=options)
    assert checks == ["PlanNumbers"] and options.numbers() is options.numbers()
    with pytest.raises(SurveyError, match="alpha"):
        PlanOptions(alpha=2)
