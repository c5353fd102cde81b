"""Every command fed a battery of bad inputs: each must stop with exit status 2 and a message of at
most two lines (on stderr, or with --json one JSON object {"error": ...} on stdout), never a
traceback, a hang or a silent success. No model is loaded; the inputs are small."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from survey.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _table(m: int = 6, n: int = 3) -> pd.DataFrame:
    return pd.DataFrame([dict(model="sim", message=msg, perturbation=f"{msg.lower()}{j}", persona=f"p{i}",
                              replicate=0, answer=(i + j + (msg == "B")) % 2, response=f"{msg} {i} {j}")
                         for msg in "AB" for j in range(m) for i in range(n)])


UNREACHABLE = ("attribute,level,share\ngender,male,0.5\ngender,female,0.5\ngender,non-binary,0\n"
               "age,18-39,0.2\nage,40+,0.8\n")


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("bad")
    f = {"dir": d}
    f["table"] = d / "t.csv"
    _table().to_csv(f["table"], index=False)
    f["semicolon"] = d / "semi.csv"
    _table().to_csv(f["semicolon"], index=False, sep=";")
    f["bad_answer"] = d / "bad_answer.csv"
    bad = _table()
    bad["answer"] = bad["answer"].astype(object)
    bad.loc[4, "answer"] = "yes"
    bad.to_csv(f["bad_answer"], index=False)
    f["likert_answers"] = d / "likert_answers.csv"
    _table().assign(answer=lambda t: 1 + (t.index % 5)).to_csv(f["likert_answers"], index=False)
    f["one_order"] = d / "one_order.csv"  # forced choice asked with A always first
    import numpy as np

    from survey.kinds.choice.model import choice_table, simulate_choice_counts
    choice = choice_table(simulate_choice_counts(6, 4, 2, np.random.default_rng(5)), 2)
    choice[choice["message"] == "A"].to_csv(f["one_order"], index=False)
    # several questions in one long table: a question id missing in some rows or all, a row given twice
    two_q = pd.concat([_table().assign(question="buy"), _table().assign(question="recommend")], ignore_index=True)
    f["questions"] = d / "questions.csv"
    two_q.to_csv(f["questions"], index=False)
    f["question_blank"] = d / "question_blank.csv"
    two_q.assign(question=two_q["question"].where(two_q.index % 7 != 0)).to_csv(f["question_blank"], index=False)
    f["question_empty"] = d / "question_empty.csv"
    _table().assign(question="").to_csv(f["question_empty"], index=False)
    f["question_dup"] = d / "question_dup.csv"
    pd.concat([two_q, two_q.head(3)]).to_csv(f["question_dup"], index=False)
    import socket  # a port another program holds: survey field refuses it in one line (once uvicorn's traceback)
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    f["busy_socket"], f["busy_port"] = busy, busy.getsockname()[1]
    f["one_pert"] = d / "one.csv"
    _table(m=1).to_csv(f["one_pert"], index=False)
    f["empty"] = d / "empty.csv"
    f["empty"].write_text("")
    f["header_only"] = d / "header.csv"
    f["header_only"].write_text("model,message,perturbation,persona,replicate,answer\n")
    f["binary"] = d / "binary.csv"
    f["binary"].write_bytes(bytes(range(256)) * 4)
    f["xlsx"] = d / "t.xlsx"
    f["xlsx"].write_text("x")
    f["afile"] = d / "afile"
    f["afile"].write_text("a file, not a folder")
    f["own_examples"] = d / "own"  # a folder where the user already edited an example study
    f["own_examples"].mkdir()
    (f["own_examples"] / "sim.toml").write_text("# my own study\n")
    f["notjson"] = d / "notjson.json"
    f["notjson"].write_text("{not json")
    f["list_json"] = d / "list.json"
    f["list_json"].write_text("[1, 2]")
    f["bad_parquet"] = d / "bad.parquet"
    bad.assign(answer=bad["answer"].astype(str)).to_parquet(f["bad_parquet"], index=False)
    f["persona_typo"] = d / "typo_personas.jsonl"
    f["persona_typo"].write_text('{"templat": "Age {age}."}\n{"id": "a", "age": 3}\n')
    f["pert_typo"] = d / "typo_perts.yaml"
    f["pert_typo"].write_text("message: m\nparaphrases:\n  - id: p1\n    text: hi\n  - idd: p2\n    text: yo\n")
    f["family_typo"] = d / "family.yaml"
    f["family_typo"].write_text("base: {texts: [a, b]}\ncomparisons:\n  - {name: x, texts: [c]}\npermutatons: 10\n")
    f["unreachable"] = d / "unreachable.csv"  # the store's one female persona is young: no weighting gives .5/.2
    f["unreachable"].write_text(UNREACHABLE)
    f["family_huge"] = d / "family_huge.yaml"
    f["family_huge"].write_text("base: {texts: [a, b]}\ncomparisons:\n  - {name: x, texts: [c]}\n"
                                "permutations: 100000000000\n")
    sim = (ROOT / "studies" / "sim.toml").read_text()
    sim = sim.replace("count = 30", "count = 4").replace("count = 20", "count = 3")
    sim = sim.replace("replicates = 3", "replicates = 1")
    studies = {
        "study": sim,
        "typo": sim.replace("replicates = 1", "replicates = 1\nreplicats = 2"),
        "typo_model": sim.replace("concurrency = 16", "concurency = 16"),
        "huge": sim.replace("replicates = 1", "replicates = 1000000000"),
        "neg_reps": sim.replace("replicates = 1", "replicates = -1"),
        "store_in_file": sim.replace('store = "sim.sqlite"', 'store = "afile/sim.sqlite"'),
        "bad_toml": "name = \n",
        "paid": sim.replace('backend = "simulated"', 'backend = "mistral"\nmodel_id = "mistral-small-latest"'),
        "neg_sample_seed": sim.replace("count = 4", "count = 4\nsample_seed = -1"),
        "option_typo": sim.replace("mu = 0.45", "muu = 0.45"),
        "nan_option": sim.replace("mu = 0.45", "mu = nan"),
        # checked before anything is built: a billion labels once took 60 s and 3.5 GB, then a MemoryError
        "rating_huge": sim.replace('type = "binary"', 'type = "rating"\nhigh = 1000000000'),
        "likert_points": sim.replace('type = "binary"', 'type = "likert5"\npoints = 7'),
        # everything `run` would refuse, --dry-run refuses, before anything is bought
        "seq_choice": sim.replace('type = "binary"', 'type = "choice"') + "\n[sequential]\nround_pairs = 2\n",
        "seq_text": sim.replace('type = "binary"', 'type = "text"') + "\n[sequential]\nround_pairs = 2\n",
        "bad_cuts": sim.replace('type = "binary"', 'type = "likert5"').replace("mu = 0.45", "cuts = [1.0, 0.0]")
        .replace('store = "sim.sqlite"', 'store = "cuts.sqlite"'),
        "tau_yes_no": sim.replace("mu = 0.45", "tau = 1.0"),
        # a balanced scale needs an even number of replicates and a scale to reverse
        "both_odd": sim.replace('type = "binary"', 'type = "likert5"\norder = "both"').replace("mu = 0.45\n", ""),
        "both_yes_no": sim.replace('type = "binary"', 'type = "binary"\norder = "both"').replace(
            "replicates = 1", "replicates = 2"),
        # semantic-similarity rating: anchors that exist and have one statement per point
        "ssr_anchors": sim.replace('type = "binary"', 'type = "ssr"\nanchors = "no-such-anchors"')
        .replace("mu = 0.45\n", ""),
        "ssr_points": sim.replace('type = "binary"', 'type = "ssr"\npoints = 7').replace("mu = 0.45\n", ""),
        "ssr_floor": sim.replace('type = "binary"', 'type = "ssr"\nrelevance_floor = 2').replace("mu = 0.45\n", ""),
        # an embedder that does not exist: the run would have collected every reply, then stopped at the rating
        "ssr_embedder": sim.replace('type = "binary"', 'type = "ssr"\nembedder = "minilm2"').replace("mu = 0.45\n", ""),
        # a segment or a target cell the study's personas cannot fill: refused before anything is bought
        # a stated distribution where the reply is no single answer: free text, rated text, pick one of k
        "elicit_text": sim.replace('type = "binary"', 'type = "text"\nelicit = "distribution"'),
        "elicit_ssr": sim.replace('type = "binary"', 'type = "ssr"\nelicit = "distribution"').replace("mu = 0.45\n", ""),
        "elicit_pick": sim.replace('type = "binary"', 'type = "pick"\nelicit = "distribution"'),
        "elicit_typo": sim.replace('type = "binary"', 'type = "binary"\nelicit = "distributon"'),
        "seg_empty": sim + '\n[segments]\nby = "age:90+"\n',
        "target_gap": sim + "\n[target.gender]\nmale = 0.4\nfemale = 0.4\nnon-binary = 0.1\nother = 0.1\n",
        "target_unreachable": sim + "\n[target]\nfile = \"unreachable.csv\"\n",
        "empty_key_env": sim.split("[[models]]")[0] + '[[models]]\nname = "gpt"\nbackend = "openai"\n'
                         'model_id = "gpt-4o-mini"\n[models.options]\napi_key_env = ""\n',
        # a paid backend's key variable missing or empty: the run refuses before any request, so the dry run does
        "no_mistral_key": sim.split("[[models]]")[0] + '[[models]]\nname = "mistral"\nbackend = "mistral"\n'
                          'model_id = "mistral-small-latest"\n',
        "empty_dashscope_key": sim.split("[[models]]")[0] + '[[models]]\nname = "qwen"\nbackend = "dashscope"\n'
                               'model_id = "qwen-plus"\n',
        "no_openai_key": sim.split("[[models]]")[0] + '[[models]]\nname = "gpt"\nbackend = "openai"\n'
                         'model_id = "gpt-4o-mini"\n[models.options]\napi_key_env = "SURVEY_TEST_NO_SUCH_KEY"\n',
    }
    # the newer kinds, as a new user gets them wrong: numeric bounds, checkbox options, k messages for rank and pick
    three = sim.replace("[question]", '[[messages]]\nid = "sandals"\nperturbations = "sandals"\ncount = 3\n\n[question]')
    eight = sim.replace("[question]", "".join(f'[[messages]]\nid = "m{i}"\nperturbations = "sneakers"\ncount = 3\n\n'
                                              for i in range(6)) + "[question]")
    kinds = {
        "num_min_over_max": 'type = "numeric"\nmin = 10\nmax = 5', "num_equal": 'type = "numeric"\nmin = 5\nmax = 5',
        "num_no_max": 'type = "numeric"\nmin = 0', "num_str": 'type = "numeric"\nmin = "zero"\nmax = 10',
        "num_inf": 'type = "numeric"\nmin = 0\nmax = inf', "num_nan": 'type = "numeric"\nmin = nan\nmax = 10',
        # once: run and analysed with means of -9.2e18 (an int64 overflow) under a 309-digit scale name
        "num_huge": 'type = "numeric"\nmin = 0\nmax = 1e308',
        "num_log_negative": 'type = "numeric"\nmin = -5\nmax = 10\nsummary = "log"',
        "num_summary": 'type = "numeric"\nmin = 0\nmax = 10\nsummary = "median"',
        "num_keys_on_binary": 'type = "binary"\nmin = 0\nmax = 10',
        "num_name_reversed": 'type = "numeric10to0"',
        "num_elicit": 'type = "numeric"\nmin = 0\nmax = 10\nelicit = "distribution"',
        "cb_zero": 'type = "checkbox"\noptions = []', "cb_one": 'type = "checkbox"\noptions = ["a"]',
        "cb_duplicate": 'type = "checkbox"\noptions = ["a", "A", "b"]',
        "cb_13": 'type = "checkbox"\noptions = [' + ",".join(f'"o{i}"' for i in range(13)) + "]",
        "cb_min_over_max": 'type = "checkbox"\noptions = ["a", "b", "c"]\nmin_choices = 3\nmax_choices = 1',
        "cb_max_over_options": 'type = "checkbox"\noptions = ["a", "b", "c"]\nmax_choices = 5',
        "cb_negative": 'type = "checkbox"\noptions = ["a", "b", "c"]\nmin_choices = -1',
        "cb_no_options": 'type = "checkbox"', "cb_options_on_binary": 'type = "binary"\noptions = ["a", "b"]',
        "cb_empty_name": 'type = "checkbox"\noptions = ["", "b"]', "cb_int": 'type = "checkbox"\noptions = [1, 2]',
        "cb_elicit": 'type = "checkbox"\noptions = ["a", "b"]\nelicit = "distribution"',
        "cb_name_reversed": 'type = "checkbox6-4-2"', "rank_two": 'type = "rank"',
        # once accepted: "2" in a reply read as the second option whatever was named "2"; "none" read as no tick
        # alone but as the option in a list; no box allowed at all; a "|" that splits the table's option names
        "cb_number_name": 'type = "checkbox"\noptions = ["2", "1", "3"]',
        "cb_none_name": 'type = "checkbox"\noptions = ["None", "some"]\nmin_choices = 0',
        "cb_max_zero": 'type = "checkbox"\noptions = ["a", "b"]\nmin_choices = 0\nmax_choices = 0',
        "cb_pipe_name": 'type = "checkbox"\noptions = ["a|b", "c"]',
        "rating_reversed": 'type = "rating"\nlow = 5\nhigh = 1',
    }
    for name, question in kinds.items():
        studies[name] = sim.replace('type = "binary"', question).replace("mu = 0.45\n", "")
    studies.update({
        "rank_eight": eight.replace('type = "binary"', 'type = "rank"'),
        "rank4_on_three": three.replace('type = "binary"', 'type = "rank4"'),
        "rank_elicit": three.replace('type = "binary"', 'type = "rank"\nelicit = "distribution"'),
        "rank_dup_message": three.replace('id = "sandals"', 'id = "boots"').replace('type = "binary"', 'type = "rank"'),
        "maxdiff_subset_5": three.replace('type = "binary"', 'type = "maxdiff"\nsubset = 5'),
        "maxdiff_subset_2": three.replace('type = "binary"', 'type = "maxdiff"\nsubset = 2'),
        "pick_one": sim.split('[[messages]]\nid = "boots"')[0] + "[question]" + sim.split("[question]")[1].replace(
            'type = "binary"', 'type = "pick"'),
        "dup_message": sim.replace('id = "boots"', 'id = "sneakers"'),
        "unicode_message": sim.replace('id = "boots"', 'id = "b\u00f6tts \U0001f462"'),
        "empty_study": "",
    })
    # several questions in a study file ([[questions]]): each entry's id, the file's flow and its [analysis]
    head, tail = sim.split("[question]\n")
    tail = tail.replace('type = "binary"', "", 1)

    def several(*blocks, top=""):
        return top + head + "".join(f"[[questions]]\n{b}\n\n" for b in blocks) + tail
    two = ('id = "a"\ntype = "binary"', 'id = "b"\ntype = "binary"')
    studies.update({
        "q_both": sim.replace("[question]", '[[questions]]\nid = "x"\ntype = "binary"\n\n[question]'),
        "q_duplicate": several('id = "buy"\ntype = "binary"', 'id = "buy"\ntype = "likert5"'),
        "q_no_id": several('type = "binary"', two[1]),
        "q_bad_id": several('id = "buy now!"\ntype = "binary"', two[1]),
        "q_empty_id": several('id = ""\ntype = "binary"', two[1]),
        "q_empty_entry": head + "[[questions]]\n\n" + tail,
        "q_primary": several(*two) + '\n[analysis]\nprimary = "zzz"\n',
        "q_family": several(*two) + '\n[analysis]\nfamily = "bonf"\n',
        "q_flow": several(*two, top='flow = "chat"\n'),
        "q_order_independent": several(*two, top='question_order = "random"\n'),
    })
    for name in ("q_both", "q_duplicate", "q_no_id", "q_bad_id", "q_empty_id", "q_empty_entry", "q_primary",
                 "q_family", "q_flow", "q_order_independent", *kinds, "rank_eight", "rank4_on_three", "rank_elicit", "rank_dup_message", "maxdiff_subset_5", "maxdiff_subset_2",
                 "pick_one", "dup_message", "unicode_message"):  # a store of its own: refused for its own fault
        studies[name] = studies[name].replace('store = "sim.sqlite"', f'store = "{name}.sqlite"')
    # human files: counts past the limit (once a traceback, even at --dry-run), another separator, no message
    # column, a wide export whose id column has another name
    f["humans_huge"] = d / "humans_huge.csv"
    f["humans_huge"].write_text("message,answer,count\nA,Yes,1000000000000\nB,No,3\n")
    (d / "huge_counts.csv").write_text("message,answer,count\nsneakers,Yes,1000000000000\nboots,No,3\n")
    studies["study_huge_counts"] = 'humans = "huge_counts.csv"\n' + sim
    f["humans_semicolon"] = d / "humans_semicolon.csv"
    f["humans_semicolon"].write_text("respondent;message;answer\nr1;A;Yes\nr1;B;No\n")
    f["humans_no_message"] = d / "humans_no_message.csv"
    f["humans_no_message"].write_text("respondent,answer\nr1,Yes\n")
    f["humans_wide"] = d / "humans_wide.csv"
    f["humans_wide"].write_text("Id,Q1,Q2\nr1,Yes,\nr2,,No\n")
    # the newer kinds' human files, each beside a table of its scale: a number outside the range, an option that
    # is not listed, a rank given twice
    from survey.kinds.rank.simulation import simulate_rank_table
    f["numeric_table"] = d / "numeric.csv"
    _table().assign(answer=lambda t: 10.0 * (t.index % 7), scale="numeric0to300").to_csv(f["numeric_table"], index=False)
    f["checkbox_table"] = d / "checkbox.csv"
    _table().assign(answer=lambda t: 1 + t.index % 7, scale="checkbox4-1-3").to_csv(f["checkbox_table"], index=False)
    f["rank_table"] = d / "rank.csv"
    simulate_rank_table(3, 6, 1, ["A", "B", "C"], seed=1).to_csv(f["rank_table"], index=False)
    f["humans_numeric_range"] = d / "humans_numeric_range.csv"
    f["humans_numeric_range"].write_text("respondent,message,answer\nh1,A,$120\nh1,B,500\n")
    f["humans_checkbox_option"] = d / "humans_checkbox_option.csv"
    f["humans_checkbox_option"].write_text('respondent,message,answer\nh1,A,"1, 7"\nh1,B,2\n')
    f["humans_rank_twice"] = d / "humans_rank_twice.csv"
    f["humans_rank_twice"].write_text("respondent,A,B,C\nr1,1,1,3\n")
    # a blank cell: once "found nan", which names nothing the user wrote; a rank left out; a checkbox word
    f["humans_numeric_blank"] = d / "humans_numeric_blank.csv"
    f["humans_numeric_blank"].write_text("respondent,message,answer\nh1,A,\nh1,B,20\n")
    f["humans_rank_blank"] = d / "humans_rank_blank.csv"
    f["humans_rank_blank"].write_text("respondent,message,answer\nr1,A,1\nr1,B,2\nr1,C,\n")
    f["humans_rank_missing"] = d / "humans_rank_missing.csv"
    f["humans_rank_missing"].write_text("respondent,message,answer\nr1,A,1\nr1,B,2\nr1,C,3\nr2,A,1\nr2,B,2\n")
    f["humans_checkbox_word"] = d / "humans_checkbox_word.csv"
    f["humans_checkbox_word"].write_text('respondent,message,answer\nh1,A,cheap\nh1,B,2\n')
    # anchor files: a statement with ': ' left unquoted (YAML reads a mapping), a statement repeated
    ssr = sim.replace('type = "binary"', 'type = "ssr"\nanchors = "{}"').replace("mu = 0.45\n", "")
    for name, second in (("anchors_colon", "I would: buy it"), ("anchors_repeat", "No")):
        (d / f"{name}.yaml").write_text(f"points: 5\nsets:\n  - id: a\n    statements:\n      - No\n      - {second}\n"
                                        "      - Maybe\n      - Likely\n      - Yes\n")
        studies[f"ssr_{name}"] = ssr.replace("{}", f"{name}.yaml")
    for name, text in studies.items():
        f[name] = d / f"{name}.toml"
        f[name].write_text(text)
    try:
        main(["run", str(f["study"]), "--yes", "--json"])
    except SystemExit as exc:
        assert exc.code in (0, None)
    f["store"] = d / "sim.sqlite"
    assert f["store"].exists()
    return f


@pytest.fixture(autouse=True)
def no_keys(monkeypatch):
    """No provider key in the environment (the key cases must not depend on the machine's): one missing, one empty."""
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    monkeypatch.setenv("DASHSCOPE_API_KEY", "  ")
    monkeypatch.delenv("SURVEY_TEST_NO_SUCH_KEY", raising=False)


T, STORE = "{table}", "{store}"
CASES = [
    # simulate
    ("simulate", "--out", "{dir}/s.csv", "--seed", "-1"),
    ("simulate", "--out", "{dir}/s.csv", "--personas", "100000", "--perturbations", "1000"),
    ("simulate", "--out", "{dir}/s.csv", "--personas", "0"),
    ("simulate", "--out", "{dir}/s.csv", "--perturbations", "1"),
    ("simulate", "--out", "{dir}/s.csv", "--replicates", "0"),
    ("simulate", "--out", "{dir}/s.csv", "--perturbations-b", "1"),
    ("simulate", "--out", "{dir}/s.csv", "--mu", "1.5"),
    ("simulate", "--out", "{dir}/s.csv", "--rho", "2"),
    ("simulate", "--out", "{dir}/s.csv", "--kappa", "-1"),
    ("simulate", "--out", "{dir}/s.csv", "--delta", "nan"),
    ("simulate", "--out", "{dir}/s.txt"),
    ("simulate", "--out", "{dir}/s.csv", "--scale", "rating0-1000000000"),
    ("simulate", "--out", "{afile}/s.csv"),
    # analyze
    ("analyze", T, "--seed", "-1"),
    ("analyze", T, "--flips", "1e11"),
    ("analyze", T, "--flips", "100000000000"),
    ("analyze", T, "--flips", "0"),
    ("analyze", T, "--confidence", "1.5"),
    ("analyze", T, "--alpha", "2"),
    ("analyze", T, "--a", "Z"),
    ("analyze", T, "--alternative", "bigger"),
    ("analyze", T, "--study", "x"),
    ("analyze", "{dir}/missing.csv"),
    ("analyze", "{semicolon}"),
    ("analyze", "{bad_answer}"),
    ("analyze", "{one_pert}"),
    ("analyze", "{empty}"),
    ("analyze", "{header_only}"),
    ("analyze", "{binary}"),
    ("analyze", "{xlsx}"),
    ("analyze", STORE, "--study", "nope"),
    # segments and target markets: an unknown attribute, overlapping bins, a bad named filter, a missing or
    # unreachable target, a table without attributes
    ("analyze", STORE, "--by", "colour"),
    ("analyze", STORE, "--by", "age:18-40,35-54"),
    ("analyze", STORE, "--segment", "young"),
    ("analyze", STORE, "--segment", "young=age <"),
    ("analyze", STORE, "--target", "{dir}/missing.toml"),
    ("analyze", STORE, "--target", "{notjson}"),
    ("analyze", T, "--by", "gender"),
    # a segment definition is used as given or refused, never rewritten; margins out of reach are refused
    ("analyze", STORE, "--by", "age:"),
    ("analyze", STORE, "--by", ""),
    ("analyze", STORE, "--segment", "a=age < 30", "--segment", "a=age > 50"),
    ("analyze", STORE, "--by", "gender", "--sequential", "betting"),
    ("analyze", STORE, "--target", "{unreachable}"),
    ("report", STORE, "--out", "{dir}/r8", "--by", ""),
    ("run", "{target_unreachable}", "--dry-run"),
    ("report", STORE, "--out", "{dir}/r", "--by", "age:90+"),
    ("analyze", "{bad_parquet}"),
    ("analyze", T, "--seed", "1.5"),
    ("analyze", T, "--alpha", "abc"),
    ("analyze", "{likert_answers}", "--scale", "rating0-10"),
    ("analyze", "{one_order}"),
    # estimate
    ("estimate", T, "--message", "A", "--seed", "-1"),
    ("estimate", T, "--message", "Z"),
    ("estimate", T, "--message", "A", "--bootstrap", "-1"),
    ("estimate", T, "--message", "A", "--bootstrap", "1e9"),
    ("estimate", T, "--message", "A", "--model", "nope"),
    # plan
    ("plan", "--delta", "0.3", "--no-plot", "--seed", "-1"),
    ("plan", "--delta", "0.3", "--no-plot", "--flips", "1e11"),
    ("plan", "--delta", "0.3", "--no-plot", "--budget", "1e13"),
    ("plan", "--delta", "0.3", "--no-plot", "--budget", "5"),
    ("plan", "--delta", "0.3", "--no-plot", "--budget", "abc"),
    ("plan", "--delta", "0.3", "--no-plot", "--design", "100000,100000,1000"),
    ("plan", "--delta", "0.3", "--no-plot", "--simulations", "1000000"),
    ("plan", "--delta", "0.3", "--no-plot", "--alpha", "0"),
    ("plan", "--delta", "0.3", "--no-plot", "--simulations", "5"),
    ("plan", "--delta", "0.3", "--no-plot", "--strategy", "1:0:1"),
    ("plan", "--delta", "0.3", "--no-plot", "--design", "1,1,1"),
    ("plan", "--delta", "0.3", "--no-plot", "--target-power", "2"),
    ("plan", "--delta", "0.3", "--no-plot", "--mu", "2"),
    ("plan", "--delta", "0.3", "--no-plot", "--from-estimate", "{dir}/missing.json"),
    ("plan", "--delta", "0.3", "--no-plot", "--from-estimate", "{notjson}"),
    ("plan", "--delta", "0.3", "--no-plot", "--from-table", T),
    ("plan", "--no-plot"),
    ("plan", "--delta", "0.3", "--no-plot", "--by", "gender", "--segments", "3"),
    # segment plans are bounded before anything is simulated
    ("plan", "--delta", "0.3", "--no-plot", "--segments", "2", "--pairs", "100000"),
    ("plan", "--delta", "0.3", "--no-plot", "--segments", "1000"),
    ("plan", "--delta", "0.3", "--no-plot", "--segments", "20", "--replicates", "100"),
    # validate
    ("validate", T, "--message", "A", "--no-plot", "--flips", "1e11"),
    ("validate", T, "--message", "A", "--no-plot", "--seed", "-1"),
    ("validate", T, "--message", "A", "--no-plot", "--alpha", "1.5"),
    ("validate", T, "--message", "A", "--no-plot", "--draws", "0"),
    ("validate", T, "--message", "A", "--no-plot", "--draws", "1e12"),
    ("validate", T, "--message", "A", "--no-plot", "--config", "1,1"),
    ("validate", T, "--message", "Z", "--no-plot"),
    ("validate", T, "--message", "A", "--no-plot", "--confidence", "0"),
    # compare
    ("compare", T, "--flips", "0"),
    ("compare", T, "--flips", "1e11"),
    ("compare", T, "--seed", "-1"),
    ("compare", T, "--alpha", "5"),
    ("compare", T, "--sizes", "sim=big"),
    ("compare", T, "--adjust", "bogus"),
    ("compare", T, "--confidence", "2"),
    ("compare", T, "--plot", "{dir}/plot.xyz"),
    # report
    ("report", T, "--out", "{dir}/r1", "--alpha", "0"),
    ("report", T, "--out", "{dir}/r2", "--plan", "{notjson}"),
    ("report", T, "--out", "{dir}/r3", "--validate", "{list_json}"),
    ("report", T, "--out", "{afile}"),
    ("report", T, "--out", "{dir}/r4", "--seed", "-1"),
    ("report", T, "--out", "{dir}/r5", "--sizes", "x"),
    ("report", T, "--out", "{dir}/r6", "--a", "Z"),
    # run
    ("run", "{dir}/missing.toml", "--dry-run"),
    ("run", "{typo}", "--dry-run"),
    ("run", "{typo_model}", "--dry-run"),
    ("run", "{bad_toml}", "--dry-run"),
    ("run", "{huge}", "--dry-run"),
    ("run", "{neg_reps}", "--dry-run"),
    ("run", "{neg_sample_seed}", "--dry-run"),
    ("run", "{store_in_file}", "--dry-run"),
    ("run", "{study}", "--max-attempts", "0"),
    ("run", "{option_typo}", "--dry-run"),
    ("run", "{nan_option}", "--dry-run"),
    ("run", "{study}", "--model", "nope", "--dry-run"),
    ("run", "{table}"),
    ("run", "{rating_huge}", "--dry-run"),
    ("run", "{seq_choice}", "--dry-run"),
    ("run", "{seq_text}", "--dry-run"),
    ("run", "{bad_cuts}", "--dry-run"),
    ("run", "{tau_yes_no}", "--dry-run"),
    ("run", "{both_odd}", "--dry-run"),
    ("run", "{elicit_text}", "--dry-run"),
    ("run", "{elicit_ssr}", "--dry-run"),
    ("run", "{elicit_pick}", "--dry-run"),
    ("run", "{elicit_typo}", "--dry-run"),
    ("run", "{ssr_anchors}", "--dry-run"),
    ("run", "{ssr_floor}", "--dry-run"),
    ("run", "{ssr_embedder}", "--dry-run"),
    ("run", "{ssr_embedder}", "--yes"),
    ("run", "{empty_key_env}", "--dry-run"),
    ("run", "{no_mistral_key}", "--dry-run"),
    ("run", "{empty_dashscope_key}", "--dry-run"),
    ("run", "{no_openai_key}", "--dry-run"),
    ("run", "{seg_empty}", "--dry-run"),
    ("run", "{target_gap}", "--dry-run"),
    ("run", "{likert_points}", "--dry-run"),
    ("batch", "export", "{study}", "--model", "nope", "--out", "{dir}/b.jsonl"),
    ("batch", "export", "{study}", "--model", "sim", "--out", "{dir}/b.jsonl"),
    ("batch", "import", "{study}", "{notjson}", "--model", "sim"),
    ("batch", "import", "{study}", "{dir}/missing.jsonl", "--model", "sim"),
    # export
    ("export", "{dir}/missing.sqlite", "--out", "{dir}/e.csv"),
    ("export", STORE, "--out", "{dir}/e.txt"),
    ("export", T, "--out", "{dir}/e.csv"),
    ("export", STORE, "--out", "{dir}/e.csv", "--study", "nope"),
    ("export", STORE, "--out", "{afile}/e.csv"),
    # fidelity
    ("fidelity", T),
    ("fidelity", T, "--humans", "{dir}/missing.csv"),
    ("fidelity", T, "--humans", "{bad_answer}"),
    ("fidelity", T, "--humans", T, "--bootstrap", "0"),
    ("fidelity", T, T, "--a", "x"),
    ("analyze", T, "--humans", T, "--sequential", "betting"),
    ("fidelity", T, "--out", "{dir}/bench"),
    # plan-humans
    ("plan-humans", "--cost-human", "5", "--cost-query", "0.01", "--half-width", "0.05"),
    ("plan-humans", "--r", "0.3", "--cost-human", "5", "--cost-query", "0.01"),
    ("plan-humans", "--r", "1.5", "--cost-human", "5", "--cost-query", "0.01", "--half-width", "0.05"),
    ("plan-humans", "--r", "0.3", "--cost-human", "-1", "--cost-query", "0.01", "--half-width", "0.05"),
    ("plan-humans", "--pilot", T, "--cost-human", "5", "--cost-query", "0.01", "--half-width", "0.05"),
    ("plan-humans", "--pilot", "{dir}/missing.sqlite", "--cost-human", "5", "--cost-query", "0.01", "--effect", "0.1"),
    # targets the answers' scale cannot hold, and costs no float can hold (once: "2 humans", an overflow warning)
    ("plan-humans", "--r", "0.3", "--cost-human", "5", "--cost-query", "0.01", "--effect", "10"),
    ("plan-humans", "--r", "0.3", "--cost-human", "5", "--cost-query", "0.01", "--half-width", "100"),
    ("plan-humans", "--r", "0.3", "--cost-human", "5", "--cost-query", "0.01", "--effect", "5", "--scale", "likert5"),
    ("plan-humans", "--r", "0.3", "--cost-human", "1e308", "--cost-query", "0.01", "--effect", "0.1"),
    ("analyze", T, "--humans", "{dir}/missing.csv"),
    ("fidelity", T, "--humans", "{humans_huge}"),
    ("run", "{study_huge_counts}", "--dry-run"),
    ("analyze", T, "--humans", "{humans_semicolon}"),
    ("fidelity", T, "--humans", "{humans_no_message}"),
    ("fidelity", T, "--humans", "{humans_wide}"),
    ("fidelity", T, "--humans", "{humans_wide}", "--humans-id-column", "Id", "--humans-column", "Q1"),
    ("report", T, "--out", "{dir}/r", "--humans-id-column", "Id"),
    # field (each refused before anything is served)
    ("field", "{dir}/missing.toml"),
    ("field", "{study}", "--port", "70000"),
    ("field", "{study}", "--respondents", "0"),
    ("field", "{study}", "--port", "{busy_port}"),
    ("field", "{study}", "--port", "-1"),
    ("field", "{study}", "--respondents", "-3"),
    ("field", "{study}", "--bogus"),
    ("field", "{study}", "--quota-from", "{study}"),
    ("field", "{study}", "--quota-from", "{dir}/missing.toml", "--respondents", "5"),
    ("analyze", T, "--humans"),
    # status
    ("status", "{dir}/missing.sqlite"),
    ("status", STORE, "--study", "nope"),
    ("status", T),
    # personas / perturbations
    ("personas", "show", "no-such-set"),
    ("personas", "show", "shoppers", "--limit", "-1"),
    ("personas", "generate", "--model", "simulated:x", "--count", "0", "--out", "{dir}/p.jsonl"),
    ("personas", "generate", "--model", "simulated:x", "--count", "3", "--out", "{dir}/p.txt"),
    ("personas", "generate", "--model", "nobackend:x", "--count", "3", "--out", "{dir}/p.jsonl"),
    ("personas", "generate", "--model", "simulated:x", "--count", "3", "--out", "{dir}/p.jsonl",
     "--seed", "-1"),
    ("personas", "generate", "--model", "simulated:x", "--count", "100000000", "--out", "{dir}/p.jsonl"),
    ("personas", "generate", "--target", "{unreachable}", "--count", "100000000", "--out", "{dir}/p.jsonl"),
    ("personas", "list", "--bogus"),
    ("personas", "show", "{persona_typo}"),
    ("perturbations", "show", "no-such-set"),
    ("perturbations", "show", "sneakers", "--similarity", "2"),
    ("perturbations", "generate", "--model", "simulated:x", "--count", "3", "--out", "{dir}/q.txt",
     "--message", "Buy"),
    ("perturbations", "generate", "--model", "simulated:x", "--count", "3", "--out", "{dir}/q.yaml"),
    ("perturbations", "generate", "--model", "simulated:x", "--count", "100000000", "--out", "{dir}/q.yaml",
     "--message", "Buy"),
    ("perturbations", "list", "extra"),
    ("perturbations", "show", "{pert_typo}"),
    # dbpa
    ("dbpa",),
    ("dbpa", T, "--permutations", "0"),
    ("dbpa", T, "--permutations", "1e11"),
    ("dbpa", T, "--bins", "0"),
    ("dbpa", T, "--range", "0.5"),
    ("dbpa", T, "--alpha", "2"),
    ("dbpa", T, "--seed", "-1"),
    ("dbpa", "--family", "{dir}/missing.yaml"),
    ("dbpa", T, "--family", "{notjson}"),
    ("dbpa", "--family", "{family_typo}"),
    ("dbpa", "--family", "{family_huge}"),
    ("compare", "{semicolon}"),
    ("validate", T, "--a", "A", "--b", "B", "--no-plot", "--config", "100,100,100"),
    # demo
    ("demo", "--study", "{dir}/missing.toml"),
    # field --export (nothing written, nothing served)
    ("field", "{study}", "--export", "txt", "--out", "{dir}/s.qsf"),
    ("field", "{study}", "--export", "qualtrics", "--out", "{dir}/missing/s.qsf"),
    ("field", "{study}", "--export", "qualtrics", "--out", "{dir}"),
    ("field", "{study}", "--export", "qualtrics"),
    ("field", "{study}", "--export", "qualtrics", "--out", "{dir}/s.qsf", "--port", "9000"),
    ("demo", "--study", "{paid}", "--out", "{dir}/demo"),
    ("init", "{afile}"),
    ("init", "{own_examples}"),
    ("init", "{own_examples}", "--sets"),
    ("demo", "--seed", "-1", "--out", "{dir}/demo"),
    ("demo", "--alpha", "2", "--out", "{dir}/demo"),
    ("run", "{num_min_over_max}", "--dry-run"),
    ("run", "{num_equal}", "--dry-run"),
    ("run", "{num_no_max}", "--dry-run"),
    ("run", "{num_str}", "--dry-run"),
    ("run", "{num_inf}", "--dry-run"),
    ("run", "{num_nan}", "--dry-run"),
    ("run", "{num_huge}", "--dry-run"),
    ("run", "{num_log_negative}", "--dry-run"),
    ("run", "{num_summary}", "--dry-run"),
    ("run", "{num_keys_on_binary}", "--dry-run"),
    ("run", "{num_name_reversed}", "--dry-run"),
    ("run", "{num_elicit}", "--dry-run"),
    ("run", "{cb_zero}", "--dry-run"),
    ("run", "{cb_one}", "--dry-run"),
    ("run", "{cb_duplicate}", "--dry-run"),
    ("run", "{cb_13}", "--dry-run"),
    ("run", "{cb_min_over_max}", "--dry-run"),
    ("run", "{cb_max_over_options}", "--dry-run"),
    ("run", "{cb_negative}", "--dry-run"),
    ("run", "{cb_no_options}", "--dry-run"),
    ("run", "{cb_options_on_binary}", "--dry-run"),
    ("run", "{cb_empty_name}", "--dry-run"),
    ("run", "{cb_int}", "--dry-run"),
    ("run", "{cb_elicit}", "--dry-run"),
    ("run", "{cb_name_reversed}", "--dry-run"),
    ("run", "{rank_two}", "--dry-run"),
    ("run", "{rating_reversed}", "--dry-run"),
    ("run", "{rank_eight}", "--dry-run"),
    ("run", "{rank4_on_three}", "--dry-run"),
    ("run", "{rank_elicit}", "--dry-run"),
    ("run", "{rank_dup_message}", "--dry-run"),
    ("run", "{cb_number_name}", "--dry-run"),
    ("run", "{cb_none_name}", "--dry-run"),
    ("run", "{cb_max_zero}", "--dry-run"),
    ("run", "{cb_pipe_name}", "--dry-run"),
    ("plan", "--delta", "0.3", "--no-plot", "--scale", "checkbox4-0-0"),
    ("plan", "--delta", "0.3", "--no-plot", "--scale", "numeric5to1"),
    ("plan", "--delta", "0.3", "--no-plot", "--scale", "checkbox13"),
    ("plan", "--delta", "0.3", "--no-plot", "--scale", "checkbox4-3-2"),
    ("plan", "--delta", "0.3", "--no-plot", "--scale", "rank8"),
    ("analyze", "{numeric_table}", "--humans", "{humans_numeric_range}"),
    ("fidelity", "{numeric_table}", "--humans", "{humans_numeric_range}"),
    ("analyze", "{checkbox_table}", "--humans", "{humans_checkbox_option}"),
    ("fidelity", "{rank_table}", "--humans", "{humans_rank_twice}"),
    ("fidelity", "{numeric_table}", "--humans", "{humans_numeric_blank}"),
    ("fidelity", "{rank_table}", "--humans", "{humans_rank_blank}"),
    ("analyze", "{rank_table}", "--humans", "{humans_rank_missing}"),
    ("fidelity", "{checkbox_table}", "--humans", "{humans_checkbox_word}"),
    ("run", "{maxdiff_subset_5}", "--dry-run"),
    ("run", "{maxdiff_subset_2}", "--dry-run"),
    ("run", "{pick_one}", "--dry-run"),
    ("run", "{dup_message}", "--dry-run"),
    ("run", "{unicode_message}", "--dry-run"),
    ("run", "{empty_study}", "--dry-run"),
    # several questions in plan: bounds, and a family setting without a family (once silently ignored)
    ("plan", "--delta", "0.3", "--no-plot", "--questions", "1"),
    ("plan", "--delta", "0.3", "--no-plot", "--questions", "abc"),
    ("plan", "--delta", "0.3", "--no-plot", "--questions", "1e9"),
    ("plan", "--delta", "0.3", "--no-plot", "--questions", "3", "--family", "bogus"),
    ("plan", "--delta", "0.3", "--no-plot", "--questions", "3", "--question-correlation", "1.5"),
    ("plan", "--delta", "0.3", "--no-plot", "--questions", "3", "--question-correlation", "nan"),
    ("plan", "--delta", "0.3", "--no-plot", "--questions", "3", "--scale", "likert5"),
    ("plan", "--delta", "0.3", "--no-plot", "--family", "bh"),
    ("plan", "--delta", "0.3", "--no-plot", "--question-correlation", "0.2"),
    # several questions in a long table
    ("analyze", "{questions}", "--question", "nope"),
    ("analyze", "{questions}", "--family", "bogus"),
    ("analyze", "{question_blank}"),
    ("analyze", "{question_empty}"),
    ("analyze", "{question_dup}"),
    ("report", "{question_blank}", "--out", "{dir}/rq"),
    ("analyze", "{questions}", "--humans", T),
    ("run", "{q_both}", "--dry-run"),
    ("run", "{q_duplicate}", "--dry-run"),
    ("run", "{q_no_id}", "--dry-run"),
    ("run", "{q_bad_id}", "--dry-run"),
    ("run", "{q_empty_id}", "--dry-run"),
    ("run", "{q_empty_entry}", "--dry-run"),
    ("run", "{q_primary}", "--dry-run"),
    ("run", "{q_family}", "--dry-run"),
    ("run", "{q_flow}", "--dry-run"),
    ("run", "{q_order_independent}", "--dry-run"),
    ("run", "{ssr_anchors_colon}", "--dry-run"),
    ("run", "{ssr_anchors_repeat}", "--dry-run"),
]


def _run(capsys, argv: list[str]) -> tuple[object, str, str]:
    code: object = 0
    try:
        main(argv)
    except SystemExit as exc:  # anything else propagates: a traceback fails the test
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
@pytest.mark.parametrize("case", CASES, ids=[" ".join(c) for c in CASES])
def test_bad_input_is_one_clear_error(files, capsys, monkeypatch, case, as_json):
    monkeypatch.chdir(files["dir"])
    argv = [a.format(**{k: str(v) for k, v in files.items()}) for a in case] + (["--json"] if as_json else [])
    code, out, err = _run(capsys, argv)
    assert "Traceback" not in out + err
    assert code == 2, f"exit {code}: {out[-500:]}{err[-500:]}"
    if as_json:
        doc = json.loads(out)
        assert list(doc) == ["error"]
        message = doc["error"]
    else:
        message = err
    lines = message.strip().splitlines()
    assert 1 <= len(lines) <= 2, message


# What the one line must say, where an earlier message misled (named the wrong fix or the wrong cause).
SAYS = {
    ("run", "{rating_huge}", "--dry-run"): "2 to 101 points",
    ("run", "{likert_points}", "--dry-run"): "already fixes its points",
    ("analyze", "{likert_answers}", "--scale", "rating0-10"): "no answer uses the upper half",
    ("simulate", "--out", "{dir}/s.csv", "--scale", "rating0-1000000000"): "has 1,000,000,001 points",
    ("run", "{seq_choice}", "--dry-run"): "[sequential]",
    ("analyze", "{one_order}"): "the preference test needs both orders",
    ("run", "{seq_text}", "--dry-run"): "free-text replies",
    ("run", "{bad_cuts}", "--dry-run"): "likert5 scale",
    ("run", "{tau_yes_no}", "--dry-run"): "apply to rating scales",
    ("run", "{empty_key_env}", "--dry-run"): "not an environment variable name",
    ("run", "{no_mistral_key}", "--dry-run"): "model 'mistral': mistral: the environment variable MISTRAL_API_KEY "
                                              "is not set",
    ("run", "{empty_dashscope_key}", "--dry-run"): "model 'qwen': dashscope: the environment variable "
                                                   "DASHSCOPE_API_KEY is not set",
    ("run", "{no_openai_key}", "--dry-run"): "model 'gpt': openai: the environment variable SURVEY_TEST_NO_SUCH_KEY "
                                             "is not set",
    ("analyze", STORE, "--by", "colour"): "no persona attribute 'colour'",
    ("analyze", T, "--by", "gender"): "carries no persona attributes",
    ("run", "{seg_empty}", "--dry-run"): "[segments]: segment age in 90+ holds no persona",
    ("run", "{target_gap}", "--dry-run"): "[target]: target cell gender = other has no persona",
    ("run", "{both_odd}", "--dry-run"): "set replicates to an even number",
    ("run", "{both_yes_no}", "--dry-run"): "no scale to reverse",
    ("run", "{ssr_anchors}", "--dry-run"): "unknown anchor set 'no-such-anchors'",
    ("run", "{ssr_points}", "--dry-run"): "has 5 points; the question has 7",
    ("run", "{ssr_floor}", "--dry-run"): "question.relevance_floor: Input should be less than or equal to 1",
    ("run", "{ssr_embedder}", "--dry-run"): "unknown embedder 'minilm2'",
    ("run", "{ssr_embedder}", "--yes"): "unknown embedder 'minilm2'",
    ("init", "{own_examples}"): "already exist with other content",
    ("analyze", STORE, "--by", "age:"): "name at least one bin after the colon",
    ("analyze", STORE, "--by", ""): "--by is empty",
    ("analyze", STORE, "--segment", "a=age < 30", "--segment", "a=age > 50"): "--segment a is given twice",
    ("analyze", STORE, "--by", "gender", "--sequential", "betting"): "--by, --segment and --target are not replayed",
    ("analyze", STORE, "--target", "{unreachable}"): "every persona with gender = female (1) has age = 18-39",
    ("run", "{target_unreachable}", "--dry-run"): "[target]: the personas cannot meet the target margins",
    ("plan", "--delta", "0.3", "--no-plot", "--segments", "2", "--pairs", "100000"): "pairs must be at most 1,000",
    ("plan", "--delta", "0.3", "--no-plot", "--segments", "1000"): "segments must be at most 20",
    ("personas", "generate", "--model", "simulated:x", "--count", "100000000", "--out", "{dir}/p.jsonl"):
        "--count must be at most 100,000",
    ("perturbations", "generate", "--model", "simulated:x", "--count", "100000000", "--out", "{dir}/q.yaml",
     "--message", "Buy"): "--count must be at most 1,000; got 100000000 (each new paraphrase is compared",
    ("fidelity", T, "--humans", "{humans_huge}"): "add up to 1,000,000,000,003 respondents, more than 1,000,000",
    ("run", "{study_huge_counts}", "--dry-run"): "add up to 1,000,000,000,003 respondents",
    ("analyze", T, "--humans", "{humans_semicolon}"): "looks semicolon-separated",
    ("fidelity", T, "--humans", "{humans_no_message}"): "no 'message' column",
    ("fidelity", T, "--humans", "{humans_wide}"): "--humans-id-column",
    ("report", T, "--out", "{dir}/r", "--humans-id-column", "Id"): "describe the file given with --humans",
    ("plan-humans", "--r", "0.3", "--cost-human", "5", "--cost-query", "0.01", "--effect", "10"):
        "lies strictly between -1 and 1; got 10",
    ("plan-humans", "--r", "0.3", "--cost-human", "5", "--cost-query", "0.01", "--half-width", "100"):
        "wider than the scale",
    ("plan-humans", "--r", "0.3", "--cost-human", "1e308", "--cost-query", "0.01", "--effect", "0.1"):
        "give the costs in a larger unit",
    ("field", "{study}", "--quota-from", "{study}"): "give --respondents N",
    ("analyze", T, "--humans"): "no human answers",
    ("run", "{nan_option}", "--dry-run"): "mu: must be a finite number; got nan",
    ("run", "{ssr_anchors_colon}", "--dry-run"): "Input should be a valid string; quote statements that contain ': '",
    ("run", "{ssr_anchors_repeat}", "--dry-run"): "anchors_repeat.yaml: set 'a' repeats a statement",
    ("run", "{elicit_text}", "--dry-run"): "type = 'text' has no single answer to state one for: remove elicit",
    ("run", "{elicit_ssr}", "--dry-run"): "type = 'ssr' has no single answer to state one for",
    ("run", "{elicit_pick}", "--dry-run"): "type = 'pick' has no single answer to state one for",
    ("run", "{elicit_typo}", "--dry-run"): "question.elicit: Input should be 'answer' or 'distribution'",
    ("run", "{num_huge}", "--dry-run"): "min and max must lie within ±1,000,000,000,000,000",
    ("analyze", "{question_blank}"): "column 'question' is empty in line(s) 2, 9, 16",
    ("field", "{study}", "--port", "{busy_port}"): "another program may hold the port: give --port another number",
    ("run", "{q_both}", "--dry-run"): "give either one [question] or several [[questions]], not both",
    ("run", "{q_duplicate}", "--dry-run"): "questions: duplicate id(s) buy",
    ("run", "{q_no_id}", "--dry-run"): "entry 1 (type 'binary') needs an id",
    ("run", "{q_primary}", "--dry-run"): "analysis.primary = 'zzz' names no question; the questions are a, b",
    ("run", "{q_order_independent}", "--dry-run"): "remove question_order or set flow = \"conversation\"",
    ("run", "{rank_eight}", "--dry-run"): "a ranking shows 3 to 7 messages; got 8",
    ("run", "{cb_min_over_max}", "--dry-run"): "min_choices must be at most max_choices",
    ("run", "{num_min_over_max}", "--dry-run"): "min must be below max; got min = 10, max = 5",
    ("run", "{cb_zero}", "--dry-run"): "a checkbox question needs options: give at least 2",
    ("run", "{cb_duplicate}", "--dry-run"): "option 'A' is listed twice; give each option once",
    ("run", "{cb_13}", "--dry-run"): "a checkbox question takes 2 to 12 options; got 13",
    ("run", "{cb_number_name}", "--dry-run"): "option '2' is a bare number, which a reply reads as an option's position",
    ("run", "{cb_none_name}", "--dry-run"): "option 'None' is what a reply says when it ticks nothing",
    ("run", "{cb_max_zero}", "--dry-run"): "max_choices = 0 lets no option be ticked",
    ("run", "{cb_pipe_name}", "--dry-run"): "option 'a|b' holds '|'",
    ("plan", "--delta", "0.3", "--no-plot", "--scale", "checkbox4-0-0"): "max_choices = 0 lets no option be ticked",
    ("run", "{rank_dup_message}", "--dry-run"): "messages: duplicate name(s) boots",
    ("run", "{num_elicit}", "--dry-run"): "type = 'numeric' has no single answer to state one for: remove elicit",
    ("run", "{cb_elicit}", "--dry-run"): "type = 'checkbox' has no single answer to state one for: remove elicit",
    ("run", "{rank_elicit}", "--dry-run"): "type = 'rank' has no single answer to state one for: remove elicit",
    ("plan", "--delta", "0.3", "--no-plot", "--scale", "numeric5to1"): "scale 'numeric5to1': min must be below max",
    ("plan", "--delta", "0.3", "--no-plot", "--scale", "checkbox13"): "takes 2 to 12 options",
    ("plan", "--delta", "0.3", "--no-plot", "--scale", "rank8"): "a ranking shows 3 to 7 messages; got 8",
    ("analyze", "{numeric_table}", "--humans", "{humans_numeric_range}"): "must be a number from 0 to 300",
    ("fidelity", "{numeric_table}", "--humans", "{humans_numeric_range}"): "found 500 in line(s) 3",
    ("analyze", "{checkbox_table}", "--humans", "{humans_checkbox_option}"): "found '1, 7' in line(s) 2",
    ("fidelity", "{rank_table}", "--humans", "{humans_rank_twice}"): "respondent 'r1' gave ranks 1, 1, 3",
    ("fidelity", "{numeric_table}", "--humans", "{humans_numeric_blank}"): "found an empty answer in line(s) 2",
    ("fidelity", "{rank_table}", "--humans", "{humans_rank_blank}"): "line 4: a ranking's human answer is the rank "
                                                                      "given to the row's message, a whole number "
                                                                      "from 1 (best) to 3; found an empty answer",
    ("analyze", "{rank_table}", "--humans", "{humans_rank_missing}"): "respondent 'r2' gave ranks 1, 2",
    ("fidelity", "{checkbox_table}", "--humans", "{humans_checkbox_word}"): "found cheap in line(s) 2",
    ("analyze", "{question_empty}"): "every row needs a question id (or drop the column: one question)",
    ("analyze", "{questions}", "--question", "nope"): "no question 'nope': the source asks buy, recommend",
    ("plan", "--delta", "0.3", "--no-plot", "--family", "bh"): "--family describes a family of questions",
    ("plan", "--delta", "0.3", "--no-plot", "--question-correlation", "0.2"): "add --questions K",
}


@pytest.mark.parametrize("case", list(SAYS), ids=[" ".join(c) for c in SAYS])
def test_the_one_line_names_the_cause(files, capsys, monkeypatch, case):
    monkeypatch.chdir(files["dir"])
    argv = [a.format(**{k: str(v) for k, v in files.items()}) for a in case]
    code, out, err = _run(capsys, argv)
    assert code == 2 and SAYS[case] in err, err


# Stated-distribution replies the parser cannot read: no user error (the run goes on), but an invalid answer
# whose stored reason is one line naming the cause (survey.responses.stated).
BAD_STATEMENTS = [
    ("likert3", '{"1": 1, "2": 1, "3": 1}', "the probabilities sum to 3, not 1 (within 0.05)"),
    ("binary", '{"Yes": 0.5, "No": 0.25, "Maybe": 0.25}', "unknown option 'Maybe': the options are 'Yes', 'No'"),
    # once: a repeated option kept its last probability silently, and Infinity was called NaN
    ("binary", '{"Yes": 0.9, "Yes": 0.5, "No": 0.5}', "option 'Yes' is given twice"),
    ("binary", '{"Yes": Infinity, "No": 0}', "the probability of 'Yes' is Infinity, not a number in [0, 1]"),
    ("binary", '{"Yes": NaN, "No": 1}', "the probability of 'Yes' is NaN, not a number in [0, 1]"),
    ("binary", '{"Yes": 0.7, "No": 0.3', "not a JSON object: '{\"Yes\": 0.7, \"No\": 0.3'"),
    ("binary", '[0.5, 0.5]', "not a JSON object: '[0.5, 0.5]'"),
    ("binary", '{"Yes": 60, "No": 40}', "the probability of 'Yes' is 60, not a number in [0, 1]"),
    ("binary", '{"Yes": 1e308, "No": -1e308}', "the probability of 'Yes' is 1e+308, not a number in [0, 1]"),
    ("binary", '{"yes": 0.5, "no": 0.5}', "unknown option 'yes': the options are 'Yes', 'No'"),
    ("binary", '{"Yes": 1}', "option 'No' has no probability"),
    ("binary", '{"Ja \u2713": 1}', "unknown option 'Ja \u2713': the options are 'Yes', 'No'"),
    ("binary", "", "empty reply"),
    ("likert5", '{"1.0": 1}', "unknown option '1.0': the options are '1', '2', '3', '4', '5'"),
    ("likert5", '{"1": 1, "2": 1, "3": 1, "4": 0, "5": 0}', "the probabilities sum to 3, not 1 (within 0.05)"),
    # a forced choice states a probability per position: two options cannot sum to 3
    ("choice", '{"1": 1, "2": 1}', "the probabilities sum to 2, not 1 (within 0.05)"),
    ("choice", '{"1": 0.5, "3": 0.5}', "unknown option '3': the options are '1', '2'"),
]


@pytest.mark.parametrize("scale, reply, reason", BAD_STATEMENTS, ids=[r for _, r, _ in BAD_STATEMENTS])
def test_a_stated_distribution_that_cannot_be_read_is_invalid_with_one_line(scale, reply, reason):
    from survey.responses import response_type
    from survey.responses.stated import StatedDistribution

    answer, expected, extra = StatedDistribution(response_type(scale)).read(reply, ("s", "m", "A", "a0", "p0", 0))
    assert answer is None and expected is None and extra["invalid_reason"] == reason


def test_the_battery_covers_every_command():
    from survey.cli import cli

    covered = {c[0] for c in CASES} | {" ".join(c[:2]) for c in CASES}
    for name, cmd in cli.commands.items():
        subs = getattr(cmd, "commands", None)
        for sub in subs or [None]:
            assert (f"{name} {sub}" if sub else name) in covered, f"no bad input for `survey {name} {sub or ''}`"
    assert len(CASES) >= 60


def test_the_dry_run_checks_keys_as_the_run_does_and_never_shows_one(files, capsys, monkeypatch):
    # before: the dry run said all was well and the run then refused; now both refuse with the same line
    monkeypatch.chdir(files["dir"])
    monkeypatch.setenv("MISTRAL_API_KEY", "sk-secret-mistral-123")
    two = files["no_openai_key"].read_text() + '[[models]]\nname = "mistral"\nbackend = "mistral"\n' \
        'model_id = "mistral-small-latest"\n'
    (files["dir"] / "two_keys.toml").write_text(two)
    dry = _run(capsys, ["run", "two_keys.toml", "--dry-run"])
    real = _run(capsys, ["run", "two_keys.toml", "--yes"])
    assert dry == real and dry[0] == 2 and "SURVEY_TEST_NO_SUCH_KEY is not set" in dry[2]
    assert "sk-secret" not in "".join(dry[1:])
    code, out, _ = _run(capsys, ["run", "two_keys.toml", "--dry-run", "--model", "mistral", "--json"])
    assert code in (0, None) and json.loads(out)["models"] and "sk-secret" not in out  # its key is set: planned


@pytest.mark.parametrize("low, high", [(0, 0.00001), (0, 1.2345678), (-0.5, 1e15)])
def test_a_numeric_scale_name_reads_back_as_its_bounds(low, high):
    # once: max = 0.00001 was named numeric0to1e-05, a run stored it and no command could read the store back;
    # max = 1.2345678 was named numeric0to1.23457, silently another range
    from survey.kinds.numeric.parsing import NumericScale, from_name

    back = from_name(NumericScale(low, high).scale)
    assert back is not None and (back.low, back.high) == (low, high)
