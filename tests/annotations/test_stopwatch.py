"""The stopwatch between two frames (issue 32 item 3), read from the frames' PTS.

By hand: the test video's PTS (tests/support/annotation_fixtures.py, time base 1/90000) step 3000, 3000, 6000
ticks, so frames 2 to 6 are 6000 + 3000 + 3000 + 6000 = 18000 ticks apart: 0.2 s over 4 frame steps, where
4 / 30 fps would say 0.133 s.
"""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import edits, stopwatch
from fieldstudio.annotations.annotation_records import AnnotationError
from fieldstudio.annotations.rows import annotation_rows
from fieldstudio.cli.app import app
from tests.support.annotation_fixtures import PHOTO_ID, VIDEO_ID, hand_pts
from tests.support.undo_stack import UndoStack


def test_time_between_two_frames_from_their_pts_kept_and_undone(media_project):
    assert (hand_pts(6) - hand_pts(2)) == 18000
    stack = UndoStack()
    edit = edits.AddStopwatch(media_project, VIDEO_ID, 6, 2)             # marked end first: 2 is the start
    stack.push(edit)
    r = stopwatch.read_stopwatch(media_project, edit.annotation_id)
    assert (r.start_frame, r.end_frame, r.frames) == (2, 6, 4)
    assert r.seconds == pytest.approx(0.2)
    assert r.text() == "0.200 s, 4 frames (frame 2 to 6)"
    (row,) = [x for x in annotation_rows(media_project, VIDEO_ID) if x.record.kind == "stopwatch"]
    assert row.measurement_text == r.text() and row.end_text == "6 (0.200 s)"
    stack.undo()
    assert ann.list_annotations(media_project, media_id=VIDEO_ID, kinds=["stopwatch"]) == []
    stack.redo()
    assert stopwatch.read_stopwatch(media_project, edit.annotation_id).seconds == pytest.approx(0.2)
    assert stopwatch.time_between(media_project, VIDEO_ID, 2, 6).seconds == pytest.approx(0.2)
    with pytest.raises(AnnotationError):
        stopwatch.add_stopwatch(media_project, PHOTO_ID, 0, 1)
    with pytest.raises(AnnotationError):
        stopwatch.add_stopwatch(media_project, VIDEO_ID, 2, 99)             # past the frame table
    with pytest.raises(AnnotationError):
        ann.update(media_project, edit.annotation_id, end_frame_index=1)   # would end before it starts


def test_cli_stopwatch(media_project):
    runner = CliRunner()
    ref = str(media_project.path)
    out = runner.invoke(app, ["stopwatch", ref, "walk.mp4", "--from", "2", "--to", "6"])
    assert out.exit_code == 0 and "walk.mp4: 0.200 s, 4 frames (frame 2 to 6)" in out.stdout
    assert ann.list_annotations(media_project, kinds=["stopwatch"]) == []
    kept = runner.invoke(app, ["stopwatch", ref, "walk.mp4", "--from", "2", "--to", "6", "--keep"])
    assert kept.exit_code == 0 and "(kept: " in kept.stdout
    assert len(ann.list_annotations(media_project, kinds=["stopwatch"])) == 1
    assert runner.invoke(app, ["stopwatch", ref, "walk.mp4", "--from", "2", "--to", "99"]).exit_code == 2
