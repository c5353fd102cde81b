"""A ranking in the web questionnaire (`survey field`, survey.field.widgets): each option shown with a select of
its place, 1 (best) to k; the places must be 1..k, each once. The answer is coded as the kind codes a model's
reply (the positions in ranked order, best first: 213 is 2 > 1 > 3), checked by the kind's own parser.

A select per option works with a keyboard and on a phone without a script; a drag-and-drop layer could sit
on top of it later, posting the same fields."""

from __future__ import annotations

from types import SimpleNamespace

SOURCE = """<fieldset id="{{ item.name }}-group" data-question="{{ item.question }}"><legend>{{ item.prompt }}</legend>
<p class="hint">Give each option its place: 1 is the one you like best.</p>
{% for opt in item.options %}{% set name = item.name ~ "-rank-" ~ loop.index %}<div class="choice">
<label for="{{ name }}" class="paraphrase">{{ opt.text }}</label>
<select id="{{ name }}" name="{{ name }}"><option value="">place</option>
{% for p in range(1, item.options|length + 1) %}<option value="{{ p }}"{% if value.get(name) == p|string %} selected{% endif %}>{{ p }}</option>{% endfor %}
</select></div>
{% endfor %}</fieldset>
"""


def read(item, form) -> tuple[int, str]:
    """ValueError: not every place given, or one given twice (asked again); LookupError: a place the form does
    not offer (refused)."""
    k = len(item.options)
    raw = [form.get(f"{item.name}-rank-{i}") or "" for i in range(1, k + 1)]
    if not all(raw):
        raise ValueError("please give every option a place")
    if not all(r.isdigit() and 1 <= int(r) <= k for r in raw):
        raise LookupError(f"{item.name}: a place outside 1..{k}")
    places = [int(r) for r in raw]
    if len(set(places)) != k:
        raise ValueError("give each place to one option only")
    order = sorted(range(1, k + 1), key=lambda position: places[position - 1])  # positions, best first
    code = item.rtype.parse(" > ".join(map(str, order)))
    if code is None:
        raise LookupError(f"{item.name}: not a ranking of {k}")
    return code, item.rtype.labels[code]


WIDGET = SimpleNamespace(read=read, template=None, source=SOURCE, not_exported="a ranking")
