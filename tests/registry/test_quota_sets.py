"""Persona sets built to target margins (quota sampling): the margins equal the quotas exactly, the file loads
as a persona set with the target in its header, raking it to its target leaves every weight at 1, numeric
values fall inside their bins, and bad targets or templates are one clear error."""

from __future__ import annotations

import hashlib
import json
import math
import re
import sys
import types
from collections import Counter

import pytest
from cli_result import run_cli

from survey import backends
from survey.backends.base import Reply
from survey.data.attributes import attributes_frame
from survey.data.targets import read_target_file
from survey.errors import SurveyError
from survey.registry import read_persona_set
from survey.registry.quota_sets import persona_set_to_target
from survey.registry.targets import read_target
from survey.stats.segments import rake
from survey.stats.segments.quotas import joint_quotas, largest_remainder

MARKET = """[target.gender]
male = 0.485
female = 0.465
non-binary = 0.05

[target.age]
"18-34" = 0.3
"35-54" = 0.355
"55+" = 0.345

[target.income]
low = 0.3
medium = 0.45
high = 0.25
"""


@pytest.fixture
def market(tmp_path):
    path = tmp_path / "market.toml"
    path.write_text(MARKET, encoding="utf-8")
    return path


def _margins(pset, attrs) -> dict:
    return {a: Counter(str(p.attributes[a]) for p in pset.personas) for a in attrs}


def test_largest_remainder_quotas_sum_to_n_and_stay_within_one():
    shares = {"a": 0.455, "b": 0.3, "c": 0.245}
    for n in (1, 7, 99, 1000):
        q = largest_remainder(shares, n)
        assert sum(q.values()) == n and all(abs(q[k] - s * n) < 1 for k, s in shares.items())
        # the extra units went to the largest remainders
        bumped = [k for k in q if q[k] > math.floor(shares[k] * n)]
        kept = [k for k in q if k not in bumped]
        assert all(shares[b] * n % 1 >= shares[k] * n % 1 for b in bumped for k in kept)
    assert largest_remainder({"x": 1 / 3, "y": 1 / 3, "z": 1 / 3}, 10) == {"x": 4, "y": 3, "z": 3}  # ties: first


@pytest.mark.parametrize("n", [7, 60, 101, 200])
def test_joint_cells_meet_every_quota_and_stay_near_the_product_of_the_shares(n):
    margins = read_target_file_from_text(MARKET).margins
    quotas, cells = joint_quotas(margins, n)
    assert sum(k for _, k in cells) == n
    for i, (attr, levels) in enumerate(margins.items()):
        got = Counter()
        for cell, k in cells:
            got[cell[i]] += k
        assert {lvl: got[lvl] for lvl in levels} == quotas[attr]
    for cell, k in cells:
        expected = n * math.prod(margins[a][lvl] for a, lvl in zip(margins, cell, strict=True))
        assert abs(k - expected) < 1.5, (cell, k, expected)


def read_target_file_from_text(text):
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "t.toml"
        path.write_text(text)
        return read_target_file(path)


@pytest.mark.parametrize("n", [60, 101])
def test_the_built_sets_margins_equal_the_quotas_exactly(market, tmp_path, n):
    tf = read_target_file(market)
    pset = persona_set_to_target(tf, n, "market", seed=5)
    quotas = pset.target["quotas"]
    got = _margins(pset, ["gender", "income"])
    assert {a: dict(got[a]) for a in got} == {a: {k: v for k, v in quotas[a].items() if v} for a in got}
    ages = [p.attributes["age"] for p in pset.personas]
    assert all(isinstance(a, int) for a in ages)
    assert sum(18 <= a <= 34 for a in ages) == quotas["age"]["18-34"]
    assert sum(35 <= a <= 54 for a in ages) == quotas["age"]["35-54"]
    assert sum(55 <= a <= 85 for a in ages) == quotas["age"]["55+"]  # the open bin ends at the shoppers' oldest
    assert all(set(p.attributes) >= {"occupation", "marital_status"} for p in pset.personas)


def test_the_file_loads_as_a_persona_set_that_records_its_target(market, tmp_path):
    tf = read_target_file(market)
    pset = persona_set_to_target(tf, 40, "market", seed=1)
    out = tmp_path / "market.jsonl"
    out.write_text(pset.dumps(), encoding="utf-8")
    back = read_persona_set(out)
    assert back.dumps() == pset.dumps() and len(back.personas) == 40
    header = json.loads(out.read_text().splitlines()[0])
    assert header["target"]["sha256"] == hashlib.sha256(market.read_bytes()).hexdigest()
    assert header["target"]["source"] == str(market) and header["target"]["margins"] == tf.margins
    assert "largest remainders" in header["target"]["allocation"]
    # one seed, one set; another seed, another set
    assert persona_set_to_target(tf, 40, "market", seed=1).dumps() == pset.dumps()
    assert persona_set_to_target(tf, 40, "market", seed=2).dumps() != pset.dumps()


