"""Best and worst of a set in the web questionnaire (`survey field`, survey.field.widgets): per option a radio
button "best" and one "worst". The answer is coded as the kind codes a model's reply (10 * best + worst, the
positions in the set), checked by the kind's own parser. Qualtrics has no question that reads back as these
answers, so the export refuses it and says why."""

from __future__ import annotations

from types import SimpleNamespace


def read(item, form) -> tuple[int, str]:
    """ValueError: best or worst missing, or the same option (asked again); LookupError: a position the set
    does not have (refused)."""
    best, worst = form.get(f"{item.name}-best"), form.get(f"{item.name}-worst")
    if not best or not worst:
        raise ValueError("please choose the best and the worst")
    if not (best.isdigit() and worst.isdigit()) or not (1 <= int(best) <= len(item.options) >= int(worst) >= 1):
        raise LookupError(f"{item.name}: not positions of the set")
    if best == worst:
        raise ValueError("the best and the worst must be different")
    score = item.rtype.parse(f"{best} {worst}")
    if score is None:
        raise LookupError(f"{item.name}: not an answer on {item.rtype.scale}")
    return score, f"{best} {worst}"


WIDGET = SimpleNamespace(read=read, template="widgets/best_worst.html.j2", source=None,
                         not_exported="best and worst of subsets")
