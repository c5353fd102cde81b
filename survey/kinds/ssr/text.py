"""The command line's text for semantic-similarity rating: the mean-score printers every rated scale uses."""

from survey.cli.kind_output import KindText

TEXT = KindText()
