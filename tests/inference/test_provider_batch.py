"""Runs sent through a provider's Batch API (against the local fake of /v1/files and /v1/batches) and as
files for vllm run-batch: lines, failures, resubmission, resume by id, batch prices."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from fieldstudio.inference.runs import provider_batch, provider_batch_lines, provider_batch_records, vllm_batch_files
from fieldstudio.inference.runs import queue as run_queue
from fieldstudio.inference.runs.views import list_runs
from fieldstudio.store.models import Answer, ProviderBatch, Task
from tests.support.fake_openai import Reply
from tests.support.run_fixtures import add_media, add_task, fake_profile

FAILING = {17, 42, 199}


def _tasks(project, n: int) -> list[str]:
    return [add_task(project, f"question {i}", external_id=f"1.1.{i:04d}", source="fieldworkarena") for i in range(n)]


def _answers(project, run_id: str) -> dict[str, Answer]:
    with project.read() as s:
        return {a.id: a for a in s.scalars(select(Answer).where(Answer.run_id == run_id))}


def _question(request) -> int:
    text = json.dumps(request.body)
    return next(i for i in range(1000) if f"question {i}\\n" in text or f"question {i}\"" in text)


def _no_sleep(seconds: float) -> None:
    return None


def test_batch_of_200_with_3_failing_lines_completes_and_a_resubmission_sends_only_those_3(project, fake_batch_api):
    ids = _tasks(project, 200)
    profile = fake_profile(fake_batch_api, batch_api=True, batch_discount=0.5)
    run_id = run_queue.create_run(project, profile, ids, "fieldworkarena")

    def reply(request):
        if _question(request) in FAILING:
            return Reply(status=500, error_message="the model is overloaded")
        return Reply(text=f"answer {_question(request)}", prompt_tokens=1000, completion_tokens=100)

    fake_batch_api.responder = reply
    made = provider_batch.submit(project, run_id, profile=profile)
    assert len(made) == 1 and len(fake_batch_api.batches) == 1
    uploaded = next(iter(fake_batch_api.files.values()))
    assert uploaded["object"]["purpose"] == "batch"
    lines = [json.loads(x) for x in uploaded["data"].decode().splitlines()]
    assert len(lines) == 200 and {x["custom_id"] for x in lines} == set(_answers(project, run_id))
    assert {(x["method"], x["url"]) for x in lines} == {("POST", "/v1/chat/completions")}
    assert list_runs(project, [run_id])[0].batch == "validating (200 requests)"

    statuses = []
    left = provider_batch.wait(project, run_id, profile=profile, interval_s=0, sleep=_no_sleep,
                               progress=lambda done, total: statuses.append(provider_batch_records.batch_states(
                                   project, run_id)[0].status))
    assert left == [] and statuses == ["in_progress", "finalizing", "completed"]
    assert len(fake_batch_api.batch_lines) == 200 and fake_batch_api.chat_requests() == []
    batch = next(iter(fake_batch_api.batches.values()))
    assert batch["request_counts"] == {"total": 200, "completed": 197, "failed": 3}
    assert batch["output_file_id"] and batch["error_file_id"]

    summary = run_queue.run_summary(project, run_id)
    assert (summary.answered, summary.failed, summary.pending, summary.status) == (197, 3, 0, "done")
    assert summary.errors == {"server_error": 3}
    # by hand: (1000 x $2 + 100 x $8) / 1e6 = $0.0028 a request, half at the batch price = $0.0014; x 197
    assert summary.cost_usd == pytest.approx(197 * 0.0014)
    answers = _answers(project, run_id)
    failed = {a.id for a in answers.values() if a.error}
    with project.read() as s:
        labels = dict(s.execute(select(Task.id, Task.external_id)).all())
    assert {int(labels[answers[a].task_id][-4:]) for a in failed} == FAILING
    assert all(answers[a].trace[0]["batch"] == made[0] and answers[a].trace[0]["cache_key"] for a in failed)
    assert all("the model is overloaded" in answers[a].error for a in failed)
    ok = next(a for a in answers.values() if not a.error)
    assert ok.raw_text.startswith("answer ") and ok.parsed == {"answer": ok.raw_text}
    assert (ok.prompt_tokens, ok.completion_tokens, ok.latency_s, ok.from_cache) == (1000, 100, None, False)
    assert ok.trace[0]["batch"] == made[0] and ok.trace[0]["cost_usd"] == pytest.approx(0.0014)
    assert list_runs(project, [run_id])[0].batch == "completed"

    fake_batch_api.responder = lambda request: Reply(text="second try", prompt_tokens=1000, completion_tokens=100)
    provider_batch.submit(project, run_id, profile=profile, retry_failed=True)
    provider_batch.wait(project, run_id, profile=profile, interval_s=0, sleep=_no_sleep)
    second = [json.loads(x)["custom_id"] for f in fake_batch_api.files.values() if f["object"]["purpose"] == "batch"
              for x in f["data"].decode().splitlines()][200:]
    assert sorted(second) == sorted(failed)
    assert len(fake_batch_api.batch_lines) == 203
    summary = run_queue.run_summary(project, run_id)
    assert (summary.answered, summary.failed, summary.pending) == (200, 0, 0)
    assert summary.cost_usd == pytest.approx(200 * 0.0014)
    assert list_runs(project, [run_id])[0].batch == "completed, 1 earlier"


def test_a_batch_line_is_the_request_a_normal_run_sends(project, clips, fake_batch_api):
    media = add_media(project, clips["cfr_bframes"])
    ids = [add_task(project, "What moves?", [("cfr_bframes.mp4", media["cfr_bframes.mp4"])]), *_tasks(project, 2)]
    profile = fake_profile(fake_batch_api, batch_api=True, batch_discount=0.5, seed=7)
    run_queue.execute_run(project, run_queue.create_run(project, profile, ids), profile=profile, use_cache=False)
    sent = sorted((json.dumps(r.body, sort_keys=True) for r in fake_batch_api.chat_requests()))
    batch_run = run_queue.create_run(project, profile, ids)
    _, requests = provider_batch_lines.build_requests(project, batch_run, profile=profile, use_cache=False)
    assert sorted(json.dumps(x["body"], sort_keys=True) for x in requests.lines) == sent
    assert any(x["body"]["messages"][1]["content"][-1]["type"] == "image_url" for x in requests.lines)
    # with the cache on, every request was paid for already: nothing needs sending, each answer is finished
    _, cached = provider_batch_lines.build_requests(project, batch_run, profile=profile)
    assert cached.lines == [] and cached.settled == 3
    summary = run_queue.run_summary(project, batch_run)
    assert (summary.answered, summary.from_cache, summary.cost_usd) == (3, 3, 0.0)


def test_resume_by_the_stored_batch_id_after_an_interruption(tmp_path, fake_batch_api):
    from fieldstudio.store.project import Project

    path = tmp_path / "resume.fieldstudio"
    profile = fake_profile(fake_batch_api, batch_api=True, batch_discount=0.5)
    with Project.create(path) as p:
        run_id = run_queue.create_run(p, profile, _tasks(p, 5))
        provider_batch.submit(p, run_id, profile=profile)

        def interrupt(seconds: float) -> None:
            raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            provider_batch.wait(p, run_id, profile=profile, interval_s=0, sleep=interrupt)
        assert run_queue.run_summary(p, run_id).in_batch == 5
        # a normal run of the same run id sends nothing: every request waits in the open batch
        assert run_queue.execute_run(p, run_id, profile=profile).status == "batch"
        assert fake_batch_api.chat_requests() == []
    with Project.open(path) as p:          # another process: only the project knows the batch id
        stored = provider_batch_records.batch_states(p, run_id)[0]
        assert stored.provider_batch_id in fake_batch_api.batches and stored.status == "in_progress"
        assert provider_batch.wait(p, run_id, profile=profile, interval_s=0, sleep=_no_sleep) == []
        summary = run_queue.run_summary(p, run_id)
    assert (summary.answered, summary.pending, summary.status) == (5, 0, "done")
    assert len(fake_batch_api.batches) == 1 and len(fake_batch_api.batch_lines) == 5


def test_a_creation_whose_reply_was_lost_is_found_again_not_created_twice(project, fake_batch_api):
    profile = fake_profile(fake_batch_api, batch_api=True, batch_discount=0.5)
    run_id = run_queue.create_run(project, profile, _tasks(project, 4))
    fake_batch_api.lose_next_create = True
    with pytest.raises(run_queue.ModelCallError, match="creating the batch"):
        provider_batch.submit(project, run_id, profile=profile)
    state = provider_batch_records.batch_states(project, run_id)[0]
    assert state.status == "submitting" and state.provider_batch_id is None and len(fake_batch_api.batches) == 1
    # submitting again sends nothing new: the 4 answers are in the open batch
    assert provider_batch.submit(project, run_id, profile=profile) == []
    assert provider_batch.wait(project, run_id, profile=profile, interval_s=0, sleep=_no_sleep) == []
    assert len(fake_batch_api.batches) == 1 and len(fake_batch_api.batch_lines) == 4
    state = provider_batch_records.batch_states(project, run_id)[0]
    assert state.provider_batch_id == next(iter(fake_batch_api.batches))
    assert run_queue.run_summary(project, run_id).answered == 4


def test_batch_cost_uses_the_batch_discount_and_stays_unknown_without_one(project, fake_batch_api):
    fake_batch_api.responder = lambda request: Reply(text="x", prompt_tokens=2000, completion_tokens=500,
                                                     cached_tokens=1000)
    ids = _tasks(project, 2)
    priced = fake_profile(fake_batch_api, batch_api=True, batch_discount=0.25, price_cached_per_mtok=1.0)
    run_id = run_queue.create_run(project, priced, ids)
    provider_batch.submit(project, run_id, profile=priced)
    provider_batch.wait(project, run_id, profile=priced, interval_s=0, sleep=_no_sleep)
    # by hand: 1000 uncached x $2 + 1000 cached x $1 + 500 x $8 = $7000 per 1e6 tokens = $0.007; 25 % off: $0.00525
    assert [a.cost_usd for a in _answers(project, run_id).values()] == [pytest.approx(0.00525)] * 2
    unknown = fake_profile(fake_batch_api, name="nodiscount", batch_api=True, batch_discount=None)
    other = run_queue.create_run(project, unknown, ids)
    provider_batch.submit(project, other, profile=unknown, use_cache=False)
    provider_batch.wait(project, other, profile=unknown, interval_s=0, sleep=_no_sleep)
    summary = run_queue.run_summary(project, other)
    assert summary.answered == 2 and summary.cost_status == "unknown"


def test_vllm_run_batch_file_is_written_and_its_output_imported(project, tmp_path, fake_batch_api):
    profile = fake_profile(fake_batch_api, price_input_per_mtok=None, price_output_per_mtok=None)
    run_id = run_queue.create_run(project, profile, _tasks(project, 3), "blind")
    out = tmp_path / "requests.jsonl"
    row_id, count = vllm_batch_files.write_file(project, run_id, out, profile=profile)
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert count == 3 and [x["custom_id"] for x in lines] == sorted(_answers(project, run_id))
    assert vllm_batch_files.write_file(project, run_id, tmp_path / "again.jsonl", profile=profile) == (None, 0)
    # what `vllm run-batch -o` writes: every line in one file, a failure with a non-200 status code
    body = {"id": "cmpl-1", "object": "chat.completion", "created": 0, "model": "fake-vlm",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": '{"direct_answer": "yes", "reasoning_answer": "seen"}'}}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 9, "total_tokens": 21}}
    output = [{"id": "vllm-1", "custom_id": lines[0]["custom_id"], "response": {"status_code": 200, "request_id":
               "r1", "body": body}, "error": None},
              {"id": "vllm-2", "custom_id": lines[1]["custom_id"], "response": {"status_code": 400, "request_id":
               "r2", "body": {"error": {"message": "too long", "type": "BadRequestError", "code": 400}}},
               "error": None},
              {"id": "vllm-3", "custom_id": "not-ours", "response": None, "error": {"message": "?"}}]
    result = tmp_path / "output.jsonl"
    result.write_text("\n".join(json.dumps(x) for x in output) + "\n")
    report = vllm_batch_files.import_file(project, run_id, result, profile=profile)
    assert (report.answered, report.failed, report.missing, report.unknown) == (1, 1, 1, 1)
    answers = _answers(project, run_id)
    first, second, third = (answers[x["custom_id"]] for x in lines)
    assert first.parsed["direct_answer"] == "yes" and (first.prompt_tokens, first.completion_tokens) == (12, 9)
    assert first.cost_usd is None                      # the profile has no prices: unknown, never 0
    assert second.error.startswith("bad_request: ") and "too long" in second.error
    assert third.error.startswith("batch_missing: ")
    assert provider_batch_records.batch_states(project, run_id)[0].status == "imported"
    assert list_runs(project, [run_id])[0].batch == "imported"
    with pytest.raises(provider_batch_records.BatchError, match="none of its 3 line"):
        vllm_batch_files.import_file(project, run_id, result, profile=profile)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"custom_id": "a"}\nnot json\n')
    with pytest.raises(provider_batch_records.BatchError, match="bad.jsonl: line 2 is not JSON"):
        vllm_batch_files.import_file(project, run_id, bad, profile=profile)
    assert row_id is not None


def test_refusals(project, fake_batch_api):
    no_api = fake_profile(fake_batch_api)
    run_id = run_queue.create_run(project, no_api, _tasks(project, 1))
    with pytest.raises(provider_batch_records.BatchError, match="does not offer a Batch API"):
        provider_batch.submit(project, run_id, profile=no_api)
    chunked = run_queue.create_run(project, no_api, run_queue.select_tasks(project), "chunked")
    with pytest.raises(provider_batch_records.BatchError, match="several requests per task"):
        provider_batch_lines.build_requests(project, chunked, profile=no_api)
    with project.read() as s:
        assert s.scalars(select(ProviderBatch)).all() == []


def test_migration_0002_adds_the_batch_table_to_an_older_project_and_matches_the_models(tmp_path):
    import sqlite3

    from alembic import command
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from fieldstudio.store import project as project_module
    from fieldstudio.store.models import Base
    from fieldstudio.store.project import Project

    path = tmp_path / "old.fieldstudio"
    con = sqlite3.connect(path)
    con.close()
    engine = project_module.make_engine(path.resolve(), read_only=False)
    cfg = project_module._alembic_config()
    with engine.connect() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001_initial")
        conn.exec_driver_sql("INSERT INTO run (id, name, kind, status, started_at) VALUES "
                             "('r1', 'old run', 'model', 'done', '2026-01-01 00:00:00')")
        conn.commit()
    engine.dispose()
    with Project.open(path) as p:
        from fieldstudio.store.schema_revisions import head_revision

        assert p.migrated_from == "0001_initial" and p.schema_revision() == head_revision()
        assert [r.name for r in list_runs(p)] == ["old run"] and list_runs(p)[0].batch is None
        with p.engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []


def test_cancel_fails_the_unfinished_lines_and_a_retry_sends_them_again(project, fake_batch_api):
    profile = fake_profile(fake_batch_api, batch_api=True, batch_discount=0.5)
    run_id = run_queue.create_run(project, profile, _tasks(project, 3))
    fake_batch_api.hold = True
    provider_batch.submit(project, run_id, profile=profile)
    assert provider_batch.wait(project, run_id, profile=profile, timeout_s=0) == ["in_progress"]
    assert provider_batch.cancel(project, run_id, profile=profile) == 1
    assert provider_batch_records.batch_states(project, run_id)[0].status == "cancelling"
    assert provider_batch.wait(project, run_id, profile=profile, interval_s=0, sleep=_no_sleep) == []
    summary = run_queue.run_summary(project, run_id)
    assert (summary.failed, summary.errors, fake_batch_api.batch_lines) == (3, {"batch_cancelled": 3}, [])
    fake_batch_api.hold = False
    provider_batch.submit(project, run_id, profile=profile, retry_failed=True)
    provider_batch.wait(project, run_id, profile=profile, interval_s=0, sleep=_no_sleep)
    assert run_queue.run_summary(project, run_id).answered == 3 and len(fake_batch_api.batch_lines) == 3


def test_lines_built_by_a_stale_process_are_not_recorded_twice(project, fake_batch_api):
    profile = fake_profile(fake_batch_api, batch_api=True, batch_discount=0.5)
    run_id = run_queue.create_run(project, profile, _tasks(project, 3))
    _, stale = provider_batch_lines.build_requests(project, run_id, profile=profile)   # another process, earlier
    provider_batch.submit(project, run_id, profile=profile)
    ids = [line["custom_id"] for line in stale.lines]
    assert provider_batch_records.record_batch(project, run_id, stale.traces, ids, kind="api") == (None, [])
    assert len(provider_batch_records.batch_states(project, run_id)) == 1


def test_cache_keys_of_text_and_image_messages_are_those_of_the_canonical_json():
    import hashlib

    from fieldstudio.inference import cache

    def canonical(value) -> str:
        return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False,
                                         separators=(",", ":")).encode()).hexdigest()

    text = [{"role": "system", "content": "Ünïcode rules"}, {"role": "user", "content": [{"type": "text", "text": "q"}]}]
    assert cache.messages_hash(text) == canonical(text)
    url = "data:image/jpeg;base64,AAAA"
    image = [{"role": "user", "content": [{"type": "text", "text": "q"},
                                          {"type": "image_url", "image_url": {"url": url, "detail": "low"}}]}]
    stripped = [{"role": "user", "content": [{"type": "text", "text": "q"},
                                             {"type": "image_url", "image_url": {"url": "sha256:abc", "detail": "low"}}]}]
    assert cache.messages_hash(image, {url: "abc"}) == canonical(stripped)


def test_deleting_a_run_deletes_its_batches(project, fake_batch_api):
    from fieldstudio.inference.runs.run_records import delete_run

    profile = fake_profile(fake_batch_api, batch_api=True)
    run_id = run_queue.create_run(project, profile, _tasks(project, 2))
    provider_batch.submit(project, run_id, profile=profile)
    delete_run(project, run_id)
    assert provider_batch_records.batch_states(project) == []


def test_an_expired_batch_keeps_what_finished_and_fails_the_rest_as_batch_expired(project, fake_batch_api):
    profile = fake_profile(fake_batch_api, batch_api=True, batch_discount=0.5)
    run_id = run_queue.create_run(project, profile, _tasks(project, 5))
    fake_batch_api.expire_after = 2
    provider_batch.submit(project, run_id, profile=profile)
    provider_batch.wait(project, run_id, profile=profile, interval_s=0, sleep=_no_sleep)
    assert provider_batch_records.batch_states(project, run_id)[0].status == "expired"
    summary = run_queue.run_summary(project, run_id)
    assert (summary.answered, summary.failed, summary.errors) == (2, 3, {"batch_expired": 3})
    fake_batch_api.expire_after = None
    provider_batch.submit(project, run_id, profile=profile, retry_failed=True)
    provider_batch.wait(project, run_id, profile=profile, interval_s=0, sleep=_no_sleep)
    assert run_queue.run_summary(project, run_id).answered == 5 and len(fake_batch_api.batch_lines) == 5


def test_a_run_larger_than_one_input_file_goes_out_as_several_batches(project, fake_batch_api, monkeypatch):
    monkeypatch.setattr(provider_batch_lines, "MAX_LINES", 2)     # OpenAI's limit is 50,000 lines per file
    profile = fake_profile(fake_batch_api, batch_api=True, batch_discount=0.5)
    run_id = run_queue.create_run(project, profile, _tasks(project, 5))
    made = provider_batch.submit(project, run_id, profile=profile)
    assert [s.requests for s in provider_batch_records.batch_states(project, run_id)] == [2, 2, 1] and len(made) == 3
    assert provider_batch.wait(project, run_id, profile=profile, interval_s=0, sleep=_no_sleep) == []
    assert run_queue.run_summary(project, run_id).answered == 5 and len(fake_batch_api.batch_lines) == 5
    assert list_runs(project, [run_id])[0].batch == "completed, 2 earlier"
