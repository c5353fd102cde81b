"""Do a checkbox question's segments differ? The interaction compares like with like: per option the segments'
interaction test on that option's per-pair differences (ties broken at random, as each option's own test), Holm
across the options, the smallest adjusted p deciding and its option named. Checked against an independent
computation (a brute-force sign flip per option on the indicator tables, statsmodels' Holm), under the null (the
planner, which runs the analysis's test, inside the 99% binomial band of alpha), and as a user reads it (survey
analyze --by, text and --json, the report, Python)."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from cli_result import run_cli
from kind_segment_plan import BAND, in_band, null_cells, study_toml
from statsmodels.stats.multitest import multipletests

import survey
from survey import CheckboxPlan
from survey.kinds.checkbox.parsing import CheckboxScale
from survey.stats.planning.segments import SegmentDesign, interaction_power
from survey.stats.tie_breaking import data_seed

OPTIONS = ["comfortable", "stylish", "good value", "durable"]
QUESTION = 'type = "checkbox"\noptions = ["comfortable", "stylish", "good value", "durable"]\nmax_choices = 3'


def segmented_table(levels: dict[str, float], n: int = 6, m: int = 8, r: int = 2, seed: int = 0) -> pd.DataFrame:
    """A checkbox table whose personas carry a ``segment`` attribute; message A's replies shifted by the
    segment's level (B's not), so the segments' effects differ."""
    rng = np.random.default_rng(seed)
    scale = CheckboxScale(OPTIONS, 1, 3)
    rows = []
    for msg in ("A", "B"):
        for j in range(m):
            u = rng.normal(0, 0.5)
            for s, (segment, level) in enumerate(levels.items()):
                for i in range(n):
                    shift = (level if msg == "A" else 0.0) + u + np.sin(i + s)
                    for k in range(r):
                        rows.append(dict(model="m", message=msg, perturbation=f"{msg}{j}", persona=f"{segment}{i}",
                                         replicate=k, answer=scale.parse(scale.simulated_reply(shift, rng)),
                                         scale="checkbox4-1-3", options="|".join(OPTIONS), segment=segment))
    return pd.DataFrame(rows)


def brute_interaction(d: np.ndarray, sizes: np.ndarray, u: float) -> float:
    """The interaction p over all 2^m sign vectors with ties broken by ``u``, at least 2/2^m: two segments the
    sign-flip test of E_j = D_j^1 - D_j^2, more the statistic sum_s n_s (mean_j eps_j c_j^s)^2 on the centred c."""
    m = d.shape[1]
    signs = np.array(list(itertools.product((1, -1), repeat=m)), dtype=float)
    if len(d) == 2:
        stat = np.abs(signs @ (d[0] - d[1]))
        obs = abs((d[0] - d[1]).sum())
    else:
        c = d - (sizes @ d) / sizes.sum()
        stat = ((c @ signs.T / m) ** 2).T @ sizes
        obs = float((c.mean(axis=1) ** 2) @ sizes)
    tol = 1e-9 * max(obs, 1e-12)
    beyond, tied = np.sum(stat > obs + tol), np.sum(np.abs(stat - obs) <= tol)
    return max(beyond + u * tied, 2) / len(signs)


