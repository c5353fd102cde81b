"""Target-margin files (TOML and CSV): what they read to, and one clear error per mistake naming its line."""

from __future__ import annotations

import pytest

from survey.data.targets import read_target_file
from survey.errors import SurveyError
from survey.registry.targets import read_target
from survey.stats.segments import Target

TOML = """# the market
[target.gender]
male = 0.49
female = 0.51

[target.age]
"18-34" = 0.3
"35-54" = 0.4
"55+" = 0.3
"""
CSV = "attribute,level,share\ngender,male,0.49\ngender,female,0.51\nage,18-34,0.3\nage,35-54,0.4\nage,55+,0.3\n"


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("name", "text"), [("m.toml", TOML), ("m.csv", CSV)])
def test_toml_and_csv_read_to_the_same_target(tmp_path, name, text):
    path = _write(tmp_path, name, text)
    target = read_target(path)
    assert isinstance(target, Target)
    assert target.margins == {"gender": {"male": 0.49, "female": 0.51},
                              "age": {"18-34": 0.3, "35-54": 0.4, "55+": 0.3}}
    assert target.source == str(path)
    tf = read_target_file(path)
    assert len(tf.sha256) == 64 and tf.to_dict()["margins"] == target.margins


def test_shares_within_the_tolerance_are_rescaled_to_one(tmp_path):
    target = read_target(_write(tmp_path, "m.toml", "[target.gender]\nmale = 0.5\nfemale = 0.505\n"))
    assert sum(target.margins["gender"].values()) == pytest.approx(1, abs=1e-15)
    assert target.margins["gender"]["female"] == pytest.approx(0.505 / 1.005)


def test_an_inline_target_table_reads_too(tmp_path):
    target = read_target(_write(tmp_path, "m.toml", '[target]\ngender = {male = 0.49, female = 0.51}\n'))
    assert target.margins == {"gender": {"male": 0.49, "female": 0.51}}


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("m.toml", "[target.gender]\nmale = 0.49\nfemale = 0.41\n", r"m.toml:1: the shares of gender sum to 0.9"),
    ("m.toml", "[target.gender]\nmale = 0.49\nfemale = '51%'\n", r"m.toml:3: the share of gender = female must "
     "be a number from 0 to 1"),
    ("m.toml", "[target.gender]\nmale = 1.49\nfemale = -0.49\n", r"m.toml:2: the share of gender = male"),
    ("m.toml", "[target.gender]\nmale = true\nfemale = 0.5\n", r"m.toml:2: the share of gender = male"),
    ("m.toml", "[target.gender]\nmale = 0.5\nmale = 0.5\n", r"not valid TOML .*line 3"),
    ("m.toml", "[target.gender]\n", r"m.toml:1: \[target.gender\] lists no level"),
    ("m.toml", "[target]\ngender = 0.5\n", r"m.toml:2: target.gender must be a table of level = share"),
    ("m.toml", "[gender]\nmale = 1.0\n", r"m.toml:1: unknown key 'gender'"),
    ("m.toml", "title = 'x'\n", r"m.toml:1: unknown key 'title'"),
    ("m.toml", "", r"no \[target.ATTRIBUTE\] table"),
    ("m.toml", '[target."marital status"]\nsingle = 1.0\n', r"m.toml:1: attribute 'marital status' must be"),
    ("m.toml", '[target.age]\n"18-40" = 0.5\n"35-54" = 0.5\n', r"bins '18-40' and '35-54' of age overlap"),
    ("m.csv", "attribute,level,share\ngender,male,0.49\ngender,female,0.41\n", r"m.csv:2: the shares of gender "
     "sum to 0.9"),
    ("m.csv", "attr,lvl,share\ngender,male,1\n", r"m.csv:1: the first line must be the header"),
    ("m.csv", "attribute,level,share\ngender,male\n", r"m.csv:2: expected 3 fields"),
    ("m.csv", "attribute,level,share\ngender,male,0.5\ngender,male,0.5\n", r"m.csv:3: gender = male is given "
     r"twice \(also line 2\)"),
    ("m.csv", "attribute,level,share\n", r"no target rows"),
    ("m.csv", "attribute,level,share\ngender,,1\n", r"m.csv:2: gender has an empty level"),
    ("m.csv", "attribute,level,share\ngender,male,abc\n", r"m.csv:2: the share of gender = male"),
    ("m.json", "{}", r"a target file is .toml .* or .csv"),
])
def test_bad_targets_are_one_clear_error_naming_the_line(tmp_path, name, text, expected):
    with pytest.raises(SurveyError, match=expected):
        read_target(_write(tmp_path, name, text))


def test_a_missing_or_undecodable_file_says_so(tmp_path):
    with pytest.raises(SurveyError, match="no such target file"):
        read_target(tmp_path / "nope.toml")
    bad = tmp_path / "latin.csv"
    bad.write_bytes("attribute,level,share\ngender,m\xe4nnlich,1\n".encode("latin-1"))
    with pytest.raises(SurveyError, match="UTF-8"):
        read_target(bad)
