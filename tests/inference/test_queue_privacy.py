"""The privacy gate in a run: frames sent through a "blur-faces" profile hold no face an independent detector finds
where the original had one, the request log keeps the boxes and the detector's version, a missing detector stops the
run before anything is sent, and "local only" refuses an endpoint off this machine."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from fieldstudio.inference.runs import queue as run_queue
from fieldstudio.privacy import faces
from fieldstudio.store.models import Answer
from tests.support.face_photos import MARKED_FACES, lbp_faces, overlaps, sample_rgb, write_sample
from tests.support.run_fixtures import add_media, add_task, decode_rgb, fake_profile, jpeg_of, parts


def _photo_task(project, tmp_path) -> str:
    ids = add_media(project, write_sample(tmp_path, "astronaut"), write_sample(tmp_path, "camera"))
    return add_task(project, "Who is in these photos?", [("astronaut.png", ids["astronaut.png"]),
                                                          ("camera.png", ids["camera.png"])])


def _chat_requests(server) -> list:
    return [r for r in server.requests if r.path.endswith("/chat/completions")]


def _sent_images(request) -> list:
    return [decode_rgb(jpeg_of(p["image_url"]["url"])) for p in parts(request) if p.get("type") == "image_url"]


def test_blur_faces_sends_frames_without_the_faces_an_independent_detector_finds(project, fake_openai, tmp_path):
    """The astronaut's face is found by scikit-image's LBP cascade in the original photo; in the frame the fake
    server received, the cascade finds nothing where it was (it was sent at its own size, 512 x 512)."""
    original = sample_rgb("astronaut")
    assert any(overlaps(found, MARKED_FACES["astronaut"][0]) for found in lbp_faces(original))
    task = _photo_task(project, tmp_path)
    profile = fake_profile(fake_openai, privacy="blur-faces")
    summary = run_queue.execute_run(project, run_queue.create_run(project, profile, [task]), profile=profile)
    assert (summary.answered, summary.status) == (1, "done")
    sent = _sent_images(fake_openai.requests[-1])
    assert len(sent) == 2 and sent[0].shape == original.shape
    assert not any(overlaps(found, MARKED_FACES["astronaut"][0]) for found in lbp_faces(sent[0]))
    # The face's pixels changed, a corner far from it did not (beyond JPEG noise).
    x0, y0, x1, y1 = MARKED_FACES["astronaut"][0]
    assert abs(sent[0][y0:y1, x0:x1].astype(int) - original[y0:y1, x0:x1]).mean() > 20
    assert abs(sent[0][420:500, 20:100].astype(int) - original[420:500, 20:100]).mean() < 6
    with project.read() as s:
        frames = s.scalars(select(Answer.frames)).one()
    version = faces.FaceDetector().version
    for frame, name in zip(frames, MARKED_FACES):
        assert frame["redaction"]["gate"] == "blur-faces" and frame["redaction"]["detector"] == version
        [box] = frame["redaction"]["boxes"]
        assert overlaps(box[:4], MARKED_FACES[name][0])


def test_send_as_is_on_this_machine_sends_the_photo_unchanged(project, fake_openai, tmp_path):
    task = _photo_task(project, tmp_path)
    profile = fake_profile(fake_openai)             # a loopback endpoint: its default gate is "send as is"
    assert profile.privacy_mode == "send-as-is"
    run_queue.execute_run(project, run_queue.create_run(project, profile, [task]), profile=profile)
    sent = _sent_images(fake_openai.requests[-1])
    assert any(overlaps(found, MARKED_FACES["astronaut"][0]) for found in lbp_faces(sent[0]))
    with project.read() as s:
        assert all("redaction" not in f for f in s.scalars(select(Answer.frames)).one())


def test_a_face_model_that_fails_to_load_stops_the_run_and_sends_nothing(project, fake_openai, tmp_path,
                                                                          monkeypatch):
    broken = tmp_path / "centerface.onnx"
    broken.write_bytes(b"not a model at all")
    monkeypatch.setenv(faces.MODEL_ENV, str(broken))
    monkeypatch.setattr(faces, "_shared", None)
    task = _photo_task(project, tmp_path)
    profile = fake_profile(fake_openai, privacy="blur-faces")
    summary = run_queue.execute_run(project, run_queue.create_run(project, profile, [task]), profile=profile)
    assert summary.status == "failed" and summary.pending == 1
    assert "cannot be loaded" in summary.stopped and "no frame was sent" in summary.stopped
    assert _chat_requests(fake_openai) == []


def test_local_only_refuses_an_endpoint_off_this_machine_before_connecting(project, fake_openai, tmp_path):
    task = add_task(project, "a question without media")
    remote = fake_profile(fake_openai, base_url="http://10.254.254.254:9/v1", privacy="local-only")
    summary = run_queue.execute_run(project, run_queue.create_run(project, remote, [task]), profile=remote)
    assert summary.status == "failed" and "local only" in summary.stopped and "nothing was sent" in summary.stopped
    listed = fake_profile(fake_openai, privacy="local-only", lan_ranges=["10.0.0.0/8"])
    summary = run_queue.execute_run(project, run_queue.create_run(project, listed, [task]), profile=listed)
    assert summary.status == "done" and len(_chat_requests(fake_openai)) == 1      # loopback: on this machine


@pytest.mark.parametrize("url, ranges, local", [
    ("http://localhost:11434/v1", [], True), ("http://127.0.0.1:8000/v1", [], True), ("http://[::1]:8080/v1", [], True),
    ("http://192.168.1.20:8000/v1", [], False), ("http://192.168.1.20:8000/v1", ["192.168.1.0/24"], True),
    ("https://api.openai.com/v1", ["192.168.1.0/24"], False)])
def test_the_default_gate_blurs_faces_for_an_endpoint_off_this_machine(url, ranges, local):
    from fieldstudio.inference.profiles import ModelProfile

    profile = ModelProfile(name="p", base_url=url, model="m", lan_ranges=ranges)
    assert profile.privacy_mode == ("send-as-is" if local else "blur-faces")


def test_the_run_record_keeps_the_redaction_and_verifies_the_blurred_frames(project, fake_openai, tmp_path):
    """`runs verify` makes each blurred frame again through the same gate: the JPEG's SHA-256 is the one sent."""
    from fieldstudio.reproducibility import record, verify

    task = _photo_task(project, tmp_path)
    profile = fake_profile(fake_openai, privacy="blur-faces")
    run_id = run_queue.create_run(project, profile, [task])
    run_queue.execute_run(project, run_id, profile=profile)
    path = tmp_path / "run.jsonl"
    record.write_record(project, run_id, path)
    read = record.read_record(path)
    frames = read.of("frame")
    assert len(frames) == 2 and all(f["redaction"]["gate"] == "blur-faces" for f in frames)
    result = verify.verify_record(read, project)
    assert result.differences == [] and result.checked["frames"] == 2


