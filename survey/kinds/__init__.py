"""The built-in question kinds, one folder each holding everything about the kind: its response parsing
(parsing.py), its statistics (the Kind in analysis.py, and the compare, table, model and simulation modules it
uses), its power model, its report view (view.py), its command-line text (text.py) and its segment simulator.
Each folder's ``MANIFEST`` names these parts as "module:object" strings (survey.common.kinds); the code below
the kinds finds them only through that registry.

Each part imports only the layer it serves (pyproject's import-linter contracts): parsing the response types'
base, statistics the statistical engines, the view the report's base, the text the command line's formatting.
"""

# The response-type layer registers the built-in types by importing the kinds' parsing modules; importing it
# first keeps that order whichever kind module is imported first.
import survey.responses  # noqa: F401
