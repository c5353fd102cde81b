"""A stand-in for the people a `survey field` link is sent to: instead of serving until Ctrl-C, the study's
questionnaire is answered in-process (Starlette's TestClient, through the same pages and checks) until it has
``respondents`` completes, and then the server stops, as it would once that many people had answered.

People say Yes more often to the first message than to the others, answer about themselves with the persona
set's levels, and one in ten fails the attention check. Seeded: the same call gives the same answers."""

from __future__ import annotations

import random
import re

from starlette.testclient import TestClient

from survey.field import field_server
from survey.field.app import SESSION_COOKIE
from survey.field.server import started_lines

CHOICE = re.compile(r'name="(item\d+)" value="([^"]*)"')
PEOPLE_WITHOUT_A_LIMIT = 20  # `survey field` with no --respondents: how many come


def answer_as_people(study, *, host: str = "127.0.0.1", port: int = 8000, respondents: int | None = None,
                     quota_from=None, echo=print, seed: int = 0) -> None:
    """survey.field's signature; the people answer, then the 'server' stops."""
    fs = field_server(study, respondents=respondents, quota_from=quota_from, rng=random.Random(seed))
    try:
        echo(started_lines(fs, host, port))
        rng = random.Random(f"{seed}-{fs.store.counters()['status']}")
        first = next(iter(fs.instrument.messages))
        wanted = fs.respondents.limit or PEOPLE_WITHOUT_A_LIMIT  # --respondents, else the study's [field] one
        for _ in range(3 * wanted):  # quota-full and attention failures leave room for more people
            status = fs.store.counters()["status"]
            if status.get("complete", 0) >= wanted:
                break
            person(fs, f"person-{sum(status.values())}", rng, first)
    finally:
        fs.close()


def person(fs, rid: str, rng: random.Random, first: str) -> None:
    c = TestClient(fs.app)
    c.post("/start", data={"consent": "yes", "PROLIFIC_PID": rid})
    about = {f"demo-{d.name}": rng.choice(d.levels) for d in fs.instrument.demographics}
    page = c.post("/about", data=about).text
    if "questions-form" not in page:  # turned away (quota full)
        return
    shown = fs.store.session(c.cookies.get(SESSION_COOKIE)).assignment["shown"]
    yes = 0.7 if shown[0][0] == first else 0.4
    offered: dict[str, list[str]] = {}
    for name, value in CHOICE.findall(page):
        offered.setdefault(name, []).append(value)
    answers = {name: ("1" if rng.random() < yes else "0") if set(values) == {"0", "1"} else rng.choice(values)
               for name, values in offered.items()}
    c.post("/questions", data={**answers, "attention": "Blue" if rng.random() > 0.1 else "Red"})
