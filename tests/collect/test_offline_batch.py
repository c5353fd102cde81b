"""Offline batch files (vLLM run-batch): export a model's missing queries, import the results through the
engine's batch path. The fake OpenAI server stands in for vLLM's offline runner (run_batch_file)."""

import json

import pytest
from fakes.common import answer_for
from fakes.openai_server import OpenAIFake
from test_engine_providers import only, rows, run_engine, write_study

from survey.api.batch import export_batch, import_batch
from survey.cli import main
from survey.data.store import Store
from survey.errors import SurveyError
from survey.study.design import build_design
from survey.study.spec import load_study

MODEL_ID = "Qwen/Qwen3-8B"


def vllm_study(tmp_path, **kw):
    path = write_study(tmp_path, "openai", MODEL_ID, {"preset": "vllm"} | kw.pop("options", {}), **kw)
    path.write_text(path.read_text().replace("seed = 3\n", "seed = 3\ntop_logprobs = 5\n"))
    return path


def lines(data: bytes) -> list[dict]:
    return [json.loads(x) for x in data.splitlines() if x.strip()]


def test_export_run_batch_import_stores_every_reply_scored_like_a_run(tmp_path):
    path = vllm_study(tmp_path)
    res = export_batch(path, "m1", tmp_path / "requests.jsonl")
    assert (res.queries, res.stored, res.in_open_jobs) == (48, 0, 0)
    requests = lines((tmp_path / "requests.jsonl").read_bytes())
    study = load_study(path)
    design = list(build_design(study).queries(study.models[0]))
    assert [r["custom_id"] for r in requests] == [q.custom_id for q in design]
    assert requests[0]["url"] == "/v1/chat/completions" and requests[0]["method"] == "POST"
    assert requests[0]["body"] == {"model": MODEL_ID, "messages": [{"role": "system", "content": design[0].system},
                                                                  {"role": "user", "content": design[0].user}],
                                   "max_tokens": 1, "temperature": 1.0, "seed": design[0].provider_seed,
                                   "logprobs": True, "top_logprobs": 5}

    fake = OpenAIFake()  # not started: only its offline answers
    (tmp_path / "results.jsonl").write_bytes(fake.run_batch_file((tmp_path / "requests.jsonl").read_bytes()))
    out = import_batch(path, "m1", tmp_path / "results.jsonl")
    assert (out.lines, out.stored, out.failed, out.already, out.foreign, out.missing) == (48, 48, 0, 0, 0, 0)
    df = rows(study)
    assert len(df) == 48 and (df.status == "ok").all() and set(df.batch_job) == {out.job_id}
    assert out.job_id.startswith("file-") and set(df.model_id) == {MODEL_ID} and df.p_yes.notna().all()
    by_key = {q.key: q for q in design}
    for r in df.itertuples():
        q = by_key[(study.name, "m1", r.message, r.perturbation, r.persona, r.replicate, "q")]
        assert r.answer == (answer_for((MODEL_ID, q.system, q.user, q.provider_seed))[0] == "Yes")
    with Store(study.store_path) as store:
        (job,) = store.batch_jobs(study.name)
        assert job["ingested"] and job["status"] == "SUCCESS" and store.backends()[(study.name, "m1")] == "openai"

    # the same replies as a live run against the same respondent: rows equal answer for answer, score for score
    (tmp_path / "live").mkdir()
    with OpenAIFake() as server:
        live = write_study(tmp_path / "live", "openai", MODEL_ID, {"base_url": server.base_url})
        live.write_text(live.read_text().replace("seed = 3\n", "seed = 3\ntop_logprobs = 5\n"))
        _, live_study = run_engine(live)
    cols = ["message", "perturbation", "persona", "replicate", "answer", "response", "p_yes", "logprobs", "seq"]
    assert rows(live_study)[cols].equals(df[cols])

    again = import_batch(path, "m1", tmp_path / "results.jsonl")  # the same file twice stores nothing
    assert (again.stored, again.already) == (0, 48)
    assert export_batch(path, "m1", tmp_path / "none.jsonl").path is None and not (tmp_path / "none.jsonl").exists()