@pytest.mark.parametrize("levels", [{"young": 1.5, "old": -0.5}, {"a": 1.5, "b": 0.0, "c": -1.0}])
def test_each_options_interaction_agrees_with_an_independent_computation(levels):
    df = segmented_table(levels)
    r = survey.analyze(df, "A", "B", by="segment", flips=999)["m"]
    inter = r.segments.interaction
    names = [s.segment for s in r.segments.segments]
    sizes = np.array([s.n_personas for s in r.segments.segments], dtype=float)
    assert inter.part_word == "option" and [x["option"] for x in inter.parts] == OPTIONS
    raw = []
    for i, part in enumerate(inter.parts):
        ticked = df.assign(v=df["answer"].astype(int) // (1 << i) % 2)
        cell = ticked.groupby(["segment", "message", "perturbation", "persona"])["v"].mean()
        para = cell.groupby(["segment", "message", "perturbation"]).mean()
        d = np.array([para[s]["A"].to_numpy() - para[s]["B"].to_numpy() for s in names])  # (K, m) per option
        u = np.random.default_rng(data_seed(0, i, d)).random()  # option i's U: the seed (0), its index, its data
        assert part["pvalue"] == pytest.approx(brute_interaction(d, sizes, u)), part
        if len(names) == 2:
            assert part["statistic"] == pytest.approx((d[0] - d[1]).mean())
        raw.append(part["pvalue"])
    holm = multipletests(raw, method="holm")[1]
    assert [x["holm"] for x in inter.parts] == pytest.approx(list(holm))
    assert inter.pvalue == pytest.approx(min(holm)) and inter.part == OPTIONS[int(np.argmin(raw))]
    doc = r.segments.to_dict()["interaction"]
    assert doc["option"] == inter.part and [x["holm"] for x in doc["per_option"]] == pytest.approx(list(holm))
    assert doc["adjustment"] == "holm over the options" and "ties broken at random" in doc["ties"]


def test_other_kinds_interaction_is_one_test_as_before():
    df = segmented_table({"young": 1.5, "old": -0.5})
    df = df.assign(answer=(df["answer"].astype(int) % 2).astype("Int16"), scale="binary").drop(columns="options")
    inter = survey.analyze(df, "A", "B", by="segment", flips=999)["m"].segments.interaction
    assert inter.parts is None and {"option", "per_option", "adjustment", "ties"}.isdisjoint(inter.to_dict())


@pytest.mark.parametrize("scale", ["checkbox4", "checkbox4-1-3"])
@pytest.mark.parametrize("m, r, n", [(8, 2, 15), (10, 1, 12)])
def test_the_interaction_holds_its_size_under_the_null(scale, m, r, n):
    # the planner runs the analysis's interaction (per option, Holm across the options) on 1 000 null surveys of
    # two segments with equal effects; comparing each segment's own deciding option rejected 0.073-0.126
    params = CheckboxPlan(0.0, scale=scale)
    model, _ = params.segment_model(None)
    design = SegmentDesign(scale, model, m, r, params.segment_draws(r))
    rate = interaction_power(design, (n, n), 0.0, 0.0, 0.05, 1000, [3, 2], 999)
    assert in_band(rate), (rate, BAND)


def test_three_segments_hold_the_size_under_the_null():
    cells = null_cells("checkbox4", {"tau": 1.0})  # two segments, levels +-0.5: other base rates, equal effects
    assert in_band(float(np.mean(cells.interaction_pvalues(999, 1) <= 0.05)))
    from survey.stats.segments.simulation import SimSegment, simulate_segment_cells

    segs = [SimSegment("s1", 10, 0.0, 0.5), SimSegment("s2", 10, 0.0, 0.0), SimSegment("s3", 10, 0.0, -0.5)]
    cells = simulate_segment_cells(segs, 8, 2, scale="checkbox4", tau=1.0, surveys=1000, seed=5)
    assert in_band(float(np.mean(cells.interaction_pvalues(999, 1) <= 0.05)))


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cbseg")
    (folder / "study.toml").write_text(study_toml(QUESTION))
    survey.Study.from_toml(folder / "study.toml").run(yes=True, progress=False)
    return folder / "study.toml"


def test_analyze_by_shows_the_interaction_per_option(study, capsys, tmp_path):
    code, out, err = run_cli(capsys, "analyze", study, "--a", "sneakers", "--b", "boots", "--by", "gender")
    assert code == 0, err
    assert "the interaction per option" in out  # the table's title (rich may fold it)
    assert all(o in out for o in OPTIONS) and "on the deciding option '" in out
    code, out, err = run_cli(capsys, "analyze", study, "--a", "sneakers", "--b", "boots", "--by", "gender", "--json")
    assert code == 0, err
    inter = json.loads(out)["results"][0]["interaction"]
    assert [x["option"] for x in inter["per_option"]] == OPTIONS and inter["option"] in OPTIONS
    assert inter["pvalue"] == min(x["holm"] for x in inter["per_option"])
    assert all(x["holm"] >= x["pvalue"] for x in inter["per_option"])
    res = survey.analyze(survey.load_source(study.parent / "store.sqlite"), "sneakers", "boots", by="gender").results[0]
    assert res.segments.interaction.to_dict() == inter  # the same from Python
    assert f"on any option, p = {inter['pvalue']:.2g}" in res.segments.sentence() or \
        f"on option '{inter['option']}'" in res.segments.sentence()
    survey.report(survey.load_source(study.parent / "store.sqlite"), tmp_path / "r", a="sneakers", b="boots")
    html = (tmp_path / "r" / "index.html").read_text()
    assert "The interaction test is run option by option" in html and "p (holm across options)" in html


def test_each_segments_row_names_the_option_its_effect_is_of(capsys):
    # before: each segment's row showed its own deciding option's effect and interval with no option named, so two
    # rows could be of different options (a store's men on 'durable', its women on 'good value') and read as one
    df = segmented_table({"x": 0.0, "y": 1.5, "z": -1.5}, n=8, m=8)
    res = survey.analyze(df, "A", "B", by="segment", flips=999).results[0]
    rows = res.segments.segments
    assert all(s.part == s.result.decision.option and s.part in OPTIONS for s in rows)
    for s, d in zip(rows, res.segments.to_dict()["segments"], strict=True):
        assert d["option"] == s.part
        per = {o["option"]: o for o in s.result.per_option}[s.part]
        assert s.effect == pytest.approx(per["effect"].estimate)  # the row's effect is that option's difference
    from survey.cli.segments import echo_segments

    echo_segments(res.segments)
    out = capsys.readouterr().out
    assert "option" in out and all(s.part in out for s in rows)


def test_a_target_alone_reads_as_one_sentence_naming_the_option(tmp_path, capsys):
    # before: with a target and no segments the sentence began "; weighted to the target population, ..." and did
    # not say which option the weighted effect was of
    target = tmp_path / "target.csv"
    target.write_text("attribute,level,share\nsegment,x,0.5\nsegment,y,0.3\nsegment,z,0.2\n")
    df = segmented_table({"x": 0.0, "y": 1.5, "z": -1.5}, n=8, m=8)
    res = survey.analyze(df, "A", "B", weights=survey.read_target(target), flips=999).results[0]
    words, pop = res.segments.sentence(), res.segments.population.to_dict()
    assert words.startswith("weighted to the target population, these personas' effect is ")
    assert pop["option"] == res.segments.population.result.decision.option and f"on option '{pop['option']}'" in words
    from survey.cli.segments import echo_segments

    echo_segments(res.segments)
    out = capsys.readouterr().out
    assert "on option" in out and pop["option"] in out
