"""Every option of a study is checked before anything is bought: what would stop a run after it paid for its
replies (here: rating free text by semantic similarity with an embedder that is unknown, or cannot run) is
refused by the dry run, and by the run before its first request (counted on a fake server)."""

import sqlite3

import pytest
from fakes.openai_server import OpenAIFake
from shoe_study import shoe_study_toml
from test_engine_providers import survey_cli

from survey.api.study import Study
from survey.errors import SurveyError


def ssr_study(tmp_path, fake, embedder: str):
    text = shoe_study_toml("ssr", "store.sqlite", replicates=1, personas=3, paraphrases=3) + f"""
[question]
type = "ssr"
points = 5
anchors = "purchase_intent"
embedder = "{embedder}"

[[models]]
name = "words"
backend = "openai"
model_id = "served-model"
max_tokens = 20
options = {{ base_url = "{fake.base_url}" }}
"""
    path = tmp_path / "study.toml"
    path.write_text(text)
    return path


CASES = [("bogus", "unknown embedder 'bogus'; choose one of minilm, mistral-embed, dashscope"),
         ("mistral-embed", "embedder 'mistral-embed' cannot rate the replies: mistral-embed needs the environment "
                           "variable MISTRAL_API_KEY")]


@pytest.mark.parametrize("embedder,message", CASES, ids=["unknown", "no-key"])
def test_an_embedder_that_cannot_rate_is_refused_by_the_dry_run_and_before_any_request(tmp_path, monkeypatch,
                                                                                       embedder, message):
    # before: the dry run passed, the run collected (and paid for) every reply, then stopped at the rating
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    with OpenAIFake(lifetime=60) as fake:
        path = ssr_study(tmp_path, fake, embedder)
        dry = survey_cli("run", str(path), "--dry-run")
        assert dry.returncode == 2 and dry.stderr.strip() == f"error: {message}", dry.stderr
        as_json = survey_cli("run", str(path), "--dry-run", "--json")
        assert as_json.returncode == 2 and message in as_json.stdout and "Traceback" not in as_json.stderr
        with pytest.raises(SurveyError, match=message.split(":")[0]):
            Study.from_toml(path).run(yes=True, progress=False)
        res = survey_cli("run", str(path), "--yes")
        assert res.returncode == 2 and res.stderr.strip() == f"error: {message}"
        assert fake.total == 0  # not even the preflight: nothing was bought
        store = tmp_path / "store.sqlite"
        if store.exists():
            with sqlite3.connect(store) as db:
                assert db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 0


def test_an_embedder_that_can_rate_passes_the_dry_run(tmp_path):
    with OpenAIFake(lifetime=60) as fake:
        plan = Study.from_toml(ssr_study(tmp_path, fake, "minilm")).dry_run()
        assert plan.to_send == 18 and fake.total == 0
