"""Box tracking (issue 20 item 5) on generated clips of a textured rectangle with a known path.

The true boxes come from ``tests.support.tracking_clips`` (the positions the frames were drawn with), so every
check compares the stored track with a trajectory fieldstudio never computed.
"""

from __future__ import annotations

import pytest

from fieldstudio.annotations import box_tracks
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import tracking
from fieldstudio.media import library, video_index
from fieldstudio.store.project import Project
from tests.support.tracking_clips import BOX_W, iou, make_clip, position, truth

W = 640


@pytest.fixture(scope="module")
def moving_box_clips(tmp_path_factory):
    """The "wave" and "exit" clips of tests/support/tracking_clips.py, by name."""
    folder = tmp_path_factory.mktemp("tracking_clips")
    return {name: make_clip(folder / f"{name}.mp4", name) for name in ("wave", "exit")}


def _project(tmp_path, clip) -> tuple[Project, str]:
    p = Project.create(tmp_path / "t.fieldstudio")
    report = library.add_paths(p, [clip])
    video_index.index_videos(p, report.media_ids)
    return p, report.media_ids[0]


def _box_on(p: Project, media_id: str, frame: int, path: str, track_id: int | None = 1) -> str:
    x1, y1, x2, y2 = truth(frame, path)
    return ann.add_box(p, media_id, (x1, y1, x2 - x1, y2 - y1), frame_index=frame, track_id=track_id)


def _stored_ious(p: Project, media_id: str, track_id: int, frames: range, path: str) -> list[float]:
    boxes = box_tracks.track_boxes(p, media_id, track_id, frames)
    return [iou(boxes[f].box, truth(f, path)) if f in boxes else 0.0 for f in frames]


def test_forward_track_keeps_iou_with_the_truth_and_one_undo_removes_it(tmp_path, moving_box_clips):
    p, media_id = _project(tmp_path, moving_box_clips["wave"])
    start_id = _box_on(p, media_id, 0, "wave")
    result = tracking.follow_box(p, tracking.start_of_box(p, start_id), 149)
    assert result.stop == "end" and result.frames_followed == 149, result.message
    assert "reached the last frame of the video" in result.message
    # keyframes every 5 frames from the start (a keyframe already) and on the last frame
    assert sorted(result.keyframes) == [*range(5, 149, 5), 149]
    edit = tracking.stretch_edit(p, result)
    edit.do()
    ious = _stored_ious(p, media_id, 1, range(150), "wave")  # what is stored: keyframes + interpolation
    good = sum(v >= 0.7 for v in ious)
    assert good >= 0.95 * 150, (good, min(ious))
    keys = [r.frame_index for r in box_tracks.track_keyframes(p, media_id, 1)]
    assert keys == [0, *range(5, 149, 5), 149]
    edit.undo()  # one undo: the whole stretch
    assert [r.frame_index for r in box_tracks.track_keyframes(p, media_id, 1)] == [0]
    ids = set(edit.annotation_ids)
    edit.do()    # redo brings the same rows back
    assert {r.id for r in box_tracks.track_keyframes(p, media_id, 1)} == ids | {start_id}
    p.close()


def test_backward_track_from_the_last_frame(tmp_path, moving_box_clips):
    p, media_id = _project(tmp_path, moving_box_clips["wave"])
    start_id = _box_on(p, media_id, 149, "wave", track_id=4)
    result = tracking.follow_box(p, tracking.start_of_box(p, start_id), 0, every=10)
    assert result.stop == "end" and result.last_frame == 0, result.message
    assert sorted(result.keyframes) == [0, *range(9, 149, 10)]
    tracking.stretch_edit(p, result).do()
    ious = _stored_ious(p, media_id, 4, range(150), "wave")
    assert sum(v >= 0.7 for v in ious) >= 0.95 * 150, min(ious)
    p.close()


