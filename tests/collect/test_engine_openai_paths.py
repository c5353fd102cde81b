"""Runs of the openai backend through the engine on both chat paths (``http = "aiohttp"``, the default, and
``"sdk"``) against the same fake server: the same rows, Retry-After obeyed, and the key in neither the store,
its exports nor the logs."""

import logging

import pytest
from fakes.openai_server import OpenAIFake
from test_engine_providers import Sleeps, only, rows, run_engine, write_study

from survey.backends import create_backend

KEY = "sk-openai-paths-5ecret-77aa"
PATHS = ["aiohttp", "sdk"]


@pytest.mark.parametrize("http", PATHS)
def test_a_run_backs_off_as_told_and_keeps_the_key_out_of_store_and_logs(tmp_path, monkeypatch, caplog, capfd, http):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    caplog.set_level(logging.DEBUG)  # aiohttp, httpx2 and the SDK log at DEBUG
    sleeps = Sleeps()
    with OpenAIFake(api_key=KEY, latency=0.002) as fake:
        path = write_study(tmp_path, "openai", "gpt-4o-mini-latest", {"base_url": fake.base_url, "http": http,
                                                                      "timeout": 5}, r=1)
        fake.inject("rate_limit", times=2, retry_after=0.25)
        fake.inject("server_error", times=2)
        fake.inject("disconnect", times=1)
        fake.inject("content_filter", times=None, match=only("Nurse", "boots"))
        report, study = run_engine(path, sleep=sleeps)
    df = rows(study)
    failed = df[df.status == "failed"]
    assert len(df) == 24 and failed.error.str.contains("content_filter").all() and len(failed) >= 1
    assert report.models["m1"].stored == 24 - len(failed)
    assert sum(0.25 <= d <= 0.275 for d in sleeps.delays) == 2  # Retry-After (plus up to 10% jitter), both 429s
    assert fake.faults["server_error"] == 2 and fake.faults["disconnect"] == 1
    out, err = capfd.readouterr()
    for text in (caplog.text, out, err, repr(create_backend("openai", "m", base_url=fake.base_url, http=http))):
        assert KEY not in text
    for p in tmp_path.rglob("*"):
        if p.is_file():
            assert KEY.encode() not in p.read_bytes(), p