def test_raking_the_set_to_its_own_target_leaves_every_weight_at_one(market):
    pset = persona_set_to_target(read_target_file(market), 200, "market", seed=3)  # every share x 200 is whole
    weights = rake(attributes_frame(pset), read_target(market))
    assert weights.design_effect == pytest.approx(1.0, abs=1e-9)
    assert weights.weights.max() - weights.weights.min() < 1e-9
    # and a set that misses the target does need weights: the check above can fail
    other = read_target_file_from_text(MARKET.replace("male = 0.485\nfemale = 0.465", "male = 0.3\nfemale = 0.65"))
    skewed = persona_set_to_target(other, 200, "skewed", seed=3)
    assert rake(attributes_frame(skewed), read_target(market)).design_effect > 1.05


@pytest.mark.parametrize(("text", "template", "match"), [
    ("[target.height]\n\"150-170\" = 0.5\n\"171+\" = 0.5\n", None, "open-ended"),
    ("[target.age]\n\"-17\" = 0.5\n\"18-90\" = 0.5\n", None, "holds no value to draw"),
    ("[target.gender]\nmale = 1.0\n", "You are {name}, {gender}.", r"the template uses \{name\}"),
])
def test_bad_targets_and_templates_are_clear_errors(text, template, match):
    tf = read_target_file_from_text(text)
    kwargs = {"template": template} if template else {}
    with pytest.raises(SurveyError, match=match):
        persona_set_to_target(tf, 10, "x", **kwargs)


def test_the_cli_builds_a_set_offline_and_refuses_bad_input(market, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "personas", "generate", "--target", market, "--count", "30", "--out",
                             "personas/mine.jsonl", "--seed", "4", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["kept"] == 30 and doc["target"]["quotas"]["gender"] == {"male": 15, "female": 14,
                                                                                      "non-binary": 1}
    assert len(read_persona_set(tmp_path / "personas" / "mine.jsonl").personas) == 30
    code, out, err = run_cli(capsys, "personas", "show", "personas/mine.jsonl", "--limit", "1")
    assert code == 0 and "quotas: gender male 15, female 14, non-binary 1;" in out
    code, out, err = run_cli(capsys, "personas", "show", "personas/mine.jsonl", "--json")
    assert json.loads(out)["target"]["sha256"] == hashlib.sha256(market.read_bytes()).hexdigest()
    code, out, err = run_cli(capsys, "personas", "generate", "--count", "5", "--out", "x.jsonl")
    assert code == 2 and "--model is required" in err and "Traceback" not in err
    bad = tmp_path / "bad.csv"
    bad.write_text("attribute,level,share\ngender,male,0.4\n")
    code, out, err = run_cli(capsys, "personas", "generate", "--target", bad, "--count", "5", "--out", "y.jsonl")
    assert code == 2 and "bad.csv:2: the shares of gender sum to 0.4" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "y.jsonl").exists()


class CellAwareBackend:
    """Writes the asked-for number of personas with the asked-for keys; records the prompts."""

    name = "fake"
    prompts: list = []

    def __init__(self, model_id: str = "", **options):
        self.model_id = model_id

    async def complete(self, query):
        type(self).prompts.append(query.user)
        k = int(re.search(r"Create (\d+) distinct", query.user).group(1))
        keys = re.findall(r"^- (\w+):", query.user, flags=re.M)
        start = len(type(self).prompts) * 100
        items = [{key: ("single" if key == "marital_status" else f"Job {start + i}") for key in keys} for i in range(k)]
        return Reply(text=json.dumps(items), model_id=self.model_id, prompt_tokens=1, completion_tokens=1)

    async def aclose(self) -> None:
        pass


def test_a_model_writes_the_other_attributes_one_quota_cell_at_a_time(market, tmp_path, capsys, monkeypatch):
    module = types.ModuleType("cell_aware_backend_for_tests")
    module.CellAwareBackend = CellAwareBackend
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(backends.BACKENDS, "fake", f"{module.__name__}:CellAwareBackend")
    CellAwareBackend.prompts = []
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "personas", "generate", "--model", "fake:m", "--target", market, "--count", "20",
                             "--out", "llm.jsonl", "--json")
    assert code == 0, err
    pset = read_persona_set(tmp_path / "llm.jsonl")
    quotas = pset.target["quotas"]
    assert {a: dict(c) for a, c in _margins(pset, ["gender", "income"]).items()} == \
        {a: {k: v for k, v in quotas[a].items() if v} for a in ("gender", "income")}
    assert all(p.attributes["occupation"].startswith("Job ") for p in pset.personas)
    assert "written by fake:m" in pset.target["other_attributes"]
    # one request per quota cell, each naming the cell's levels and asking only for the other attributes
    assert len(CellAwareBackend.prompts) == len({(str(p.gender), str(p.income), _age_bin(p.age))
                                                 for p in pset.personas})
    assert all(re.search(r"\(gender: [\w-]+; age: [\d+-]+; income: \w+\)", u) for u in CellAwareBackend.prompts)
    assert not any("- gender:" in u or "- age:" in u for u in CellAwareBackend.prompts)


def _age_bin(age: int) -> str:
    return "18-34" if age <= 34 else "35-54" if age <= 54 else "55+"
