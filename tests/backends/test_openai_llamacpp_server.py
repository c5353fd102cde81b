"""The openai backend against a real OpenAI-compatible server: llama-cpp-python's own
(``python -m llama_cpp.server``, from the llama-cpp-python[server] extra) serving the embedded SmolLM2
GGUF on 127.0.0.1. A small study runs through it and its exact scores are compared with the in-process
``local`` backend on the same cells.

Measured (SmolLM2-135M Q4_1, 48 cells of the sneakers/boots study, top_logprobs = 20, temperature 1):
- the server renders the GGUF's chat template exactly as the local backend does: equal prompt tokens;
- scored from the same 20 top tokens, server and in-process P(Yes | Yes or No) agree to 1e-16;
- against the local backend's exact score, which sums every Yes/No token variant of the vocabulary,
  the server's (only the 20 tokens it returns) differs by at most 0.0013 (mean 0.0007). The test
  allows 0.005. With top_logprobs = 5 the gap reaches 0.38 when No falls out of the top 5.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from collect.test_engine_providers import rows, run_engine, write_study

from survey.responses import BINARY

SERVER_MODULES = ["uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings"]
TOLERANCE = 0.005  # |P(Yes) server - P(Yes) in-process|, measured max 0.0013 at top_logprobs = 20
TOP = 20

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def llamacpp_server(tmp_path_factory):
    """The base_url (with /v1) of llama-cpp-python's server on the SmolLM2 GGUF; stopped after the module."""
    pytest.importorskip("llama_cpp")
    for name in SERVER_MODULES:
        pytest.importorskip(name, reason=f"{name} missing: the llama-cpp-python[server] extra is not installed "
                                         "(pip install 'survey[local]' or make install adds it)")
    from survey.backends.llama_runtime import default_gguf_path

    port = _free_port()
    log = tmp_path_factory.mktemp("llamacpp") / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(default_gguf_path()),
                                 "--host", "127.0.0.1", "--port", str(port), "--model_alias", "smollm2",
                                 "--n_threads", "1", "--n_threads_batch", "1", "--n_ctx", "2048"],
                                stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 600
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}: {log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2) as res:
                    assert json.load(res)["data"][0]["id"] == "smollm2"
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"llama_cpp.server did not answer within 600 s: {log.read_text()[-2000:]}")
                time.sleep(0.25)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def _study(folder, backend, model_id, options, concurrency=8):
    folder.mkdir()
    path = write_study(folder, backend, model_id, options, personas=4, per=3, r=2, concurrency=concurrency)
    path.write_text(path.read_text().replace("seed = 3\n", f"seed = 3\ntop_logprobs = {TOP}\n"))
    return path


def test_a_study_through_the_server_matches_the_in_process_model(llamacpp_server, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # a local server needs no key
    served, served_study = run_engine(_study(tmp_path / "server", "openai", "smollm2",
                                             {"preset": "llamacpp", "base_url": llamacpp_server}, concurrency=2))
    local, local_study = run_engine(_study(tmp_path / "local", "local", "smollm2", {"n_threads": 1}))
    rep = served.models["m1"]
    assert (rep.stored, rep.failed, rep.calls) == (48, 0, 48)  # 4 personas x 6 paraphrases x 2 replicates

    key = ["message", "perturbation", "persona", "replicate"]
    a, b = rows(served_study), rows(local_study)
    assert len(a) == len(b) == 48 and (a.status == "ok").all()
    assert set(a.model_id) == {"smollm2"}  # the id the server reports
    both = a.merge(b, on=key, suffixes=("_server", "_local"))
    assert len(both) == 48
    # the server applies the GGUF's chat template as the local backend does: the same prompt tokens
    assert (both.prompt_tokens_server == both.prompt_tokens_local).all()
    assert both.p_yes_server.notna().all()
    # from the same top tokens, the same numbers: the server runs the same model on the same prompt
    same_tokens = [BINARY.score_from_logprobs(json.loads(lp)) for lp in both.logprobs_local]
    assert both.p_yes_server.to_numpy() == pytest.approx(same_tokens, abs=1e-9)
    # against the exact in-process score (every Yes/No variant), the difference is the top-20 cut
    gap = (both.p_yes_server - both.p_yes_local).abs()
    assert gap.max() < TOLERANCE, gap.describe()
    # replicates of a cell share one score: the server's forward pass is deterministic
    assert a.groupby(["message", "perturbation", "persona"]).p_yes.nunique().eq(1).all()
