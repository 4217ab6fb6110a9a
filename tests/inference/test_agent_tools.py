"""The agent's local tools (issue 34 item 4), driven by a scripted fake server: measure_distance through the demo's
floor calibration gives the distance the demo's ruler reads; read_text gives what OCR reads; list_annotations the
clip's events and segments; detect_people the worker where marked by hand; each call and its result are trace steps; a run without local tools is not offered
them (the same tasks, to compare)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from fieldstudio.annotations.annotation_records import list_annotations
from fieldstudio.annotations.calibrations import measure_ruler
from fieldstudio.inference.runs import queue as run_queue
from fieldstudio.media.library import find_media
from fieldstudio.store.models import Answer
from tests.support.fake_openai import Reply, tool_reply
from tests.support.people_frames import NO_HOG_REASON, hog_available
from tests.support.run_fixtures import add_task, fake_profile


def _answer(project, run_id):
    with project.read() as s:
        return s.scalars(select(Answer).where(Answer.run_id == run_id)).one()


def test_an_agent_measures_the_demo_floor_within_the_rulers_value(demo_project, fake_openai):
    p = demo_project
    photo = find_media(p, "ppe_worker_hardhat_vest_warehouse_zone_frame045.png")
    (ruler,) = list_annotations(p, media_id=photo.id, kinds=("ruler",))
    truth = measure_ruler(p, ruler.id).metres
    assert truth is not None and truth > 0.5
    (x1, y1), (x2, y2) = ruler.geometry
    task = add_task(p, "How far is the worker from the column base, in metres?", [(photo.file_name, photo.id)])
    fake_openai.queue(
        tool_reply("measure_distance", path=photo.file_name, frame="0", points=f"{x1},{y1},{x2},{y2}",
                    on_floor="yes"),
        tool_reply("send_msg_to_user", text="about the distance measured"))
    profile = fake_profile(fake_openai)
    run_id = run_queue.create_run(p, profile, [task], "agent", params={"local_tools": "on"})
    run_queue.execute_run(p, run_id, profile=profile)
    first, second = fake_openai.chat_requests()
    offered = [t["function"]["name"] for t in first.body["tools"]]
    assert {"measure_distance", "read_text", "list_annotations"} <= set(offered)
    steps = [t for t in _answer(p, run_id).trace if t["type"] == "step"]
    assert steps[0]["action"] == "measure_distance" and steps[0]["local"] is True
    metres = float(steps[0]["result"].split(" m ")[0])
    assert metres == pytest.approx(truth, abs=0.01)           # the ruler's own value, to the centimetre
    assert f"{metres:.3f} m" in second.body["messages"][1]["content"]   # the planner saw the result

    # the same task without local tools: not offered, and a call of one is an invalid step
    fake_openai.queue(tool_reply("measure_distance", path=photo.file_name, frame="0", points="1,2,3,4",
                                  on_floor="yes"),
                      tool_reply("send_msg_to_user", text="unknown"))
    without = run_queue.create_run(p, profile, [task], "agent")
    run_queue.execute_run(p, without, profile=profile)
    plain = fake_openai.chat_requests()[2]
    assert "measure_distance" not in [t["function"]["name"] for t in plain.body["tools"]]
    steps = [t for t in _answer(p, without).trace if t["type"] == "step"]
    assert steps[0]["action"] is None and "unknown action" in steps[0]["problem"]


def test_read_text_and_list_annotations(demo_project, fake_openai, tmp_path):
    from fieldstudio.media import library
    from tests.support.text_photo import LINES, write_text_photo

    p = demo_project
    photo = write_text_photo(tmp_path / "gauge.png")
    gauge = library.add_paths(p, [photo]).media_ids[0]
    clip = find_media(p, "worker_zone_hardhat_vest_from_gif.mp4")
    task = add_task(p, "What does the gauge read, and what happens in the clip?",
                    [("gauge.png", gauge), (clip.file_name, clip.id)])
    x, y, w, h = LINES["4.2 bar"]
    fake_openai.queue(Reply(text=f'read_text("gauge.png", "0", "{x},{y},{w},{h}")'),
                      Reply(text=f'list_annotations("{clip.file_name}")'),
                      Reply(text='send_msg_to_user("4.2 bar")'))
    profile = fake_profile(fake_openai)
    run_id = run_queue.create_run(p, profile, [task], "agent", params={"local_tools": "on", "tool_calling": "off"})
    run_queue.execute_run(p, run_id, profile=profile)
    steps = [t for t in _answer(p, run_id).trace if t["type"] == "step"]
    assert [s["action"] for s in steps] == ["read_text", "list_annotations", "send_msg_to_user"]
    assert steps[0]["result"] == "4.2 bar"
    events = list_annotations(p, media_id=clip.id, kinds=("event", "segment"))
    assert events and len(steps[1]["result"].splitlines()) == len(events)
    assert all(r.label_name in steps[1]["result"] for r in events if r.label_name)


def test_follow_object_gives_the_box_the_clip_puts_there(project, tmp_path, fake_openai):
    from tests.support.run_fixtures import add_media
    from tests.support.tracking_clips import iou, make_clip, truth

    clip = make_clip(tmp_path / "wave.mp4", "wave", frames=60)
    media = add_media(project, clip)
    task = add_task(project, "Where is the block at frame 40?", [("wave.mp4", media["wave.mp4"])])
    x1, y1, x2, y2 = truth(10, "wave")
    fake_openai.queue(Reply(text=f'follow_object("wave.mp4", "10", "{x1},{y1},{x2 - x1},{y2 - y1}", "40")'),
                      Reply(text='send_msg_to_user("there")'))
    profile = fake_profile(fake_openai)
    run_id = run_queue.create_run(project, profile, [task], "agent", params={"local_tools": "on",
                                                                            "tool_calling": "off"})
    run_queue.execute_run(project, run_id, profile=profile)
    step = [t for t in _answer(project, run_id).trace if t["type"] == "step"][0]
    assert step["action"] == "follow_object" and step["result"].startswith("on frame 40: ")
    x, y, w, h = (float(v) for v in step["result"].split(": ")[1].split(" ")[0].split(","))
    assert iou((x, y, x + w, y + h), truth(40, "wave")) >= 0.7


@pytest.mark.skipif(not hog_available(), reason=NO_HOG_REASON)
def test_detect_people_finds_the_worker_where_marked(demo_project, fake_openai):
    from fieldstudio.core.box_overlap import box_iou
    from tests.support.people_frames import MARKED_PEOPLE, WORKER_CLIP

    p = demo_project
    photo = find_media(p, "ppe_worker_hardhat_vest_warehouse_zone_frame045.png")   # frame 45 of the worker clip
    task = add_task(p, "How many people are in the zone?", [(photo.file_name, photo.id)])
    fake_openai.queue(tool_reply("detect_people", path=photo.file_name, frame="0"),
                      tool_reply("send_msg_to_user", text="one"))
    profile = fake_profile(fake_openai)
    run_id = run_queue.create_run(p, profile, [task], "agent", params={"local_tools": "on"})
    run_queue.execute_run(p, run_id, profile=profile)
    first, second = fake_openai.chat_requests()
    assert "detect_people" in [t["function"]["name"] for t in first.body["tools"]]
    step = [t for t in _answer(p, run_id).trace if t["type"] == "step"][0]
    assert step["action"] == "detect_people" and step["local"] is True
    head, *boxes = step["result"].splitlines()
    assert "on frame 0 (opencv-hog " in head and boxes
    x, y, w, h = (float(v) for v in boxes[0].split(" ")[0].split(","))
    assert box_iou((x, y, x + w, y + h), MARKED_PEOPLE[(WORKER_CLIP, 45)][0]) >= 0.5
    assert boxes[0] in second.body["messages"][1]["content"]            # the planner saw the boxes
