"""`survey dbpa` from the command line: tables and stores of free-text answers, family files, the
embedding cache, plots and user errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest
from fakes.mistral_server import MistralFake

from survey.cli import main
from survey.embed.minilm import MiniLMEmbedder

LIKE = ["I love these sneakers, I'd buy them.", "Great shoes, count me in!", "Looks comfortable, I would try them.",
        "Sounds like a good deal for running shoes.", "Yes, I'd get a pair."]
DISLIKE = ["Boots are too heavy for me.", "I don't need new boots.", "Not interested, too expensive.",
           "Boots? No thanks.", "I'd rather keep my old boots."]


def _rows(empty_last=False):
    rows = []
    for msg, pool in (("sneakers", LIKE), ("boots", DISLIKE)):
        for j in range(4):
            for i in range(3):
                rows.append(dict(model="m1", message=msg, perturbation=f"p{j}", persona=f"s{i}", replicate=0,
                                 answer="", response=pool[(i + 2 * j) % 5] + (" Maybe." if (i + j) % 2 else "")))
    if empty_last:
        rows[-1]["response"] = ""
    return rows


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "texts.csv"
    pd.DataFrame(_rows(empty_last=True)).to_csv(path, index=False)
    return path


@pytest.fixture
def counted(monkeypatch):
    """Count the texts the local embedder actually embeds."""
    seen = []
    original = MiniLMEmbedder.embed

    def embed(self, texts):
        seen.extend(texts)
        return original(self, texts)

    monkeypatch.setattr(MiniLMEmbedder, "embed", embed)
    return seen


def test_message_comparison_end_to_end_with_cache_and_plot(table, tmp_path, capsys, counted):
    plot = tmp_path / "out" / "dbpa.png"
    main(["dbpa", str(table), "--a", "sneakers", "--b", "boots", "--omega", "js", "--omega", "energy-cosine",
          "--per-persona", "--plot", str(plot), "--json"])
    out = json.loads(capsys.readouterr().out)
    (res,) = out["results"]
    assert res["outputs"] == {"sneakers": 12, "boots": 11} and res["dropped_empty"] == 1
    assert res["unit"] == "perturbation" and res["scheme"] == "relabel"
    js = res["tests"]["js"]
    assert js["exact"] and js["n_resamples"] == 70  # C(8, 4) relabelings of perturbations
    assert js["pvalue"] <= 2 / 70 and res["tests"]["energy-cosine"]["pvalue"] <= 2 / 70
    assert js["js_distance"] == pytest.approx(js["statistic"] ** 0.5)
    assert [t["name"] for t in res["per_persona"]["tests"]] == ["s0", "s1", "s2"]
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out["plots"] == [str(plot)]
    assert len(counted) == len(set(counted)) > 0  # each distinct text embedded once
    cache = table.with_name(table.name + ".embeddings.sqlite")
    assert cache.exists()
    counted.clear()
    main(["dbpa", str(table), "--a", "sneakers", "--b", "boots", "--no-plot", "--unit", "output"])
    text = capsys.readouterr().out
    assert counted == []  # the rerun embeds nothing
    assert "output-level permutations assume independent outputs" in text and "model m1" in text
    assert "p computed" in text and "p-value" not in text  # the column says exact or monte-carlo


def test_store_source_keeps_embeddings_in_the_store(tmp_path, capsys, counted):
    from survey.data.store import Store

    path = tmp_path / "study.sqlite"
    with Store(path) as st:
        for r in _rows():
            key = ("st", r["model"], r["message"], r["perturbation"], r["persona"], r["replicate"])
            st.record(key, status="ok", response=r["response"])
    main(["dbpa", str(path), "--omega", "mean-diff", "--no-plot", "--json", "--scheme", "swap"])
    res = json.loads(capsys.readouterr().out)["results"][0]
    assert res["tests"]["mean-diff"]["n_resamples"] == 16 and res["scheme"] == "swap"  # 2^4 swaps
    from survey.embed import EmbeddingCache

    with EmbeddingCache(path) as cache:
        assert cache.count("minilm") == len(set(counted)) > 0


def test_family_file_control_target_with_inline_texts_via_mistral_embed(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MISTRAL_API_KEY", "k-test")
    fam = tmp_path / "fam.yaml"
    fam.write_text(
        "design: control-target\n"
        "base: {texts: ['yes', 'yes', 'yes', 'yes']}\n"
        "comparisons:\n"
        "  - {name: c1, role: control, texts: ['yes', 'yes', 'yes', 'yes']}\n"
        "  - {name: t1, role: target, texts: ['no', 'no', 'no', 'no']}\n"
        "omega: energy-cosine\npermutations: 200\n")
    with MistralFake(api_key="k-test") as server:
        main(["dbpa", "--family", str(fam), "--embedder", "mistral-embed", "--embed-url", server.url, "--json",
              "--plot", str(tmp_path / "fam.dbpa.png")])
    out = json.loads(capsys.readouterr().out)
    assert out["design"] == "control-target" and out["embedder"] == "mistral:mistral-embed"
    by = {t["name"]: t for t in out["tests"]}
    # the fake embeds equal texts equally: the same answers change nothing; other answers give the
    # smallest exact p (energy is symmetric, so the complement of the observed labels ties: 2/70)
    assert by["c1"]["pvalue"] == 1.0 and by["t1"]["pvalue"] == pytest.approx(2 / 70)
    assert out["roc"]["auc"] == 1.0 and out["roc"]["fpr_at_alpha"] == 0.0
    assert all(p.endswith(".png") for p in out["plots"]) and len(out["plots"]) == 2
    assert (tmp_path / "fam.yaml.embeddings.sqlite").exists()


def test_family_file_selects_rows_of_a_table(table, tmp_path, capsys):
    fam = tmp_path / "align.json"
    fam.write_text(json.dumps({"design": "perturbations", "source": table.name,
                               "base": {"select": {"message": "sneakers", "perturbation": ["p0", "p1"]}},
                               "comparisons": [{"name": "p2", "select": {"message": "sneakers", "perturbation": "p2"}},
                                               {"name": "boots", "select": {"message": "boots"}}]}))
    main(["dbpa", "--family", str(fam), "--omega", "mean-diff", "--correction", "bonferroni", "--no-plot"])
    text = capsys.readouterr().out
    assert "bonferroni-adjusted" in text and "boots" in text and "p2" in text


@pytest.mark.parametrize("args,message", [
    (["{table}", "--a", "sneakers", "--b", "nope"], "message 'nope' is not in the table"),
    (["{notext}", "--a", "A", "--b", "B"], "no 'response' column"),
    (["--family", "{badfam}"], "role"),
    (["--family", "{yesno}"], "quote texts in YAML"),
    (["{table}", "--family", "{badfam}"], "drop SOURCE"),
    ([], "give a long table or store"),
    (["{table}", "--range", "0.5"], "--range must be"),
    (["{table}", "--embedder", "minilm", "--embed-url", "http://127.0.0.1:9"], "--embed-url applies"),
])
def test_user_errors(tmp_path, table, capsys, args, message):
    notext = tmp_path / "answers.csv"
    pd.DataFrame([dict(model="m", message=msg, perturbation=p, persona="s", replicate=0, answer=1)
                  for msg in "AB" for p in ("p1", "p2")]).to_csv(notext, index=False)
    badfam = tmp_path / "bad.yaml"
    badfam.write_text("design: control-target\nbase: {texts: [a, b]}\ncomparisons:\n  - {name: x, texts: [c]}\n")
    yesno = tmp_path / "yesno.yaml"
    yesno.write_text("base: {texts: [yes, no]}\ncomparisons:\n  - {name: x, texts: [maybe]}\n")
    names = dict(table=table, notext=notext, badfam=badfam, yesno=yesno)
    with pytest.raises(SystemExit) as exc:
        main(["dbpa", *[a.format(**names) for a in args]])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_a_user_error_is_one_line_without_traceback(table):
    proc = subprocess.run([sys.executable, "-m", "survey", "dbpa", str(table), "--b", "nope"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and len(proc.stderr.strip().splitlines()) == 1


def test_an_error_after_embedding_is_still_one_line(table, tmp_path):
    # off a terminal no transient progress bar runs, so nothing (not even a blank line) precedes the error
    proc = subprocess.run([sys.executable, "-m", "survey", "dbpa", str(table), "--bins", "1", "--no-plot",
                           "--cache", str(tmp_path / "c.sqlite")], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.startswith("error: bins") and proc.stderr.count("\n") == 1
    one = tmp_path / "one.csv"  # model m2 answers boots only: found after its texts are embedded
    pd.DataFrame(_rows() + [dict(r, model="m2") for r in _rows() if r["message"] == "boots"]).to_csv(one, index=False)
    proc = subprocess.run([sys.executable, "-m", "survey", "dbpa", str(one), "--no-plot", "--no-cache"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr == (
        "error: model 'm2': DBPA needs at least 2 text answers for sneakers and 1 for boots\n")


def test_no_plot_is_written_unless_asked(table, tmp_path, capsys, monkeypatch):
    # a reading command writes nothing unasked: ./dbpa.png once appeared in the user's folder
    monkeypatch.chdir(tmp_path)
    before = set(tmp_path.rglob("*"))
    main(["dbpa", str(table), "--a", "sneakers", "--b", "boots", "--no-cache", "--json"])
    assert json.loads(capsys.readouterr().out)["plots"] == []
    assert not [p for p in set(tmp_path.rglob("*")) - before if p.suffix == ".png"]
