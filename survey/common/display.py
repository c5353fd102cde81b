"""How a result shows itself in a terminal and a notebook: a short ``repr`` and a small HTML block.

A notebook prints whatever a cell returns; a dataclass's default repr of a run or a plan once wrote
4.75 MB (every query) into a notebook. Every result a user meets says what the command line would:
a headline, a few rows, what the data rest on, and nothing longer.

A class mixes in ``Display`` and implements ``display_parts()`` -> (title, rows, notes): ``title`` one
line, ``rows`` a table (a list of dicts, one per row, the same keys), ``notes`` lines shown under it.
"""

from __future__ import annotations

import html

REPR_ROWS = 8  # rows a repr shows before "... and N more"
REPR_WIDTH = 1000  # a repr is never longer than this many characters


class Display:
    """Mixin: ``__repr__`` and ``_repr_html_`` from ``display_parts()``."""

    def display_parts(self) -> tuple[str, list[dict], list[str]]:
        raise NotImplementedError

    def __repr__(self) -> str:
        title, rows, notes = self.display_parts()
        lines = [title]
        for row in rows[:REPR_ROWS]:
            # a cell that does not apply to this row (a level has no adjusted p) is left out, not shown blank
            lines.append("  " + ", ".join(f"{k} {_cell(v)}" for k, v in row.items() if not _blank(v)))
        if len(rows) > REPR_ROWS:
            lines.append(f"  ... and {len(rows) - REPR_ROWS} more")
        lines += [f"  {n}" for n in notes[:3]]
        text = "\n".join(lines)
        return text if len(text) <= REPR_WIDTH else text[:REPR_WIDTH - 4] + " ..."

    def _repr_html_(self) -> str:
        title, rows, notes = self.display_parts()
        out = [f"<div><strong>{html.escape(title)}</strong>"]
        if rows:
            cols = list(rows[0])
            out.append("<table><thead><tr>" + "".join(f"<th>{html.escape(str(c))}</th>" for c in cols)
                       + "</tr></thead><tbody>")
            for row in rows[:50]:
                out.append("<tr>" + "".join(f"<td>{html.escape(_cell(row.get(c)))}</td>" for c in cols) + "</tr>")
            out.append("</tbody></table>")
            if len(rows) > 50:
                out.append(f"<p>… and {len(rows) - 50} more rows</p>")
        out += [f"<p>{html.escape(n)}</p>" for n in notes[:10]]
        out.append("</div>")
        return "".join(out)


def _blank(v) -> bool:
    return v is None or (isinstance(v, str) and not v.strip())


def _cell(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, tuple | list) and len(v) == 2 and all(isinstance(x, float) for x in v):
        return f"[{v[0]:.4g}, {v[1]:.4g}]"
    text = str(v)
    return text if len(text) <= 80 else text[:77] + "..."


def display_tables(res) -> list[dict]:
    """A result's tables of text, each {"title", "columns", "rows"} (the command line prints them, the report shows
    them): its own ``tables()`` when it has them, else the one table ``display_parts()`` gives."""
    if callable(getattr(res, "tables", None)):
        return res.tables()
    title, rows, _ = res.display_parts()
    columns = list(dict.fromkeys(k for row in rows for k in row))
    return [{"title": title, "columns": columns, "rows": [[_cell(row.get(c)) for c in columns] for row in rows]}]


def display_notes(res) -> list[str]:
    """A result's notes: its ``notes`` when it has them, else those ``display_parts()`` gives."""
    notes = getattr(res, "notes", None)
    return list(notes) if isinstance(notes, list | tuple) else list(res.display_parts()[2])
