"""Several options ticked in the web questionnaire (`survey field`, survey.field.widgets): the question's
options as a group of labelled checkboxes (a fieldset whose legend is the question), how many to tick said
beside it. A box posts its own field (``item<n>-opt-<i>`` = "1"), so the server's one-value-per-field form
reader takes it as it is. The answer is stored in the kind's own coding, the bit set its parser gives a model's
reply (options 1 and 3 ticked: 5), read by that parser from the option numbers ticked; too few or too many
boxes show the form again saying so.

The question's numbered list of options (what a model reads) is left out of the legend: the boxes are the
list, and the sentence telling a model how to format its reply is left out as the other widgets leave it."""

from __future__ import annotations

from types import SimpleNamespace

SOURCE = """{% set r = item.rtype %}{% set lines = [] %}{% for o in r.options %}{% set _ = lines.append(loop.index ~ ". " ~ o) %}{% endfor %}{% set parts = item.prompt.split(lines|join("\n"), 1) %}{% set rest = parts[1].strip() if parts|length > 1 else "" %}<fieldset id="{{ item.name }}-group" data-question="{{ item.question }}" aria-describedby="{{ item.name }}-hint"><legend>{{ parts[0].strip() }}{% if rest and not rest.startswith(("Answer", "Reply", "Respond")) %} {{ rest }}{% endif %}</legend>
<p class="hint" id="{{ item.name }}-hint">{% if r.low == r.high %}Tick {{ r.low }}.{% elif r.low == 0 %}Tick up to {{ r.high }}, or none.{% else %}Tick {{ r.low }} to {{ r.high }}.{% endif %}</p>
{% for o in r.options %}{% set name = item.name ~ "-opt-" ~ loop.index %}<div class="choice"><input type="checkbox" id="{{ name }}" name="{{ name }}" value="1"{% if value.get(name) == "1" %} checked{% endif %}><label for="{{ name }}">{{ o }}</label></div>
{% endfor %}</fieldset>
"""


def question_words(prompt: str, options) -> str:
    """The question without its numbered list of options (the boxes, or a survey tool's choices, are the list)
    and without a following sentence telling a model how to format its reply; the same words as the legend."""
    listed = "\n".join(f"{i}. {o}" for i, o in enumerate(options, start=1))
    head, found, rest = prompt.partition(listed)
    rest = rest.strip() if found else ""
    return head.strip() + ("" if not rest or rest.startswith(("Answer", "Reply", "Respond")) else " " + rest)


def read(item, form) -> tuple[int, str]:
    """ValueError: fewer or more boxes than the question allows (asked again); LookupError: a box posting a
    value the form does not give it (refused)."""
    rtype = item.rtype
    ticked = []
    for i in range(1, rtype.k + 1):
        raw = form.get(f"{item.name}-opt-{i}")
        if raw is None:
            continue
        if raw != "1":
            raise LookupError(f"{item.name}: box {i} posted '{raw[:40]}'")
        ticked.append(i)
    if not rtype.low <= len(ticked) <= rtype.high:
        if rtype.low == rtype.high:
            raise ValueError(f"please tick {rtype.low} {'box' if rtype.low == 1 else 'boxes'}")
        if len(ticked) < rtype.low:
            raise ValueError(f"please tick at least {rtype.low} {'box' if rtype.low == 1 else 'boxes'}")
        raise ValueError(f"please tick at most {rtype.high} {'box' if rtype.high == 1 else 'boxes'}")
    code = rtype.parse(", ".join(map(str, ticked)) if ticked else "none")
    if code is None:
        raise LookupError(f"{item.name}: not an answer on {rtype.scale}")
    return code, ", ".join(rtype.ticked(code))


def qualtrics(b, tag: str, q, words) -> dict:
    """The Qualtrics question (survey.field.qualtrics): multiple answers, the options as choices (their list
    dropped from the wording: they are the choices), at least min_choices and at most max_choices."""
    r = q.response
    return b.multiple(tag, words(question_words(q.resolved_template, r.options)), r.options, r.low, r.high)


WIDGET = SimpleNamespace(read=read, template=None, source=SOURCE, qualtrics=qualtrics)
