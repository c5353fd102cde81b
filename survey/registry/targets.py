"""A target market's margins read from a file, as the statistics' ``Target`` (what raking and quota
sampling aim at).

    target = read_target("margins.toml")      # or .csv: attribute,level,share
    rake(attributes, target)                  # survey.stats.segments

The file format and its checks are survey.data.targets'; here a numeric attribute's bins are also checked
(no two may overlap, as in a segment definition).
"""

from __future__ import annotations

from pathlib import Path

from survey.data.targets import TargetFile, read_target_file
from survey.errors import SurveyError
from survey.stats.segments import Target
from survey.stats.segments.definition import check_bins, parse_bin


def read_target(path: str | Path) -> Target:
    """The target margins of a .toml or .csv file; a SurveyError names the line and the fix."""
    return target_of(read_target_file(path))


def target_of(tf: TargetFile) -> Target:
    """The ``Target`` of a read file, its bins checked."""
    for attr, shares in tf.margins.items():
        bins = numeric_bins(list(shares))
        if bins is not None:
            try:
                check_bins(bins, attr)
            except SurveyError as exc:
                raise SurveyError(f"{tf.path}: {exc}") from None
    return Target(tf.margins, tf.path)


def numeric_bins(levels: list[str]):
    """The levels as bins when every one is a bin (18-34, 55+, -17), else None (a categorical attribute)."""
    try:
        return [parse_bin(level) for level in levels]
    except SurveyError:
        return None


__all__ = ["numeric_bins", "read_target", "target_of"]
