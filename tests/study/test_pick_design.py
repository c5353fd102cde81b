"""Pick one of k from the study file: the type takes k from the messages, the design asks every paraphrase set
in the rows of a Latin square, and the simulated backend's rows carry what each position showed."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from survey.backends.simulated import SimulatedBackend
from survey.errors import SurveyError
from survey.kinds.pick.parsing import PickOne
from survey.study.design import QueryDesign, build_design, latin_rows
from survey.study.spec import parse_study


def spec(k: int = 3, **question) -> dict:
    return {"name": "p", "store": "s.sqlite", "replicates": 2, "personas": {"set": "shoppers", "count": 3},
            "messages": [{"id": m, "perturbations": m, "count": 4} for m in ("sneakers", "boots", "sandals")[:k]],
            "question": {"type": "pick", **question},
            "models": [{"name": "sim", "backend": "simulated", "options": {"positions": [0.5] + [0.0] * (k - 1)}}]}


def test_the_type_takes_k_from_the_messages():
    assert parse_study(spec(3)).question.type == "pick3"
    assert parse_study(spec(2)).question.type == "pick2"
    with pytest.raises(SurveyError, match="shows 2 messages; the study has 3"):
        parse_study({**spec(3), "question": {"type": "pick2"}})
    with pytest.raises(SurveyError, match="must contain {options}"):
        parse_study(spec(3, template="Which one? {perturbation}"))


@pytest.mark.parametrize("k", [2, 3, 5, 9])
def test_latin_rows_put_every_message_in_every_position_once(k):
    for j in range(4):
        rows = latin_rows(k, "study", j)
        assert sorted(map(sorted, rows)) == [list(range(k))] * k
        assert all(sorted(col) == list(range(k)) for col in zip(*rows, strict=True))
    orders = Counter(tuple(latin_rows(3, "study", j)[0]) for j in range(600))
    assert len(orders) == 6 and min(orders.values()) > 60  # the order is drawn afresh per set


def test_the_design_and_the_simulated_replies():
    design: QueryDesign = build_design(parse_study(spec(3)))
    queries = list(design.queries(design.study.models[0]))
    assert len(queries) == 3 * 4 * 3 * 2 == design.queries_per_model
    assert len({q.key for q in queries}) == len(queries)
    for q in queries[:6]:
        assert [m for m, _ in q.options][0] == q.message and 'Option 3: "' in q.user
    # within each persona x paraphrase set, every message in every position, r = 2 times
    shown_at = Counter((q.persona, p.split("-")[-1], m, t) for q in queries for t, (m, p) in enumerate(q.options))
    assert len(shown_at) == 3 * 4 * 3 * 3 and set(shown_at.values()) == {2}
    backend = SimulatedBackend(positions=[0.5, 0.0, 0.0])
    reply = asyncio.run(backend.complete(queries[0]))
    assert reply.text in {"1", "2", "3"} and abs(sum(reply.extra["distribution"].values()) - 1) < 1e-12
    assert queries[0].shown["shown"] == [m for m, _ in queries[0].options]
    with pytest.raises(SurveyError, match="positions"):
        backend.options.check_question(parse_study(spec(2)).question.response)


def test_replies_name_a_position():
    from survey.responses import response_type

    pick4 = response_type("pick4")
    assert [pick4.parse(t) for t in ("3", "Option 2", "**4**", "5", "0", "Option", "")] == [3, 2, 4, None, None, None, None]
    assert pick4.view.kind == "pick" and not pick4.view.per_message
    with pytest.raises(SurveyError, match="2 to 9"):
        PickOne(10)
    with pytest.raises(SurveyError, match="unknown response type"):
        response_type("pick1")


def test_maxdiff_takes_subsets_that_fit_the_messages():
    md = {**spec(3), "question": {"type": "maxdiff", "subset": 3}}
    assert parse_study(md).question.type == "maxdiff3"
    with pytest.raises(SurveyError, match="subsets of 4 messages; the study has 3"):
        parse_study({**spec(3), "question": {"type": "maxdiff", "subset": 4}})
    with pytest.raises(SurveyError, match="subset only applies"):
        parse_study({**spec(3), "question": {"type": "pick", "subset": 3}})
    design = build_design(parse_study(md))
    queries = list(design.queries(design.study.models[0]))
    assert len({q.key for q in queries}) == len(queries) == 3 * 4 * 3 * 2
    assert all(len(q.options) == 3 for q in queries)
