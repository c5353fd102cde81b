"""Shared test set-up: the helpers folder (fakes/, multimodel.py) on sys.path for every test folder, and
the fake provider servers as a fixture."""

import importlib
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# provider -> (module, class, the environment variable its backend reads the key from)
FAKES = {
    "mistral": ("fakes.mistral_server", "MistralFake", "MISTRAL_API_KEY"),
    "dashscope": ("fakes.dashscope_server", "DashScopeFake", "DASHSCOPE_API_KEY"),
    "openai": ("fakes.openai_server", "OpenAIFake", "OPENAI_API_KEY"),
}


@pytest.fixture
def fake_server(monkeypatch):
    """Start a provider's fake server on 127.0.0.1: ``fake_server("mistral", key, latency=...)``.

    The key is put in the provider's environment variable (the only place backends read keys from), and
    every server started is stopped after the test.
    """
    started = []

    def start(provider: str, key: str, **options):
        module, cls, env = FAKES[provider]
        monkeypatch.setenv(env, key)
        server = getattr(importlib.import_module(module), cls)(api_key=key, **options)
        server.__enter__()
        started.append(server)
        return server

    yield start
    for server in reversed(started):
        server.__exit__(None, None, None)
