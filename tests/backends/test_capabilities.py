"""Backends declare what they are (Capabilities) and everything else asks them: the study, pricing,
the runner's option paths and the engine's batch check."""

import asyncio
import inspect
import subprocess
import sys
import textwrap
import types

import pytest

from survey import backends
from survey.backends import (
    BACKENDS,
    Capabilities,
    backend_capabilities,
    backend_class,
    capabilities_of,
    register_backend,
)
from survey.backends.base import BatchBackend, Reply
from survey.collect.engine import Engine
from survey.collect.pricing import price_of
from survey.collect.run_plan import make_plan
from survey.collect.runner import collect
from survey.data.store import Store
from survey.errors import SurveyError
from survey.study.spec import ModelSpec, load_study

BATCH_METHODS = [name for name, _ in inspect.getmembers(BatchBackend, inspect.isfunction)
                 if not name.startswith("_")]


@pytest.mark.parametrize("name", list(BACKENDS))
def test_every_registered_backend_declares_its_capabilities(name):
    cls = backend_class(name)
    assert isinstance(vars(cls).get("capabilities"), Capabilities)  # on the class itself, not inherited
    caps = backend_capabilities(name)
    assert caps.batch == all(callable(getattr(cls, m, None)) for m in BATCH_METHODS)
    assert caps.paid == bool(caps.prices)  # the paid providers ship list prices, free ones none


def test_built_in_declarations():
    # openai's class declaration is the cautious one; a model's options refine it (tests/backends/test_openai.py)
    assert {n for n in BACKENDS if backend_capabilities(n).paid} == {"mistral", "dashscope", "openai"}
    assert [n for n in BACKENDS if backend_capabilities(n).batch] == ["mistral", "openai"]
    assert backend_capabilities("local").path_options == ("gguf",)
    assert not backend_capabilities("simulated").needs_model_id and backend_capabilities("mistral").needs_model_id


def test_reading_capabilities_loads_no_sdk(tmp_path):
    """Validating and pricing a study that names every backend imports no provider SDK or llama.cpp."""
    models = "".join(f'[[models]]\nname = "{n}"\nbackend = "{n}"\nmodel_id = "qwen3-8b"\n' for n in BACKENDS)
    (tmp_path / "s.toml").write_text(textwrap.dedent("""
        name = "s"
        store = "s.sqlite"
        [personas]
        set = "shoppers"
        [[messages]]
        perturbations = "sneakers"
        """) + models)
    code = textwrap.dedent(f"""
        import sys
        import survey.study.spec
        from survey.collect.pricing import price_of
        study = survey.study.spec.load_study({str(tmp_path / "s.toml")!r})
        print([(m.paid, price_of(m)) for m in study.models])
        print(sorted({{m.split(".")[0] for m in sys.modules}} & {{"mistralai", "dashscope", "llama_cpp", "aiohttp", "openai"}}))
        """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    paid, loaded = out.strip().splitlines()
    assert paid.count("True") == 3 and "(0.18, 0.7)" in paid
    assert loaded == "[]"


def test_list_price_longest_prefix_batch_discount_and_free():
    caps = Capabilities(prices={"m": (1.0, 2.0), "m-large": (4.0, 8.0)}, batch_discount=0.5)
    assert caps.list_price("m-large-2511") == (4.0, 8.0) and caps.list_price("m-small") == (1.0, 2.0)
    assert caps.list_price("m-large", batch=True) == (2.0, 4.0)
    assert caps.list_price("other") is None
    assert Capabilities(paid=False).list_price("anything") == (0.0, 0.0)
    with pytest.raises(TypeError):
        caps.prices["new"] = (0.0, 0.0)  # a class-level declaration cannot be changed by accident


def test_price_of_asks_the_backend_and_the_study_overrides():
    def model(**kw):
        return ModelSpec(name="m", **kw)

    assert price_of(model(backend="mistral", model_id="ministral-8b-2512")) == (0.10, 0.10)
    assert price_of(model(backend="mistral", model_id="mistral-large-2411", batch=True)) == (1.0, 3.0)
    assert price_of(model(backend="dashscope", model_id="qwen3-8b")) == (0.18, 0.70)
    assert price_of(model(backend="dashscope", model_id="qwen-unknown")) is None
    assert price_of(model(backend="dashscope", model_id="qwen-unknown", price_input=1, price_output=2)) == (1, 2)
    # user-set prices are the effective ones: no batch discount on top
    assert price_of(model(backend="mistral", model_id="x", batch=True, price_input=1, price_output=2)) == (1, 2)
    assert price_of(model(backend="local")) == (0.0, 0.0)


class Undeclared:
    name = "undeclared"

    def __init__(self, model_id="", **options):
        self.model_id, self.options = model_id, options

    async def complete(self, query):
        return Reply(text="Yes")

    async def aclose(self):
        pass


class Recorder(Undeclared):
    """Free, with a path option: keeps what the runner handed it."""

    capabilities = Capabilities(paid=False, needs_model_id=False, path_options=("data",))
    made: list = []

    def __init__(self, model_id="", **options):
        super().__init__(model_id, **options)
        Recorder.made.append(options)


@pytest.fixture
def registry(monkeypatch):
    module = types.ModuleType("capability_test_backends")
    module.Undeclared, module.Recorder = Undeclared, Recorder
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(backends, "BACKENDS", BACKENDS.copy())
    register_backend("undeclared", f"{module.__name__}:Undeclared")
    register_backend("recorder", f"{module.__name__}:Recorder")
    register_backend("broken", "no_such_module_anywhere:Backend")
    Recorder.made.clear()


def test_an_undeclared_backend_gets_the_cautious_defaults(registry):
    assert backend_capabilities("undeclared") == Capabilities()
    assert (Capabilities().paid, Capabilities().batch, Capabilities().needs_model_id) == (True, False, True)
    with pytest.raises(ValueError, match="set model_id"):
        ModelSpec(name="m", backend="undeclared")
    m = ModelSpec(name="m", backend="undeclared", model_id="x")
    assert m.paid and price_of(m) is None
    assert not ModelSpec(name="m", backend="recorder").paid


def test_register_backend_checks_its_arguments_and_broken_modules_name_the_model(registry):
    for name, target in (("x", "no_colon"), ("", "m:C"), ("a:b", "m:C"), ("x", "m:")):
        with pytest.raises(SurveyError, match="module:Class"):
            register_backend(name, target)
    with pytest.raises(ValueError, match="backend 'broken' is not available"):
        ModelSpec(name="m", backend="broken", model_id="x")


def test_capabilities_must_be_a_capabilities():
    class Wrong:
        capabilities = {"paid": False}

    with pytest.raises(TypeError, match="Capabilities"):
        capabilities_of(Wrong)
    assert capabilities_of(Recorder()) is Recorder.capabilities  # instances read their class's


def test_runner_resolves_the_declared_path_options_against_the_study_folder(registry, tmp_path):
    (tmp_path / "s.toml").write_text(textwrap.dedent("""
        name = "s"
        store = "s.sqlite"
        [personas]
        set = "shoppers"
        count = 1
        [[messages]]
        perturbations = "sneakers"
        count = 2
        [[models]]
        name = "rec"
        backend = "recorder"
        options = { data = "files/x.bin", label = "files/x.bin" }
        """))
    study = load_study(tmp_path / "s.toml")
    with Store(study.store_path) as store:
        asyncio.run(collect(Engine(store, progress=False), make_plan(study, store)))
        assert store.backends() == {("s", "rec"): "recorder"}
    (options,) = Recorder.made
    assert options == {"data": str(tmp_path / "files" / "x.bin"), "label": "files/x.bin"}
