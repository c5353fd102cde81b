"""A Yes/No comparison where few humans gave the rarer answer says that the human effect's and the PPI intervals
(normal approximations) cover less than stated there; a balanced one says nothing of it. Checked through
survey.fidelity (text, --json and the report read the same notes) and the humans-only statement of
`survey analyze --humans`."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from test_benchmark import FAST  # noqa: E402
from test_human_edges import _run, _study  # noqa: E402


def _rare(notes: list[str]) -> list[str]:
    return [n for n in notes if "rarer answer" in n]


def test_a_rare_answer_is_said_and_a_balanced_table_says_nothing(tmp_path):
    import survey

    rare = _study(tmp_path, "r", [("r-a", "Yes", 2), ("r-a", "No", 28), ("r-b", "Yes", 25), ("r-b", "No", 5)])
    balanced = _study(tmp_path, "e", [("e-a", "Yes", 12), ("e-a", "No", 18), ("e-b", "Yes", 18), ("e-b", "No", 12)])
    for path in (rare, balanced):
        _run(path)
    notes = _rare(survey.fidelity(rare, **FAST).notes)
    assert len(notes) == 1 and "r-a: 2 of 30 humans answered Yes" in notes[0] and "r-b" not in notes[0]
    assert "fewer than 5" in notes[0] and "normal approximation" in notes[0]
    assert "rarer answer" in str(survey.fidelity(rare, **FAST).to_dict()["notes"])
    assert _rare(survey.fidelity(balanced, **FAST).notes) == []


def test_the_humans_only_statement_says_it_too(tmp_path):
    import survey

    path = _study(tmp_path, "s", [("s-a", "Yes", 29), ("s-a", "No", 1), ("s-b", "Yes", 20), ("s-b", "No", 10)])
    _run(path)
    out = survey.about_humans(survey.open_source(path))
    assert any("s-a: 1 of 30 humans answered No" in n for n in _rare(out["notes"]))


def test_each_checkbox_option_says_it_for_itself():
    sys.path.insert(0, str(Path(__file__).parents[1] / "kinds" / "checkbox"))
    from test_checkbox_humans import FAST as CHECKBOX_FAST
    from test_checkbox_humans import synthetic_checkbox

    from survey.data.sources import Source
    from survey.kinds.checkbox.humans import checkbox_fidelity

    table, humans = synthetic_checkbox(seed=3, n_humans=40, p_a=(0.05, 0.5, 0.5), p_b=(0.02, 0.5, 0.4))
    res = checkbox_fidelity(Source.of(table), humans, **CHECKBOX_FAST)
    rare = _rare(res.notes)
    assert len(rare) == 1 and rare[0].startswith("comfortable: few humans gave the rarer answer"), res.notes
    assert "rarer answer" in str(res.to_dict()["notes"])
