"""A tracked box's trajectory on the calibrated floor (issue 32 item 3), checked by hand and against OpenCV.

By hand: the floor rectangle 4 m x 3 m is the axis-aligned pixels (100..500, 100..400), 100 px a metre, so a
ground point (x, y) px is at X = (x - 100) / 100, Y = (400 - y) / 100 m. The test video's PTS (hand-written,
tests/support/annotation_fixtures.py) are 0, 1/30, 2/30, 4/30, 5/30, 6/30, 8/30 s for frames 0-6: variable rate,
so a speed from index / fps would be wrong. Keyframes on frames 0, 3, 6 move the ground point 60 px right, then
80 px up: 0.2 m and 0.2667 m a frame, 1.4 m in all over 8/30 s.
"""

from __future__ import annotations

import csv
import math

import cv2
import numpy as np
import pytest

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations.annotation_records import AnnotationError
from fieldstudio.annotations.trajectory import CSV_COLUMNS, track_trajectory, tracks_of
from tests.support.annotation_fixtures import VIDEO_ID, hand_pts

AXIS_FLOOR = [(100, 400), (500, 400), (500, 100), (100, 100)]
KEYS = {0: (100, 200, 40, 100), 3: (160, 200, 40, 100), 6: (160, 120, 40, 100)}   # x, y, w, h


@pytest.fixture
def walk(media_project):
    for frame, rect in KEYS.items():
        ann.add_box(media_project, VIDEO_ID, rect, frame_index=frame, track_id=7)
    return media_project


def seconds(frame: int) -> float:
    return (hand_pts(frame) - hand_pts(0)) / 90000


def test_metres_walked_and_speed_by_hand(walk):
    cal.save_calibration(walk, "floor", AXIS_FLOOR, media_id=VIDEO_ID, width_m=4.0, depth_m=3.0)
    t = track_trajectory(walk, VIDEO_ID, 7)
    assert [p.frame_index for p in t.points] == list(range(7)) and tracks_of(walk, VIDEO_ID) == [7]
    assert [p.keyframe for p in t.points] == [True, False, False, True, False, False, True]
    assert t.points[0].position_m == pytest.approx((0.2, 1.0))              # ground (120, 300) px
    assert t.points[6].position_m == pytest.approx((0.8, 1.8))              # ground (180, 220) px
    assert [p.seconds for p in t.points] == pytest.approx([seconds(f) for f in range(7)])
    assert t.points[0].step_m is None and t.points[0].speed_m_s is None
    assert [p.step_m for p in t.points[1:]] == pytest.approx([0.2] * 3 + [0.8 / 3] * 3)
    assert t.points[1].speed_m_s == pytest.approx(0.2 / (1 / 30))          # 6 m/s: one 1/30 s frame
    assert t.points[3].speed_m_s == pytest.approx(0.2 / (2 / 30))          # 3 m/s: frame 2 lasts 1/15 s
    assert t.distance_m == pytest.approx(1.4) and t.duration_s == pytest.approx(8 / 30)
    assert t.mean_speed_m_s == pytest.approx(1.4 / (8 / 30))
    assert "floor plane" in t.how and "1.40 m in 0.27 s" in t.summary()


def test_positions_match_opencv_perspective_transform_and_smoothing_is_a_moving_average(walk):
    quad = [(120, 430), (520, 420), (430, 170), (210, 180)]   # near-left, near-right, far-right, far-left
    cal.save_calibration(walk, "floor", quad, media_id=VIDEO_ID, width_m=4.0, depth_m=6.0)
    h = cv2.getPerspectiveTransform(np.float32(quad), np.float32([[0, 0], [4, 0], [4, 6], [0, 6]]))
    t = track_trajectory(walk, VIDEO_ID, 7)
    frames = sorted(KEYS)                                        # bottom centres of the keyframes, interpolated
    gx = np.interp(range(7), frames, [KEYS[f][0] + KEYS[f][2] / 2 for f in frames])
    gy = np.interp(range(7), frames, [KEYS[f][1] + KEYS[f][3] for f in frames])
    grounds = np.column_stack([gx, gy])
    assert np.allclose([p.ground_px for p in t.points], grounds)
    expected = cv2.perspectiveTransform(grounds[None, :, :], h)[0]
    assert np.allclose([p.position_m for p in t.points], expected, atol=1e-6)
    steps = np.hypot(*np.diff(expected, axis=0).T)
    assert t.distance_m == pytest.approx(float(steps.sum()), rel=1e-9)

    smooth = track_trajectory(walk, VIDEO_ID, 7, smooth=3)
    assert smooth.smooth == 3 and "smoothed over 3 frames" in smooth.summary()
    assert smooth.points[2].position_m == pytest.approx(tuple(expected[1:4].mean(axis=0)))
    assert smooth.points[0].position_m == pytest.approx(tuple(expected[0:2].mean(axis=0)))   # fewer at the ends
    assert track_trajectory(walk, VIDEO_ID, 7, smooth=2).smooth == 3


def test_scale_in_use_reads_in_the_image_plane_and_says_so(walk):
    cal.save_calibration(walk, "floor", AXIS_FLOOR, media_id=VIDEO_ID, width_m=4.0, depth_m=3.0)
    cal.save_calibration(walk, "scale", [(0, 0), (50, 0)], media_id=VIDEO_ID, length_m=1.0)     # 50 px a metre
    cal.choose_calibration(walk, "scale", media_id=VIDEO_ID)
    t = track_trajectory(walk, VIDEO_ID, 7)
    assert t.calibration.kind == "scale" and "image plane" in t.how
    assert t.distance_m == pytest.approx((60 + 80) / 50)


