"""With --json every error is one JSON object {"error": ...} on stdout, exit status 2, no traceback:
user mistakes, unknown options and bad option values alike."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from survey.cli import json_requested, main


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "t.csv"
    pd.DataFrame([dict(model="m", message=msg, perturbation=f"p{j}", persona="s", replicate=0, answer=j % 2,
                       response=f"text {msg} {j}") for msg in "AB" for j in range(3)]).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("args,needle", [
    (["analyze", "{table}", "--a", "A", "--b", "Z"], "message 'Z' is not in the table; it has A, B"),
    (["compare", "{table}", "--bogus"], "No such option '--bogus'"),
    (["compare", "{table}", "--flips", "many"], "Invalid value for '--flips'"),
    (["dbpa", "{table}", "--range", "0.5"], "--range must be pooled, all-pairs or LO,HI"),
    (["estimate", "{missing}", "--message", "A"], "no such file"),
    (["personas", "show", "no-such-set"], "no-such-set"),
])
def test_errors_are_one_json_object_on_stdout(tmp_path, table, args, needle):
    args = [a.format(table=table, missing=tmp_path / "missing.csv") for a in args]
    proc = subprocess.run([sys.executable, "-m", "survey", *args, "--json"], capture_output=True, text=True,
                          cwd=tmp_path)
    assert proc.returncode == 2
    out = json.loads(proc.stdout)  # exactly one JSON document
    assert list(out) == ["error"] and needle in out["error"]
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout


def test_without_json_the_error_stays_one_line_on_stderr(table, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["analyze", str(table), "--a", "Z"])
    out, err = capsys.readouterr()
    assert exc.value.code == 2 and out == "" and err == "error: message 'Z' is not in the table; it has A, B\n"


def test_json_request_is_read_before_a_double_dash():
    assert json_requested(["compare", "t.csv", "--json"])
    assert not json_requested(["compare", "t.csv"])
    assert not json_requested(["compare", "--", "--json"])


def test_statistics_speak_api_terms_and_the_cli_speaks_flags(capsys):
    # the statistics name what to change as the Python API spells it; the command line as its flags
    import pytest

    import survey
    from survey.cli import as_flags, main
    from survey.errors import SurveyError

    with pytest.raises(SurveyError, match="give `from_estimate=` or `from_table=`, not both"):
        survey.plan(survey.BinaryPlan(0.4), source=survey.PlanSource(from_estimate={"results": []}, from_table="x"))
    assert as_flags("give `from_estimate=` or `from_table=`; e.g. `scale=likert5`") == \
        "give --from-estimate or --from-table; e.g. --scale likert5"
    with pytest.raises(SystemExit):
        main(["plan", "--delta", "0.4", "--from-estimate", "e.json", "--from-table", "t.csv"])
    assert "give --from-estimate or --from-table, not both" in capsys.readouterr().err
