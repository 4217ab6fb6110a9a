"""Shape tracks in the project (issue 32 item 1): keyframes of a polygon or skeleton, the shapes drawn on the frames
between (interpolated vertex by vertex, values worked out by hand), keying an interpolated frame, copying to the
next frame as a keyframe of the same track, and the one-keyframe-per-frame rule, each with its undo."""

from __future__ import annotations

import pytest

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import box_tracks, edits, shape_tracks
from fieldstudio.core import skeletons
from tests.support.annotation_fixtures import VIDEO_ID
from tests.support.undo_stack import UndoStack

SQUARE = [[100, 100], [200, 100], [200, 200], [100, 200]]
MOVED = [[140, 120], [260, 120], [240, 240], [120, 220]]


def _track(p, kind="polygon", first=SQUARE, second=MOVED, f0=4, f1=8):
    track = box_tracks.next_track_id(p, VIDEO_ID)
    a = ann.add_shape(p, VIDEO_ID, kind, first, frame_index=f0, track_id=track)
    b = ann.add_shape(p, VIDEO_ID, kind, second, frame_index=f1, track_id=track)
    return track, a, b


def test_the_frames_between_two_keyframes_show_the_polygon_interpolated_per_vertex(media_project):
    p = media_project
    track, a, _b = _track(p)
    on6 = shape_tracks.shapes_on_frame(p, VIDEO_ID, 6)
    assert len(on6) == 1 and on6[0].annotation_id is None and not on6[0].keyframe and on6[0].track_id == track
    # t = (6 - 4) / (8 - 4) = 1/2: the midpoints of each vertex pair
    assert on6[0].vertices == [[120.0, 110.0], [230.0, 110.0], [220.0, 220.0], [110.0, 210.0]]
    on5 = shape_tracks.shapes_on_frame(p, VIDEO_ID, 5)   # t = 1/4: (100 + 40/4, 100 + 20/4), ...
    assert on5[0].vertices == [[110.0, 105.0], [215.0, 105.0], [210.0, 210.0], [105.0, 205.0]]
    here = shape_tracks.shapes_on_frame(p, VIDEO_ID, 4)
    assert [(s.annotation_id, s.keyframe, s.note) for s in here] == [(a, True, None)]
    assert shape_tracks.shapes_on_frame(p, VIDEO_ID, 9) == [] and shape_tracks.shapes_on_frame(p, VIDEO_ID, 3) == []
    assert sorted(shape_tracks.track_shapes(p, VIDEO_ID, track)) == [4, 5, 6, 7, 8]


def test_keyframes_of_different_vertex_counts_are_shown_on_their_own_frames_with_the_reason(media_project):
    p = media_project
    _track(p, second=MOVED[:3])
    assert shape_tracks.shapes_on_frame(p, VIDEO_ID, 6) == []
    key = shape_tracks.shapes_on_frame(p, VIDEO_ID, 8)[0]
    assert key.keyframe and "4 vertices" in key.note and "3 vertices" in key.note and "frames 5-7" in key.note


def test_a_skeleton_point_absent_on_one_keyframe_is_absent_between(media_project):
    p = media_project
    n = len(skeletons.COCO_PERSON.points)
    first = [[10.0 * i, 20.0] for i in range(n)]
    second = [[10.0 * i + 6, 40.0] for i in range(n)]
    first[3] = None
    track = box_tracks.next_track_id(p, VIDEO_ID)
    ann.add_skeleton(p, VIDEO_ID, first, frame_index=0, track_id=track)
    ann.add_skeleton(p, VIDEO_ID, second, frame_index=3, track_id=track)
    got = shape_tracks.shapes_on_frame(p, VIDEO_ID, 1)[0]
    assert got.kind == "skeleton" and got.template == skeletons.COCO_PERSON.name
    assert got.vertices[3] is None
    assert got.vertices[0] == [2.0, 20.0 + 20.0 / 3]   # t = 1/3: x 0 -> 6, y 20 -> 40


def test_dragging_a_vertex_on_an_interpolated_frame_keys_it_in_one_undo_step(media_project):
    p, stack = media_project, UndoStack()
    track, _a, _b = _track(p)
    dragged = [[120.0, 110.0], [230.0, 110.0], [250.0, 250.0], [110.0, 210.0]]   # vertex 2 moved on frame 6
    edit = stack.push(edits.KeyShape(p, VIDEO_ID, track, 6, dragged, "Move vertex"))
    assert edit.text == "Move vertex"
    key = ann.get_annotation(p, edit.annotation_id)
    assert (key.frame_index, key.track_id, key.is_keyframe, key.geometry) == (6, track, True, dragged)
    # frame 7 now lies between the new keyframe (6) and frame 8: t = 1/2
    assert shape_tracks.shapes_on_frame(p, VIDEO_ID, 7)[0].vertices[2] == [245.0, 245.0]
    stack.undo()
    assert shape_tracks.shapes_on_frame(p, VIDEO_ID, 7)[0].vertices[2] == [230.0, 230.0]   # t = 3/4: 200 -> 240
    with pytest.raises(ann.AnnotationError, match="already has a keyframe on frame 8"):
        shape_tracks.key_shape(p, VIDEO_ID, track, 8)


def test_keying_a_later_frame_extends_the_track_with_the_last_keyframes_shape(media_project):
    p = media_project
    track, _a, _b = _track(p)
    new = shape_tracks.key_shape(p, VIDEO_ID, track, 20)
    assert ann.get_annotation(p, new).geometry == [[float(x), float(y)] for x, y in MOVED]
    assert sorted(shape_tracks.track_shapes(p, VIDEO_ID, track)) == list(range(4, 21))


def test_ctrl_d_copies_a_shape_as_a_keyframe_of_its_track_and_a_track_keeps_one_keyframe_per_frame(media_project):
    p, stack = media_project, UndoStack()
    lone = ann.add_shape(p, VIDEO_ID, "polyline", [[0, 0], [50, 20]], frame_index=2)   # drawn before tracks
    copy = stack.push(edits.CopyShape(p, lone))
    src, dst = ann.get_annotation(p, lone), ann.get_annotation(p, copy.annotation_id)
    assert src.track_id is not None and dst.track_id == src.track_id and dst.frame_index == 3 and dst.is_keyframe
    with pytest.raises(ann.AnnotationError, match="already has a shape on frame 3"):
        shape_tracks.copy_shape(p, lone, 3)
    stack.undo()
    assert ann.get_annotation(p, copy.annotation_id).deleted
    stack.redo()
    assert not ann.get_annotation(p, copy.annotation_id).deleted
