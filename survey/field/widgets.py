"""How each question kind is asked in the web form, and how its posted answer is checked.

A widget is an HTML template (Jinja2, autoescaped) and a ``read`` function: any object with ``read`` and
``template`` (a name under survey/field/templates) or ``source`` (the template's text), such as ``Widget``
below; a kind's folder needs no import from here. ``read(item, form)`` takes the item
(survey.field.instrument.Item: ``name``, ``rtype``, ``prompt``, ``options``) and the posted fields and returns
``(answer, text)``: the score in the kind's own coding (checked against the response type's labels or parser,
as a model's reply is) and the answer in words, or raises ValueError (unanswered: the form is shown again
saying so) or LookupError / TamperedForm (a value the form never offered: refused with 400). The names a
widget posts are ``item.name`` or start with ``item.name + "-"``; the server accepts only the names of the
inputs its rendered template has (a post with any other field is refused).

Which widget a kind gets, first match wins:
1. one registered with ``register_widget(kind, widget)``;
2. the kind's own ``field`` part: a module ``survey.kinds.<kind>.field`` with ``WIDGET`` (a new kind ships its
   widget in its folder);
3. the built-ins below, by what the reply is: a text box for free text (no labels), cards for a choice among
   messages shown together (forced choice, pick), else radio buttons over the labels (Yes/No, rating scales).
   (Best-worst sets and rankings bring their own: survey/kinds/maxdiff/field.py, survey/kinds/rank/field.py.)

A widget may also say how another tool asks the question (survey.field.qualtrics): ``qualtrics(builder, tag,
question, words)`` returns its Qualtrics question (``words(text)``: the question's text, escaped, with the
paraphrase piped in), and ``not_exported`` says why a kind has no Qualtrics question that reads back.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from survey.field.instrument import Item, TamperedForm

TEXT_MAX = 2000  # characters of a free-text answer


@dataclass(frozen=True)
class Widget:
    """``template``: a template name under survey/field/templates, or ``source``: the template's text (a
    kind's folder ships it as a string). The template gets ``item`` and ``value`` (what was posted, when
    the form is shown again)."""

    read: Callable[[Item, Mapping[str, str]], tuple[int | None, str | None]]
    template: str | None = None
    source: str | None = None


def _choice_of(item: Item, raw: str | None) -> int:
    """A posted score that must be one of the item's labels."""
    if raw is None or raw == "":
        raise ValueError("please choose an answer")
    try:
        score = int(raw)
    except ValueError:
        raise TamperedForm(f"{item.name}: '{raw[:40]}' is not an answer") from None
    if score not in item.rtype.values:
        raise TamperedForm(f"{item.name}: {score} is not an answer on {item.rtype.scale}")
    return score


def read_scale(item: Item, form: Mapping[str, str]) -> tuple[int | None, str | None]:
    score = _choice_of(item, form.get(item.name))
    return score, item.rtype.labels[score]


def read_cards(item: Item, form: Mapping[str, str]) -> tuple[int | None, str | None]:
    """The position of the card chosen (1..k), as forced choice and pick code a model's reply."""
    score = _choice_of(item, form.get(item.name))
    if score > len(item.options):
        raise TamperedForm(f"{item.name}: option {score} was not shown")
    return score, item.rtype.labels[score]


def read_text(item: Item, form: Mapping[str, str]) -> tuple[int | None, str | None]:
    text = (form.get(item.name) or "").strip()
    if not text:
        raise ValueError("please write an answer")
    if len(text) > TEXT_MAX:
        raise ValueError(f"at most {TEXT_MAX} characters, please")
    return None, text


SCALE = Widget(read_scale, template="widgets/scale.html.j2")
CARDS = Widget(read_cards, template="widgets/cards.html.j2")
TEXT = Widget(read_text, template="widgets/text.html.j2")
_REGISTERED: dict[str, Widget] = {}


def register_widget(kind: str, widget: Widget) -> Widget:
    """Ask kind ``kind`` (its AnalysisView.kind) with ``widget`` from now on."""
    if not isinstance(widget, Widget):
        raise TypeError(f"register_widget takes a Widget; got {type(widget).__name__}")
    _REGISTERED[kind] = widget
    return widget


def widget_for(rtype) -> Widget:
    """The widget of a response type's kind (see the module's docstring for the order)."""
    kind = rtype.view.kind
    if kind in _REGISTERED:
        return _REGISTERED[kind]
    own = f"survey.kinds.{kind}.field"
    try:
        found = importlib.util.find_spec(own) is not None
    except ModuleNotFoundError:  # no folder survey/kinds/<kind>
        found = False
    if found:
        return importlib.import_module(own).WIDGET
    if not rtype.labels:  # free text, or free text rated by semantic similarity once the answers are in
        return TEXT
    return SCALE if rtype.view.per_message else CARDS  # cards: the messages shown together, one chosen


__all__ = ["CARDS", "SCALE", "TEXT", "Widget", "read_cards",
           "read_scale", "read_text", "register_widget", "widget_for"]
