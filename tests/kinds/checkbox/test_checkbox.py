"""The checkbox kind: parsing rules (a table), the study file's keys and their one-line refusals, the per-option
tests against independent computations (a brute-force sign flip per option with its ties broken by the same U,
statsmodels' Holm), and each option's size inside the 99% binomial band of alpha, the smallest Holm p's at most
its top, with a shared paraphrase shift (a small version of bench/numeric_checkbox.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binom
from statsmodels.stats.multitest import multipletests

import survey
from survey.errors import SurveyError
from survey.kinds.checkbox.parsing import CheckboxScale, from_name
from survey.kinds.checkbox.power import CheckboxPlan, draw_ticks
from survey.responses import response_type
from survey.stats.multiplicity import holm_rows
from survey.stats.tie_breaking import data_seed
from survey.study.question import QuestionSpec

OPTIONS = ["comfortable", "stylish", "good value", "durable"]


@pytest.mark.parametrize("reply, mask", [
    ("1, 3", 0b101), ("1,3", 0b101), ("3 and 1", 0b101), ("Answer: 2; 4", 0b1010), ("**2**", 0b10),
    ("Comfortable, good value", 0b101), ("stylish and durable.", 0b1010), ("1\n2\n3", 0b111), ("2/4", 0b1010),
    ("1. comfortable\n3. good value", 0b101), ("2) Stylish", 0b10), ("1. stylish", None), ("3. Good", None),
    ("1, 2, 3, 4", None),  # max_choices = 3
    ("1, 1", None), ("5", None), ("0", None), ("cheap", None), ("I like 1", None), ("", None), (None, None),
    ("none", None),  # min_choices = 1
])
def test_a_reply_becomes_the_options_ticked(reply, mask):
    assert CheckboxScale(OPTIONS, 1, 3).parse(reply) == mask


def test_none_is_the_empty_set_when_allowed():
    scale = CheckboxScale(OPTIONS, 0, 2)
    assert scale.parse("none") == 0 and scale.parse("None of these.") == 0 and scale.scale == "checkbox4-0-2"
    assert scale.values == frozenset(m for m in range(16) if bin(m).count("1") <= 2)


def test_the_scale_name_rebuilds_the_type():
    assert response_type("checkbox4").values == frozenset(range(1, 16))
    assert response_type("checkbox5-0-2").scale == "checkbox5-0-2"
    assert from_name("likert5") is None
    for name, why in (("checkbox13", "takes 2 to 12 options"), ("checkbox4-3-2", "min_choices must be at most")):
        with pytest.raises(SurveyError, match=f"scale '{name}': .*{why}"):
            from_name(name)


def test_the_study_file_keys_live_in_the_kind():
    q = QuestionSpec(type="checkbox", options=OPTIONS, max_choices=2)
    assert q.type == "checkbox4-1-2" and "3. good value" in q.resolved_template and "{choices}" not in \
        q.resolved_template
    assert "options" not in QuestionSpec.model_fields
    own = QuestionSpec(type="checkbox", options=OPTIONS, template='"{perturbation}" Which apply?\n{choices}')
    assert own.resolved_template.endswith("4. durable")


@pytest.mark.parametrize("keys, message", [
    ({"type": "checkbox", "options": []}, "needs options: give at least 2"),
    ({"type": "checkbox"}, "needs options"),
    ({"type": "checkbox", "options": ["a", "b", "A"]}, "option 'A' is listed twice"),
    ({"type": "checkbox", "options": OPTIONS, "min_choices": 3, "max_choices": 2}, "min_choices must be at most "
                                                                                 "max_choices"),
    ({"type": "checkbox", "options": OPTIONS, "max_choices": 5}, "max_choices = 5 is more than the 4 options"),
    ({"type": "checkbox", "options": OPTIONS, "min_choices": 5}, "min_choices must be at most max_choices"),
    ({"type": "checkbox", "options": [str(i) for i in range(13)]}, "2 to 12 options"),
    ({"type": "binary", "options": OPTIONS}, "options only applies to type = 'checkbox', not to type = 'binary'"),
    ({"type": "numeric", "min": 0, "max": 9, "max_choices": 2}, "max_choices only applies to type = 'checkbox'"),
    ({"type": "checkbox", "options": OPTIONS, "template": "{perturbation} which?"}, "{choices}"),
])
def test_bad_keys_are_one_clear_line(keys, message):
    with pytest.raises(Exception) as info:
        QuestionSpec(**keys)
    assert message in str(info.value) and "\n" not in str(info.value).split("\n", 1)[0]


def checkbox_table(seed=0, n=10, m=8, r=2, shift=0.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    scale = CheckboxScale(OPTIONS, 1, 3)
    rows = []
    for msg, extra in (("A", shift), ("B", 0.0)):
        for j in range(m):
            u = rng.normal(0, 0.5)
            for i in range(n):
                for k in range(r):
                    mask = scale.parse(scale.simulated_reply(extra + u + np.sin(i), rng))
                    rows.append(dict(model="m", message=msg, perturbation=f"{msg}{j}", persona=f"p{i}", replicate=k,
                                     answer=mask, scale="checkbox4-1-3", options="|".join(OPTIONS)))
    return pd.DataFrame(rows)


def brute_sign_flip(d: np.ndarray, u: float) -> float:
    """The two-sided sign-flip p with ties broken by ``u``: (#{|T*| > |T|} + u #{|T*| = |T|}) / 2^m, at least
    2/2^m (the counting test's smallest p)."""
    obs = abs(d.mean())
    flips = [abs((d * np.array(s)).mean()) for s in itertools.product((1, -1), repeat=len(d))]
    beyond = sum(f > obs + 1e-12 for f in flips)
    tied = sum(abs(f - obs) <= 1e-12 for f in flips)
    return max(beyond + u * tied, 2) / len(flips)


def test_per_option_tests_agree_with_independent_computations():
    df = checkbox_table(shift=1.0)
    r = survey.analyze(df, "A", "B", flips=999)["m"]
    assert r.options == OPTIONS
    raw = []
    for i, o in enumerate(r.per_option):
        ticked = df.assign(v=df["answer"].astype(int) // (1 << i) % 2)
        para = ticked.groupby(["message", "perturbation", "persona"])["v"].mean().groupby(
            ["message", "perturbation"]).mean()
        d = para["A"].to_numpy() - para["B"].to_numpy()
        assert o["share_a"] == pytest.approx(para["A"].mean()) and o["effect"].estimate == pytest.approx(d.mean())
        u = np.random.default_rng(data_seed(0, i, d)).random()  # option i's U: the seed (0), its index, its data
        assert o["pvalue"] == pytest.approx(brute_sign_flip(d, u))
        raw.append(o["pvalue"])
    holm = multipletests(raw, method="holm")[1]
    assert [o["holm"] for o in r.per_option] == pytest.approx(list(holm))
    assert r.pvalue == pytest.approx(min(holm))


def test_the_simulator_keeps_to_the_bounds():
    rng = np.random.default_rng(0)
    ticks = draw_ticks(5, 1, 2, rng.normal(0, 3, (50, 4)), 3, rng)
    n = ticks.sum(axis=-1)
    assert n.min() >= 1 and n.max() <= 2
    scale = CheckboxScale(["a", "b", "c", "d", "e"], 2, 3)
    assert all(2 <= bin(scale.parse(scale.simulated_reply(x, rng))).count("1") <= 3 for x in rng.normal(0, 3, 200))


SIZE_STUDIES = 2000
LOW, HIGH = binom.interval(0.99, SIZE_STUDIES, 0.05) / np.array(SIZE_STUDIES)  # [0.038, 0.063]


@pytest.mark.parametrize("rho", [0.0, 0.3, 0.6])
def test_size_inside_the_binomial_band(rho):
    """Each option's sign-flip test (8 personas x 10 pairs x r = 2: shares in steps of 1/16, many ties) rejects
    a true H0 at a rate inside the 99% band of alpha, not below it; the smallest Holm p at most the band's top."""
    raw = CheckboxPlan(0.0, "checkbox4", sigma=1.0, rho=rho).option_pvalues(8, 10, 2, SIZE_STUDIES,
                                                                            np.random.default_rng(7))
    rates = (raw <= 0.05).mean(axis=0)
    assert ((LOW <= rates) & (rates <= HIGH)).all(), rates
    assert np.mean(holm_rows(raw).min(axis=1) <= 0.05) <= HIGH


def test_power_grows_with_the_effect():
    rng = np.random.default_rng(1)
    low = np.mean(CheckboxPlan(0.2, "checkbox4").pvalues(10, 10, 2, 200, rng)["sign_flip"] <= 0.05)
    high = np.mean(CheckboxPlan(1.0, "checkbox4").pvalues(10, 10, 2, 200, rng)["sign_flip"] <= 0.05)
    assert high > low and high > 0.5


def test_human_answers_read_as_option_numbers(tmp_path):
    from survey.data.humans import load_humans

    path = tmp_path / "humans.csv"
    path.write_text('respondent,message,answer\nh1,A,"1, 3"\nh1,B,2\nh2,A,3\nh2,B,"2,4"\n')
    h = load_humans(path, "checkbox4", ["A", "B"])
    assert list(h.table["answer"]) == [5, 2, 4, 10]  # "3" is option 3 (the bit set 4), as a reply says it
    path.write_text('respondent,message,answer\nh1,A,"1, 7"\n')
    with pytest.raises(SurveyError, match="1 to 4 of the options 1 to 4 by number"):
        load_humans(path, "checkbox4", ["A", "B"])


def test_the_result_says_ties_are_broken_at_random(tmp_path, capsys):
    from cli_result import run_cli

    df = checkbox_table(shift=1.0)
    r = survey.analyze(df, "A", "B")["m"]
    again = survey.analyze(df, "A", "B")["m"]
    other = survey.analyze(df, "A", "B", seed=5)["m"]
    words = "ties broken at random (seeded), which makes the test's size exactly alpha"
    assert words in r.to_dict()["tests"]["sign_flip"]["method"] and r.to_dict()["tests"]["sign_flip"]["ties"] == words
    assert [o["pvalue"] for o in r.per_option] == [o["pvalue"] for o in again.per_option]  # the same seed, the same p
    assert [o["pvalue"] for o in r.per_option] != [o["pvalue"] for o in other.per_option]  # ties move with the seed
    df.to_csv(tmp_path / "t.csv", index=False)
    code, out, err = run_cli(capsys, "analyze", str(tmp_path / "t.csv"))
    assert code == 0 and f"each option's sign-flip test: {words}; the same --seed gives the same p" in out
    survey.report(df, out=tmp_path / "r")
    assert "each option&#39;s test breaks these ties at random (seeded" in (tmp_path / "r" / "index.html").read_text()


@pytest.mark.parametrize("reply, mask", [
    ("Warm and dry, cheap", 0b101), ("1. warm and dry and 2) light/airy", 0b011), ("light/airy", 0b010),
    ("3 and 1", 0b101), ("warm", None), ("warm and dry and Warm and Dry", None), ("dry", None),
])
def test_an_option_name_holding_a_separator_is_kept_whole(reply, mask):
    assert CheckboxScale(["warm and dry", "light/airy", "cheap"], 1, 3).parse(reply) == mask


@pytest.mark.parametrize("reply, mask", [
    ("black and white", 0b0001), ("Black and White, red", 0b0011), ("1. black and white", 0b0001),
    ("blue, navy", 0b0100), ("red and blue, navy", 0b0110), ("Answer: price: low", 0b1000),
    ("price: low and red", 0b1010), ("Price: low", 0b1000), ("1, 3", 0b0101), ("black", None), ("white", None)])
def test_an_option_whose_name_holds_a_colon_or_separator_is_read_whole(reply, mask):
    # before: a reply naming "Price: low" was cut at its colon ("Answer: price: low" read as "low"), so every reply
    # naming it (a human file's too) was invalid
    scale = CheckboxScale(["black and white", "red", "blue, navy", "Price: low"])
    assert scale.parse(reply) == mask
