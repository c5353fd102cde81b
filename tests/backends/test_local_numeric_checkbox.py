"""Numeric and checkbox questions on the real SmolLM2-135M GGUF in sample mode: replies are drawn like an API
call and parsed (constrained: the first token held to a digit or currency sign, or an option's number); exact
mode, which reads answer labels' probabilities, has none to read and is refused before anything runs."""

from __future__ import annotations

import pandas as pd
import pytest
from llama_reference import THREADS

from survey import Study
from survey.errors import SurveyError

pytest.importorskip("llama_cpp")

QUESTIONS = {
    "numeric": ({"type": "numeric", "min": 0, "max": 1000, "unit": "US dollars"}, "numeric0to1000"),
    "checkbox": ({"type": "checkbox", "options": ["comfortable", "stylish", "good value"]}, "checkbox3"),
}


def study(tmp_path, question: dict, options: dict) -> Study:
    spec = {"name": "q", "store": str(tmp_path / "q.sqlite"), "replicates": 1,
            "personas": {"set": "shoppers", "count": 2},
            "messages": [{"id": m, "perturbations": m, "count": 2} for m in ("sneakers", "boots")],
            "question": question,
            "models": [{"name": "smollm2", "backend": "local", "model_id": "smollm2", "seed": 3,
                        "options": {"n_threads": THREADS, **options}}]}
    return Study.from_spec(spec, base_dir=tmp_path)


@pytest.mark.parametrize("kind", sorted(QUESTIONS))
@pytest.mark.parametrize("constrain", [False, True])
def test_sampling_mode_runs_and_parses(tmp_path, kind, constrain):
    question, scale = QUESTIONS[kind]
    s = study(tmp_path, question, {"mode": "sample", "constrain": constrain})
    run = s.run(yes=True)
    assert run.stored == 2 * 2 * 2 and run.failed == 0
    df = s.table()
    assert set(df["scale"]) == {scale}
    rtype = s.spec.question.response
    for text, answer in zip(df["response"], df["answer"], strict=True):  # stored as the parser reads the reply
        parsed = rtype.parse(text)
        assert (parsed is None and pd.isna(answer)) or parsed == answer
    if constrain:  # every reply starts with one of the type's first words
        assert all(str(text).lstrip().startswith(rtype.first_words) for text in df["response"]), list(df["response"])


@pytest.mark.parametrize("kind", sorted(QUESTIONS))
def test_exact_mode_is_refused_before_anything_runs(tmp_path, kind):
    question, scale = QUESTIONS[kind]
    with pytest.raises(SurveyError, match="exact mode reads the probabilities of the answer labels"):
        s = study(tmp_path, question, {"mode": "exact"})
        s.run(yes=True)
    with pytest.raises(SurveyError, match="has no study 'q'"):  # nothing was asked or recorded
        s.table()
