"""What a run keeps for its reproducibility record (``inference.runs.run_context``): one session per execution,
including batch runs, stored on the run in the project."""

from __future__ import annotations

import av
import cv2
import pytest

from fieldstudio import __version__
from fieldstudio.core.errors import NotFound
from fieldstudio.inference.runs import provider_batch, run_context, vllm_batch_files
from fieldstudio.inference.runs import queue as run_queue
from fieldstudio.store.models import Run
from tests.support.run_fixtures import add_task, fake_profile


def _sessions(project, run_id: str) -> list[dict]:
    with project.read() as s:
        return run_context.record_entries(s.get(Run, run_id).params)["sessions"]


def test_each_execution_adds_one_session_and_a_finished_run_adds_none(project, fake_openai):
    profile = fake_profile(fake_openai, seed=11)
    run_id = run_queue.create_run(project, profile, [add_task(project, "q?", external_id="q1")], "blind")
    run_queue.execute_run(project, run_id, profile=profile)
    run_queue.execute_run(project, run_id, profile=profile)     # nothing pending: nothing executed, nothing kept
    (session,) = _sessions(project, run_id)
    assert session["fieldstudio_version"] == __version__ and session["seed"] == 11
    assert session["versions"]["pyav"] == av.__version__ and session["versions"]["opencv"] == cv2.__version__
    assert session["endpoint_kind"] == "openai-compatible" and session["served"]["listed"] == ["fake-vlm"]
    assert session["settings"] == {"concurrency": 1, "use_cache": True, "retry_failed": False}


def test_a_batch_file_and_a_batch_api_run_keep_a_session(project, tmp_path, fake_batch_api):
    profile = fake_profile(fake_batch_api, batch_api=True, batch_discount=0.5)
    tasks = [add_task(project, f"q{i}?", external_id=f"q{i}") for i in range(2)]
    file_run = run_queue.create_run(project, profile, tasks, "blind")
    vllm_batch_files.write_file(project, file_run, tmp_path / "requests.jsonl", profile=profile)
    (session,) = _sessions(project, file_run)
    assert session["settings"]["batch"] == "vllm run-batch file requests.jsonl" and session["served"] is None
    api_run = run_queue.create_run(project, profile, tasks, "blind")
    provider_batch.submit(project, api_run, profile=profile, use_cache=False)
    (session,) = _sessions(project, api_run)
    assert session["settings"]["batch"] == "provider Batch API" and session["settings"]["batches"] == 1


def test_entries_of_an_unknown_kind_or_run_are_refused(project):
    with pytest.raises(ValueError, match="sessions and scorings"):
        run_context.add_record_entry(project, "x", "notes", {})
    with pytest.raises(NotFound):
        run_context.add_record_entry(project, "no-such-run", "sessions", {})


def test_entries_of_several_runs_are_added_in_one_write_or_not_at_all(project):
    from tests.support.scoring_fixtures import add_run

    first, second = add_run(project, "a", {}), add_run(project, "b", {})
    run_context.add_record_entries(project, "scorings", {first: {"n": 1}, second: {"n": 2}})
    with pytest.raises(NotFound):
        run_context.add_record_entries(project, "scorings", {first: {"n": 3}, "no-such-run": {"n": 4}})
    with project.read() as s:
        kept = {r: run_context.record_entries(s.get(Run, r).params)["scorings"] for r in (first, second)}
    assert kept == {first: [{"n": 1}], second: [{"n": 2}]}      # the refused call left the first run alone too
