"""Helpers shared by the command modules: JSON output and rich tables.

Light on purpose (see survey.cli.texts): nothing here imports numpy, pandas, scipy or the statistics."""

from __future__ import annotations

import click

from survey import SurveyError, check_alpha, check_count, check_flips, check_seed, fmt, to_json  # noqa: F401 - re-exported for the command modules
from survey.cli.texts import DELTA_MEANING  # noqa: F401 - re-exported for the command modules


def echo_json(obj) -> None:
    click.echo(to_json(obj))


def echo_completeness(completeness) -> None:
    """Which data and study a result rests on and how complete it is; warnings stand out."""
    if completeness is None:
        return
    for line in completeness.lines():
        click.echo(line)
    for w in completeness.warnings():
        click.secho(f"WARNING: {w}", fg="yellow", bold=True)


def echo_basis(result) -> None:
    """What a per-model result rests on: its completeness, then each model it had to leave out, and why."""
    echo_completeness(result.completeness)
    for reason in result.left_out:
        click.echo(f"left out: {reason}", err=True)


def print_table(title: str, columns: list[str], rows: list[list]) -> None:
    """A rich table on stdout. Cells fold onto further lines rather than end in an ellipsis: rich's default
    cut two message ids to the same "calc-c…", and an identifier cut short cannot be told apart or copied.
    When not every word (header and body) fits whole, one record a row; a table folds a word only when that
    word is wider than the terminal itself."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    cells = [[fmt(v) for v in r] for r in rows]
    longest = max((len(w) for r in cells for c in r for w in c.split()), default=0)
    if not whole_words_fit(columns, cells, console.width) and longest <= console.width - 4:
        # too narrow for the table with every word whole, wide enough for one record a row: nothing folded
        console.print(title, markup=False, highlight=False)
        for r in cells:
            for i, (c, v) in enumerate(zip(columns, r, strict=True)):
                console.print(f"{'- ' if i == 0 else '  '}{c}: {v}", markup=False, highlight=False)
        return
    widths = column_widths(columns, cells, console.width) or [None] * len(columns)
    t = Table(title=title, title_justify="left")
    for c, w in zip(columns, widths, strict=True):
        t.add_column(c, overflow="fold", width=w)
    for r in cells:
        t.add_row(*r)
    console.print(t)


def whole_words_fit(columns: list[str], rows: list[list[str]], width: int) -> bool:
    """Whether a table fits in ``width`` with every word of its cells and headers whole (an identifier is one
    word, and so is an interval's bound with its comma, "[+0.07639,"). A header counts too: folded to fit, it
    came out a letter a line ("r", "e", "p", ...), and when the body was made to give way instead, a number
    split ("[+0.07639" over ",")."""
    from rich.cells import cell_len

    texts = [[c, *(r[i] for r in rows)] for i, c in enumerate(columns)]
    longest = [max([cell_len(w) for t in col for w in t.split()] or [1]) for col in texts]
    return sum(longest) <= width - (3 * len(columns) + 1)


def column_widths(columns: list[str], rows: list[list[str]], width: int) -> list[int] | None:
    """Column widths for a table too wide for ``width``, or None when it fits as it is. rich shares the room
    out evenly, so an identifier folded while a sentence beside it had room to wrap between its words; here
    each column first gets its longest word (an identifier, a number), the longest ones capped only as far
    as the terminal needs but never below the longest word of the column's body (a header may fold instead),
    and the room left goes to the columns that want more, as far as they want it."""
    from rich.cells import cell_len

    texts = [[c, *(r[i] for r in rows)] for i, c in enumerate(columns)]
    desired = [max(cell_len(line) for t in col for line in t.splitlines() or [""]) for col in texts]
    room = width - (3 * len(columns) + 1)  # borders and one space either side of each cell
    if sum(desired) <= room:
        return None
    heads = [max([cell_len(w) for w in c.split()] or [1]) for c in columns]
    words = [max([cell_len(w) for r in rows for w in r[i].split()] or [1]) for i in range(len(columns))]
    longest = [max([cell_len(w) for t in col for w in t.split()] or [1]) for col in texts]
    # the body's words stay whole before any header's: a header may fold, a number or an interval's bound
    # ("[+0.07639," then "," alone on the next line) may not; every column alike only when a body word is
    # wider than the terminal anyway
    for floors in ([max(h, w) for h, w in zip(heads, words, strict=True)], words, [1] * len(columns)):
        cap = max(longest)
        while cap > 1 and sum(max(f, min(w, cap)) for f, w in zip(floors, longest, strict=True)) > room:
            cap -= 1
        widths = [max(f, min(w, cap)) for f, w in zip(floors, longest, strict=True)]
        if sum(widths) <= room:
            break
    else:
        return None  # not even one character a column: leave it to rich
    while (spare := room - sum(widths)) > 0:
        wants = [d - w for d, w in zip(desired, widths, strict=True)]
        total = sum(x for x in wants if x > 0)
        if total == 0:
            break
        shares = [min(x, spare * x // total) if x > 0 else 0 for x in wants]
        if not any(shares):  # less room than columns that want it: one more character to the neediest
            shares[wants.index(max(wants))] = 1
        widths = [w + s for w, s in zip(widths, shares, strict=True)]
    return widths


json_option = click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
study_option = click.option("--study", default=None, help="study to read, when a store holds several")
scale_option = click.option("--scale", default=None,
                            help="response scale of a table without a 'scale' column, e.g. likert5, likert0-4, "
                                 "rating0-10, choice  [default: binary (Yes/No)]")


# Two --flips defaults, on purpose: one test's p-value (analyze, compare, report) wants 9999 random sign
# vectors (Monte Carlo s.e. about 0.002 at p = 0.05); plan and validate compute thousands of tests and
# average their rejections, where 1000 per test suffice and 9999 would take ten times as long.
FLIPS_HELP_ONE_TEST = ("random sign vectors when the sign-flip test is not exact (more than 40 paraphrase pairs); "
                       "9999 puts a p-value near 0.05 within about 0.002")
FLIPS_HELP_SIMULATED = ("random sign vectors per simulated survey when m > 12 (exact below); 1000 suffice "
                        "because rejection rates average over many surveys")
DELTA_HELP = "logit shift of B over A (positive: B more often Yes; the effect T is A - B, hence negative)"


class _Checked(click.ParamType):
    """A flag value checked by survey.common.limits: the same bound and message as the library call,
    before any file is read or model loaded. Whole numbers may be written 1e4."""

    def __init__(self, name: str, check, number=float):
        self.name, self._check, self._number = name, check, number

    def convert(self, value, param, ctx):
        if value is None or isinstance(value, (int, float)) and not isinstance(value, bool):
            number = value
        else:
            try:
                number = self._number(str(value).strip())
            except ValueError:
                self.fail(f"'{value}' is not a number", param, ctx)
        try:
            return self._check(number, "")
        except SurveyError as exc:
            self.fail(str(exc), param, ctx)


def _int(text: str):
    """A whole number, also written as 1e4 or 1_000 (a float that is not whole is refused by the check)."""
    try:
        return int(text)
    except ValueError:
        return float(text)


def seed_option(default=0, help="random seed (a whole number from 0 to 2^63 - 1)"):
    return click.option("--seed", type=_Checked("seed", check_seed, _int), default=default,
                        show_default=default is not None, help=help)


def flips_option(default, help):
    return click.option("--flips", type=_Checked("count", check_flips, _int), default=default, show_default=True,
                        help=help)


def count_type(low: int, high: int, why: str) -> click.ParamType:
    """A whole number in [low, high]; ``why`` says where the upper bound comes from."""
    return _Checked("count", lambda v, _: check_count(v, "", low, high, why), _int)


def alpha_option(default=0.05, help="significance level of the tests"):
    return click.option("--alpha", type=_Checked("level", check_alpha), default=default,
                        show_default=default is not None, help=help)


# A missing input file is a user error that must stop before the statistics or pandas are imported (two
# seconds of CPU): the commands check here first, in the same words as survey.data.sources, survey.study.spec
# and the store, which check again for Python callers.
_MISSING = {
    "source": "{path}: no such file (give a .csv/.parquet table, a .sqlite store or a .toml study file)",
    "study": "{path}: no such study file",
    "store": "{path}: no such store; `survey run STUDY.toml` creates it",
    "humans": "{path}: no such human file",
    "pilot": "{path}: no such pilot (give the study file or store of a study whose models answered as each human)",
}


def require_file(path, kind: str) -> None:
    """Refuse a missing source table/store, study file or store (``kind``) in one line, cheaply."""
    from pathlib import Path

    if path is not None and not Path(path).exists():
        raise SurveyError(_MISSING[kind].format(path=Path(path)))


def humans_file_options(f):
    """--humans-wide/--humans-long, --humans-id-column and --humans-column: how to read the --humans file, as a
    study file's [humans] table says (wide, id_column, columns)."""
    f = click.option("--humans-column", "humans_columns", multiple=True, metavar="COLUMN=MESSAGE",
                     help="wide human files: an answer column and the message id it answers, once per message "
                          "(e.g. Q3=sneakers) [default: the columns named after the messages]")(f)
    f = click.option("--humans-id-column", default=None,
                     help="wide human files: the respondent id column [default: ResponseId, else respondent]")(f)
    return click.option("--humans-wide/--humans-long", "humans_wide", default=None,
                        help="the --humans file has one row per respondent (a Qualtrics-style export) or one per "
                             "respondent x message [default: wide when it has no 'message' column]")(f)


def humans_spec(humans, wide, id_column, columns):
    """The --humans file as load_humans reads it: the path alone, or a [humans]-style table with the reading
    options given."""
    given = [flag for flag, v in (("--humans-wide/--humans-long", wide), ("--humans-id-column", id_column),
                                  ("--humans-column", columns or None)) if v is not None]
    if humans is None:
        if given:
            raise SurveyError(f"{', '.join(given)} describe the file given with --humans; a study's own human file "
                              "is read as its [humans] table says")
        return None
    if not given:
        return humans
    mapping = {}
    for item in columns or ():
        column, sep, message = item.partition("=")
        if not sep or not column.strip() or not message.strip():
            raise SurveyError(f"--humans-column takes COLUMN=MESSAGE (an answer column and the message id it "
                              f"answers, e.g. Q3=sneakers); got '{item}'")
        if column.strip() in mapping:
            raise SurveyError(f"--humans-column maps column '{column.strip()}' twice: give each column once")
        mapping[column.strip()] = message.strip()
    return {"file": humans, "wide": wide, "id_column": id_column, "columns": mapping or None}
