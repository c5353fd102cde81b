"""A bounded number in the web questionnaire (`survey field`, survey.field.widgets): one labelled number box
with the question's min and max (any decimals: a price may be 12.50), its unit said in the hint it points to, and a decimal
keypad on phones. The posted number is checked by the kind's own parser (survey.kinds.numeric.parsing), as a
model's reply is: a number outside [min, max] shows the form again saying so, never clipped.

A number box posts a plain decimal number or nothing; anything else did not come from the form (refused)."""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from types import SimpleNamespace

from survey.kinds.numeric.parsing import number_text

NUMBER = re.compile(r"^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$")  # what a browser's number box posts
LENGTH_MAX = 40

SOURCE = """{% set r = item.rtype %}{% set lo = r.low|int if r.low|int == r.low else r.low %}{% set hi = r.high|int if r.high|int == r.high else r.high %}<fieldset id="{{ item.name }}-group" data-question="{{ item.question }}"><legend><label for="{{ item.name }}">{{ item.prompt }}</label></legend>
<p class="hint" id="{{ item.name }}-hint">A number from {{ lo }} to {{ hi }}{% if r.unit %}, in {{ r.unit }}{% endif %}.</p>
<div><input type="number" id="{{ item.name }}" name="{{ item.name }}" min="{{ lo }}" max="{{ hi }}" step="any"{% if r.low >= 0 %} inputmode="decimal"{% endif %} aria-describedby="{{ item.name }}-hint" value="{{ value.get(item.name, '') }}"></div>
</fieldset>
"""


def read(item, form) -> tuple[float, str]:
    """ValueError: nothing given, or a number outside [min, max] (asked again); LookupError: not a number a
    number box posts (refused)."""
    raw = (form.get(item.name) or "").strip()
    if not raw:
        raise ValueError("please give a number")
    if len(raw) > LENGTH_MAX or not NUMBER.match(raw):
        raise LookupError(f"{item.name}: '{raw[:LENGTH_MAX]}' is not a number")
    try:
        plain = format(Decimal(raw), "f")  # "1e3" -> "1000": the kind's parser reads plain decimals
    except InvalidOperation:
        raise LookupError(f"{item.name}: '{raw[:LENGTH_MAX]}' is not a number") from None
    value = item.rtype.parse(plain)
    if value is None or not math.isfinite(value):
        raise ValueError(f"give a number from {number_text(item.rtype.low)} to {number_text(item.rtype.high)}")
    return value, plain


def qualtrics(b, tag: str, q, words) -> dict:
    """The Qualtrics question (survey.field.qualtrics): a text box validated as a number between min and max."""
    r = q.response
    return b.text_entry(tag, words(q.resolved_template), escaped=True, number=(r.low, r.high))


WIDGET = SimpleNamespace(read=read, template=None, source=SOURCE, qualtrics=qualtrics)