def test_stops_with_a_message_when_the_rectangle_leaves_the_frame(tmp_path, moving_box_clips):
    p, media_id = _project(tmp_path, moving_box_clips["exit"])
    start_id = _box_on(p, media_id, 0, "exit")
    result = tracking.follow_box(p, tracking.start_of_box(p, start_id), 149)
    assert result.stop == "left_frame", result.message
    assert "left the image on frame" in result.message
    x, _y = position(result.stop_frame, "exit")
    # it stops while the rectangle crosses the right edge, not before, and not after it is gone (frame 69)
    assert x + BOX_W > W and x < W, result.stop_frame
    assert max(result.boxes) == result.stop_frame - 1
    followed = [iou(b, truth(f, "exit")) for f, b in result.boxes.items() if f]
    assert sum(v >= 0.5 for v in followed) >= 0.9 * len(followed)
    p.close()


def test_the_next_keyframe_is_never_passed_and_an_interpolated_start_becomes_a_keyframe(tmp_path, moving_box_clips):
    p, media_id = _project(tmp_path, moving_box_clips["wave"])
    _box_on(p, media_id, 0, "wave")
    _box_on(p, media_id, 40, "wave")
    start = tracking.track_start(p, media_id, 20, track_id=1)  # interpolated between frames 0 and 40
    assert start.annotation_id is None
    result = tracking.follow_box(p, start, 149)
    assert result.stop == "keyframe" and result.last_frame == 39, result.message
    assert "keyframe on frame 40" in result.message
    assert sorted(result.keyframes) == [20, 25, 30, 35, 39]
    tracking.stretch_edit(p, result).do()
    assert [r.frame_index for r in box_tracks.track_keyframes(p, media_id, 1)] == [0, 20, 25, 30, 35, 39, 40]
    p.close()


def test_a_cancel_stores_nothing_and_bad_requests_are_refused(tmp_path, moving_box_clips):
    p, media_id = _project(tmp_path, moving_box_clips["wave"])
    start = tracking.start_of_box(p, _box_on(p, media_id, 10, "wave"))
    calls = iter(range(100))
    result = tracking.follow_box(p, start, 149, cancelled=lambda: next(calls) >= 3)
    assert result.stop == "cancelled" and result.keyframes == {}
    assert tracking.stretch_edit(p, result) is None
    with pytest.raises(tracking.TrackingError, match="start frame"):
        tracking.follow_box(p, start, 10)
    with pytest.raises(tracking.TrackingError, match="every 0"):
        tracking.follow_box(p, start, 20, every=0)
    p.close()


def test_a_box_without_a_track_gets_one_in_the_same_edit(tmp_path, moving_box_clips):
    p, media_id = _project(tmp_path, moving_box_clips["wave"])
    start_id = _box_on(p, media_id, 0, "wave", track_id=None)
    result = tracking.follow_box(p, tracking.start_of_box(p, start_id), 12)
    edit = tracking.stretch_edit(p, result)
    edit.do()
    track_id = ann.get_annotation(p, start_id).track_id
    assert track_id is not None
    assert [r.frame_index for r in box_tracks.track_keyframes(p, media_id, track_id)] == [0, 5, 10, 12]
    edit.undo()
    assert ann.get_annotation(p, start_id).track_id is None
    assert len(ann.list_annotations(p, media_id=media_id, kinds=["box"])) == 1
    p.close()


def test_cli_track_stores_the_stretch_and_says_why_it_stopped(tmp_path, moving_box_clips):
    from typer.testing import CliRunner

    from fieldstudio.cli.app import app

    p, media_id = _project(tmp_path, moving_box_clips["exit"])
    box_id = _box_on(p, media_id, 0, "exit", track_id=2)
    p.close()
    runner = CliRunner()
    res = runner.invoke(app, ["track", str(tmp_path / "t.fieldstudio"), "exit.mp4", "--box", box_id, "--to", "100",
                              "--every", "10"])
    assert res.exit_code == 0, res.output
    assert "the box left the image on frame" in res.output
    with Project.open(tmp_path / "t.fieldstudio") as p:
        keys = [r.frame_index for r in box_tracks.track_keyframes(p, media_id, 2)]
    assert keys[:6] == [0, 10, 20, 30, 40, 50] and 50 < keys[-1] < 69
    res = runner.invoke(app, ["track", str(tmp_path / "t.fieldstudio"), "exit.mp4", "--box", "nosuch", "--to", "5"])
    assert res.exit_code == 2 and "no annotation with id 'nosuch'" in res.output
