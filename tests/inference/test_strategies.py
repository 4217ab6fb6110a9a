"""Prompt strategies: frame choice, timestamps and message layout, checked against benchmarks.md by hand.

The clips carry their frame index as a barcode, so the frame a model received is identified from the JPEG
the fake server got (decoded by OpenCV and `read_barcode`, independently of fieldstudio).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image, ImageOps

from fieldstudio.inference import sampling
from fieldstudio.inference.runs import queue as run_queue
from fieldstudio.inference.strategies import preview
from fieldstudio.inference.strategies.acceptability import parse_acceptability
from fieldstudio.inference.strategies.industryeqa import EQA_PARSE_FAILED, parse_eqa_answer
from fieldstudio.store.models import Answer
from tests.support.fake_openai import Reply
from tests.support.run_fixtures import add_media, add_task, decode_rgb, fake_profile, jpeg_of, parts, sha256
from tests.support.video_fixtures import read_barcode

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "media"


def _image_parts(content):
    return [p for p in content if p["type"] == "image_url"]


def _barcodes(content) -> list[int]:
    return [read_barcode(decode_rgb(jpeg_of(p["image_url"]["url"]))) for p in _image_parts(content)]


def _run(project, server, task_ids, strategy, **kw):
    profile = fake_profile(server)
    run_id = run_queue.create_run(project, profile, task_ids, strategy, params=kw.pop("params", None))
    return run_queue.execute_run(project, run_id, profile=profile, **kw), run_id


# -- pure sampling ---------------------------------------------------------------------------------


@pytest.mark.parametrize("n, fps, count, last_index, last_label", [
    (870, 30, 29, 840, "00:00:28"),
    (900, 30, 30, 899, "00:00:29"),
    (1800, 30, 30, 1798, "00:00:59"),
    (36000, 30, 30, 35989, "00:19:59"),
    (100, 1, 34, 99, "00:01:39"),
])
def test_fwa_metadata_sampling_matches_the_table(n, fps, count, last_index, last_label):
    """benchmarks.md §1.8 table: frames sent, last index and last timestamp for each (N, fps)."""
    frames = sampling.fwa_metadata_indices(n, fps)
    assert len(frames) == count
    assert frames[-1].frame_index == last_index
    assert sampling.hhmmss(frames[-1].label_s) == last_label
    assert len(sampling.fwa_metadata_indices(100, 1, cap=True)) == 30


def test_fwa_metadata_sampling_refuses_fps_zero():
    with pytest.raises(ValueError, match="0 frames per second"):
        sampling.fwa_metadata_indices(100, 0)


def test_uniform_indices_match_industryeqa_examples():
    """benchmarks.md §2.3: N = 300, n = 10 and n = 30."""
    assert sampling.uniform_indices(0, 299, 10) == [0, 33, 66, 99, 132, 166, 199, 232, 265, 299]
    thirty = sampling.uniform_indices(0, 299, 30)
    assert thirty[:5] == [0, 10, 20, 30, 41] and thirty[-3:] == [278, 288, 299] and len(thirty) == 30
    assert sampling.uniform_indices(0, 299, 1) == [149]


def test_hhmmss_truncates():
    assert sampling.hhmmss(59.99) == "00:00:59"
    assert sampling.hhmmss(3725.5) == "01:02:05"


# -- fieldworkarena --------------------------------------------------------------------------------


def test_fieldworkarena_vfr_clip_one_frame_per_second(project, clips, fake_openai):
    """vfr.mp4: frames 0-149 at 30 fps (0-5 s), 150-299 at 15 fps (5-15 s), so 15 s long.

    One frame per second: t = 0..14 s is frame 30 t for t <= 5 and 150 + 15 (t - 5) after.
    """
    media = add_media(project, clips["vfr"])
    task = add_task(project, "When does the bar move?", [("vfr.mp4", media["vfr.mp4"])])
    summary, run_id = _run(project, fake_openai, [task], "fieldworkarena")
    assert summary.answered == 1
    request = fake_openai.chat_requests()[0]
    system = [m for m in request.body["messages"] if m["role"] == "system"]
    assert len(system) == 1
    content = parts(request)
    assert content[0]["type"] == "text" and "When does the bar move?" in content[0]["text"]
    assert "vfr.mp4" in content[0]["text"]
    notice = content[1]
    assert notice["type"] == "text" and notice["text"].startswith("\n") and notice["text"].endswith("vfr.mp4:")
    frames = content[2:]
    expected = [30 * t for t in range(6)] + [150 + 15 * (t - 5) for t in range(6, 15)]
    assert [p["type"] for p in frames] == ["text", "image_url"] * 15
    assert [p["text"] for p in frames[0::2]] == [f"timestamp: 00:00:{t:02d}" for t in range(15)]
    assert _barcodes(frames) == expected
    assert all(p["image_url"]["detail"] == "high" for p in _image_parts(frames))
    with project.read() as s:
        answer = s.query(Answer).filter_by(run_id=run_id).one()
    sent = [sha256(jpeg_of(p["image_url"]["url"])) for p in _image_parts(frames)]
    assert [f["sha256"] for f in answer.frames] == sent
    assert [f["frame_index"] for f in answer.frames] == expected
    assert answer.frames[6]["pts_s"] == pytest.approx(6.0, abs=1e-3)


def test_fieldworkarena_cfr_clip_and_time_range(project, clips, fake_openai):
    """cfr_bframes.mp4: 300 frames at 30 fps = 10 s -> 10 frames 0, 30, ..., 270.
    The range 2-6 s of vfr.mp4 -> frames at 2, 3, 4, 5 s = 60, 90, 120, 150, labelled in video time."""
    media = add_media(project, clips["cfr_bframes"], clips["vfr"])
    whole = add_task(project, "q1", [("cfr_bframes.mp4", media["cfr_bframes.mp4"])], external_id="a")
    part = add_task(project, "q2", [("vfr.mp4", media["vfr.mp4"])], ranges={0: (2.0, 6.0)}, external_id="b")
    profile = fake_profile(fake_openai)
    first = preview(project, whole, "fieldworkarena", profile)[0]
    content = first.messages[1]["content"]
    assert _barcodes(content) == list(range(0, 300, 30))
    assert [p["text"] for p in content[2::2]] == [f"timestamp: 00:00:{t:02d}" for t in range(10)]
    second = preview(project, part, "fieldworkarena", profile)[0].messages[1]["content"]
    assert _barcodes(second) == [60, 90, 120, 150]
    assert [p["text"] for p in second[2::2]] == ["timestamp: 00:00:02", "timestamp: 00:00:03",
                                                  "timestamp: 00:00:04", "timestamp: 00:00:05"]


@pytest.fixture(scope="module")
def long_clip(tmp_path_factory) -> Path:
    """60 s at 10 fps (600 frames), 160x96, made by ffmpeg's test source."""
    out = tmp_path_factory.mktemp("long") / "long60.mp4"
    subprocess.run([shutil.which("ffmpeg"), "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x96:rate=10",
                    "-t", "60", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", str(out)], check=True)
    return out


def test_fieldworkarena_long_clip_gets_about_30_frames(project, long_clip):
    """A 60 s clip: 30 frames 2 s apart (benchmarks.md §1.8: 'longer videos get about 30 evenly spaced')."""
    media = add_media(project, long_clip)
    task = add_task(project, "q", [("long60.mp4", media["long60.mp4"])])
    from fieldstudio.inference.profiles import ModelProfile

    prompt = preview(project, task, "fieldworkarena", ModelProfile(name="x", base_url="http://h/v1", model="m"))[0]
    assert [im.frame_index for im in prompt.images] == list(range(0, 600, 20))
    labels = [p["text"] for p in prompt.messages[1]["content"] if p["type"] == "text"][2:]
    assert labels[0] == "timestamp: 00:00:00" and labels[1] == "timestamp: 00:00:02" and labels[-1] == "timestamp: 00:00:58"


def test_fieldworkarena_documents_as_text_and_photos(project, tmp_path, fake_openai):
    manual = tmp_path / "manual.txt"
    manual.write_text("Step 1: unplug the machine.\nStep 2: clean the filter.\n", encoding="utf-8")
    photo = tmp_path / "orange.jpg"
    shutil.copy(SAMPLE / "images" / "retail_grocery_Bravo-Orange-Juice_024.jpg", photo)
    media = add_media(project, manual, photo)
    task = add_task(project, "Which step comes first?", [("orange.jpg", media["orange.jpg"]),
                                                         ("manual.txt", media["manual.txt"])], output_format="json")
    prompt = preview(project, task, "fieldworkarena", fake_profile(fake_openai))[0]
    content = prompt.messages[1]["content"]
    assert "JSON" in content[0]["text"]
    assert content[1] == {"type": "text", "text": "orange.jpg:"}
    assert content[2]["type"] == "image_url"
    assert decode_rgb(jpeg_of(content[2]["image_url"]["url"])).shape == (348, 348, 3)
    doc = content[3]["text"]
    assert doc.startswith("The following is the content of the provided text file manual.txt:\n")
    assert "Step 1: unplug the machine." in doc and "Step 2: clean the filter." in doc
    assert len(content) == 4


def test_task_without_media_is_sent_as_text(project, fake_openai):
    task = add_task(project, "How many metres is 12 feet?")
    summary, _ = _run(project, fake_openai, [task], "fieldworkarena")
    assert summary.answered == 1
    request = fake_openai.chat_requests()[0]
    assert not request.has_image
    assert "How many metres is 12 feet?" in parts(request)[0]["text"]


# -- industryeqa and blind -------------------------------------------------------------------------


def test_industryeqa_uniform_frames_no_timestamps(project, clips, fake_openai):
    media = add_media(project, clips["cfr_bframes"])
    task = add_task(project, "Is the aisle clear?", [("cfr_bframes.mp4", media["cfr_bframes.mp4"])])
    prompt = preview(project, task, "industryeqa", fake_profile(fake_openai), {"frames": 10})[0]
    assert [m["role"] for m in prompt.messages] == ["user"]
    content = prompt.messages[0]["content"]
    assert content[0]["type"] == "text" and content[0]["text"].endswith("Question: Is the aisle clear?")
    assert "direct_answer" in content[0]["text"] and "reasoning_answer" in content[0]["text"]
    assert [p["type"] for p in content[1:]] == ["image_url"] * 10          # after the text, no timestamps
    assert _barcodes(content) == [0, 33, 66, 99, 132, 166, 199, 232, 265, 299]
    assert all(p["image_url"]["detail"] == "low" for p in content[1:])
    default = preview(project, task, "industryeqa", fake_profile(fake_openai))[0]
    assert len(default.images) == 30


def test_industryeqa_photo_is_upright_and_768(project, tmp_path):
    """A 1600x1200 JPEG with EXIF orientation: upright 1200x1600, so 576x768 after the 768 limit."""
    src = SAMPLE / "images" / "ppe_electrician_hivis_systems_equipment_mta.jpg"
    w, h = ImageOps.exif_transpose(Image.open(src)).size
    photo = tmp_path / src.name
    shutil.copy(src, photo)
    media = add_media(project, photo)
    task = add_task(project, "What does the worker wear?", [(photo.name, media[photo.name])])
    from fieldstudio.inference.profiles import ModelProfile

    prompt = preview(project, task, "industryeqa", ModelProfile(name="x", base_url="http://h/v1", model="m"))[0]
    rgb = decode_rgb(prompt.images[0].jpeg)
    assert (w, h) == (1200, 1600)
    assert rgb.shape[:2] == (768, round(w * 768 / h))


def test_blind_sends_the_question_alone(project, clips, fake_openai):
    media = add_media(project, clips["cfr_bframes"])
    task = add_task(project, "What is stored on the racks?", [("cfr_bframes.mp4", media["cfr_bframes.mp4"])])
    fake_openai.queue(Reply(text='{"direct_answer": "Boxes.", "reasoning_answer": "Racks usually hold boxes."}'))
    summary, run_id = _run(project, fake_openai, [task], "blind")
    request = fake_openai.chat_requests()[0]
    assert not request.has_image
    assert request.body["messages"][0]["content"].endswith("Question: What is stored on the racks?")
    with project.read() as s:
        answer = s.query(Answer).filter_by(run_id=run_id).one()
    assert answer.parsed == {"answer": "Boxes.", "direct_answer": "Boxes.", "reasoning_answer": "Racks usually hold boxes."}
    assert answer.frames == []


def test_blind_text_sends_one_plain_message_and_keeps_the_reply(project, clips, fake_openai):
    media = add_media(project, clips["cfr_bframes"])
    task = add_task(project, "How many pallets are on the floor?", [("cfr_bframes.mp4", media["cfr_bframes.mp4"])])
    fake_openai.queue(Reply(text=" 3 "))
    summary, run_id = _run(project, fake_openai, [task], "blind-text")
    (request,) = fake_openai.chat_requests()
    assert not request.has_image
    (message,) = request.body["messages"]
    assert isinstance(message["content"], str)                   # not parts: text-only chat templates read it
    assert "Question: How many pallets are on the floor?" in message["content"]
    with project.read() as s:
        answer = s.query(Answer).filter_by(run_id=run_id).one()
    assert answer.parsed == {"answer": "3"} and answer.error is None and answer.frames == []


def test_parse_eqa_answer_follows_industryeqa():
    fenced = 'Sure.\n```json\n{"direct_answer": "No", "reasoning_answer": "The rack is flush."}\n```'
    assert parse_eqa_answer(fenced)[0]["direct_answer"] == "No"
    inline = 'Answer: {"direct_answer": "Yes.", "reasoning_answer": "A pallet blocks it."} done'
    assert parse_eqa_answer(inline)[0]["reasoning_answer"] == "A pallet blocks it."
    parsed, kind, _ = parse_eqa_answer("The answer is yes.")
    assert (parsed["direct_answer"], parsed["reasoning_answer"], kind) == ("", EQA_PARSE_FAILED, "malformed_json")


# -- chunked ---------------------------------------------------------------------------------------


def test_chunked_describes_each_chunk_then_answers(project, clips, fake_openai):
    """vfr.mp4 (15 s) in 5 s chunks: [0,5) frames 0..120 step 30, [5,10) 150..210 step 15, [10,15) 225..285."""
    media = add_media(project, clips["vfr"])
    task = add_task(project, "When does the bar slow down?", [("vfr.mp4", media["vfr.mp4"])])
    fake_openai.queue(Reply(text="part one"), Reply(text="part two"), Reply(text="part three"), Reply(text="At 5 s."))
    summary, run_id = _run(project, fake_openai, [task], "chunked", params={"chunk_s": 5})
    requests = fake_openai.chat_requests()
    assert len(requests) == 4 and summary.answered == 1
    assert _barcodes(parts(requests[0])) == [0, 30, 60, 90, 120]
    assert _barcodes(parts(requests[1])) == [150, 165, 180, 195, 210]
    assert _barcodes(parts(requests[2])) == [225, 240, 255, 270, 285]
    assert "00:00:05 and 00:00:10" in requests[1].body["messages"][0]["content"]
    final = "\n".join(p["text"] for p in parts(requests[3]))
    assert not requests[3].has_image
    assert "[00:00:00-00:00:05] part one" in final and "[00:00:10-00:00:15] part three" in final
    with project.read() as s:
        answer = s.query(Answer).filter_by(run_id=run_id).one()
    assert answer.raw_text == "At 5 s." and len(answer.frames) == 15
    assert answer.prompt_tokens == 4 * 5 and answer.completion_tokens == 4 * 1


# -- acceptability ---------------------------------------------------------------------------------


def test_acceptability_one_frame_and_json_verdict(project, clips, fake_openai):
    media = add_media(project, clips["vfr"])
    task = add_task(project, "The tape must show the gap.", [("vfr.mp4", media["vfr.mp4"])], ranges={0: (7.0, None)},
                    extra={"reasons": ["blurry", "tape not visible"], "fields": [{"name": "gap", "unit": "in"}]})
    fake_openai.queue(Reply(text='{"verdict": "reject", "reasons": ["blurry"], "fields": {"gap": null}}'))
    summary, run_id = _run(project, fake_openai, [task], "acceptability")
    request = fake_openai.chat_requests()[0]
    content = parts(request)
    assert "The tape must show the gap." in content[0]["text"] and "tape not visible" in content[0]["text"]
    assert "gap (in)" in content[0]["text"]
    assert _barcodes(content) == [180]                                   # frame 180 is at 7.000 s
    with project.read() as s:
        answer = s.query(Answer).filter_by(run_id=run_id).one()
    assert answer.parsed == {"answer": "reject", "verdict": "reject", "reasons": ["blurry"], "fields": {"gap": None}}


def test_parse_acceptability_without_verdict_is_malformed():
    parsed, kind, _ = parse_acceptability(None, "Looks fine to me.")
    assert kind == "malformed_json" and parsed["verdict"] is None