def test_without_calibration_pixels_only_and_csv_table(walk, tmp_path):
    t = track_trajectory(walk, VIDEO_ID, 7)
    assert t.distance_m is None and "pixels only" in t.how
    cal.save_calibration(walk, "floor", AXIS_FLOOR, media_id=VIDEO_ID, width_m=4.0, depth_m=3.0)
    path = track_trajectory(walk, VIDEO_ID, 7).write_csv(tmp_path / "walk.csv")
    with path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0]) == CSV_COLUMNS and len(rows) == 7
    assert rows[0]["step_m"] == "" and rows[0]["calibration"] == "floor"
    assert float(rows[6]["distance_m"]) == pytest.approx(1.4) and float(rows[3]["time_s"]) == round(4 / 30, 3)
    assert math.isclose(float(rows[3]["speed_m_s"]), 3.0, rel_tol=1e-3)
    with pytest.raises(AnnotationError, match="no track 99"):
        track_trajectory(walk, VIDEO_ID, 99)


def test_cli_prints_the_table_and_writes_csv(walk, tmp_path):
    import json

    from typer.testing import CliRunner

    from fieldstudio.cli.app import app

    runner = CliRunner()
    ref = str(walk.path)
    bare = runner.invoke(app, ["trajectory", ref, "walk.mp4", "--track", "7"])
    assert bare.exit_code == 1 and "pixels only" in bare.stdout
    cal.save_calibration(walk, "floor", AXIS_FLOOR, media_id=VIDEO_ID, width_m=4.0, depth_m=3.0)
    done = runner.invoke(app, ["trajectory", ref, "walk.mp4", "--track", "7", "--csv", str(tmp_path / "t.csv")])
    assert done.exit_code == 0 and "track 7: 1.40 m in 0.27 s, mean 5.25 m/s" in done.stdout
    assert len((tmp_path / "t.csv").read_text().splitlines()) == 8
    rows = json.loads(runner.invoke(app, ["trajectory", ref, "walk.mp4", "-t", "7", "--json"]).stdout)
    assert rows[6]["distance_m"] == pytest.approx(1.4)
    assert runner.invoke(app, ["trajectory", ref, "walk.mp4", "-t", "99"]).exit_code == 2


def test_ground_points_outside_the_calibrated_rectangle_are_counted_as_extrapolated(walk, tmp_path):
    """The rule: inside the floor rectangle's four image corners, or on its edge, is inside (edge
    inclusive). Track 8's ground points (300, y) px against the near edge y = 400 px: 399.5 just inside, 400.0 on
    the edge (inside), 400.5 just outside, 440 well outside at Y = (400 - 440) / 100 = -0.4 m, extrapolated."""
    import json

    from typer.testing import CliRunner

    from fieldstudio.cli.app import app

    for frame, bottom in enumerate((399.5, 400.0, 400.5, 440.0)):
        ann.add_box(walk, VIDEO_ID, (280, bottom - 100, 40, 100), frame_index=frame, track_id=8)
    cal.save_calibration(walk, "floor", AXIS_FLOOR, media_id=VIDEO_ID, width_m=4.0, depth_m=3.0)
    t = track_trajectory(walk, VIDEO_ID, 8)
    assert [p.ground_px for p in t.points] == [(300, 399.5), (300, 400.0), (300, 400.5), (300, 440.0)]
    assert [p.outside_area for p in t.points] == [False, False, True, True]
    quad = np.array(AXIS_FLOOR, dtype=np.float32)          # OpenCV agrees: >= 0 inside or on the edge
    assert [cv2.pointPolygonTest(quad, p.ground_px, False) < 0 for p in t.points] == [False, False, True, True]
    assert t.points[3].position_m == pytest.approx((2.0, -0.4))
    assert t.outside_count == 2
    assert "2 of 4 frame(s) outside the calibrated area (extrapolated)" in t.summary()
    assert [r["outside_calibrated_area"] for r in t.rows()] == [False, False, True, True]
    with t.write_csv(tmp_path / "out.csv").open(newline="") as f:
        assert [r["outside_calibrated_area"] for r in csv.DictReader(f)] == ["False", "False", "True", "True"]
    assert track_trajectory(walk, VIDEO_ID, 7).outside_text() == ""     # track 7 stays inside: nothing said
    runner = CliRunner()
    text = runner.invoke(app, ["trajectory", str(walk.path), "walk.mp4", "-t", "8"]).stdout
    assert "2 of 4 frame(s) outside the calibrated area" in text and "  -0.4  " in text and "outside" in text
    rows = json.loads(runner.invoke(app, ["trajectory", str(walk.path), "walk.mp4", "-t", "8", "--json"]).stdout)
    assert [r["outside_calibrated_area"] for r in rows] == [False, False, True, True]
    # a scale calibration has no area: nothing to be outside of, nothing said
    cal.save_calibration(walk, "scale", [(0, 0), (50, 0)], media_id=VIDEO_ID, length_m=1.0)
    cal.choose_calibration(walk, "scale", media_id=VIDEO_ID)
    s = track_trajectory(walk, VIDEO_ID, 8)
    assert [p.outside_area for p in s.points] == [None] * 4 and s.outside_count is None
    assert "outside" not in s.summary() and s.rows()[3]["outside_calibrated_area"] is None
