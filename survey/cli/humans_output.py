"""How `survey analyze --humans` prints its statements about people (the dicts survey.cli.analysis builds)."""

from __future__ import annotations

import click

from survey.cli.common import print_table


def echo_about_humans(people: dict) -> None:
    h = people["human_effect"]
    click.echo(f"humans: {people['humans']['respondents']} respondents from {people['humans']['path']}, "
               f"{people['design_text']}; their own effect {people['a']} − {people['b']}: {h['estimate']:+.4f} "
               f"[{h['ci'][0]:+.4f}, {h['ci'][1]:+.4f}]")
    if people["ppi"]:
        rows = [[m, f"{p['estimate']:+.4f}", f"[{p['ci'][0]:+.4f}, {p['ci'][1]:+.4f}]", p["pvalue"],
                 p["width_ratio"], p["effective_n"]] for m, p in people["ppi"].items()]
        print_table("about people: the human effect by prediction-powered inference",
                    ["model", "estimate", "CI", "p-value", "width vs humans alone", "effective humans"], rows)
    for note in people["notes"]:
        click.echo(f"note: {note}", err=True)
    click.echo(f"validity: {people['validity']}")


def echo_people(res) -> None:
    """A kind's own comparison with people (not the per-message one): its kind's printer (KindText.humans; a
    checkbox's), else what it rests on, its tables and its notes (survey.common.display; a ranking's)."""
    from survey import display_notes, display_tables, kind_part
    from survey.cli.kind_output import KindText

    text = kind_part(res.to_dict().get("kind", ""), "text", KindText)
    printer = text.humans if text is not None else None
    if printer is not None:
        return printer(res)
    click.echo(getattr(res, "basis", None) or res.display_parts()[0])
    for table in display_tables(res):
        print_table(table["title"], table["columns"], table["rows"])
    for note in display_notes(res):
        click.echo(f"note: {note}", err=True)
