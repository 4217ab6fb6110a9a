"""The run queue: answers with tokens and cost, the cache, resuming after a cancel or a kill, error kinds,
fatal errors, concurrency per profile."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from fieldstudio.inference.runs import queue as run_queue
from fieldstudio.store.models import Answer, ResponseCache, Run
from fieldstudio.store.project import Project
from tests.support.fake_openai import Reply
from tests.support.run_fixtures import add_media, add_task, fake_profile


def _tasks(project, n: int) -> list[str]:
    return [add_task(project, f"question {i}", external_id=f"q{i:02d}") for i in range(n)]


def _answers(project, run_id) -> list[Answer]:
    with project.read() as s:
        return list(s.scalars(select(Answer).where(Answer.run_id == run_id)))


def _by_query(project, run_id) -> dict[str, Answer]:
    from fieldstudio.store.models import Task

    with project.read() as s:
        rows = s.execute(select(Task.query, Answer).join(Answer, Answer.task_id == Task.id)
                         .where(Answer.run_id == run_id)).all()
    return {q: a for q, a in rows}


def test_answers_store_tokens_cost_latency_and_run_copy(project, fake_openai):
    """Usage 1000 in / 200 out at $2 / $8 per million: 1000*2/1e6 + 200*8/1e6 = $0.0036 per answer."""
    ids = _tasks(project, 3)
    fake_openai.responder = lambda request: Reply(text="answer", prompt_tokens=1000, completion_tokens=200)
    profile = fake_profile(fake_openai, api_key_env="FS_UNUSED_KEY_VAR", prices_date="2026-01-01")
    os.environ["FS_UNUSED_KEY_VAR"] = "sk-test-not-stored-1234567"
    try:
        run_id = run_queue.create_run(project, profile, ids, "fieldworkarena")
        summary = run_queue.execute_run(project, run_id, profile=profile)
    finally:
        del os.environ["FS_UNUSED_KEY_VAR"]
    assert (summary.answered, summary.failed, summary.pending, summary.status) == (3, 0, 0, "done")
    assert summary.prompt_tokens == 3000 and summary.completion_tokens == 600
    assert summary.cost_usd == pytest.approx(3 * 0.0036) and summary.cost_complete
    for a in _answers(project, run_id):
        assert (a.raw_text, a.prompt_tokens, a.completion_tokens) == ("answer", 1000, 200)
        assert a.reasoning_tokens is None and a.cost_usd == pytest.approx(0.0036)
        assert a.latency_s is not None and a.latency_s > 0 and not a.from_cache and a.retries == 0
        assert a.parsed == {"answer": "answer"}
    with project.read() as s:
        run = s.get(Run, run_id)
        from fieldstudio.store.models import ModelProfile as Row

        row = s.get(Row, run.profile_id)
    assert run.strategy == "fieldworkarena" and run.strategy_version == "1"
    assert run.params["prices"]["date"] == "2026-01-01" and run.params["prices"]["input_per_mtok"] == 2.0
    assert "api_key_env" not in row.params and row.params["api_key_source"] == "env"
    assert "sk-test-not-stored" not in json.dumps(row.params) + json.dumps(run.params)


def test_usage_absent_gives_null_tokens_and_unknown_cost(project, fake_openai):
    ids = _tasks(project, 2)
    fake_openai.responder = lambda request: Reply(text="x", usage=False)
    profile = fake_profile(fake_openai)
    summary = run_queue.execute_run(project, run_queue.create_run(project, profile, ids), profile=profile)
    assert summary.answered == 2 and not summary.cost_complete
    with project.read() as s:
        rows = s.execute(select(Answer.prompt_tokens, Answer.completion_tokens, Answer.cost_usd)).all()
    assert rows == [(None, None, None), (None, None, None)]


def test_cache_hit_costs_nothing(project, clips, fake_openai):
    media = add_media(project, clips["cfr_bframes"])
    ids = [add_task(project, "What moves?", [("cfr_bframes.mp4", media["cfr_bframes.mp4"])]), *_tasks(project, 2)]
    fake_openai.responder = lambda request: Reply(text="reply", prompt_tokens=100, completion_tokens=10)
    profile = fake_profile(fake_openai)
    first = run_queue.execute_run(project, run_queue.create_run(project, profile, ids), profile=profile)
    assert first.cost_usd == pytest.approx(3 * (100 * 2 + 10 * 8) / 1e6)
    paid_requests = len(fake_openai.chat_requests())
    second_id = run_queue.create_run(project, profile, ids)
    second = run_queue.execute_run(project, second_id, profile=profile)
    assert len(fake_openai.chat_requests()) == paid_requests == 3      # nothing sent again
    assert (second.answered, second.from_cache, second.cost_usd) == (3, 3, 0.0)
    for a in _answers(project, second_id):
        assert a.from_cache and a.cost_usd == 0.0 and a.raw_text == "reply" and a.prompt_tokens == 100
        assert a.trace[0]["original_cost_usd"] == pytest.approx((100 * 2 + 10 * 8) / 1e6)
    video_answer = next(a for a in _answers(project, second_id) if a.frames)
    assert len(video_answer.frames) == 10
    # a different model, or a different strategy version of the prompt, is not answered from the cache
    other = fake_profile(fake_openai, model="other-vlm")
    run_queue.execute_run(project, run_queue.create_run(project, other, ids[:1]), profile=other)
    assert len(fake_openai.chat_requests()) == 4
    third = run_queue.execute_run(project, run_queue.create_run(project, profile, ids[:1]), profile=profile,
                                  use_cache=False)
    assert third.from_cache == 0 and len(fake_openai.chat_requests()) == 5


def test_resume_after_cancel_has_no_duplicates_and_pays_once(project, fake_openai):
    ids = _tasks(project, 8)
    profile = fake_profile(fake_openai, concurrency=1)
    run_id = run_queue.create_run(project, profile, ids)
    reported = []
    summary = run_queue.execute_run(project, run_id, profile=profile, progress=lambda d, t: reported.append((d, t)),
                                    cancelled=lambda: len(fake_openai.chat_requests()) >= 3)
    assert reported[0] == (0, 8) and reported[-1] == (3, 8)
    assert (summary.status, summary.answered, summary.pending) == ("cancelled", 3, 5)
    assert len(fake_openai.chat_requests()) == 3
    resumed = run_queue.execute_run(project, run_id, profile=profile)
    assert (resumed.status, resumed.answered, resumed.pending, resumed.total) == ("done", 8, 0, 8)
    assert len(fake_openai.chat_requests()) == 8                         # the first 3 were not paid again
    with project.read() as s:
        per_task = s.execute(select(Answer.task_id, func.count()).where(Answer.run_id == run_id)
                             .group_by(Answer.task_id)).all()
    assert sorted(t for t, _ in per_task) == sorted(ids) and {n for _, n in per_task} == {1}
    again = run_queue.execute_run(project, run_id, profile=profile)
    assert again.answered == 8 and len(fake_openai.chat_requests()) == 8


_KILLED_RUN = textwrap.dedent("""
    import sys
    sys.path.insert(0, {root!r})
    from fieldstudio.inference.profiles import ModelProfile
    from fieldstudio.inference.runs import queue as run_queue
    from fieldstudio.store.project import Project
    profile = ModelProfile(name="fake", base_url={base_url!r}, model="fake-vlm", retries=0, concurrency=2)
    with Project.open({path!r}) as p:
        run_queue.execute_run(p, {run_id!r}, profile=profile)
