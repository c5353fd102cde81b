"""The newer kinds (numeric, checkbox, rank) walked the way a user walks them, one small study file per kind: run
on the simulated backend from the command line, analyze (text, --json, --by, --target), the human file the study
names, plan, report, and the same from Python. Each capability of the matrix has one test here; the kinds' own
folders hold the statistics against independent computations (tests/kinds/numeric, checkbox, rank)."""

from __future__ import annotations

import html
import json
import re

import pytest
from cli_result import run_cli

import survey
from survey.cli import main

MESSAGES = ("sneakers", "boots", "sandals")
QUESTIONS = {
    "numeric": ('type = "numeric"\nmin = 0\nmax = 300\nunit = "US dollars"', "numeric0to300"),
    "checkbox": ('type = "checkbox"\noptions = ["comfortable", "stylish", "good value", "durable"]\nmax_choices = 3',
                 "checkbox4-1-3"),
    "rank": ('type = "rank"', "rank3"),
}
# what each kind's analysis says in its own words (text output and report)
OWN_WORDS = {"numeric": "mean", "checkbox": "stylish", "rank": "Borda score"}
LEVEL_WORDS = {"numeric": "mean", "checkbox": "options ticked per reply", "rank": "Borda score"}
MARGINS = "attribute,level,share\ngender,male,0.45\ngender,female,0.45\ngender,non-binary,0.10\n"


def study_toml(kind: str) -> str:
    question, _ = QUESTIONS[kind]
    messages = "".join(f'[[messages]]\nid = "{m}"\nperturbations = "{m}"\ncount = 7\n\n' for m in MESSAGES)
    return f"""name = "{kind}-matrix"
store = "store.sqlite"
replicates = 1

[humans]
file = "humans.csv"
ask = false
compare = ["sneakers", "boots"]

[personas]
set = "shoppers"
count = 12
sample_seed = 1

{messages}[question]
{question}

[[models]]
name = "sim"
backend = "simulated"
seed = 3

[models.options]
deltas = {{ sneakers = 1.5, boots = -1.0 }}
"""


def humans_csv(kind: str) -> str:
    """Twelve respondents in the form a human file of the kind carries: a number, the options ticked, a ranking
    (one column per message, each cell the rank given)."""
    if kind == "rank":
        orders = [(1, 2, 3), (1, 3, 2), (2, 3, 1)]
        return "respondent,sneakers,boots,sandals\n" + "".join(
            f"h{i},{a},{b},{c}\n" for i, (a, b, c) in enumerate(orders * 4))
    answers = {"numeric": {"sneakers": "$120", "boots": "about 80", "sandals": "95"},
               "checkbox": {"sneakers": '"1, 2"', "boots": "3", "sandals": '"2, 4"'}}[kind]
    return "respondent,message,answer\n" + "".join(
        f"h{i},{m},{answers[m]}\n" for i in range(12) for m in MESSAGES)


@pytest.fixture(scope="module", params=sorted(QUESTIONS))
def ran(request, tmp_path_factory):
    """One `survey run` per kind from its study file, shared by the tests below (they only read the store)."""
    kind = request.param
    folder = tmp_path_factory.mktemp(kind)
    (folder / "study.toml").write_text(study_toml(kind))
    (folder / "humans.csv").write_text(humans_csv(kind))
    (folder / "margins.csv").write_text(MARGINS)
    try:
        main(["run", str(folder / "study.toml"), "--yes", "--json"])
        code = 0
    except SystemExit as exc:
        code = exc.code
    assert code in (0, None)
    return kind, QUESTIONS[kind][1], folder


def visible_text(page: str) -> str:
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def no_raw_values(text: str) -> list[str]:
    """Python's or pandas' raw missing values where a reader sees words or numbers."""
    return re.findall(r".{0,60}\b(?:None|nan|NaN|NaT|<NA>)\b.{0,60}", text)


def test_the_study_runs_from_its_file(ran):
    kind, scale, folder = ran
    table = survey.load_source(folder / "store.sqlite").table
    assert set(table["scale"]) == {scale} and len(table) == 12 * 7 * 3 and table["answer"].notna().all()


