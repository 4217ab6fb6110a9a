"""Agent mode on a scripted fake server: text actions, tool calls, invalid replies, step limit, vision profile."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from fieldstudio.inference.runs import queue as run_queue
from fieldstudio.inference.strategies.agent import ActionParseError, parse_text_action
from fieldstudio.store.models import Answer
from tests.support.fake_openai import Reply, tool_reply
from tests.support.run_fixtures import add_media, add_task, decode_rgb, fake_profile, jpeg_of, parts
from tests.support.video_fixtures import read_barcode


def _run(project, server, task, **params):
    profile = fake_profile(server)
    vision = params.pop("vision", None)
    run_id = run_queue.create_run(project, profile, [task], "agent", params=params, vision_profile=vision)
    summary = run_queue.execute_run(project, run_id, profile=profile, vision_profile=vision)
    with project.read() as s:
        answer = s.scalars(select(Answer).where(Answer.run_id == run_id)).one()
    return summary, answer


def _steps(answer):
    return [t for t in answer.trace if t["type"] == "step"]


@pytest.fixture
def video_task(project, clips):
    media = add_media(project, clips["vfr"])
    return add_task(project, "When does the bar slow down?", [("vfr.mp4", media["vfr.mp4"])])


def test_text_actions_analyze_then_answer(project, fake_openai, video_task):
    fake_openai.queue(Reply(text='I need to look.\nanalyze_video("/data/movie/vfr.mp4", "When does it slow down?")'),
                      Reply(text="It slows down at 00:00:05."),
                      Reply(text='send_msg_to_user("At 00:00:05.")'))
    summary, answer = _run(project, fake_openai, video_task, tool_calling="off")
    plan1, analysis, plan2 = fake_openai.chat_requests()
    assert not plan1.has_image and "tools" not in plan1.body
    assert "vfr.mp4: not analyzed yet" in parts(plan1)[0]["text"]
    assert "# Analyzed results" in parts(plan1)[0]["text"]
    assert analysis.body["messages"][0] == {"role": "system", "content": "When does it slow down?"}
    images = [p for p in parts(analysis) if p["type"] == "image_url"]
    assert [read_barcode(decode_rgb(jpeg_of(p["image_url"]["url"]))) for p in images][:7] == [0, 30, 60, 90, 120,
                                                                                             150, 165]
    assert len(images) == 15 and "timestamp: 00:00:14" in [p.get("text") for p in parts(analysis)]
    assert "It slows down at 00:00:05." in parts(plan2)[0]["text"]
    assert "not analyzed yet" not in parts(plan2)[0]["text"]
    assert summary.answered == 1 and answer.raw_text == "At 00:00:05."
    assert answer.parsed == {"answer": "At 00:00:05.", "steps": 2}
    steps = _steps(answer)
    assert [s["action"] for s in steps] == ["analyze_video", "send_msg_to_user"]
    assert steps[0]["args"]["path"] == "/data/movie/vfr.mp4" and steps[0]["result"] == "It slows down at 00:00:05."
    assert len(answer.frames) == 15 and {f["request"] for f in answer.frames} == {1}
    assert answer.prompt_tokens == 3 * 5 and answer.cost_usd == pytest.approx(3 * (5 * 2 + 1 * 8) / 1e6)


def test_tool_calls_are_used_when_the_endpoint_has_them(project, fake_openai, video_task):
    fake_openai.queue(tool_reply("analyze_video", path="vfr.mp4", query="speed?"), Reply(text="slower after 5 s"),
                      tool_reply("send_msg_to_user", text="After 5 s."))
    summary, answer = _run(project, fake_openai, video_task)
    first = fake_openai.chat_requests()[0].body
    assert [t["function"]["name"] for t in first["tools"]] == ["analyze_image", "analyze_video", "analyze_document",
                                                               "send_msg_to_user"]
    assert answer.raw_text == "After 5 s." and [s["via"] for s in _steps(answer)] == ["tool", "tool"]
    assert answer.prompt_tokens == 7 + 5 + 7


def test_tools_rejected_fall_back_to_text(project, fake_openai, video_task):
    def respond(request):
        if "tools" in request.body:
            return Reply(status=400, error_message="tools are not supported by this model")
        return Reply(text='send_msg_to_user("done")')

    fake_openai.responder = respond
    summary, answer = _run(project, fake_openai, video_task)
    requests = fake_openai.chat_requests()
    assert "tools" in requests[0].body and "tools" not in requests[1].body
    assert answer.raw_text == "done" and answer.error is None


def test_invalid_reply_unknown_path_and_wrong_kind_are_reported_to_the_planner(project, fake_openai, video_task):
    fake_openai.queue(Reply(text="The answer is probably 5 seconds."),
                      Reply(text='analyze_image("other.jpg", "what?")'),
                      Reply(text='analyze_image("vfr.mp4", "what?")'),
                      Reply(text='send_msg_to_user("5 s")'))
    summary, answer = _run(project, fake_openai, video_task)
    history = parts(fake_openai.chat_requests()[3])[0]["text"]
    assert "1. invalid reply: no action found" in history
    assert "unknown path 'other.jpg'" in history
    assert "vfr.mp4 is a video, so analyze_image cannot read it; use analyze_video" in history
    assert len(fake_openai.chat_requests()) == 4 and answer.raw_text == "5 s"
    assert _steps(answer)[0]["problem"].startswith("no action found")


def test_step_limit(project, fake_openai, video_task):
    fake_openai.responder = lambda request: Reply(text="thinking...")
    summary, answer = _run(project, fake_openai, video_task, max_steps=3)
    assert run_queue.split_error(answer.error)[0] == "max_steps" and summary.errors == {"max_steps": 1}
    assert len(fake_openai.chat_requests()) == 3 and answer.raw_text == "thinking..." and len(_steps(answer)) == 3


def test_analysis_goes_to_the_vision_profile_and_documents_as_text(project, tmp_path, fake_openai):
    manual = tmp_path / "manual.txt"
    manual.write_text("Lock out the breaker before opening the panel.", encoding="utf-8")
    media = add_media(project, manual)
    task = add_task(project, "What comes first?", [("manual.txt", media["manual.txt"])])
    fake_openai.queue(Reply(text='analyze_document("manual.txt", "first step?")'), Reply(text="lock out the breaker"),
                      Reply(text='send_msg_to_user("Lock out the breaker.")'))
    vision = fake_profile(fake_openai, name="vision", model="vision-vlm", price_input_per_mtok=10.0,
                          price_output_per_mtok=10.0)
    summary, answer = _run(project, fake_openai, task, vision=vision)
    models = [r.body["model"] for r in fake_openai.chat_requests()]
    assert models == ["fake-vlm", "vision-vlm", "fake-vlm"]
    doc = parts(fake_openai.chat_requests()[1])[0]["text"]
    assert doc.startswith("Text of the document manual.txt:") and "Lock out the breaker" in doc
    assert answer.cost_usd == pytest.approx(2 * (5 * 2 + 8) / 1e6 + (5 * 10 + 10) / 1e6)


def test_parse_text_action_is_strict():
    assert parse_text_action('analyze_image(path="a.jpg", query="x, y")') == ("analyze_image",
                                                                              {"path": "a.jpg", "query": "x, y"})
    assert parse_text_action('```\nsend_msg_to_user("use analyze_image later")\n```') == (
        "send_msg_to_user", {"text": "use analyze_image later"})
    for bad in ["analyze_image(a.jpg, 'x')", 'analyze_image("a.jpg")', 'send_msg_to_user("a") send_msg_to_user("b")',
                "analyze_scene_image('a', 'b')", 'send_msg_to_user(text="a", extra="b")']:
        with pytest.raises(ActionParseError):
            parse_text_action(bad)
