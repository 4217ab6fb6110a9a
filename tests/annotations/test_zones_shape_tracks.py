"""Zones and subjects kept as shape tracks (issue 32 item 1): a zone polygon keyed on frames 10 and 20 moves with
the view and is checked, frame by frame, as its interpolated polygon; points and skeletons kept as tracks are read on
their interpolated frames too. Every expected frame is worked out by hand in the test's docstring."""

from __future__ import annotations

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import zones
from tests.support.annotation_fixtures import VIDEO_ID


def _square(dx: float) -> list[list[float]]:
    return [[100 + dx, 100], [200 + dx, 100], [200 + dx, 200], [100 + dx, 200]]


def _zone_track(p) -> str:
    """The square x 100..200 on frame 10 moves to x 200..300 on frame 20: on frame f its x span is
    100 + 10k .. 200 + 10k with k = f - 10."""
    zone = ann.add_shape(p, VIDEO_ID, "polygon", _square(0), frame_index=10, track_id=7)
    ann.add_shape(p, VIDEO_ID, "polygon", _square(100), frame_index=20, track_id=7)
    return zone


def test_a_still_point_leaves_a_moving_zone(media_project):
    """A point kept at (155, 150) on keyframes 10 and 20: inside while 100 + 10k <= 155, k <= 5.5, so frames 10-15
    inside, 16-20 outside. A loose point on frame 24 is after the zone track's last keyframe: not checked."""
    p = media_project
    zone = _zone_track(p)
    ann.add_shape(p, VIDEO_ID, "points", [[155, 150]], frame_index=10, track_id=8)
    ann.add_shape(p, VIDEO_ID, "points", [[155, 150]], frame_index=20, track_id=8)
    ann.add_shape(p, VIDEO_ID, "points", [[250, 150]], frame_index=24)
    check = zones.check_zone(p, zone, subject="points")
    assert [f.frame_index for f in check.frames] == list(range(10, 21))
    assert [f.frame_index for f in check.frames if f.is_inside] == list(range(10, 16))
    assert check.range_text == "frames 10-20, the zone track's"
    assert (check.answer("any"), check.answer("all")) == (True, False)
    wide = zones.check_zone(p, zone, subject="points", start_frame=0, end_frame=29)
    assert [f.frame_index for f in wide.frames] == list(range(10, 21))   # no zone on frame 24


def test_a_skeleton_track_against_a_zone_track(media_project):
    """The nose goes (120, 150) -> (320, 150) over frames 10-20, x = 120 + 20k, the zone's right edge 200 + 10k:
    inside while 120 + 20k <= 200 + 10k, k <= 8, so frames 10-18; its other points are absent and never tested.
    Only frames 14-20 asked: 14-18 inside."""
    p = media_project
    zone = _zone_track(p)
    pose = [None] * 17
    ann.add_skeleton(p, VIDEO_ID, [[120, 150]] + pose[1:], frame_index=10, track_id=9)
    ann.add_skeleton(p, VIDEO_ID, [[320, 150]] + pose[1:], frame_index=20, track_id=9)
    check = zones.check_zone(p, zone, subject="skeleton", point="nose", start_frame=14, end_frame=20)
    assert [(f.frame_index, f.tested, f.inside) for f in check.frames] == \
        [(f, 1, int(f <= 18)) for f in range(14, 21)]
    assert check.answer("all") is False
    assert zones.check_zone(p, zone, subject="skeleton", track_id=9, start_frame=14, end_frame=18).answer("all")


def test_a_zone_with_one_keyframe_stays_put(media_project):
    """A polygon drawn once (its own track of one keyframe) is a fixed camera's zone: frames after it are checked
    against the same square x 100..200, so the point at x 155 on frame 28 is inside."""
    p = media_project
    zone = ann.add_shape(p, VIDEO_ID, "polygon", _square(0), frame_index=10, track_id=3)
    ann.add_shape(p, VIDEO_ID, "points", [[155, 150]], frame_index=28)
    check = zones.check_zone(p, zone, subject="points", start_frame=0, end_frame=29)
    assert [(f.frame_index, f.is_inside) for f in check.frames] == [(28, True)]
