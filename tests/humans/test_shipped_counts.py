"""The shipped count-only human benchmarks: each study's counts file holds the published numbers, its
paraphrase sets keep the manipulation, and a copy made by `survey init` still finds its counts and sets and
plans its run offline (a dry run: no model is loaded)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import survey
from survey.api.study import Study
from survey.registry.files import SHIPPED_ROOT
from survey.study.design import build_design
from survey.study.spec import load_study

ROOT = Path(__file__).resolve().parents[2]

# study -> message -> (respondents, published share answering Yes, Yes count shipped). Where the source
# printed only a percentage and N, the count is that share of N rounded to the nearest respondent.
PUBLISHED = {
    "humans_pew.toml": {"mandate-help-last": (746, None, 365), "mandate-penalty-last": (710, None, 249)},
    "humans_disease.toml": {"disease-lives-saved": (152, 0.72, 109), "disease-lives-lost": (155, 0.22, 34)},
    "humans_theatre.toml": {"theatre-lost-cash": (183, 0.88, 161), "theatre-lost-ticket": (200, 0.46, 92)},
    "humans_gamble.toml": {"gamble-gain-frame": (70, 0.84, 59), "gamble-loss-frame": (68, 0.31, 21)},
    "humans_ask.toml": {"ask-negative-assumption": (73, None, 36), "ask-positive-assumption": (73, None, 23),
                        "ask-general": (73, None, 2)},
}
# what every paraphrase of a message must say (regular expressions on the lower-cased text): the manipulation
# itself, and for the disease problem the sure program first, called the first program
NO_LOSS, NO_GAIN = r"^(?!.*\blos)", r"^(?!.*\bgain)"
KEPT = {
    "disease-lives-saved": [r"first program[^.]*?(\b200\b[^.]*?saved|save 200).*second program[^.]*?(saved|saving)"],
    "disease-lives-lost": [r"first program[^.]*?\b400\b[^.]*?die.*second program[^.]*?die"],
    "theatre-lost-cash": [r"\$10 (bill|note|in cash)", r"^(?!.*(lost the ticket|ticket is lost))"],
    "theatre-lost-ticket": [r"lost the ticket|ticket (is lost|has gone missing)", r"\$10", r"^(?!.*\$10 bill)"],
    "gamble-gain-frame": [r"\$1,000\b.*the gamble.*\$1,000.*the sure option.*\$500", NO_LOSS],
    "gamble-loss-frame": [r"\$2,000\b.*the gamble.*(los|takes away).*\$1,000.*the sure option.*\$500", NO_GAIN],
    "ask-negative-assumption": [r"froze.*what problems (does it have|has it got)[^\"]*\?\"$"],
    "ask-positive-assumption": [r"froze.*(doesn't have any problems|aren't any problems)[^\"]*\?\"$"],
    "ask-general": [r"froze.*what can you (tell me|say) about (it|this ipod)[^\"]*\?\"$"],
}


def count_studies() -> list[str]:
    """Every shipped study whose humans are a counts file in studies/data (not built on the machine)."""
    out = []
    for path in sorted((ROOT / "studies").glob("*.toml")):
        spec = load_study(path)
        if spec.humans is not None and not spec.humans.file.startswith("benchmark:"):
            out.append(path.name)
    return out


def test_every_shipped_count_study_has_its_published_numbers_here():
    assert count_studies() == sorted(PUBLISHED)


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_a_count_study_holds_the_published_counts_and_keeps_the_manipulation(name):
    spec = load_study(ROOT / "studies" / name)
    assert not spec.humans.ask and spec.question.type == "binary" and spec.replicates == 1
    humans = spec.load_humans()
    ids = [m.id for m in spec.messages]
    assert ids == list(PUBLISHED[name]) and humans.design(ids[0], ids[1]) == "between"
    for message, (n, share, yes) in PUBLISHED[name].items():
        assert humans.answers(message)["answer"].agg(["size", "sum"]).tolist() == [n, yes]
        if share is not None:
            assert yes == round(share * n)
    design = build_design(spec)
    for message in design.messages:
        texts = [p.text.lower() for p in message.items]
        assert len(set(texts)) == 6 and [str(p.id)[-3:] for p in message.items] == [f"-0{i}" for i in range(1, 7)]
        for pattern in KEPT.get(message.id, ()):  # the Pew sets: tested with their study
            assert [t for t in texts if not re.search(pattern, t, re.DOTALL)] == [], (message.id, pattern)


def test_init_copies_still_find_their_counts_and_sets_and_plan_offline(tmp_path):
    survey.init(tmp_path)
    for name, published in PUBLISHED.items():
        copy = tmp_path / name
        assert copy.read_bytes() == (SHIPPED_ROOT / "studies" / name).read_bytes()
        spec = load_study(copy)
        assert not spec.resolve(spec.humans.file).exists()  # the counts come from the shipped data/ folder
        humans = spec.load_humans()
        assert {m: int(humans.answers(m)["answer"].sum()) for m in published} == \
            {m: yes for m, (_, _, yes) in published.items()}
        sets = [m.perturbation_set.source for m in build_design(spec).messages]
        assert sets == [SHIPPED_ROOT / "perturbations" / f"{m.replace('-', '_')}.yaml" for m in published]
        plan = Study.from_toml(copy).dry_run().to_dict()
        assert plan["messages"] == {m: 6 for m in published} and plan["personas"] == 40
        assert [m["to_send"] for m in plan["models"]] == [40 * len(published) * 6] * 2
    assert not list(tmp_path.rglob("*.sqlite"))  # a dry run writes no store