""")


def test_killed_process_resumes_where_it_stopped(tmp_path, fake_openai):
    """SIGKILL the process running a run after some answers; a new execute_run finishes the rest once."""
    path = tmp_path / "killed.fieldstudio"
    with Project.create(path) as project:
        ids = _tasks(project, 12)
        profile = fake_profile(fake_openai, concurrency=2)
        run_id = run_queue.create_run(project, profile, ids)
    fake_openai.latency_s = 0.15
    script = _KILLED_RUN.format(root=str(Path(__file__).resolve().parents[2]), base_url=fake_openai.base_url,
                                path=str(path), run_id=run_id)
    proc = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.monotonic() + 60
    with Project.open(path) as watcher:
        while time.monotonic() < deadline:
            done = len([a for a in _answers(watcher, run_id) if a.raw_text is not None])
            if done >= 4 or proc.poll() is not None:
                break
            time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    fake_openai.latency_s = 0.0
    with Project.open(path) as project:
        before = len([a for a in _answers(project, run_id) if a.raw_text is not None])
        assert 4 <= before < 12
        sent_before = len(fake_openai.chat_requests())
        summary = run_queue.execute_run(project, run_id, profile=profile)
        assert (summary.answered, summary.pending) == (12, 0)
        assert len(fake_openai.chat_requests()) - sent_before == 12 - before   # finished answers not paid again
        assert project.integrity_check() == "ok"


def test_error_kinds_are_stored_and_do_not_stop_the_run(project, tmp_path, fake_openai):
    queries = ["server", "ratelimit", "timeout", "badjson", "refusal", "filter", "eqa", "fine"]
    ids = [add_task(project, q, external_id=q) for q in queries]
    ids.append(add_task(project, "missing", [("gone.mp4", None)], external_id="missing"))
    content_filter = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "fake-vlm",
                                 "choices": [{"index": 0, "message": {"role": "assistant", "content": ""},
                                              "finish_reason": "content_filter"}]})
    attempts: dict[str, int] = {}

    def respond(request):
        text = json.dumps(request.body["messages"])
        query = next(q for q in queries if f"# Question\\n{q}\\n" in text)
        attempts[query] = attempts.get(query, 0) + 1
        if query == "server":
            return Reply(status=503, error_message="overloaded")
        if query == "ratelimit" and attempts[query] == 1:
            return Reply(status=429, headers={"Retry-After": "0.05"})
        if query == "timeout":
            return Reply(delay_s=1.5)
        if query == "badjson":
            return Reply(body="{not json")
        if query == "refusal":
            return Reply(text="I'm sorry, but I can't help with that.")
        if query == "filter":
            return Reply(body=content_filter)
        return Reply(text=f"answer to {query}")

    fake_openai.responder = respond
    profile = fake_profile(fake_openai, retries=2, timeout_s=0.5)
    run_id = run_queue.create_run(project, profile, ids)
    summary = run_queue.execute_run(project, run_id, profile=profile)
    answers = _by_query(project, run_id)
    kinds = {q: run_queue.split_error(a.error)[0] for q, a in answers.items()}
    assert kinds == {"server": "server_error", "ratelimit": None, "timeout": "timeout", "badjson": "bad_response",
                     "refusal": "refusal", "filter": "content_filter", "eqa": None, "fine": None,
                     "missing": "missing_media"}
    assert answers["server"].retries == 2 and attempts["server"] == 3
    assert answers["ratelimit"].retries == 1 and answers["ratelimit"].raw_text == "answer to ratelimit"
    assert answers["refusal"].raw_text == "I'm sorry, but I can't help with that."
    assert "gone.mp4" in answers["missing"].error and answers["missing"].cost_usd == 0.0
    assert (summary.status, summary.answered, summary.failed, summary.pending) == ("done", 3, 6, 0)
    assert summary.errors == {"server_error": 1, "timeout": 1, "bad_response": 1, "refusal": 1,
                              "content_filter": 1, "missing_media": 1}
    # failed answers are tried again only when asked
    again = run_queue.execute_run(project, run_id, profile=profile)
    assert again.failed == 6 and attempts["server"] == 3
    fake_openai.responder = lambda request: Reply(text="fixed")
    retried = run_queue.execute_run(project, run_id, profile=profile, retry_failed=True)
    assert retried.failed == 1 and retried.errors == {"missing_media": 1}


def test_malformed_json_keeps_the_raw_text(project, fake_openai):
    ids = _tasks(project, 1)
    fake_openai.queue(Reply(text="Yes, the aisle is blocked."))
    profile = fake_profile(fake_openai)
    run_id = run_queue.create_run(project, profile, ids, "industryeqa")
    run_queue.execute_run(project, run_id, profile=profile)
    (answer,) = _answers(project, run_id)
    assert run_queue.split_error(answer.error)[0] == "malformed_json"
    assert answer.raw_text == "Yes, the aisle is blocked." and answer.parsed["direct_answer"] == ""


def test_too_many_images_are_thinned_to_the_limit_and_the_cut_is_stated(project, clips, fake_openai):
    """The vfr clip gives 15 frames (FieldWorkArena's 1 frame/s); a limit of 5 keeps uniform_indices(0, 14, 5) =
    positions 0, 3, 7, 10, 14 of them, each still after its own timestamp, and the answer says what was cut."""
    from tests.support.run_fixtures import parts

    media = add_media(project, clips["vfr"])
    task = add_task(project, "q", [("vfr.mp4", media["vfr.mp4"])])
    built = run_queue.create_run(project, fake_profile(fake_openai), [task], "fieldworkarena")
    run_queue.execute_run(project, built, profile=fake_profile(fake_openai))
    all_frames = [f["frame_index"] for f in _answers(project, built)[0].frames]
    assert len(all_frames) == 15
    profile = fake_profile(fake_openai, max_images_per_request=5)
    run_id = run_queue.create_run(project, profile, [task], "fieldworkarena")
    summary = run_queue.execute_run(project, run_id, profile=profile, use_cache=False)
    assert summary.answered == 1 and summary.errors == {}
    content = parts(fake_openai.chat_requests()[-1])
    kinds = [p["type"] for p in content]
    assert kinds.count("image_url") == 5
    assert all(content[i - 1]["text"].startswith("timestamp: ") for i, k in enumerate(kinds) if k == "image_url")
    answer = _answers(project, run_id)[0]
    assert [f["frame_index"] for f in answer.frames] == [all_frames[i] for i in (0, 3, 7, 10, 14)]
    cut = [t for t in answer.trace if t["type"] == "cut"]
    assert [c["text"] for c in cut] == ["15 asked, 5 sent: the server accepts 5 images per request (the profile's "
                                        "limit)"]


def test_a_limit_the_server_announces_is_kept_for_the_run(project, clips, fake_openai):
    """vLLM-style refusal ("At most 4 image(s) may be provided in one request."): the request is sent again with 4
    frames, and the next task's request is fitted before it is sent."""
    from tests.support.run_fixtures import parts

    media = add_media(project, clips["vfr"])
    tasks = [add_task(project, f"q{i}", [("vfr.mp4", media["vfr.mp4"])]) for i in range(2)]
    fake_openai.max_images = 4
    profile = fake_profile(fake_openai)
    run_id = run_queue.create_run(project, profile, tasks, "fieldworkarena")
    summary = run_queue.execute_run(project, run_id, profile=profile)
    assert summary.answered == 2 and summary.errors == {}
    sent = [sum(p["type"] == "image_url" for p in parts(r)) for r in fake_openai.chat_requests()]
    assert sent == [15, 4, 4]          # refused once; then every request fitted before it is sent
    for answer in _answers(project, run_id):
        assert len(answer.frames) == 4
        assert [t["text"] for t in answer.trace if t["type"] == "cut"] == [
            "15 asked, 4 sent: the server accepts 4 images per request (announced by the server)"]


def test_fatal_error_stops_the_run_and_leaves_answers_pending(project, fake_openai):
    ids = _tasks(project, 4)
    fake_openai.require_key = "sk-right-key-000000"
    os.environ["FS_WRONG_KEY"] = "sk-wrong-key-111111"
    try:
        profile = fake_profile(fake_openai, api_key_env="FS_WRONG_KEY", concurrency=1)
        run_id = run_queue.create_run(project, profile, ids)
        summary = run_queue.execute_run(project, run_id, profile=profile)
    finally:
        del os.environ["FS_WRONG_KEY"]
    assert summary.status == "failed" and summary.pending == 4 and "401" in summary.stopped
    assert len(fake_openai.chat_requests()) == 1
    fake_openai.require_key = None
    resumed = run_queue.execute_run(project, run_id, profile=fake_profile(fake_openai))
    assert resumed.answered == 4 and resumed.status == "done"


def test_concurrency_is_limited_per_profile(project, fake_openai):
    ids = _tasks(project, 12)
    lock = threading.Lock()
    state = {"now": 0, "max": 0}

    def respond(request):
        with lock:
            state["now"] += 1
            state["max"] = max(state["max"], state["now"])
        time.sleep(0.2)
        with lock:
            state["now"] -= 1
        return Reply(text="ok")

    fake_openai.responder = respond
    profile = fake_profile(fake_openai, concurrency=3)
    started = time.monotonic()
    summary = run_queue.execute_run(project, run_queue.create_run(project, profile, ids), profile=profile)
    elapsed = time.monotonic() - started
    assert summary.answered == 12 and state["max"] == 3
    assert elapsed < 12 * 0.2 * 0.75          # serial would take 2.4 s; 3 at a time about 0.8 s


def test_select_tasks_filters(project, fake_openai):
    a = add_task(project, "a", external_id="2.1.0001", category="2.1", scenario="warehouse", answer_type="number")
    b = add_task(project, "b", external_id="2.2.0001", category="2.2", scenario="factory")
    c = add_task(project, "c", external_id="3.1.0001", category="3.1", scenario="warehouse")
    assert run_queue.select_tasks(project, category="2") == [a, b]
    assert run_queue.select_tasks(project, scenario="warehouse") == [a, c]
    assert run_queue.select_tasks(project, answer_type="number") == [a]
    assert run_queue.select_tasks(project, ids=["3.1.0001", a]) == [a, c]
    assert run_queue.select_tasks(project, limit=2) == [a, b]
    profile = fake_profile(fake_openai)
    run_queue.execute_run(project, run_queue.create_run(project, profile, [a]), profile=profile)
    assert run_queue.select_tasks(project, unanswered_by="fake") == [b, c]
    from fieldstudio.core.errors import NotFound

    with pytest.raises(NotFound, match="9.9.9999"):
        run_queue.select_tasks(project, ids=["9.9.9999"])


def test_cache_table_holds_one_entry_per_distinct_request(project, fake_openai):
    ids = _tasks(project, 3)
    profile = fake_profile(fake_openai)
    run_queue.execute_run(project, run_queue.create_run(project, profile, ids), profile=profile)
    run_queue.execute_run(project, run_queue.create_run(project, profile, ids), profile=profile)
    with project.read() as s:
        assert s.scalar(select(func.count()).select_from(ResponseCache)) == 3
