"""A simulated respondent for the field server's tests: the pages in order, answers chosen by the caller."""

import re

from field_study import ABOUT

ITEM = re.compile(r'name="(item\d+)(-best|-worst)?" value="([^"]*)"')


def form_items(html: str) -> dict[str, list[str]]:
    """input name -> the values the page offers for it (radio buttons), in order."""
    out: dict[str, list[str]] = {}
    for name, suffix, value in ITEM.findall(html):
        out.setdefault(name + (suffix or ""), []).append(value)
    for name in re.findall(r'<textarea id="(item\d+)"', html):
        out[name] = []
    return out


def answers_for(html: str, pick=lambda name, values: values[0], attention: str = "Blue") -> dict:
    data = {}
    for name, values in form_items(html).items():
        data[name] = pick(name, values) if values else "a free answer"
    if any(k.endswith("-worst") for k in data):  # best and worst differ
        for k in [k for k in data if k.endswith("-worst")]:
            options = form_items(html)[k]
            data[k] = next(v for v in options if v != data[k.replace("-worst", "-best")])
    data["attention"] = attention
    return data


def walk(client, rid: str, *, about=ABOUT, pick=lambda name, values: values[0], attention: str = "Blue"):
    """Consent, about you, the questions; returns the last response (the completion page when all went well)."""
    r = client.get(f"/?PROLIFIC_PID={rid}&STUDY_ID=st1&SESSION_ID=se-{rid}")
    assert r.status_code == 200, r.text
    r = client.post("/start", data={"consent": "yes", "PROLIFIC_PID": rid, "STUDY_ID": "st1",
                                    "SESSION_ID": f"se-{rid}"}, follow_redirects=False)
    if r.status_code != 303:
        return r
    r = client.post("/about", data=about, follow_redirects=False)
    if r.status_code != 303:
        return r
    page = client.get("/questions")
    r = client.post("/questions", data=answers_for(page.text, pick, attention), follow_redirects=False)
    if r.status_code != 303:
        return r
    return client.get("/done")
