"""End to end on the simulated backend: a study names its human file, the run asks the model about every
respondent rendered as a persona, and fidelity and PPI read the store without being told about the humans."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from shoe_study import shoe_messages_toml

ROOT = Path(__file__).resolve().parents[2]

STUDY = """
name = "people"
store = "people.sqlite"
humans = "answers.csv"

[personas]
set = "panel.jsonl"

""" + shoe_messages_toml() + """
[[models]]
name = "sim"
backend = "simulated"
seed = 3

[models.options]
mu = 0.5
deltas = { boots = -0.6 }
"""


def _write(tmp_path):
    rng = np.random.default_rng(0)
    header = {"template": "You are a shopper aged {age}, {gender}. Answer ONLY 'Yes' or 'No'. Do not explain."}
    lines = [json.dumps(header)] + [json.dumps({"id": f"p{i}", "age": int(rng.integers(18, 80)),
                                                "gender": str(rng.choice(["male", "female"]))}) for i in range(20)]
    (tmp_path / "panel.jsonl").write_text("\n".join(lines) + "\n")
    rows = ["respondent,message,answer,age,gender"]
    for i in range(40):
        age, gender = int(rng.integers(18, 80)), str(rng.choice(["male", "female"]))
        for msg, p in (("sneakers", 0.6), ("boots", 0.4)):
            rows.append(f"h{i},{msg},{'Yes' if rng.random() < p else 'No'},{age},{gender}")
    (tmp_path / "answers.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "study.toml").write_text(STUDY)


def test_a_study_with_humans_runs_and_its_store_answers_about_people(tmp_path):
    import survey

    _write(tmp_path)
    study = survey.Study.from_toml(tmp_path / "study.toml")
    assert study.dry_run().to_send == (20 + 40) * 12
    study.run(progress=False)
    src = study.load()
    assert src.humans is not None and src.humans.summary()["respondents"] == 40
    assert src.context["humans"]["rendered_personas"] == 40 and src.context["humans"]["sha256"]
    assert src.table["persona"].str.startswith("human-h").sum() == 40 * 12
    res = survey.fidelity(src, n_boot=200, flips=999)
    assert res.design == "within" and set(res.ppi) == {"sim"}
    assert res.ppi["sim"].n == 40 and res.ppi["sim"].N == 20
    assert "40 rendered from the respondents" in res.basis
    out = subprocess.run([sys.executable, "-m", "survey", "fidelity", str(tmp_path / "people.sqlite"), "--json",
                          "--bootstrap", "100"], capture_output=True, text=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["ppi"]["sim"]["target"] == "paired effect A - B"
