"""`fieldstudio run ... --batch`, `--batch-out` and the `run batch-*` commands, against the fake Batch API."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fieldstudio.inference import profiles
from fieldstudio.store.project import Project
from tests.support.fake_openai import Reply
from tests.support.run_fixtures import add_task, fake_profile


@pytest.fixture
def four_tasks_file(tmp_path):
    """A project file with four FieldWorkArena tasks of category 1.1."""
    path = tmp_path / "cli.fieldstudio"
    with Project.create(path) as p:
        for i in range(4):
            add_task(p, f"question {i}", external_id=f"1.1.000{i}", category="1.1", source="fieldworkarena")
    return path


def test_run_as_a_batch_waits_and_prints_the_batch_price(app, four_tasks_file, fake_batch_api):
    profiles.add_profile(fake_profile(fake_batch_api, batch_api=True, batch_discount=0.5))
    fake_batch_api.responder = lambda request: Reply(text="an answer", prompt_tokens=1000, completion_tokens=100)
    runner = CliRunner()
    result = runner.invoke(app, ["run", str(four_tasks_file), "--model", "fake", "--batch", "--poll-interval", "0"])
    assert result.exit_code == 0, result.output
    assert "4 answered, 0 failed, 0 from cache, 0 pending (of 4)" in result.output
    # 4 x (1000 x $2 + 100 x $8) / 1e6 x (1 - 0.5) = $0.0056
    assert "cost $0.0056" in result.output
    assert len(fake_batch_api.batch_lines) == 4 and fake_batch_api.chat_requests() == []
    listing = json.loads(runner.invoke(app, ["answers", str(four_tasks_file), "--json"]).output)
    assert [(r["answered"], r["status"], r["batch"]) for r in listing] == [(4, "done", "completed")]
    status = runner.invoke(app, ["run", "batch-status", str(four_tasks_file), "--json"])
    rows = json.loads(status.output)
    assert [(r["status"], r["requests"], r["completed"], r["failed"]) for r in rows] == [("completed", 4, 4, 0)]


def test_no_wait_then_status_and_resume_by_the_stored_id(app, four_tasks_file, fake_batch_api):
    profiles.add_profile(fake_profile(fake_batch_api, batch_api=True, batch_discount=0.5))
    runner = CliRunner()
    sent = runner.invoke(app, ["run", str(four_tasks_file), "-m", "fake", "--batch", "--no-wait"])
    assert sent.exit_code == 0, sent.output
    assert "0 answered" in sent.output and "4 request(s) wait in the provider's batch" in sent.output
    run_id = json.loads(runner.invoke(app, ["answers", str(four_tasks_file), "--json"]).output)[0]["run"]
    table = runner.invoke(app, ["run", "batch-status", str(four_tasks_file), run_id[:8]])
    assert table.exit_code == 0 and "in_pr" in table.output, table.output       # a poll moved it on
    rows = json.loads(runner.invoke(app, ["run", "batch-status", str(four_tasks_file), "--json", "--no-refresh"]).output)
    assert [(r["status"], r["requests"], r["imported_at"]) for r in rows] == [("in_progress", 4, None)]
    again = runner.invoke(app, ["run", str(four_tasks_file), "-m", "fake", "--batch", "--no-wait"])
    assert "resuming run" in again.output and len(fake_batch_api.batches) == 1   # nothing sent twice
    resumed = runner.invoke(app, ["run", "batch-resume", str(four_tasks_file), run_id[:8], "--poll-interval", "0"])
    assert resumed.exit_code == 0, resumed.output
    assert "4 answered, 0 failed" in resumed.output and len(fake_batch_api.batch_lines) == 4


def test_batch_out_for_vllm_then_import(app, four_tasks_file, tmp_path, fake_openai):
    profiles.add_profile(fake_profile(fake_openai))
    runner = CliRunner()
    out = tmp_path / "requests.jsonl"
    written = runner.invoke(app, ["run", str(four_tasks_file), "-m", "fake", "-s", "blind", "--batch-out", str(out)])
    assert written.exit_code == 0, written.output
    assert f"wrote 4 request(s) to {out}" in " ".join(written.output.split())
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    output = tmp_path / "output.jsonl"
    output.write_text("".join(json.dumps({"id": f"v{i}", "custom_id": x["custom_id"], "error": None, "response": {
        "status_code": 200, "request_id": f"r{i}", "body": {
            "id": f"c{i}", "object": "chat.completion", "created": 0, "model": "fake-vlm",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content":
                         '{"direct_answer": "no", "reasoning_answer": "none seen"}'}}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60}}}}) + "\n"
        for i, x in enumerate(lines)))
    run_id = json.loads(runner.invoke(app, ["answers", str(four_tasks_file), "--json"]).output)[0]["run"]
    imported = runner.invoke(app, ["run", "batch-import", str(four_tasks_file), run_id[:8], str(output)])
    assert imported.exit_code == 0, imported.output
    assert "output.jsonl: 4 answered, 0 failed, 0 without a line" in imported.output
    # batch replies are priced at the profile's batch price; this profile names no batch discount, so the
    # cost is unknown rather than guessed
    assert "cost unknown" in imported.output
    answers = json.loads(runner.invoke(app, ["answers", str(four_tasks_file), "--run", run_id, "--json"]).output)
    assert {a["answer"] for a in answers} == {"no"} and {a["prompt_tokens"] for a in answers} == {50}


def test_batch_refusals_are_clear(app, four_tasks_file, fake_openai):
    profiles.add_profile(fake_profile(fake_openai))
    runner = CliRunner()
    result = runner.invoke(app, ["run", str(four_tasks_file), "-m", "fake", "--batch"])
    assert result.exit_code == 2 and "does not offer a Batch API" in result.output
    both = runner.invoke(app, ["run", str(four_tasks_file), "-m", "fake", "--batch", "--batch-out", "x.jsonl"])
    assert both.exit_code == 2 and "not both" in both.output
    chunked = runner.invoke(app, ["run", str(four_tasks_file), "-m", "fake", "-s", "chunked", "--batch-out", "y.jsonl"])
    assert chunked.exit_code == 2 and "several requests per task" in chunked.output


def test_a_killed_process_batch_is_collected_by_another_by_its_stored_id(tmp_path, fake_batch_api):
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path

    from fieldstudio.inference.runs import provider_batch, provider_batch_records
    from fieldstudio.inference.runs import queue as run_queue

    profile = fake_profile(fake_batch_api, batch_api=True, batch_discount=0.5)
    profiles.add_profile(profile)
    path = tmp_path / "killed.fieldstudio"
    with Project.create(path) as p:
        run_id = run_queue.create_run(p, profile, [add_task(p, f"question {i}") for i in range(6)])
    fake_batch_api.hold = True                  # the batch stays in progress while the process waits
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-m", "fieldstudio", "run", "batch-resume", str(path), run_id,
                             "--poll-interval", "0.1"], env={**os.environ, "PYTHONPATH": str(root)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with Project.open(path) as p:
                states = provider_batch_records.batch_states(p, run_id)
            if states and states[0].status == "in_progress":
                break
            time.sleep(0.2)
        assert states and states[0].status == "in_progress", states
    finally:
        proc.kill()
        proc.wait(timeout=30)
    fake_batch_api.hold = False
    with Project.open(path) as p:
        assert provider_batch.wait(p, run_id, profile=profile, interval_s=0) == []
        summary = run_queue.run_summary(p, run_id)
    assert (summary.answered, summary.pending) == (6, 0)
    assert len(fake_batch_api.batches) == 1 and len(fake_batch_api.batch_lines) == 6
