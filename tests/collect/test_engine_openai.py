"""Runs of the openai backend through the engine against the fake OpenAI-compatible server: the exact
score stored per row, and servers that send no log-probabilities. Faults mid-run, SIGKILL and resume,
batch jobs interrupted after submission and the key kept out of everything run for this backend in
test_engine_providers.py (its ``by_provider`` tests)."""

import json

import pytest
from fakes.common import answer_for
from fakes.openai_server import OpenAIFake
from test_engine_providers import rows, run_engine, write_study

from survey.responses import BINARY
from survey.study.design import build_design

KEY = "sk-openai-integration-5ecret-4b1c"
MODEL = "gpt-4o-mini-latest"


def openai_study(tmp_path, fake, *, top_logprobs=5, **kw):
    path = write_study(tmp_path, "openai", MODEL, {"base_url": fake.base_url, "timeout": 5}, **kw)
    path.write_text(path.read_text().replace("seed = 3\n", f"seed = 3\ntop_logprobs = {top_logprobs}\n"))
    return path


@pytest.mark.parametrize("style", ["openai", "vllm"])
def test_every_row_stores_the_exact_score_of_its_first_token_logprobs(tmp_path, monkeypatch, style):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with OpenAIFake(api_key=KEY, logprobs_style=style, served_models=[MODEL]) as fake:
        report, study = run_engine(openai_study(tmp_path, fake))
        assert report.models["m1"].stored == 48
    df = rows(study)
    design = {q.key: q for q in build_design(study).queries(study.models[0])}
    for r in df.itertuples():
        q = design[(study.name, "m1", r.message, r.perturbation, r.persona, r.replicate, "q")]
        p = answer_for((MODEL, q.system, q.user, q.provider_seed))[1]
        lp = json.loads(r.logprobs)
        # "Yes" and " Yes" are summed; the fake sends no " No" variant (vLLM: a ruled-out -9999, worth 0)
        assert r.p_yes == pytest.approx(0.99 * p / (0.99 * p + 0.97 * (1 - p)))
        assert r.p_yes == pytest.approx(BINARY.score_from_logprobs(lp))
        assert (lp.get(" No") == -9999.0) == (style == "vllm")
        assert r.answer == (answer_for((MODEL, q.system, q.user, q.provider_seed))[0] == "Yes")


def test_a_server_without_logprobs_stores_answers_without_scores(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with OpenAIFake(logprobs_style="none", served_models=[MODEL]) as fake:
        report, study = run_engine(openai_study(tmp_path, fake, r=1))
    df = rows(study)
    assert len(df) == 24 and (df.status == "ok").all() and df.p_yes.isna().all() and df.answer.notna().all()
    assert report.models["m1"].failed == 0
    assert capsys.readouterr().err.count("sent no log-probabilities") == 1  # said once, not per row
