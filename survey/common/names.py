"""The one rule for ids and names: study names, set names, persona and paraphrase ids, scale names."""

from __future__ import annotations

import re

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
ID_RULE = "ids use letters, digits, '_', '.', '-' and start with a letter or digit"
NAME_RE = re.compile(ID_PATTERN)

# the id of a study's one [question] when it names none, and of every row of a store or table from before
# studies had several questions
DEFAULT_QUESTION = "q"
