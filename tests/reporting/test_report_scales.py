"""The report on rating scales and forced choice: the numbers on the page are recomputed here from the table
itself (not read back from the code that wrote them), the plots are embedded, and a Yes/No report keeps its
sections."""

import json
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import survey
from survey.errors import SurveyError
from survey.kinds.choice.model import choice_table, simulate_choice_counts
from survey.kinds.ordinal.table import scale_params, simulate_table
from survey.stats import compare_messages
from survey.stats.beta_logit import simulate as simulate_binary
from survey.stats.permutation import sign_flip_test

FLIPS = 999
IMG = re.compile(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]{2000,})" alt="([^"]*)"')


def likert_table(invalid_rows: int = 7) -> pd.DataFrame:
    df = simulate_table(scale_params("likert5", delta=-0.8, rho=0.3), 16, 6, 3, seed=11)
    df.loc[df.index[::97][:invalid_rows], "answer"] = pd.NA  # a few replies that were not 1..5
    return df


def images(html: str) -> dict[str, int]:
    """alt text -> length of the embedded PNG data."""
    return {alt: len(data) for data, alt in IMG.findall(html)}


def cell_means(df: pd.DataFrame, value) -> pd.Series:
    """message -> mean over paraphrases of the persona-averaged cell means of value(answer), valid answers only."""
    ok = df[df["answer"].notna()].assign(v=lambda d: value(d["answer"].astype(int)))
    per_pert = ok.groupby(["message", "perturbation", "persona"])["v"].mean().groupby(["message", "perturbation"]).mean()
    return per_pert


@pytest.fixture(scope="module")
def likert_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("likert")
    df = likert_table()
    res = survey.report(df, out, flips=FLIPS)
    return df, res, (out / "index.html").read_text()


def test_likert_report_shows_the_distribution_plot(likert_report):
    _, _, html = likert_report
    imgs = images(html)
    dist = [alt for alt in imgs if alt.startswith("Distribution of the answers")]
    assert len(dist) == 1 and "invalid replies" in dist[0]
    assert any(alt.startswith("Mean score of every paraphrase") for alt in imgs)


def test_likert_mean_scores_and_intervals_match_the_table(likert_report):
    df, res, html = likert_report
    per_pert = cell_means(df, lambda a: a.astype(float))
    for msg in ("A", "B"):
        vals = per_pert.loc[msg].to_numpy()
        mean = vals.mean()
        lo, hi = sps.t.interval(0.95, len(vals) - 1, loc=mean, scale=sps.sem(vals))
        assert f"<td>{mean:.3f}</td>" in html
        assert f"[{max(lo, 1):.3f}, {min(hi, 5):.3f}]" in html
        got = res["results"][0]["mean_scores"][msg]
        assert got["mean"] == pytest.approx(mean) and got["ci"] == pytest.approx([max(lo, 1), min(hi, 5)])
    # the effect in scale points: T = mean over pairs of the paired differences, every pair present here
    d = per_pert.loc["A"].to_numpy() - per_pert.loc["B"].to_numpy()
    assert f"<b>{d.mean():+.2f}</b> scale points" in html
    assert res["results"][0]["effect"]["estimate"] == pytest.approx(d.mean())
    assert "7 of 576" in html or "of 288" in html  # the invalid replies are stated beside the means


def test_likert_top_two_box_shares_and_their_test(likert_report):
    df, res, html = likert_report
    per_pert = cell_means(df, lambda a: a.isin([4, 5]).astype(float))
    shares = {m: per_pert.loc[m].mean() for m in ("A", "B")}
    for m in ("A", "B"):
        assert f"<td>{shares[m]:.1%}</td>" in html
    d = per_pert.loc["A"].to_numpy() - per_pert.loc["B"].to_numpy()
    test = sign_flip_test(d)  # six pairs: exact, so it must agree with the report exactly
    assert f"Top-2-box (scores 4 and 5): difference in share = <b>{d.mean() * 100:+.1f}</b>" in html
    top = res["results"][0]["top_box"]
    assert top["pvalue"] == pytest.approx(test.pvalue)
    assert top["shares"]["A"] == pytest.approx(shares["A"])
    assert f"Top-2-box (scores 4 and 5): {shares['A']:.0%} vs {shares['B']:.0%}" in html  # the headline


def test_rating_0_10_report_renders(tmp_path):
    df = simulate_table(scale_params("rating0-10", delta=0.5), 8, 4, 2, seed=3)
    res = survey.report(df, tmp_path, flips=FLIPS)
    html = (tmp_path / "index.html").read_text()
    assert any(alt.startswith("Distribution of the answers") for alt in images(html))
    assert "on the 0–10 scale (rating0-10)" in html and "Top-2-box (scores 9 and 10)" in html
    assert "NaN" not in (tmp_path / "results.json").read_text() and res["results"][0]["scale"] == "rating0-10"


def choice_data(position: float = 0.85) -> pd.DataFrame:
    counts = simulate_choice_counts(12, 8, 2, np.random.default_rng(7), delta=-1.2, sigma=0.5, position=position)
    return choice_table(counts, 2)


def choice_shares(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per pair: the order-averaged share choosing A and the share choosing the first-shown option."""
    ok = df[df["answer"].notna()].copy()
    ok["pair"] = np.where(ok["message"] == "A", ok["perturbation"], ok["second_perturbation"])
    ok["first"] = (ok["answer"] == 1).astype(float)
    ok["chose_a"] = np.where(ok["message"] == "A", ok["first"], 1 - ok["first"])
    cells = ok.groupby(["message", "pair", "persona"])[["chose_a", "first"]].mean()
    per_order = cells.groupby(["message", "pair"]).mean()  # persona mean within each order
    per_pair = per_order.groupby("pair").mean()  # then the two orders averaged
    return per_pair["chose_a"].to_numpy(), per_pair["first"].to_numpy()


def test_choice_report_shows_preference_and_position_bias(tmp_path):
    df = choice_data()
    res = survey.report(df, tmp_path, flips=FLIPS)
    html = (tmp_path / "index.html").read_text()
    pref, first = choice_shares(df)
    out = res["results"][0]
    assert out["scale"] == "choice" and out["model"] == "simulated"
    assert out["preference"]["share"] == pytest.approx(pref.mean())
    assert out["position_bias"]["share"] == pytest.approx(first.mean())
    # the one number per test: share chosen minus share not chosen (preference for A, first minus second shown)
    assert f"<td>{2 * pref.mean() - 1:+.3f}</td>" in html and f"<td>{2 * first.mean() - 1:+.3f}</td>" in html
    assert out["preference"]["pvalue"] == pytest.approx(sign_flip_test(pref - 0.5, n_resamples=FLIPS).pvalue)
    assert out["position_bias"]["pvalue"] == pytest.approx(sign_flip_test(first - 0.5, n_resamples=FLIPS).pvalue)
    assert f"preference for A (share choosing A − share choosing B, both orders averaged) is {2 * pref.mean() - 1:+.3f}" in html
    # a strong position bias: the warning is on the page, in the warnings and in the section
    assert out["warning"] and html.count(out["warning"]) == 2
    alts = images(html)
    assert any(a.startswith("Per paraphrase pair") for a in alts)
    assert any(a.startswith("All replies by order of presentation") for a in alts)
    assert "Beta-logit" not in html and "Across models" not in html


def test_choice_report_without_position_bias_has_no_warning(tmp_path):
    df = choice_data(position=0.5)
    res = survey.report(df, tmp_path, flips=FLIPS)
    assert res["results"][0]["position_bias"]["pvalue"] > 0.05 and res["results"][0]["warning"] is None
    warns = re.findall(r'<p class="warn">(.*?)</p>', (tmp_path / "index.html").read_text(), re.S)
    assert not any("position bias" in w for w in warns)


def test_choice_report_through_survey_report_from_a_file(tmp_path):
    path = tmp_path / "choice.csv"
    choice_data().to_csv(path, index=False)
    res = survey.report(str(path), out=tmp_path / "r", flips=FLIPS)
    assert res["results"][0]["preference"]["n_pairs"] == 8
    assert "Forced choice: each prompt showed" in (tmp_path / "r" / "index.html").read_text()


def test_a_table_mixing_scales_is_refused(tmp_path):
    mixed = pd.concat([likert_table(0), simulate_binary(16, 6, 3, seed=1, messages=("C", "D")).assign(scale="binary")],
                      ignore_index=True)
    with pytest.raises(SurveyError, match="mixes"):
        survey.report(mixed, tmp_path, flips=FLIPS)


def test_binary_report_keeps_its_sections(tmp_path):
    df = simulate_binary(16, 6, 3, delta=0.8, seed=2)
    res = survey.report(df, tmp_path, flips=FLIPS)
    html = (tmp_path / "index.html").read_text()
    assert "of answers were Yes for “A”" in html and "Effect T = mean P(Yes | A) − P(Yes | B)" in html
    assert "Beta-logit model fitted per message" in html and "The same tests on the model" in html
    for scale_only in ("scale points", "Top-2-box", "Forced choice", "Distribution of the answers"):
        assert scale_only not in html
    assert len(images(html)) == 3 + 0  # perturbation means, persona differences, sign-flip null
    ref = compare_messages(df, "simulated", "A", "B", n_resamples=FLIPS)
    # results.json's results are `survey analyze --json`'s: the comparison's own dict and the decision
    # and the warnings analyze puts on it (none here: A and B have no invalid replies)
    want = json.loads(json.dumps({**ref.to_dict(), "warnings": [], "significant": bool(ref.decision.pvalue <= 0.05)}))
    assert json.loads((tmp_path / "results.json").read_text())["results"][0] == want
    assert res["results"][0]["effect"] == want["effect"]


def test_exact_expected_scores_get_their_own_section(likert_report):
    df, res, html = likert_report  # simulated ratings carry each cell's exact expected score
    exact = df.groupby(["message", "perturbation", "persona"])["expected"].mean().groupby(["message", "perturbation"]).mean()
    d = exact.loc["A"].to_numpy() - exact.loc["B"].to_numpy()
    assert "The same tests on the model&#39;s exact expected scores" in html
    assert res["exact_expected"][0]["effect"]["estimate"] == pytest.approx(d.mean())
    assert f"<td>{d.mean():+.4f}</td>" in html


def test_exact_choice_probabilities_get_their_own_section(tmp_path):
    df = choice_data()
    df["expected"] = df["answer"].astype(float)  # a certain reply: exact mode then equals the answers
    res = survey.report(df, tmp_path, flips=FLIPS)
    pref, first = choice_shares(df)
    assert res["exact_expected"][0]["preference"]["share"] == pytest.approx(pref.mean())
    assert res["exact_expected"][0]["position_bias"]["share"] == pytest.approx(first.mean())
    assert "exact choice probabilities" in (tmp_path / "index.html").read_text()


def test_a_three_point_scale_has_no_top_two_box(tmp_path):
    res = survey.report(simulate_table(scale_params("likert3"), 8, 4, 2, seed=1), tmp_path, flips=FLIPS)
    html = (tmp_path / "index.html").read_text()
    assert res["results"][0]["top_box"] is None and "top-2-box" not in html.lower()
    assert "on the 1–3 scale (likert3)" in html


@pytest.mark.parametrize("scale", ["likert5", "choice"])
def test_across_models_section_speaks_the_scale(tmp_path, scale):
    if scale == "choice":
        one, two = choice_data(), choice_table(simulate_choice_counts(12, 8, 2, np.random.default_rng(8), delta=1.2), 2)
    else:
        one, two = likert_table(0), simulate_table(scale_params("likert5", delta=0.8), 16, 6, 3, seed=12)
    res = survey.report(pd.concat([one, two.assign(model="other")], ignore_index=True), tmp_path, flips=FLIPS)
    html = (tmp_path / "index.html").read_text()
    assert "Across models: A vs B" in html and res["across_models"]["models"]["scale"] == scale
    unit = "share choosing A − share choosing B" if scale == "choice" else "mean score (1–5)"
    assert f"(difference in {unit})" in html and "Beta-logit" not in html
    assert [r["model"] for r in res["results"]] == ["simulated", "other"]


def test_cli_report_on_a_rating_table(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "likert.csv"
    likert_table().to_csv(path, index=False)
    proc = subprocess.run([sys.executable, "-m", "survey", "report", str(path), "--out", str(tmp_path / "r"),
                           "--flips", str(FLIPS), "--json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["results"][0]["scale"] == "likert5" and out["results"][0]["top_box"]["points"] == [4, 5]
    assert "Top-2-box (scores 4 and 5)" in (tmp_path / "r" / "index.html").read_text()


@pytest.mark.parametrize("kind", ["binary", "likert5", "choice"])
def test_results_json_equals_analyze_json_and_carries_every_number(tmp_path, capsys, kind):
    # The report renders results: its results are `survey analyze --json`'s on the same table, and the fitted
    # parameters, mean-score intervals and exact-mode results it shows are in results.json too.
    from survey.cli import main

    if kind == "choice":
        from survey.kinds.choice.model import choice_table, simulate_choice_counts

        df = choice_table(simulate_choice_counts(10, 8, 2, np.random.default_rng(2)), 2)
    else:
        df = survey.simulate(n=12, m=8, r=3, scale=kind, seed=4, delta=0.3)
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    main(["analyze", str(path), "--json", "--flips", str(FLIPS)])
    cli = json.loads(capsys.readouterr().out)
    main(["report", str(path), "--out", str(tmp_path / "r"), "--flips", str(FLIPS), "--json"])
    capsys.readouterr()
    doc = json.loads((tmp_path / "r" / "results.json").read_text())
    assert doc["results"] == cli["results"]
    if kind == "binary":
        assert set(doc["fits"]["simulated"]["A"]) >= {"mu", "kappa", "sigma", "rho", "notes"}
    if kind == "likert5":
        assert doc["results"][0]["mean_scores"]["A"]["ci"][0] <= doc["results"][0]["mean_scores"]["A"]["mean"]
        assert "these personas" in doc["results"][0]["mean_scores"]["A"]["covers"]
        assert set(doc["fits"]["simulated"]["A"]) >= {"tau", "sigma", "rho", "cuts"}


def test_the_across_models_tables_speak_words_not_keys(tmp_path):
    # raw keys (invalid_rate, p_sign_flip, p_adjusted) once stood in one table that overflowed the page
    df = pd.concat([survey.simulate(n=12, m=6, r=2, scale="likert5", seed=1),
                    survey.simulate(n=12, m=6, r=2, scale="likert5", seed=2).assign(model="other")])
    survey.report(df, tmp_path, flips=FLIPS)
    page = (tmp_path / "index.html").read_text()
    across = page[page.index("Across models"):]
    assert "sign-flip p" in across and "adjusted p" in across
    assert not any(key in across for key in ("p_sign_flip", "invalid_rate", "p_adjusted", "model_a", "n_cells"))
    assert "sign-flip inversion (exact)" not in page and "clamped:" not in page
