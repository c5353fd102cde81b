"""Stores for completeness tests: a recorded study context and persona-major answers, as a run writes them."""

MESSAGES = {"A": ["a1", "a2", "a3"], "B": ["b1", "b2", "b3"]}


def context(personas, reps=2, models=("m",), study="st"):
    """A study context as Store.record_context receives it: `personas` personas p0.., MESSAGES, `reps`."""
    cells = sum(len(v) for v in MESSAGES.values())
    return {"study": study, "replicates": reps,
            "question": {"type": "binary", "template": "Would you buy? {message}"},
            "personas": {"set": "shoppers", "path": "/sets/shoppers.jsonl", "sha256": "ab" * 32,
                         "ids": [f"p{i}" for i in range(personas)]},
            "messages": [{"id": m, "set": m.lower(), "path": f"/sets/{m}.yaml", "sha256": "cd" * 32,
                          "paraphrases": [{"id": p, "text": f"text of {p}"} for p in ids]}
                         for m, ids in MESSAGES.items()],
            "models": [{"name": m, "backend": "simulated", "model_id": "", "expected_queries": personas * cells * reps}
                       for m in models]}


def fill(store, personas, reps=2, model="m", study="st", upto=None):
    """Answer persona-major, as a run does; ``upto``: stop after that many queries (an interrupted run).
    A is answered Yes more often than B."""
    seq = 0
    for i in range(personas):
        for msg, ids in MESSAGES.items():
            for j, p in enumerate(ids):
                for r in range(reps):
                    if upto is not None and seq >= upto:
                        return
                    yes = int((i + r + j + (msg == "A")) % 3 != 0)
                    store.record((study, model, msg, p, f"p{i}", r), status="ok", response="Yes" if yes else "No",
                                 answer=yes, seq=seq)
                    seq += 1


def write_partial(path, filtered: int = 1):
    """A store of study 'st' expecting 120 queries of model m, interrupted after 31 (26%), with
    ``filtered`` content-filtered queries of persona p9 (failed, no reply)."""
    from survey.data.store import Store

    with Store(path) as st:
        st.record_context("st", context(10))
        fill(st, 10, upto=31)
        for p in MESSAGES["A"][:filtered]:
            st.record(("st", "m", "A", p, "p9", 0), status="failed", error="blocked", error_code="content_filter")
    return path
