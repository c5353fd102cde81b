"""The order effect of a conversation-flow study (survey.stats.order_effect) against simulations with a known
truth: a question answered differently when asked after the others is found; under no order effect the
randomisation test rejects inside the 99% binomial band of alpha, although personas and paraphrases move every
answer together; a fixed order gives no number."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binom

from survey.responses import response_type
from survey.stats.order_effect import order_effect, row_outcomes

QUESTIONS = ["intent", "appeal", "believe"]


def conversation(n=20, m=6, r=2, *, shift=0.0, order="random", seed=0) -> pd.DataFrame:
    """Yes/No answers to three questions per conversation; the order drawn per persona x paraphrase; a persona's
    level and a paraphrase's shift (shared by every persona) move all answers; ``shift`` (logit) is added to
    every question asked after the first."""
    rng = np.random.default_rng(seed)
    persona = rng.normal(0, 1.0, n)
    rows = []
    for msg in ("A", "B"):
        for j in range(m):
            para = rng.normal(0, 0.8)
            for i in range(n):
                places = rng.permutation(len(QUESTIONS)) if order == "random" else np.arange(len(QUESTIONS))
                for q, place in zip(QUESTIONS, places, strict=True):
                    logit = persona[i] + para + (shift if place > 0 else 0.0)
                    for rep in range(r):
                        rows.append({"model": "sim", "message": msg, "perturbation": f"{msg}-{j:02d}",
                                     "persona": f"p{i:02d}", "replicate": rep, "question": q,
                                     "position": int(place), "answer": int(rng.random() < 1 / (1 + np.exp(-logit)))})
    return pd.DataFrame(rows)


def effect(df, q="intent", **kw):
    rows = df[df["question"] == q]
    return order_effect(rows, row_outcomes(rows, response_type("binary").view), model="sim", question=q, quantity="P(Yes)", **kw)


def test_a_known_order_effect_is_found_with_its_sign():
    res = effect(conversation(shift=-1.2, seed=1), n_resamples=999)
    assert res.varies and res.positions == (0, 1, 2)
    assert res.pvalue < 0.01 and res.difference > 0.1 and res.first > res.later
    assert res.cells == 2 * 6 * 20 and 0 < res.cells_first < res.cells
    assert "asked first" in res.sentence() and set(res.by_position) == {0, 1, 2}


def test_size_under_no_order_effect_is_inside_the_binomial_band():
    studies, alpha = 300, 0.05
    rejections = sum(effect(conversation(n=12, m=4, seed=100 + s), n_resamples=199, seed=s).pvalue <= alpha
                     for s in range(studies))
    lo, hi = binom.ppf(0.005, studies, alpha), binom.ppf(0.995, studies, alpha)
    assert lo <= rejections <= hi, (rejections, lo, hi)


def test_fixed_order_says_so_instead_of_a_number():
    res = effect(conversation(order="fixed"), q="appeal")
    assert not res.varies and res.pvalue is None and res.difference is None and res.positions == (1,)
    assert "fixed order" in res.sentence() and "cannot be measured" in res.sentence()
    assert res.to_dict()["varies"] is False


def test_the_p_value_is_a_randomisation_p_value():
    res = effect(conversation(seed=3), n_resamples=99)
    assert res.pvalue in {k / 100 for k in range(1, 101)}
    again = effect(conversation(seed=3), n_resamples=99)
    assert again.pvalue == res.pvalue  # seeded


def test_a_pick_question_compares_the_messages_chosen():
    rng = np.random.default_rng(0)
    rows = []
    for i in range(30):
        for j in range(4):
            place = int(rng.integers(0, 2))
            for rep in range(2):
                favour_b = 0.8 if place else 0.2  # asked later, B is chosen far more
                ans = 2 if rng.random() < favour_b else 1
                rows.append({"persona": f"p{i}", "message": "A", "perturbation": f"A-{j}", "replicate": rep,
                             "position": place, "answer": ans, "shown": "A|B"})
    df = pd.DataFrame(rows)
    res = order_effect(df, row_outcomes(df, response_type("pick2").view), model="m", question="pick", quantity="share", n_resamples=499)
    assert isinstance(res.first, dict) and res.first["A"] > res.later["A"]
    assert res.difference == pytest.approx(abs(res.first["A"] - res.later["A"]))
    assert res.pvalue < 0.01 and "total variation" in res.sentence()


def test_analyze_carries_the_order_effect_in_its_notes_and_json():
    import survey

    res = survey.analyze(conversation(shift=-1.0, seed=2), flips=999)
    assert [(e.model, e.question) for e in res.order_effects] == [("sim", q) for q in QUESTIONS]
    assert all(e.pvalue <= 0.01 for e in res.order_effects)
    assert any("depend on the order" in n for n in res.notes())
    doc = res.to_dict()["order_effects"][0]
    assert doc["question"] == "intent" and doc["varies"] and doc["first"] > doc["later"]
    fixed = survey.analyze(conversation(order="fixed", seed=2), flips=99)
    assert all(not e.varies for e in fixed.order_effects) and "cannot be measured" in fixed.notes()[-1]
    independent = survey.analyze(conversation(seed=2).drop(columns="position"), flips=99)
    assert independent.order_effects == [] and "order_effects" not in independent.to_dict()