def test_partial_and_failed_results_are_exported_again_and_foreign_lines_ignored(tmp_path):
    path = vllm_study(tmp_path)
    export_batch(path, "m1", tmp_path / "req.jsonl")
    fake = OpenAIFake()
    fake.inject("server_error", times=None, route="batch", match=only("Nurse", "boots"))  # 3 items x 2 reps
    results = lines(fake.run_batch_file((tmp_path / "req.jsonl").read_bytes()))
    foreign = dict(results[0], custom_id="other-study\x1fm1\x1fsneakers\x1fsneakers-01\x1f0\x1f0")
    kept = results[:30] + [r for r in results[30:] if r["response"]["status_code"] != 200] + [foreign]
    (tmp_path / "res.jsonl").write_text("".join(json.dumps(r) + "\n" for r in kept))
    out = import_batch(path, "m1", tmp_path / "res.jsonl")
    failed = sum(r["response"]["status_code"] != 200 for r in kept)
    assert failed == 6 and out.foreign == 1 and out.failed == 6 and out.stored == len(kept) - 1 - 6
    assert out.missing == 48 - out.stored
    df = rows(load_study(path))
    assert (df.status == "failed").sum() == 6 and "other-study" not in set(df.study)

    res = export_batch(path, "m1", tmp_path / "req2.jsonl")  # the failed and the missing, nothing stored
    assert res.queries == out.missing and res.stored == out.stored
    (tmp_path / "res2.jsonl").write_bytes(OpenAIFake().run_batch_file((tmp_path / "req2.jsonl").read_bytes()))
    out2 = import_batch(path, "m1", tmp_path / "res2.jsonl")
    assert out2.stored == res.queries and out2.missing == 0
    assert (rows(load_study(path)).status == "ok").all()


def test_wrong_files_and_models_are_one_line_errors(tmp_path):
    path = vllm_study(tmp_path)
    export_batch(path, "m1", tmp_path / "req.jsonl")
    with pytest.raises(SurveyError, match="requests file"):
        import_batch(path, "m1", tmp_path / "req.jsonl")
    (tmp_path / "bad.jsonl").write_text('{"custom_id": 1, "response": {}}\n{not json\n')
    with pytest.raises(SurveyError, match="line 2 is not JSON"):
        import_batch(path, "m1", tmp_path / "bad.jsonl")
    with pytest.raises(SurveyError, match="no model 'm2'"):
        export_batch(path, "m2", tmp_path / "x.jsonl")
    (tmp_path / "sim").mkdir()
    sim = write_study(tmp_path / "sim", "simulated", "", {})
    with pytest.raises(SurveyError, match='backend = "openai"'):
        export_batch(sim, "m1", tmp_path / "x.jsonl")


def test_import_refuses_while_a_provider_batch_job_is_open(tmp_path):
    path = vllm_study(tmp_path)
    export_batch(path, "m1", tmp_path / "req.jsonl")
    (tmp_path / "res.jsonl").write_bytes(OpenAIFake().run_batch_file((tmp_path / "req.jsonl").read_bytes()))
    study = load_study(path)
    with Store(study.store_path) as store:
        store.add_batch_job("batch_live", study.name, "m1", ["x"])
    with pytest.raises(SurveyError, match="batch_live"):
        import_batch(path, "m1", tmp_path / "res.jsonl")
    assert rows(study).empty


def test_cli_batch_export_and_import(tmp_path, capsys):
    path = vllm_study(tmp_path, r=1)
    main(["batch", "export", str(path), "--model", "m1", "--out", str(tmp_path / "req.jsonl")])
    assert "wrote 24 requests" in capsys.readouterr().out
    fake = OpenAIFake()
    fake.inject("server_error", route="batch", match=only("Nurse", "boots"))
    (tmp_path / "res.jsonl").write_bytes(fake.run_batch_file((tmp_path / "req.jsonl").read_bytes()))
    with pytest.raises(SystemExit) as info:  # a failed line: stored as failed, exit 1 like `survey run`
        main(["batch", "import", str(path), str(tmp_path / "res.jsonl"), "--model", "m1", "--json"])
    assert info.value.code == 1
    doc = json.loads(capsys.readouterr().out)
    assert (doc["stored"], doc["failed"], doc["missing"]) == (23, 1, 1) and doc["job_id"].startswith("file-")
    main(["batch", "export", str(path), "--model", "m1", "--out", str(tmp_path / "more.jsonl")])
    assert "wrote 1 requests" in capsys.readouterr().out
    (tmp_path / "more-res.jsonl").write_bytes(OpenAIFake().run_batch_file((tmp_path / "more.jsonl").read_bytes()))
    main(["batch", "import", str(path), str(tmp_path / "more-res.jsonl"), "--model", "m1"])
    assert "1 replies stored" in capsys.readouterr().out
    main(["batch", "export", str(path), "--model", "m1", "--out", str(tmp_path / "none.jsonl")])
    assert "nothing to export" in capsys.readouterr().out


def test_a_batch_file_needs_no_api_key_while_a_dry_run_asks_for_it(tmp_path, monkeypatch):
    # the dry run refuses a paid model without its key (the run would); making a batch file sends nothing
    monkeypatch.delenv("SURVEY_TEST_OFFLINE_KEY", raising=False)
    path = write_study(tmp_path, "openai", "gpt-4o-mini", {"api_key_env": "SURVEY_TEST_OFFLINE_KEY"})
    from survey.api.study import Study

    with pytest.raises(SurveyError, match="SURVEY_TEST_OFFLINE_KEY is not set"):
        Study.from_toml(path).dry_run()
    assert export_batch(path, "m1", tmp_path / "requests.jsonl").queries == 48
