"""Rulers measured through the service: calibrations per media and per camera group, applied on read.

The floor case renders a checkerboard floor (0.5 m squares) through a pinhole camera written here
(x ~ K [r1 r2 t] [X, Y, 1]), finds the checker corners in the rendered picture with OpenCV's
cornerSubPix, and checks rulers against distances measured on the floor in world metres.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations import edits
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.core.errors import CalibrationError
from fieldstudio.media import library
from tests.support.undo_stack import UndoStack
from tests.support.annotation_fixtures import PHOTO_ID, VIDEO_ID

SIZE = (1280, 720)
CELL_M = 0.5
PX_PER_M = 100
BOARD_ORIGIN_M = (-3.0, -1.0)
BOARD_SIZE_M = (10.0, 10.0)


def camera_homography() -> np.ndarray:
    """Floor (X, Y, Z=0) metres -> image pixels for a camera 3 m up, 4 m behind, pitched 30 degrees down."""
    f = 1000.0
    K = np.array([[f, 0, SIZE[0] / 2], [0, f, SIZE[1] / 2], [0, 0, 1.0]])
    pitch, yaw = math.radians(30.0), math.radians(6.0)
    forward = np.array([math.sin(yaw) * math.cos(pitch), math.cos(yaw) * math.cos(pitch), -math.sin(pitch)])
    right = np.cross(forward, [0, 0, 1.0])
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    R = np.vstack([right, down, forward])
    C = np.array([1.5, -4.0, 3.0])
    t = -R @ C
    return K @ np.column_stack([R[:, 0], R[:, 1], t])


def to_image(h: np.ndarray, xy) -> np.ndarray:
    u, v, w = h @ np.array([xy[0], xy[1], 1.0])
    assert w > 0
    return np.array([u / w, v / w])


def render_floor(h_floor_to_img: np.ndarray) -> np.ndarray:
    """The checkerboard floor as the camera sees it, (720, 1280) uint8."""
    w, h = int(BOARD_SIZE_M[0] * PX_PER_M), int(BOARD_SIZE_M[1] * PX_PER_M)
    u = (np.arange(w) + 0.5) / PX_PER_M + BOARD_ORIGIN_M[0]
    v = (np.arange(h) + 0.5) / PX_PER_M + BOARD_ORIGIN_M[1]
    cells = (np.floor(u / CELL_M)[None, :] + np.floor(v / CELL_M)[:, None]).astype(int) % 2
    board = np.where(cells == 1, 220, 30).astype(np.uint8)
    # board pixel centre (i, j) is floor (ox + (i + 0.5) / s, oy + (j + 0.5) / s)
    s = PX_PER_M
    board_to_floor = np.array([[1 / s, 0, BOARD_ORIGIN_M[0] + 0.5 / s], [0, 1 / s, BOARD_ORIGIN_M[1] + 0.5 / s],
                               [0, 0, 1]])
    return cv2.warpPerspective(board, h_floor_to_img @ board_to_floor, SIZE, flags=cv2.INTER_LINEAR,
                               borderValue=128)


def find_corner(gray: np.ndarray, guess: np.ndarray) -> tuple[float, float]:
    """The checker corner near ``guess`` (a rough click, 2 px off), refined in the picture."""
    pts = np.array([[guess + 2.0]], dtype=np.float32)
    cv2.cornerSubPix(gray, pts, (5, 5), (-1, -1), (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 50, 1e-3))
    return float(pts[0, 0, 0]), float(pts[0, 0, 1])


@pytest.fixture
def floor_photo(project, tmp_path):
    h = camera_homography()
    img = render_floor(h)
    path = tmp_path / "floor.png"
    cv2.imwrite(str(path), img)
    report = library.add_paths(project, [path])
    return report.media_ids[0], h, img


def test_floor_ruler_within_one_percent_and_follows_calibration_edits(project, floor_photo):
    media_id, h, img = floor_photo
    rect = [(0.0, 0.0), (3.0, 0.0), (3.0, 4.0), (0.0, 4.0)]           # near-left, near-right, far-right, far-left
    quad = [find_corner(img, to_image(h, p)) for p in rect]
    for p in quad:
        assert 0 < p[0] < SIZE[0] and 0 < p[1] < SIZE[1]
    cal_id = cal.save_calibration(project, "floor", quad, media_id=media_id, width_m=3.0, depth_m=4.0)
    cases = [((0.5, 0.5), (2.5, 3.5)), ((-1.0, 5.0), (4.5, 6.0)), ((3.5, -0.5), (-1.5, 2.0))]
    rulers = []
    for a, b in cases:
        p, q = find_corner(img, to_image(h, a)), find_corner(img, to_image(h, b))
        rulers.append(ann.add_ruler(project, media_id, p, q, on_floor=True))
    true = [math.dist(a, b) for a, b in cases]                         # 3.606, 5.590, 5.590 m
    got = [cal.measure_ruler(project, r) for r in rulers]
    for m, t in zip(got, true):
        assert m.metres == pytest.approx(t, rel=0.01)
        assert "floor plane" in m.how
    # the same image points under a rectangle said to be twice as large read twice as long
    cal.save_calibration(project, "floor", quad, media_id=media_id, width_m=6.0, depth_m=8.0, calibration_id=cal_id)
    for r, m in zip(rulers, got):
        assert cal.measure_ruler(project, r).metres == pytest.approx(2 * m.metres, rel=1e-9)
    # a ruler drawn before the floor was calibrated (not marked on the floor) is measured by the calibration in
    # use too, the floor, the only one (issue 32: one calibration measures a media's rulers)
    flat = ann.add_ruler(project, media_id, (10, 10), (40, 50))
    m = cal.measure_ruler(project, flat)
    assert m.pixels == 50.0 and m.kind == "floor" and "floor plane" in m.how
    assert m.metres == pytest.approx(cal.measure_points(project, media_id, (10, 10), (40, 50), on_floor=True).metres)
    # asked for the scale explicitly, with no scale calibration, it reads in pixels and says how to calibrate
    pixels, metres, how = cal.measure_points(project, media_id, (10, 10), (40, 50), on_floor=False)
    assert (pixels, metres) == (50.0, None) and "calibrate with C" in how


def test_scale_calibration_applies_on_read(media_project):
    ruler = ann.add_ruler(media_project, PHOTO_ID, (100, 100), (220, 260))      # 3-4-5: 200 px
    pixels, metres, how = cal.measure_ruler(media_project, ruler)
    assert pixels == 200 and metres is None and "no calibration; calibrate with C" in how
    c = cal.save_calibration(media_project, "scale", [(0, 0), (0, 80)], media_id=PHOTO_ID, length_m=1.0)   # 80 px = 1 m
    assert cal.measure_ruler(media_project, ruler).metres == pytest.approx(2.5)
    cal.save_calibration(media_project, "scale", [(0, 0), (0, 80)], media_id=PHOTO_ID, length_m=2.0)       # replaces it
    assert cal.measure_ruler(media_project, ruler).metres == pytest.approx(5.0)
    assert [r.id for r in cal.list_calibrations(media_project)] == [c]


@pytest.mark.parametrize("kind, points, lengths, message", [
    ("floor", [(0, 0), (100, 0), (200, 0), (50, 80)], {"width_m": 2, "depth_m": 3}, "collinear"),
    ("scale", [(5, 5), (5, 5)], {"length_m": 1.0}, "coincide"),
    ("scale", [(5, 5), (50, 5)], {"length_m": 0.0}, "positive"),
])
def test_degenerate_calibration_saves_nothing(media_project, kind, points, lengths, message):
    with pytest.raises(CalibrationError, match=message):
        cal.save_calibration(media_project, kind, points, media_id=PHOTO_ID, **lengths)
    with pytest.raises(CalibrationError, match=message):
        UndoStack().push(edits.SaveCalibration(media_project, kind=kind, points=points, media_id=PHOTO_ID, **lengths))
    assert cal.list_calibrations(media_project) == []


def test_camera_group_calibration_and_media_override(media_project, project):
    from fieldstudio.store.models import Media

    with project.write() as s:
        s.add(Media(id="d" * 32, kind="image", path="p2.jpg", file_name="p2.jpg", width=400, height=300))
    with pytest.raises(cal.CameraGroupError, match="640x480"):
        cal.set_camera_group(media_project, [PHOTO_ID, VIDEO_ID], "dock")
    stack = UndoStack()
    stack.push(edits.SetCameraGroup(media_project, [PHOTO_ID, "d" * 32], "dock"))
    stack.push(edits.SaveCalibration(media_project, kind="scale", points=[(0, 0), (100, 0)], camera_group="dock", length_m=1.0))
    r1 = ann.add_ruler(media_project, PHOTO_ID, (0, 0), (0, 300))
    r2 = ann.add_ruler(media_project, "d" * 32, (0, 0), (150, 0))
    assert cal.measure_ruler(media_project, r1).metres == pytest.approx(3.0)
    assert cal.measure_ruler(media_project, r2).metres == pytest.approx(1.5)
    assert "camera group 'dock'" in cal.measure_ruler(media_project, r2).how
    cal.save_calibration(media_project, "scale", [(0, 0), (50, 0)], media_id="d" * 32, length_m=1.0)  # own one wins
    assert cal.measure_ruler(media_project, r2).metres == pytest.approx(3.0)
    assert cal.measure_ruler(media_project, r1).metres == pytest.approx(3.0)
    stack.undo()                                                  # the group calibration is gone
    assert cal.measure_ruler(media_project, r1).metres is None
    stack.redo()
    assert cal.measure_ruler(media_project, r1).metres == pytest.approx(3.0)
    stack.undo()
    stack.undo()                                                  # out of the group again
    assert cal.calibration_for(media_project, PHOTO_ID, "scale") is None


def test_editing_a_calibration_is_undoable(media_project):
    stack = UndoStack()
    ruler = ann.add_ruler(media_project, PHOTO_ID, (0, 0), (100, 0))
    first = stack.push(edits.SaveCalibration(media_project, kind="scale", points=[(0, 0), (50, 0)], media_id=PHOTO_ID,
                                             length_m=1.0))
    stack.push(edits.SaveCalibration(media_project, kind="scale", points=[(0, 0), (25, 0)], media_id=PHOTO_ID, length_m=1.0))
    assert cal.measure_ruler(media_project, ruler).metres == pytest.approx(4.0)
    stack.undo()
    assert cal.measure_ruler(media_project, ruler).metres == pytest.approx(2.0)
    stack.push(edits.DeleteCalibration(media_project, first.calibration_id))
    assert cal.measure_ruler(media_project, ruler).metres is None
    stack.undo()
    assert cal.measure_ruler(media_project, ruler).metres == pytest.approx(2.0)
    assert [c.id for c in cal.list_calibrations(media_project)] == [first.calibration_id]
