"""Calibration geometry checked against an independent pinhole camera and a warped checkerboard.

The camera model here (intrinsics K, rotation R, centre C; x ~ K R (P - C)) is written in the test
and never calls the code under test; true distances are measured on the floor in world metres.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from fieldstudio.core.calibration import (
    Calibration,
    floor_distance_m,
    floor_grid_lines,
    floor_homography,
    image_to_floor,
    measure,
    metres_per_pixel,
    orient_homography,
    ruler_length_m,
)
from fieldstudio.core.errors import CalibrationError

# --------------------------------------------------------------------------- independent camera


class PinholeCamera:
    """World: floor Z = 0, Z up. Camera axes: x right, y down, z forward (OpenCV convention)."""

    def __init__(self, *, f_px: float, size: tuple[int, int], centre_m: tuple[float, float, float],
                 yaw_deg: float, pitch_down_deg: float, roll_deg: float):
        w, h = size
        self.size = size
        self.K = np.array([[f_px, 0, w / 2], [0, f_px, h / 2], [0, 0, 1.0]])
        yaw, pitch, roll = (math.radians(a) for a in (yaw_deg, pitch_down_deg, roll_deg))
        forward = np.array([math.sin(yaw) * math.cos(pitch), math.cos(yaw) * math.cos(pitch), -math.sin(pitch)])
        right = np.cross(forward, [0.0, 0.0, 1.0])
        right /= np.linalg.norm(right)
        down = np.cross(forward, right)
        # roll about the optical axis
        r2 = math.cos(roll) * right + math.sin(roll) * down
        d2 = -math.sin(roll) * right + math.cos(roll) * down
        self.R = np.vstack([r2, d2, forward])
        self.C = np.asarray(centre_m, dtype=float)

    def project(self, floor_xy: tuple[float, float]) -> tuple[float, float]:
        p_cam = self.R @ (np.array([floor_xy[0], floor_xy[1], 0.0]) - self.C)
        assert p_cam[2] > 0, "test point behind the camera"
        x = self.K @ (p_cam / p_cam[2])
        return float(x[0]), float(x[1])


@pytest.fixture
def camera() -> PinholeCamera:
    # a CCTV-like camera 3.2 m up, looking 35 degrees down, a little yawed and rolled
    return PinholeCamera(f_px=1400.0, size=(1920, 1080), centre_m=(0.4, -2.0, 3.2),
                         yaw_deg=8.0, pitch_down_deg=35.0, roll_deg=2.0)


def rectangle_on_floor(origin, angle_deg, width, depth):
    """World corners of a W x D floor rectangle with its near-left corner at origin, rotated on the floor."""
    a = math.radians(angle_deg)
    ex = np.array([math.cos(a), math.sin(a)])
    ey = np.array([-math.sin(a), math.cos(a)])
    o = np.asarray(origin, dtype=float)
    return [o, o + width * ex, o + width * ex + depth * ey, o + depth * ey]


# --------------------------------------------------------------------------- scale calibration


def test_scale_by_hand():
    """A 2.0 m pole over (100, 200)-(100, 600) is 400 px: 0.005 m/px; a 300-400-500 ruler is 2.5 m."""
    assert metres_per_pixel((100, 200), (100, 600), 2.0) == pytest.approx(0.005)
    assert ruler_length_m((10, 10), (310, 410), 0.005) == pytest.approx(2.5)
    cal = Calibration.scale((100.0, 200.0), (100.0, 600.0), 2.0)
    assert cal.metres_per_pixel == pytest.approx(0.005)
    assert cal.measure((10, 10), (310, 410)) == (pytest.approx(2.5), "m")
    assert measure(None, (10, 10), (310, 410)) == (pytest.approx(500.0), "px")
    assert measure(cal, (0, 0), (3, 4)) == (pytest.approx(0.025), "m")


@pytest.mark.parametrize("p1, p2, length", [
    ((5, 5), (5, 5), 1.0),          # coincident points
    ((0, 0), (10, 0), 0.0),         # zero length
    ((0, 0), (10, 0), -1.0),        # negative length
    ((0, 0), (10, 0), float("nan")),
    ((0, 0), (float("inf"), 0), 1.0),
])
def test_scale_degenerate_raises(p1, p2, length):
    with pytest.raises(CalibrationError):
        metres_per_pixel(p1, p2, length)
    with pytest.raises(CalibrationError):
        Calibration.scale(p1, p2, length)


# --------------------------------------------------------------------------- floor calibration


def test_floor_distances_match_true_metres(camera):
    """Calibrate from a projected 2.5 x 4 m rectangle; other floor pairs measure their true distance."""
    corners = rectangle_on_floor((-0.8, 3.0), 12.0, 2.5, 4.0)
    quad = [camera.project(c) for c in corners]
    cal = Calibration.floor(quad, 2.5, 4.0)

    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(200):
        a = rng.uniform([-2.5, 2.0], [3.5, 12.0])
        b = rng.uniform([-2.5, 2.0], [3.5, 12.0])
        true_m = float(np.hypot(*(b - a)))
        if true_m < 0.3:
            continue
        pa, pb = camera.project(a), camera.project(b)
        value, unit = cal.measure(pa, pb)
        assert unit == "m"
        assert value == pytest.approx(true_m, rel=0.01)
        assert value == pytest.approx(true_m, rel=1e-6)       # the maths is exact up to float error
        checked += 1
    assert checked > 150
    # the corners themselves map to the rectangle's corners
    for c, expected in zip(quad, [(0, 0), (2.5, 0), (2.5, 4.0), (0, 4.0)]):
        assert image_to_floor(cal.homography, c) == pytest.approx(expected, abs=1e-6)


def test_floor_distances_with_clicked_points_within_one_percent(camera):
    """Corners clicked to the nearest pixel: distances near the rectangle stay within 1 %."""
    width, depth = 3.0, 5.0
    corners = rectangle_on_floor((-1.0, 2.5), -6.0, width, depth)
    quad = [tuple(np.round(camera.project(c))) for c in corners]
    h = floor_homography(quad, width, depth)
    pairs = [((-0.5, 3.0), (1.5, 6.5)), ((0.0, 2.8), (1.8, 2.8)), ((-0.9, 4.0), (-0.9, 7.0)),
             ((1.0, 3.5), (-0.5, 7.2)), ((0.2, 5.0), (1.6, 5.9))]
    for a, b in pairs:
        true_m = math.dist(a, b)
        got = floor_distance_m(h, np.round(camera.project(a)), np.round(camera.project(b)))
        assert got == pytest.approx(true_m, rel=0.01), (a, b)


def test_clockwise_order_gives_same_distances(camera):
    """Clicking the corners the other way round mirrors the floor axes; distances are unchanged."""
    corners = rectangle_on_floor((0.0, 3.0), 0.0, 2.0, 3.0)
    quad = [camera.project(c) for c in corners]
    mirrored = [quad[1], quad[0], quad[3], quad[2]]
    h1, h2 = floor_homography(quad, 2.0, 3.0), floor_homography(mirrored, 2.0, 3.0)
    p, q = camera.project((0.3, 4.0)), camera.project((1.7, 8.0))
    assert floor_distance_m(h1, p, q) == pytest.approx(floor_distance_m(h2, p, q), rel=1e-9)
    assert floor_distance_m(h1, p, q) == pytest.approx(math.dist((0.3, 4.0), (1.7, 8.0)), rel=1e-6)


def test_point_on_or_beyond_horizon_raises(camera):
    corners = rectangle_on_floor((-1.0, 3.0), 0.0, 2.0, 2.0)
    h = floor_homography([camera.project(c) for c in corners], 2.0, 2.0)
    # the horizon: image of a floor point very far ahead, computed with the independent camera
    far = camera.project((0.0, 1e7))
    near = camera.project((0.0, 4.0))
    with pytest.raises(CalibrationError, match="horizon"):
        floor_distance_m(h, near, (near[0], far[1] - 50.0))           # above the horizon (sky)
    # exactly on the horizon line w = 0
    on = np.linalg.solve(np.vstack([h[2], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
                         [0.0, 500.0, 1.0])
    with pytest.raises(CalibrationError):
        image_to_floor(h, (on[0], on[1]))
    # a point just below the horizon is far away but finite
    x, y = image_to_floor(h, (far[0], far[1] + 20.0))
    assert y > 20.0 and math.isfinite(x)
    # the orientation is what a bare cv2 matrix lacks: -H is the same map, re-oriented
    assert np.allclose(orient_homography(-h, [near]), h)


@pytest.mark.parametrize("quad, reason", [
    ([(100, 500), (100, 500), (400, 300), (100, 300)], "coincide"),
    ([(100, 500), (300, 500), (500, 500), (100, 300)], "collinear"),        # three on one line
    ([(100, 500), (500, 500), (100, 300), (500, 300)], "convex"),           # bow tie: edges cross
    ([(100, 500), (500, 500), (300, 450), (300, 100)], "convex"),           # one corner points inwards
    ([(100, 500), (500, 500), (400, 300)], "four"),
])
def test_degenerate_quad_raises(quad, reason):
    with pytest.raises(CalibrationError, match=reason):
        Calibration.floor(quad, 2.0, 3.0)


@pytest.mark.parametrize("width, depth", [(0.0, 3.0), (2.0, -1.0), (float("nan"), 1.0)])
def test_bad_rectangle_size_raises(width, depth):
    with pytest.raises(CalibrationError):
        floor_homography([(100, 500), (500, 500), (400, 300), (200, 300)], width, depth)


def test_calibration_kind_and_fields_are_checked():
    with pytest.raises(CalibrationError):
        Calibration("tilt", ((0, 0), (1, 1)), length_m=1.0)
    with pytest.raises(CalibrationError):
        Calibration("scale", ((0, 0), (1, 1), (2, 3)), length_m=1.0)
    with pytest.raises(CalibrationError):
        Calibration("scale", ((0, 0), (10, 0)))                         # no length
    cal = Calibration.scale((0, 0), (10, 0), 1.0)
    assert cal == Calibration("scale", ((0.0, 0.0), (10.0, 0.0)), length_m=1.0)
    assert cal.grid_lines() == []
    with pytest.raises(CalibrationError):
        cal.homography


# --------------------------------------------------------------------------- grid over a warped checkerboard

CELL_M = 0.5                    # checker cell and grid step, metres
PX_PER_M = 200                  # top-down board resolution
BOARD_ORIGIN_M = (-2.0, -1.0)   # floor metres at the board's top-left pixel corner
BOARD_SIZE_M = (8.0, 10.0)


def checkerboard_top_down() -> np.ndarray:
    """Floor checkerboard seen from above: pixel (u, v) covers floor X = ox + u/s, Y = oy + v/s."""
    w, h = int(BOARD_SIZE_M[0] * PX_PER_M), int(BOARD_SIZE_M[1] * PX_PER_M)
    u = (np.arange(w) + 0.5) / PX_PER_M + BOARD_ORIGIN_M[0]
    v = (np.arange(h) + 0.5) / PX_PER_M + BOARD_ORIGIN_M[1]
    cells = (np.floor(u / CELL_M)[None, :] + np.floor(v / CELL_M)[:, None]).astype(int) % 2
    return np.where(cells == 1, 220, 30).astype(np.uint8)


def floor_to_board_px(xy) -> np.ndarray:
    return np.array([(xy[0] - BOARD_ORIGIN_M[0]) * PX_PER_M, (xy[1] - BOARD_ORIGIN_M[1]) * PX_PER_M])


def edge_offset_px(gray: np.ndarray, point: np.ndarray, normal: np.ndarray, reach: float = 5.0) -> float:
    """Signed position (px along normal) of the strongest intensity step across a line at point."""
    ts = np.arange(-reach, reach + 0.001, 0.1)
    xs = (point[0] + ts * normal[0]).astype(np.float32)[None, :]
    ys = (point[1] + ts * normal[1]).astype(np.float32)[None, :]
    profile = cv2.remap(gray.astype(np.float32), xs, ys, cv2.INTER_LINEAR)[0]
    grad = np.abs(np.gradient(profile, ts))
    return float(ts[int(np.argmax(grad))])


def test_grid_lines_land_on_checker_edges():
    """Warp a checkerboard floor into a camera view with a known matrix; the grid follows its edges."""
    board = checkerboard_top_down()
    # known board-pixel -> image matrix: a strong perspective (the far side shrinks)
    src = np.float32([[0, board.shape[0]], [board.shape[1], board.shape[0]], [board.shape[1], 0], [0, 0]])
    dst = np.float32([[180, 1050], [1750, 1010], [1230, 330], [640, 350]])
    m = cv2.getPerspectiveTransform(src, dst)
    size = (1920, 1080)
    image = cv2.warpPerspective(board, m, size, flags=cv2.INTER_AREA)

    def to_image(xy):
        u, v = floor_to_board_px(xy)
        x = m @ np.array([u, v, 1.0])
        return np.array([x[0] / x[2], x[1] / x[2]])

    width, depth = 3.0, 4.0              # calibration rectangle: 6 x 8 cells from floor (0, 0)
    quad = [tuple(to_image(c)) for c in [(0, 0), (width, 0), (width, depth), (0, depth)]]
    lines = floor_grid_lines(floor_homography(quad, width, depth), width, depth, step_m=CELL_M)
    assert sorted(ln.offset_m for ln in lines if ln.axis == "X") == pytest.approx(np.arange(0, 3.01, 0.5))
    assert sorted(ln.offset_m for ln in lines if ln.axis == "Y") == pytest.approx(np.arange(0, 4.01, 0.5))

    offsets = []
    for ln in lines:
        p, q = np.array(ln.start), np.array(ln.end)
        direction = (q - p) / np.linalg.norm(q - p)
        normal = np.array([-direction[1], direction[0]])
        # sample mid-cell along the line (away from checker corners), located with the known matrix
        n_cells = int(round((depth if ln.axis == "X" else width) / CELL_M))
        for k in range(n_cells):
            along = (k + 0.5) * CELL_M
            xy = (ln.offset_m, along) if ln.axis == "X" else (along, ln.offset_m)
            target = to_image(xy)
            # the mid-cell point lies on the drawn line ...
            assert abs(np.dot(target - p, normal)) < 0.5
            # ... and the checker edge found in the pixels is under the line
            offsets.append(edge_offset_px(image, target, normal))
    offsets = np.abs(np.array(offsets))
    assert offsets.max() <= 1.5
    assert np.median(offsets) <= 0.5


def test_grid_with_margin_stops_before_horizon_and_clips_to_image(camera):
    corners = rectangle_on_floor((-1.0, 3.0), 0.0, 2.0, 2.0)
    cal = Calibration.floor([camera.project(c) for c in corners], 2.0, 2.0)
    h = cal.homography
    lines = cal.grid_lines(step_m=1.0, margin_m=500.0, image_size=camera.size)
    assert lines
    horizon_y = camera.project((0.0, 1e7))[1]
    for ln in lines:
        for x, y in (ln.start, ln.end):
            assert 0 <= x <= camera.size[0] + 1e-6 and 0 <= y <= camera.size[1] + 1e-6
            assert y > horizon_y                                # floor side of the horizon
            image_to_floor(h, (x, y))                           # every end has a floor position
    # without an image size and margin the grid spans exactly the calibrated rectangle
    plain = cal.grid_lines(step_m=1.0)
    ends = {tuple(np.round(image_to_floor(h, pt), 9)) for ln in plain for pt in (ln.start, ln.end)}
    assert ends == {(0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (0.0, 2.0), (1.0, 2.0), (2.0, 2.0),
                    (0.0, 1.0), (2.0, 1.0)}
