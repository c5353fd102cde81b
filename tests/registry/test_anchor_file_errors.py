"""A broken anchor file is one line naming the file, the line and the problem, as a broken perturbation file is
(before: PyYAML's whole multi-line report, with its own copy of the offending line and a caret under it)."""

import pytest

from survey.errors import SurveyError
from survey.registry.anchors import read_anchor_set


@pytest.mark.parametrize("text, line, problem", [
    ("points: 5\nsets: [1, 2\n", 3, "expected ',' or ']'"),
    ("points: 5\nsets:\n  - id: a\n    statements:\n      - I would buy it: yes: no\n", 5, "mapping values are not allowed"),
])
def test_a_broken_anchor_file_is_one_line_with_its_line_number(tmp_path, text, line, problem):
    path = tmp_path / "broken.yaml"
    path.write_text(text)
    with pytest.raises(SurveyError) as info:
        read_anchor_set(path)
    message = str(info.value)
    assert "\n" not in message and message.startswith(f"{path}:{line}: not valid YAML (")
    assert problem in message