def test_analyze_text_and_json_follow_the_study_order(ran, capsys):
    kind, scale, folder = ran
    code, out, err = run_cli(capsys, "analyze", folder / "store.sqlite", "--every-pair", "--flips", "199")
    assert code == 0, err
    # the messages in the order the study file lists them (a ranking's rows once followed the first-shown order)
    assert f"3 messages on {scale} — sneakers, boots, sandals" in out and LEVEL_WORDS[kind] in out
    rows = [out.index(f"│ {m} ") for m in MESSAGES]  # the levels table's rows
    assert rows == sorted(rows), out
    code, out, err = run_cli(capsys, "analyze", folder / "store.sqlite", "--every-pair", "--flips", "199", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["scale"] == scale
    assert [(r["a"], r["b"]) for r in doc["results"]] == [("sneakers", "boots"), ("sneakers", "sandals"),
                                                          ("boots", "sandals")]
    sneakers_boots = doc["results"][0]
    assert sneakers_boots["effect"]["estimate"] > 0  # sneakers shifted up, boots down


def test_analyze_by_segment_and_to_a_target(ran, capsys):
    kind, scale, folder = ran
    code, out, err = run_cli(capsys, "analyze", folder / "store.sqlite", "--a", "sneakers", "--b", "boots",
                             "--by", "gender", "--target", folder / "margins.csv", "--flips", "199", "--json")
    assert code == 0, err
    r = json.loads(out)["results"][0]
    assert r["by"] == "gender" and {s["segment"] for s in r["segments"]} <= {"male", "female", "non-binary"}
    assert r["population"]["effect"] != pytest.approx(r["effect"]["estimate"])  # raked to the margins
    code, out, err = run_cli(capsys, "analyze", folder / "store.sqlite", "--a", "sneakers", "--b", "boots",
                             "--by", "age:18-39,40+", "--flips", "199")
    assert code == 0 and "by age:18-39,40+" in out and "segments differ?" in out, err


def test_weights_from_python(ran):
    kind, scale, folder = ran
    src = survey.load_source(folder / "store.sqlite")
    plain = survey.analyze(src, "sneakers", "boots", flips=199)["sim"]
    personas = sorted(src.table["persona"].unique())
    weights = {p: (4.0 if i % 2 else 1.0) for i, p in enumerate(personas)}
    weighted = survey.analyze(src, "sneakers", "boots", flips=199, weights=weights)["sim"].segments.population
    assert type(weighted.result) is type(plain) and weighted.result.effect.estimate != pytest.approx(
        plain.effect.estimate)


def test_the_human_file_the_study_names(ran, capsys):
    kind, scale, folder = ran
    src = survey.load_source(folder / "store.sqlite")
    assert src.humans is not None and len(src.humans.table) == 36 and src.humans.scale == scale
    if kind != "numeric":  # the comparison with people of rankings and ticked options has its own tests
        return
    assert list(src.humans.table["answer"][:3]) == [120.0, 80.0, 95.0]
    code, out, err = run_cli(capsys, "fidelity", folder / "store.sqlite", "--json")
    doc = json.loads(out)
    assert code == 0 and (doc["a"], doc["b"]) == ("sneakers", "boots"), err  # the pair the study declared
    code, out, err = run_cli(capsys, "analyze", folder / "store.sqlite", "--humans", "--a", "sneakers", "--b",
                             "boots", "--flips", "199")
    assert code == 0 and "their own effect sneakers − boots: +40" in out, err


def test_plan_by_simulation(ran, capsys):
    kind, scale, folder = ran
    code, out, err = run_cli(capsys, "plan", "--scale", scale, "--delta", "1.0", "--design", "10,8,1",
                             "--simulations", "60", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["params"]["scale"] == scale and 0 <= doc["results"][0]["power"]["sign_flip"] <= 1, err
    code, out, err = run_cli(capsys, "plan", "--scale", scale, "--delta", "1.0", "--design", "10,6,1",
                             "--simulations", "20", "--no-plot")
    assert code == 0, err
    # six paraphrase sets: one sign-flip test can reject at 0.05, the smallest of three Holm-adjusted ones cannot
    # (a checkbox's options break ties at random, so each can reject at any m)
    cannot = "Holm over the 3 pairs of messages the sign-flip test cannot reject" in out + err
    assert cannot == (kind == "rank"), out


def test_report(ran, capsys):
    kind, scale, folder = ran
    code, out, err = run_cli(capsys, "report", folder / "store.sqlite", "--out", folder / "report", "--flips", "199")
    assert code == 0, err
    page = visible_text((folder / "report" / "index.html").read_text())
    assert OWN_WORDS[kind] in page and "sneakers" in page and "sandals" in page
    assert no_raw_values(page) == []
    plots = {"numeric": "histograms of every valid reply", "checkbox": "Share of replies ticking each option"}
    assert kind not in plots or plots[kind] in (folder / "report" / "index.html").read_text()  # by message
    if kind == "numeric":  # the pair the study declared for its comparison with people
        assert "No comparison with people" not in page and "sneakers − boots" in page
    doc = json.loads((folder / "report" / "results.json").read_text())
    assert doc["results"]


def test_the_python_api(ran):
    kind, scale, folder = ran
    study = survey.Study.from_toml(folder / "study.toml")
    assert study.spec.question.type == scale and f"{kind}-matrix" in repr(study)
    src = study.load()
    every = survey.analyze(src, every_pair=True, flips=199)  # all pairs: the study declared one for its humans
    one = survey.analyze(src, "sneakers", "boots", flips=199)
    for shown in (repr(src), repr(every), repr(one), repr(one["sim"]), every._repr_html_(), one._repr_html_()):
        assert no_raw_values(shown) == [], shown
    assert every.sets[0].messages == list(MESSAGES)
    plan = survey.plan({"numeric": survey.NumericPlan, "checkbox": survey.CheckboxPlan, "rank": survey.RankPlan}[kind](
        1.0, scale=scale), designs=["10,6,1"], simulations=20)
    assert plan.to_dict()["params"]["scale"] == scale and no_raw_values(repr(plan)) == []
    assert any("Holm over the 3 pairs" in w for w in plan.warnings) == (kind == "rank")
    json.dumps(every.to_dict(), allow_nan=False)
    json.dumps(one.to_dict(), allow_nan=False)


@pytest.mark.parametrize("ran", ["checkbox"], indirect=True)
def test_checkbox_levels_do_not_mix_options(ran):
    """A checkbox study of three messages: each pair is decided by its own option, so a message's level is one
    quantity for every message (the options ticked per reply, the sum of its options' shares), with each
    option's share per message beside it, never the share of whichever option decided the first pair it is in."""
    kind, scale, folder = ran
    src = survey.load_source(folder / "store.sqlite")
    levels = survey.analyze(src, every_pair=True, flips=199).sets[0].levels
    table = src.table.assign(ticks=src.table["answer"].astype(int).map(lambda x: bin(x).count("1")))
    per_paraphrase = table.groupby(["message", "perturbation", "persona"])["ticks"].mean().groupby(
        ["message", "perturbation"]).mean().groupby("message").mean()
    assert levels.quantity == "options ticked per reply"
    for m in MESSAGES:
        assert levels.values[m][0] == pytest.approx(per_paraphrase[m])
        lo, hi = levels.values[m][1]
        assert lo <= levels.values[m][0] <= hi
    stylish = table.assign(v=table["answer"].astype(int) // 2 % 2).groupby(["message", "perturbation", "persona"])[
        "v"].mean().groupby(["message", "perturbation"]).mean().groupby("message").mean()
    assert levels.to_dict()["option_shares"]["stylish"] == pytest.approx(stylish[list(MESSAGES)].to_dict())
    assert any(n.startswith("share ticking each option: comfortable:") for n in levels.notes)
    # the pairs' A − B are each their own option's: named
    option = survey.analyze(src, "boots", "sandals", flips=199)["sim"].decision.option
    assert levels.to_dict()["deciding_option"]["boots vs sandals"] == option
    assert any(f"boots vs sandals '{option}'" in n for n in levels.notes)


@pytest.mark.parametrize("summary, words", [("", "mean by message: A "), ("_log", "mean log(1 + value) by message: A "),
                                            ("_trimmed", "trimmed mean by message: A ")])
def test_numeric_summaries_name_the_means_in_words(tmp_path, capsys, summary, words):
    """Once "mean log(1 + value)s: A 4.6, B 4.4": the quantity's name was made plural by appending an s."""
    rows = [f"sim,{msg},{msg}{j},p{i},0,{50 + 10 * (msg == 'A') + i + j},numeric0to300{summary}"
            for msg in "AB" for j in range(6) for i in range(4)]
    (tmp_path / "t.csv").write_text("model,message,perturbation,persona,replicate,answer,scale\n" + "\n".join(rows))
    code, out, err = run_cli(capsys, "analyze", tmp_path / "t.csv", "--flips", "99")
    assert code == 0 and words in out and "value)s" not in out, err


@pytest.mark.parametrize("ran", ["rank"], indirect=True)
def test_commands_that_cannot_split_a_ranking_say_so_in_its_words(ran, capsys):
    """validate and dbpa on a ranking once called it a forced choice of two messages."""
    kind, scale, folder = ran
    for args in (["validate", "--message", "sneakers"], ["dbpa", "--a", "sneakers", "--b", "boots"]):
        code, out, err = run_cli(capsys, args[0], folder / "store.sqlite", *args[1:])
        assert code == 2 and "rank3" in err and "forced" not in err and "two messages" not in err, err
        assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("plan, pairs", [(survey.PickPlan(1.0, scale="pick3"), 3),
                                         (survey.MaxDiffPlan(1.0, scale="maxdiff3", messages_shown=4), 6)])
def test_plans_of_other_kinds_that_show_messages_together_name_their_holm_family(plan, pairs):
    """Pick one of k and MaxDiff adjust A vs B by Holm over every pair as a ranking does: at m = 6 none can
    reject (power 0 whatever the effect), which the plan once left unexplained."""
    res = survey.plan(plan, designs=["10,6,1"], simulations=20)
    assert any(f"Holm over the {pairs} pairs of messages the sign-flip test cannot reject" in w for w in res.warnings)


def test_a_ranking_of_two_messages_lists_every_message_in_the_study_order(ran, capsys):
    """`analyze --a X --b Y` on a ranking: the levels' rows and every pair follow the study file's message order (as
    the every-pair view does), not the first-shown message's (random); the decided pair stays X vs Y."""
    kind, scale, folder = ran
    if kind != "rank":
        pytest.skip("a ranking lists every message beside one pair")
    for a, b in (("sneakers", "boots"), ("sandals", "sneakers")):
        code, out, err = run_cli(capsys, "analyze", folder / "study.toml", "--a", a, "--b", b, "--flips", "199")
        assert code == 0, err
        rows = [out.index(f"│ {m} ") for m in MESSAGES]
        assert rows == sorted(rows), out
        code, out, err = run_cli(capsys, "analyze", folder / "study.toml", "--a", a, "--b", b, "--flips", "199",
                                 "--json")
        r = json.loads(out)["results"][0]
        assert list(r["borda"]) == list(r["mean_rank"]) == r["messages"] == list(MESSAGES)
        keyed = {("sneakers", "boots"): ("sneakers", "boots"), ("sandals", "sneakers"): ("sandals", "sneakers")}
        expected = [keyed.get((a, b), p) if set(p) == {a, b} else p
                    for p in (("sneakers", "boots"), ("sneakers", "sandals"), ("boots", "sandals"))]
        assert [(p["a"], p["b"]) for p in r["pairs"]] == expected
        scores = {m: v["score"] for m, v in r["borda"].items()}
        for p in r["pairs"]:
            assert p["difference"] == pytest.approx(scores[p["a"]] - scores[p["b"]])
        assert (r["a"], r["b"]) == (a, b)
        py = survey.analyze(survey.open_source(folder / "study.toml"), a, b, flips=199)["sim"]
        assert py.messages == list(MESSAGES) and list(py.theta_bar) == list(MESSAGES)
        assert all(py.theta_bar[m].mean() == pytest.approx(py.borda[m][0]) for m in MESSAGES)
