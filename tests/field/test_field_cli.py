"""`survey field`'s user mistakes: one clear line, exit 2, never a traceback (the server is not started)."""

import json

from cli_result import run_cli
from field_study import write_study


def test_a_missing_study_is_one_line(tmp_path, capsys):
    code, out, err = run_cli(capsys, "field", tmp_path / "nope.toml")
    assert code == 2 and "no such study file" in err and len(err.strip().splitlines()) == 1


def test_quotas_need_a_number_of_respondents(tmp_path, capsys):
    margins = tmp_path / "m.toml"
    margins.write_text("[target.gender]\nmale = 0.5\nfemale = 0.5\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "field", write_study(tmp_path), "--quota-from", margins, "--json")
    assert code == 2 and "--respondents" in json.loads(out)["error"]


def test_a_quota_on_an_attribute_nobody_is_asked_is_refused(tmp_path, capsys):
    margins = tmp_path / "m.toml"
    margins.write_text("[target.region]\nnorth = 0.5\nsouth = 0.5\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "field", write_study(tmp_path), "--quota-from", margins, "--respondents", "10")
    assert code == 2 and "region" in err and "Traceback" not in err


def test_an_attention_answer_that_is_no_option_is_refused(tmp_path, capsys):
    study = write_study(tmp_path, extra='attention_answer = "Purple"\n')
    code, out, err = run_cli(capsys, "field", study)
    assert code == 2 and "attention_answer" in err and "Traceback" not in err