def test_an_image_that_did_not_go_through_the_gate_is_never_sent():
    from fieldstudio.inference.call_errors import ModelCallError
    from fieldstudio.inference.profiles import ModelProfile
    from fieldstudio.inference.strategies.base import Prompt

    profile = ModelProfile(name="hosted", base_url="https://api.example.com/v1", model="m")
    stray = {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/AAAA"}}
    prompt = Prompt([{"role": "user", "content": [{"type": "text", "text": "hi"}, stray]}], [])
    with pytest.raises(ModelCallError, match="an image that did not go through it") as caught:
        run_queue.check_privacy(profile, prompt)
    assert caught.value.kind == "privacy_gate"
    run_queue.check_privacy(ModelProfile(name="local", base_url="http://127.0.0.1:1/v1", model="m"), prompt)


def test_blurring_whole_people_in_a_run_is_recorded_and_verified(project, fake_openai, tmp_path):
    """A blur-faces profile that also blurs whole people: the worker's legs (no face there) reach the server blurred,
    the answer's frame keeps the people detector's version and boxes, and `runs verify` makes the frame again."""
    from fieldstudio.core.box_overlap import box_iou
    from fieldstudio.media import people
    from fieldstudio.reproducibility import record, verify
    from tests.support.people_frames import MARKED_PEOPLE, NO_HOG_REASON, WORKER_CLIP, hog_available, worker_photo

    if not hog_available():
        pytest.skip(NO_HOG_REASON)
    photo = worker_photo(tmp_path)
    ids = add_media(project, photo)
    task = add_task(project, "Is the worker wearing a vest?", [(photo.name, ids[photo.name])])
    profile = fake_profile(fake_openai, privacy="blur-faces", privacy_bodies=True)
    run_id = run_queue.create_run(project, profile, [task])
    run_queue.execute_run(project, run_id, profile=profile)
    original = decode_rgb(photo.read_bytes())
    (sent,) = _sent_images(_chat_requests(fake_openai)[-1])
    x0, y0, x1, y1 = MARKED_PEOPLE[(WORKER_CLIP, 45)][0]
    legs = (slice(y0 + (y1 - y0) // 2, y1), slice(x0, x1))
    assert abs(sent[legs].astype(int) - original[legs]).mean() > 8
    with project.read() as s:
        (frame,) = s.scalars(select(Answer.frames)).one()
    assert frame["redaction"]["body_detector"] == people.detector_version()
    assert any(box_iou(b[:4], (x0, y0, x1, y1)) >= 0.5 for b in frame["redaction"]["body_boxes"])
    path = tmp_path / "run.jsonl"
    record.write_record(project, run_id, path)
    result = verify.verify_record(record.read_record(path), project)
    assert result.differences == [] and result.checked["frames"] == 1
