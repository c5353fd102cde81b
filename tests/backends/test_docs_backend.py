"""The example backend of docs/providers.md, taken from the page as written: registered with its one
line, it runs a small study through the engine, offline and free. A broken example fails here."""

import asyncio
import re
import sys
from pathlib import Path

import pytest
from shoe_study import shoe_study_toml

from survey import backends
from survey.collect.engine import Engine
from survey.collect.run_plan import make_plan
from survey.collect.runner import collect
from survey.data.store import Store
from survey.errors import SurveyError
from survey.reporting.summary import study_summary
from survey.study.spec import load_study

DOC = Path(__file__).resolve().parents[2] / "docs" / "providers.md"

STUDY = shoe_study_toml("docs-example", "store.sqlite", replicates=2, personas=3, paraphrases=2)


def doc_blocks(lang: str) -> list[str]:
    """The fenced code blocks of one language in the page's "Adding a backend" section."""
    section = DOC.read_text(encoding="utf-8").split("\n## Adding a backend\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"^```{lang}\n(.*?)^```", section, flags=re.S | re.M)


@pytest.fixture
def docs_backend(tmp_path, monkeypatch):
    """Save the page's module as constant_backend.py and run the page's registration code."""
    module_code, register_code = doc_blocks("python")
    (tmp_path / "constant_backend.py").write_text(module_code, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(backends, "BACKENDS", backends.BACKENDS.copy())  # the registration ends with the test
    exec(compile(register_code, str(DOC), "exec"), {})
    yield
    sys.modules.pop("constant_backend", None)


def test_the_page_shows_a_short_complete_module_and_a_one_line_registration():
    module_code, register_code = doc_blocks("python")
    assert len(module_code.splitlines()) <= 40
    calls = [line for line in register_code.splitlines() if line and not line.startswith("from ")]
    assert calls == ['register_backend("constant", "constant_backend:ConstantBackend")']


def test_docs_backend_runs_a_study_through_the_engine(docs_backend, tmp_path):
    (model_entry,) = doc_blocks("toml")
    path = tmp_path / "study.toml"
    path.write_text(STUDY + model_entry, encoding="utf-8")
    study = load_study(path)
    (model,) = study.models
    assert (model.backend, model.model_id, model.paid) == ("constant", "", False)  # free: no model id needed

    with Store(study.store_path) as store:
        plan = make_plan(study, store)
        assert plan.to_send == 3 * 2 * 2 * 2 and not plan.paid and plan.cost == 0
        engine = Engine(store, progress=False)
        asyncio.run(collect(engine, plan))
        df = store.to_long_table(study.name)

    rep = engine.report.models["always-yes"]
    assert (rep.stored, rep.valid, rep.failed) == (24, 24, 0)
    assert len(df) == 24 and set(df.response) == {"Yes"} and set(df.answer) == {1}
    assert set(df.model_id) == {"constant"} and set(df.backend) == {"constant"}
    assert (df.prompt_tokens > 0).all()
    (summary,) = study_summary(df)
    assert summary["cost"] == "0"  # the recorded backend says free


def test_docs_backend_refuses_unknown_options(docs_backend):
    with pytest.raises(SurveyError, match="colour"):
        backends.create_backend("constant", colour="red")
    assert backends.create_backend("constant", reply="No").options.reply == "No"
