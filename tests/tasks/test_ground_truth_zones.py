"""A zone check per frame (annotations.zones) as yes/no ground truth over a frame range, "any" or "all", for a box
track's ground point, points marks and a skeleton's named point, each frame checked against OpenCV's
pointPolygonTest; and a polygon area's ground truth that keeps what it was measured from, so that a change of the
polygon or the calibration is a pending change even when its rounded text stays the same."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations import labels as lab
from fieldstudio.annotations import zones
from fieldstudio.scoring.staleness import truth_sha
from fieldstudio.tasks import ground_truth as gt
from fieldstudio.tasks import task_records as ts
from tests.support.annotation_fixtures import PHOTO_ID, VIDEO_ID

ZONE = [[100, 300], [400, 290], [420, 420], [90, 430]]


def _opencv_inside(polygon, point) -> bool:
    """OpenCV's answer: >= 0 is inside or on the edge."""
    return cv2.pointPolygonTest(np.float32(polygon).reshape(-1, 1, 2), tuple(map(float, point)), False) >= 0


def test_a_tracks_ground_point_frame_by_frame_against_opencv(media_project):
    """Keyframes on 10 and 20: the box walks from x 0..60 to x 300..360 and its bottom from 280 to 380, so its
    ground point ((x1 + x2) / 2, y2) goes (30, 280) -> (330, 380): outside, then inside the zone."""
    p = media_project
    worker = lab.create_label(p, "worker")
    zone = ann.add_shape(p, VIDEO_ID, "polygon", ZONE, frame_index=10)
    ann.add_box(p, VIDEO_ID, (0, 180, 60, 100), worker, frame_index=10, track_id=1)
    ann.add_box(p, VIDEO_ID, (300, 280, 60, 100), worker, frame_index=20, track_id=1)
    check = zones.check_zone(p, zone, subject="box", track_id=1, start_frame=12, end_frame=25)
    assert [f.frame_index for f in check.frames] == list(range(12, 21))       # the track ends on frame 20
    for f in check.frames:
        t = (f.frame_index - 10) / 10
        ground = (30 + 300 * t, 280 + 100 * t)
        assert f.is_inside is _opencv_inside(ZONE, ground), f.frame_index
    inside = [f.frame_index for f in check.frames if f.is_inside]
    assert inside and inside[0] > 12 and inside == list(range(inside[0], 21))  # once in, it stays in
    assert (check.answer("any"), check.answer("all")) == (True, False)
    late = zones.check_zone(p, zone, subject="box", track_id=1, start_frame=inside[0], end_frame=20)
    assert late.answer("all") is True
    link = gt.GroundTruthLink("inside_zone", annotation_id=zone, subject="box", track_id=1, start_frame=12,
                              end_frame=25, mode="all")
    value = gt.compute(p, link)
    assert value.ok and value.text == "no"
    assert value.explanation.startswith(f"track 1's ground point inside polygon on {len(inside)} of 9 frame(s)")
    fields = gt.link_fields(p, None, link)
    assert fields["answer_type"] == "yes_no" and fields["ground_truth"] == "no"
    stored = gt.link_of(fields["ground_truth_extra"])
    assert stored == link                                              # the JSON keeps subject, track and mode
    any_link = gt.GroundTruthLink.from_json({**link.to_json(), "mode": "any"})
    assert gt.compute(p, any_link).text == "yes"
    assert gt.GroundTruthLink.from_json({"kind": "inside_zone", "annotation_id": zone}).mode == "any"


def test_points_and_a_named_skeleton_point_on_random_points_against_opencv(media_project):
    p = media_project
    zone = ann.add_shape(p, VIDEO_ID, "polygon", ZONE, frame_index=3)
    rng = np.random.default_rng(7)
    pts = rng.uniform((60, 260), (460, 460), size=(200, 2)).round(1)
    for i, (x, y) in enumerate(pts):
        ann.add_shape(p, VIDEO_ID, "points", [[x, y]], frame_index=i % 25)
    check = zones.check_zone(p, zone, start_frame=0, end_frame=24)
    expected = {f: sum(_opencv_inside(ZONE, q) for q in pts[np.arange(len(pts)) % 25 == f]) for f in range(25)}
    assert {f.frame_index: f.inside for f in check.frames} == expected
    assert {f.frame_index: f.tested for f in check.frames} == {f: 8 for f in range(25)}
    pose = [None] * 17
    pose[15], pose[16] = [50, 50], [200, 350]                       # left ankle outside, right ankle inside
    ann.add_skeleton(p, VIDEO_ID, pose, frame_index=3)
    left = zones.check_zone(p, zone, subject="skeleton", point="left_ankle")
    right = zones.check_zone(p, zone, subject="skeleton", point="right_ankle")
    assert (left.answer(), right.answer()) == (False, True)
    with pytest.raises(zones.ZoneError, match="no skeleton point 'left_toe'"):
        zones.check_zone(p, zone, subject="skeleton", point="left_toe")
    with pytest.raises(zones.ZoneError, match="unknown zone subject"):
        zones.check_zone(p, zone, subject="forklift")
    assert not gt.compute(p, gt.GroundTruthLink("inside_zone", annotation_id=zone, subject="skeleton",
                                                point="nose")).ok       # no nose placed: no value, never a "no"


def test_an_area_ground_truth_is_pending_when_its_polygon_or_calibration_changes(media_project):
    """Scale 1.00 m over 100 px: a 100 x 100 px square is 1.0000 m². Moving one corner by 0.2 px changes the area by
    0.0010 m² (text still "1.00 m²"); re-saving the scale as 1.001 m changes it by 0.2 %: both pending, and once
    accepted the task's truth hash (what scores are tied to) changes."""
    p = media_project
    cal.save_calibration(p, "scale", [(0, 0), (100, 0)], media_id=PHOTO_ID, length_m=1.0)
    square = ann.add_shape(p, PHOTO_ID, "polygon", [[0, 0], [100, 0], [100, 100], [0, 100]])
    fields = gt.link_fields(p, None, gt.GroundTruthLink("polygon_area", annotation_id=square))
    assert fields["ground_truth"] == "1.00 m²"
    task_id = ts.create_task(p, query="How large?", **fields)
    assert gt.pending_changes(p) == []
    ann.update_geometry(p, square, [[0, 0], [100, 0], [100, 100.2], [0, 100]])
    (change,) = gt.pending_changes(p)
    assert change.ok and change.old == change.new == "1.00 m²"
    assert "the polygon's vertices changed (1.0000 → 1.0010 m², the same to 0.01 m²)" in change.explanation
    before = truth_sha(_inputs(p, task_id))
    assert gt.apply_changes(p, [change]) == [change]
    assert truth_sha(_inputs(p, task_id)) != before                    # scores of the earlier basis go stale
    assert gt.pending_changes(p) == []
    cal.save_calibration(p, "scale", [(0, 0), (100, 0)], media_id=PHOTO_ID, length_m=1.001)
    (change,) = gt.pending_changes(p)
    assert "the calibration's points or lengths changed" in change.explanation


def _inputs(p, task_id):
    from fieldstudio.scoring.scorers.scorer_info import TaskInputs

    t = ts.get_task(p, task_id)
    return TaskInputs(t.id, t.external_id, t.source, t.query, t.answer_type, t.ground_truth, t.ground_truth_extra,
                      t.eval_func, t.tolerances, t.extra)
