"""Calibration and measurement geometry: scale from a known length, floor plane from a known rectangle.

All image coordinates are floats in pixels of the upright (orientation-corrected) full-resolution
image: x to the right, y downwards, the pixel (i, j) covering [i, i+1) x [j, j+1). Floor coordinates
are metres in the plane of the calibration rectangle: X along its width, Y along its depth.

Two kinds of calibration (DESIGN.md, "Words"; the approach follows Kinovea's line and plane
calibration, reference/anchors.md):

* **scale**: two image points over an object of known length L metres.
  ``metres_per_pixel = L / |p2 - p1|`` and a ruler measures ``|q - p| * metres_per_pixel``.
  Correct only for lengths in a plane parallel to the image at the reference object's depth.
* **floor**: four image points of a floor rectangle of width W and depth D metres, given in the
  order near-left, near-right, far-right, far-left, which map to the floor points
  (0, 0), (W, 0), (W, D), (0, D). A 3x3 homography H maps an image point to the floor::

      [u, v, w]^T = H [x, y, 1]^T,    X = u / w,    Y = v / w      (X, Y in metres)

  and the ground distance of two image points is the Euclidean distance of their floor points.
  The homography is solved from the four correspondences by cv2.getPerspectiveTransform (eight
  linear equations ``X_i (h31 x_i + h32 y_i + h33) = h11 x_i + h12 y_i + h13`` and the same for Y,
  with h33 = 1), then its sign is fixed so that w > 0 on the calibrated quad (see
  :func:`orient_homography`). With that convention the line w = 0 is the horizon and w < 0 is
  the part of the image beyond it; such points have no floor position and raise CalibrationError.

Calibrations are stored raw (points and real lengths) and the matrices computed when measuring,
so editing a calibration re-computes every measurement that uses it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal, Sequence

import cv2
import numpy as np

from fieldstudio.core.errors import CalibrationError

Point = tuple[float, float]

#: Two points closer than this (pixels) are coincident.
COINCIDENT_TOL_PX = 1e-6
#: Three points are collinear when the distance of one from the line through the other two is
#: below this fraction of the quad's largest side (1 px over a 1000 px quad).
COLLINEAR_TOL_REL = 1e-3
#: A point is on the horizon when its signed distance from the horizon line w = 0 is at most this
#: many pixels (towards the floor side); beyond it, w < 0.
HORIZON_TOL_PX = 1e-6
#: Grid lines are clipped to the part of the floor whose image w' (floor-to-image homography,
#: oriented positive on the rectangle) is at least this fraction of the smallest w' at the
#: rectangle's corners: the grid stops well before the horizon instead of running off to infinity.
GRID_MIN_W_FRACTION = 0.05

FLOOR_CORNER_ORDER = ("near-left", "near-right", "far-right", "far-left")


# --------------------------------------------------------------------------- validation helpers


def _as_point(p: Sequence[float], name: str) -> np.ndarray:
    arr = np.asarray(p, dtype=np.float64).reshape(-1)
    if arr.shape != (2,) or not np.all(np.isfinite(arr)):
        raise CalibrationError(f"{name} must be two finite pixel coordinates (x, y), got {p!r}")
    return arr


def _positive_length(value: float, name: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise CalibrationError(f"{name} must be a number of metres, got {value!r}") from None
    if not math.isfinite(v) or v <= 0.0:
        raise CalibrationError(f"{name} must be a positive length in metres, got {value!r}")
    return v


def _as_quad(image_quad: Sequence[Sequence[float]]) -> np.ndarray:
    """Validate four image points; returns a (4, 2) float64 array. Raises CalibrationError."""
    try:
        quad = np.asarray(image_quad, dtype=np.float64)
    except (TypeError, ValueError):
        raise CalibrationError(f"the floor calibration needs four image points, got {image_quad!r}") from None
    if quad.shape != (4, 2):
        raise CalibrationError(f"the floor calibration needs four image points (x, y), got shape {quad.shape}")
    if not np.all(np.isfinite(quad)):
        raise CalibrationError("the floor calibration points must be finite pixel coordinates")
    for i in range(4):
        for j in range(i + 1, 4):
            if np.hypot(*(quad[i] - quad[j])) <= COINCIDENT_TOL_PX:
                raise CalibrationError(
                    f"floor calibration points {FLOOR_CORNER_ORDER[i]} and {FLOOR_CORNER_ORDER[j]} "
                    f"coincide at ({quad[i][0]:.1f}, {quad[i][1]:.1f}) px")
    scale = max(np.hypot(*(quad[i] - quad[j])) for i in range(4) for j in range(i + 1, 4))
    for skip in range(4):
        a, b, c = (quad[k] for k in range(4) if k != skip)
        # distance of each point of the triple from the line through the other two
        for p, q, r in ((a, b, c), (b, c, a), (c, a, b)):
            base = np.hypot(*(q - p))
            height = abs(_cross(q - p, r - p)) / base
            if height <= COLLINEAR_TOL_REL * scale:
                names = [FLOOR_CORNER_ORDER[k] for k in range(4) if k != skip]
                raise CalibrationError(
                    f"three floor calibration points ({', '.join(names)}) are collinear; "
                    "pick the four corners of a rectangle lying on the floor")
    turns = [_cross(quad[(i + 1) % 4] - quad[i], quad[(i + 2) % 4] - quad[(i + 1) % 4]) for i in range(4)]
    if not (all(t > 0 for t in turns) or all(t < 0 for t in turns)):
        raise CalibrationError(
            "the four floor calibration points do not form a convex quadrilateral (the edges cross "
            "or a corner points inwards); give them in the order near-left, near-right, far-right, far-left")
    return quad


def _cross(a: np.ndarray, b: np.ndarray) -> float:
    return float(a[0] * b[1] - a[1] * b[0])


def order_floor_corners(points: Sequence[Sequence[float]]) -> tuple[Point, Point, Point, Point]:
    """Four floor corners named by where they are in the image, whatever order they were clicked in.

    The corners are put in order around their centroid (the quad must be convex); the *near* edge is
    the side whose midpoint is nearest the bottom of the image (largest y), and of its two ends the
    one further left is near-left. The other two follow around the quad. Returns (near-left,
    near-right, far-right, far-left). Raises CalibrationError as :func:`floor_homography` does for
    coincident, collinear or non-convex points.
    """
    quad = _as_quad_points(points)
    c = quad.mean(axis=0)
    around = sorted(range(4), key=lambda i: math.atan2(quad[i][1] - c[1], quad[i][0] - c[0]))
    ring = [quad[i] for i in around]
    _as_quad(ring)  # convexity and collinearity, now that the order is the quad's own
    sides = [(k, (k + 1) % 4) for k in range(4)]
    a, b = max(sides, key=lambda ab: (ring[ab[0]][1] + ring[ab[1]][1], -abs(ring[ab[0]][0] - ring[ab[1]][0])))
    if ring[a][0] > ring[b][0]:
        a, b = b, a
    # around the ring from near-right away from near-left, then far-left next to near-left
    step = 1 if (b - a) % 4 == 1 else -1
    far_right, far_left = ring[(b + step) % 4], ring[(a - step) % 4]
    return tuple((float(p[0]), float(p[1])) for p in (ring[a], ring[b], far_right, far_left))  # type: ignore


def _as_quad_points(points: Sequence[Sequence[float]]) -> np.ndarray:
    try:
        quad = np.asarray(points, dtype=np.float64)
    except (TypeError, ValueError):
        raise CalibrationError(f"the floor calibration needs four image points, got {points!r}") from None
    if quad.shape != (4, 2) or not np.all(np.isfinite(quad)):
        raise CalibrationError(f"the floor calibration needs four finite image points (x, y), got {points!r}")
    return quad


#: Reference lines and floor edges shorter than this (pixels) make a click's error a large fraction.
MIN_REFERENCE_PX = 20.0
#: A floor rectangle whose entered aspect W:D and the corners' apparent aspect in the image differ by
#: more than this factor is probably entered the wrong way round (perspective alone rarely does it).
ASPECT_FACTOR = 3.0
#: Interior angles of the picked quad outside [MIN_ANGLE_DEG, 180 - MIN_ANGLE_DEG] make it nearly degenerate.
MIN_ANGLE_DEG = 15.0


def scale_warnings(p1: Point, p2: Point) -> list[str]:
    """What is doubtful about a scale reference line (nothing is refused): a line under MIN_REFERENCE_PX."""
    px = pixel_distance(p1, p2)
    if px < MIN_REFERENCE_PX:
        return [f"the reference line is only {px:.1f} px long: a 1 px click error is {100 / px:.0f} % of the "
                "scale; zoom in or use a longer object"]
    return []


def floor_warnings(corners: Sequence[Point], width_m: float, depth_m: float) -> list[str]:
    """What is doubtful about a floor calibration whose corners are (near-left, near-right, far-right, far-left).

    * inverted perspective: the far (upper) edge looks longer than the near edge and the sides converge
      downwards, i.e. the horizon of the fitted plane lies below the rectangle: a floor seen from a
      camera above it recedes upwards, so this is a ceiling, an upside-down image or mistaken corners;
    * nearly degenerate: an interior angle under MIN_ANGLE_DEG degrees (or over 180 minus that);
    * an aspect W:D that differs from the corners' apparent aspect (mean of the near and far edges'
      pixel lengths over the mean of the sides') by more than ASPECT_FACTOR either way;
    * an edge shorter than MIN_REFERENCE_PX pixels.
    """
    q = np.asarray(corners, dtype=np.float64)
    out: list[str] = []
    h = floor_homography(q, width_m, depth_m)
    near_px, far_px = float(np.hypot(*(q[1] - q[0]))), float(np.hypot(*(q[2] - q[3])))
    if h[2, 1] < 0 and far_px > 1.05 * near_px:
        out.append("the perspective is inverted: the far (upper) edge looks longer than the near edge "
                   f"({far_px:.0f} px vs {near_px:.0f} px), so the plane would recede towards the bottom of the "
                   "image; a floor seen from above recedes upwards. Check the corners, or whether the image "
                   "is upside down")
    for i in range(4):
        a, b, c = q[i - 1], q[i], q[(i + 1) % 4]
        u, v = a - b, c - b
        angle = math.degrees(math.acos(max(-1.0, min(1.0, float(u @ v) / (np.hypot(*u) * np.hypot(*v))))))
        if angle < MIN_ANGLE_DEG or angle > 180 - MIN_ANGLE_DEG:
            out.append(f"the quadrilateral is nearly degenerate: its {FLOOR_CORNER_ORDER[i]} angle is {angle:.0f}°; "
                       "small click errors move the floor a lot")
            break
    side_px = (float(np.hypot(*(q[3] - q[0]))) + float(np.hypot(*(q[2] - q[1])))) / 2
    apparent = (near_px + far_px) / 2 / side_px
    entered = float(width_m) / float(depth_m)
    factor = max(apparent / entered, entered / apparent)
    if factor > ASPECT_FACTOR:
        out.append(f"the rectangle's entered aspect {width_m:g} m : {depth_m:g} m ({entered:.2f}) and its "
                   f"corners' aspect in the image ({apparent:.2f}) differ by {factor:.1f}x; check that the width "
                   "is the near edge and the depth the side")
    shortest = min(float(np.hypot(*(q[(i + 1) % 4] - q[i]))) for i in range(4))
    if shortest < MIN_REFERENCE_PX:
        out.append(f"an edge of the rectangle is only {shortest:.1f} px long: a 1 px click error is "
                   f"{100 / shortest:.0f} % of it; zoom in or use a larger rectangle")
    return out


@dataclass(frozen=True)
class LengthCheck:
    """An independent check: a length the user knows, measured through the calibration.

    ``error_m = measured_m - known_m``; ``error_pct = 100 * error_m / known_m``.
    """

    p: Point
    q: Point
    known_m: float
    measured_m: float

    @property
    def error_m(self) -> float:
        return self.measured_m - self.known_m

    @property
    def error_pct(self) -> float:
        return 100.0 * self.error_m / self.known_m


# --------------------------------------------------------------------------- scale calibration


def metres_per_pixel(p1: Point, p2: Point, length_m: float) -> float:
    """Scale of a reference object: ``length_m / |p2 - p1|``.

    Args:
        p1, p2: the reference object's ends in upright full-resolution image pixels.
        length_m: its real length in metres (> 0).
    Returns:
        Metres per pixel (m/px).
    Raises:
        CalibrationError: if the length is not positive or the two points coincide.
    """
    a, b = _as_point(p1, "the first reference point"), _as_point(p2, "the second reference point")
    length = _positive_length(length_m, "the reference length")
    px = float(np.hypot(*(b - a)))
    if px <= COINCIDENT_TOL_PX:
        raise CalibrationError(f"the two reference points coincide at ({a[0]:.1f}, {a[1]:.1f}) px; "
                               "draw the reference along the object")
    return length / px


def pixel_distance(p: Point, q: Point) -> float:
    """Euclidean distance ``|q - p|`` in pixels between two image points."""
    a, b = _as_point(p, "the first point"), _as_point(q, "the second point")
    return float(np.hypot(*(b - a)))


def ruler_length_m(p: Point, q: Point, m_per_px: float) -> float:
    """Length in metres of a ruler from p to q under a scale calibration: ``|q - p| * m_per_px``.

    Args:
        p, q: the ruler's ends in upright full-resolution image pixels.
        m_per_px: metres per pixel, as returned by :func:`metres_per_pixel`.
    """
    return pixel_distance(p, q) * _positive_length(m_per_px, "the scale (metres per pixel)")


# --------------------------------------------------------------------------- floor calibration


def floor_rectangle_m(width_m: float, depth_m: float) -> np.ndarray:
    """The floor corners (0, 0), (W, 0), (W, D), (0, D) in metres, shape (4, 2) float64."""
    w = _positive_length(width_m, "the floor rectangle's width")
    d = _positive_length(depth_m, "the floor rectangle's depth")
    return np.array([[0.0, 0.0], [w, 0.0], [w, d], [0.0, d]])


def orient_homography(h: np.ndarray, points: Sequence[Sequence[float]]) -> np.ndarray:
    """Return ``h`` or ``-h`` (the same projective map) so that w > 0 at the given points.

    Args:
        h: 3x3 homography, e.g. from cv2.getPerspectiveTransform (which sets h33 = 1, so its sign
            says nothing about which side of the horizon the floor is on).
        points: (N, 2) points known to be in front of the camera (the calibration quad).
    Raises:
        CalibrationError: if w changes sign or vanishes among the points (they straddle the horizon).
    """
    h = np.asarray(h, dtype=np.float64)
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    w = pts @ h[2, :2] + h[2, 2]
    if np.all(w > 0):
        return h.copy()
    if np.all(w < 0):
        return -h
    raise CalibrationError("the calibration points lie on both sides of the horizon; the homography is degenerate")


def floor_homography(image_quad: Sequence[Point], width_m: float, depth_m: float) -> np.ndarray:
    """Homography from image pixels to floor metres, from four image points of a floor rectangle.

    Args:
        image_quad: four image points (x, y) in pixels, in the order near-left, near-right,
            far-right, far-left. They map to (0, 0), (W, 0), (W, D), (0, D) metres. Clicking them
            clockwise instead only mirrors the floor axes; distances are unchanged.
        width_m, depth_m: the rectangle's width W and depth D in metres (> 0).
    Returns:
        3x3 float64 matrix H with ``[u, v, w] = H [x, y, 1]``, ``(X, Y) = (u / w, v / w)`` metres,
        oriented so that w > 0 on the quad (so w <= 0 means on or beyond the horizon).
    Raises:
        CalibrationError: a length is not positive, two points coincide, three are collinear, or
            the quad is not convex (self-intersecting or with an inward corner). Nothing is computed.
    """
    quad = _as_quad(image_quad)
    rect = floor_rectangle_m(width_m, depth_m)
    h = cv2.getPerspectiveTransform(quad.astype(np.float32), rect.astype(np.float32))
    if not np.all(np.isfinite(h)) or abs(np.linalg.det(h)) < 1e-300:
        raise CalibrationError("the floor calibration points give a singular homography")
    return orient_homography(h, quad)


def image_to_floor(h_img_to_floor: np.ndarray, p: Point) -> Point:
    """Floor position (X, Y) in metres of an image point assumed to lie on the floor plane.

    ``[u, v, w] = H [x, y, 1]``; ``X = u / w``, ``Y = v / w``.

    Args:
        h_img_to_floor: 3x3 homography as returned by :func:`floor_homography` (w > 0 on the floor;
            orient a bare cv2.getPerspectiveTransform result with :func:`orient_homography` first).
        p: image point in upright full-resolution pixels.
    Raises:
        CalibrationError: if the point maps to infinity: it lies on or beyond the horizon line
            (its signed distance from the line w = 0 is at most HORIZON_TOL_PX towards the floor).
    """
    h = np.asarray(h_img_to_floor, dtype=np.float64)
    x, y = _as_point(p, "the image point")
    u, v, w = h @ np.array([x, y, 1.0])
    grad = math.hypot(h[2, 0], h[2, 1])     # |dw/dpixel|: w / grad is the distance to the horizon in px
    if (grad > 0 and w / grad <= HORIZON_TOL_PX) or (grad == 0 and w <= 0):
        raise CalibrationError(
            f"the point ({x:.1f}, {y:.1f}) px is on or beyond the floor's horizon; it has no floor position")
    return float(u / w), float(v / w)


def floor_distance_m(h_img_to_floor: np.ndarray, p: Point, q: Point) -> float:
    """Ground distance between two image points that lie on the floor plane.

    Args:
        h_img_to_floor: 3x3 homography mapping upright image pixels (x, y) to floor metres (X, Y),
            as returned by :func:`floor_homography` (cv2.getPerspectiveTransform(image_quad,
            floor_rect_m), oriented so that w > 0 on the floor).
        p, q: points in upright full-resolution image pixels.
    Returns:
        Euclidean distance in metres on the floor plane: ``hypot(Xq - Xp, Yq - Yp)``.
    Raises:
        CalibrationError: if a point maps to infinity (it lies on or beyond the horizon line).
    """
    xp, yp = image_to_floor(h_img_to_floor, p)
    xq, yq = image_to_floor(h_img_to_floor, q)
    return float(math.hypot(xq - xp, yq - yp))


@dataclass(frozen=True)
class FloorGridLine:
    """One line of the floor grid, as drawn over the image.

    ``axis`` is 'X' for a line of constant X (running along the depth) and 'Y' for a line of constant
    Y (running along the width); ``offset_m`` is that constant in metres; ``start`` and ``end`` are
    the line's ends in image pixels.
    """

    axis: Literal["X", "Y"]
    offset_m: float
    start: Point
    end: Point


def _grid_offsets(lo: float, hi: float, step: float, edges: Sequence[float]) -> list[float]:
    k0, k1 = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9)
    values = [k * step for k in range(k0, k1 + 1)] + [e for e in edges if lo - 1e-9 <= e <= hi + 1e-9]
    out: list[float] = []
    for v in sorted(values):
        if not out or v - out[-1] > 1e-9 * max(1.0, abs(v)):
            out.append(v)
    return out


def _clip_segment_halfplane(a: np.ndarray, b: np.ndarray, g: np.ndarray, c: float):
    """Clip segment a-b to {P : g.P + c >= 0}; returns (a', b') or None."""
    fa, fb = float(g @ a + c), float(g @ b + c)
    if fa < 0 and fb < 0:
        return None
    if fa >= 0 and fb >= 0:
        return a, b
    t = fa / (fa - fb)
    m = a + t * (b - a)
    return (a, m) if fa >= 0 else (m, b)


def _clip_segment_box(p: np.ndarray, q: np.ndarray, width: float, height: float):
    """Liang-Barsky clip of segment p-q to [0, width] x [0, height]; returns (p', q') or None."""
    d = q - p
    t0, t1 = 0.0, 1.0
    for num, den in ((p[0], -d[0]), (width - p[0], d[0]), (p[1], -d[1]), (height - p[1], d[1])):
        # condition: den * t <= num
        if den == 0:
            if num < 0:
                return None
            continue
        t = num / den
        if den > 0:
            t1 = min(t1, t)
        else:
            t0 = max(t0, t)
        if t0 > t1:
            return None
    return p + t0 * d, p + t1 * d


def floor_grid_lines(h_img_to_floor: np.ndarray, width_m: float, depth_m: float, *,
                     step_m: float = 0.5, margin_m: float = 0.0,
                     image_size: tuple[int, int] | None = None) -> list[FloorGridLine]:
    """Grid lines of the calibrated floor plane, in image pixels, to check a calibration by eye.

    Lines of constant X at every multiple of ``step_m`` and at the rectangle's edges 0 and W, running
    from Y = -margin to D + margin; likewise lines of constant Y. Each floor segment is mapped to the
    image through the inverse homography ``[x', y', w'] = H^-1 [X, Y, 1]`` (a straight floor line
    is a straight image line). Before mapping, the floor segment is clipped to the half-plane
    ``w' >= GRID_MIN_W_FRACTION * min(w' at the rectangle's corners)``, a linear constraint in
    (X, Y), so a large margin stops short of the horizon rather than wrapping through infinity.

    Args:
        h_img_to_floor: 3x3 homography from :func:`floor_homography`.
        width_m, depth_m: the calibration rectangle's W and D in metres.
        step_m: grid spacing in metres (> 0).
        margin_m: how far (metres, >= 0) the grid extends beyond the rectangle on every side.
        image_size: optional (width, height) in pixels; lines are then clipped to the image
            [0, width] x [0, height] and lines wholly outside it are dropped.
    Returns:
        FloorGridLine list, X lines (increasing X) then Y lines (increasing Y).
    Raises:
        CalibrationError: bad lengths or a step that is not positive.
    """
    w_m = _positive_length(width_m, "the floor rectangle's width")
    d_m = _positive_length(depth_m, "the floor rectangle's depth")
    step = _positive_length(step_m, "the grid step")
    margin = float(margin_m)
    if not math.isfinite(margin) or margin < 0:
        raise CalibrationError(f"the grid margin must be zero or more metres, got {margin_m!r}")
    h = np.asarray(h_img_to_floor, dtype=np.float64)
    hinv = np.linalg.inv(h)
    rect = floor_rectangle_m(w_m, d_m)
    w_corners = rect @ hinv[2, :2] + hinv[2, 2]
    if np.all(w_corners < 0):
        hinv = -hinv
        w_corners = -w_corners
    elif not np.all(w_corners > 0):
        raise CalibrationError("the calibration rectangle straddles the horizon; the homography is degenerate")
    g, c = hinv[2, :2], float(hinv[2, 2] - GRID_MIN_W_FRACTION * w_corners.min())

    lines: list[FloorGridLine] = []
    specs = [("X", x, np.array([x, -margin]), np.array([x, d_m + margin]))
             for x in _grid_offsets(-margin, w_m + margin, step, (0.0, w_m))]
    specs += [("Y", y, np.array([-margin, y]), np.array([w_m + margin, y]))
              for y in _grid_offsets(-margin, d_m + margin, step, (0.0, d_m))]
    for axis, offset, a, b in specs:
        clipped = _clip_segment_halfplane(a, b, g, c)
        if clipped is None:
            continue
        ends = []
        for fp in clipped:
            u, v, w = hinv @ np.array([fp[0], fp[1], 1.0])
            ends.append(np.array([u / w, v / w]))
        p, q = ends
        if image_size is not None:
            box = _clip_segment_box(p, q, float(image_size[0]), float(image_size[1]))
            if box is None:
                continue
            p, q = box
        lines.append(FloorGridLine(axis, float(offset), (float(p[0]), float(p[1])), (float(q[0]), float(q[1]))))
    return lines


# --------------------------------------------------------------------------- the stored record


@dataclass(frozen=True)
class Calibration:
    """A calibration as stored: the raw reference points and real lengths; matrices are derived.

    Fields:
        kind: 'scale' (two points over an object of length ``length_m``) or 'floor' (four points of
            a floor rectangle ``width_m`` x ``depth_m``, order near-left, near-right, far-right,
            far-left).
        points: the reference points in upright full-resolution image pixels.
        length_m, width_m, depth_m: metres; only the ones of the kind are set.
    Construction validates and raises CalibrationError on degenerate input.
    """

    kind: Literal["scale", "floor"]
    points: tuple[Point, ...]
    length_m: float | None = None
    width_m: float | None = None
    depth_m: float | None = None

    def __post_init__(self) -> None:
        # derived values live outside the fields, so dataclasses.asdict() gives the raw record
        object.__setattr__(self, "_cache", {})
        try:
            pts = tuple((float(x), float(y)) for x, y in self.points)
        except (TypeError, ValueError):
            raise CalibrationError(f"calibration points must be (x, y) pixel pairs, got {self.points!r}") from None
        object.__setattr__(self, "points", pts)
        if self.kind == "scale":
            if len(pts) != 2:
                raise CalibrationError(f"a scale calibration needs two points, got {len(pts)}")
            if self.width_m is not None or self.depth_m is not None:
                raise CalibrationError("a scale calibration has a length, not a width and depth")
            self._cache["m_per_px"] = metres_per_pixel(pts[0], pts[1], self.length_m)
        elif self.kind == "floor":
            if len(pts) != 4:
                raise CalibrationError(f"a floor calibration needs four points, got {len(pts)}")
            if self.length_m is not None:
                raise CalibrationError("a floor calibration has a width and depth, not a length")
            self._cache["h"] = floor_homography(pts, self.width_m, self.depth_m)
        else:
            raise CalibrationError(f"unknown calibration kind {self.kind!r} (expected 'scale' or 'floor')")

    @classmethod
    def scale(cls, p1: Point, p2: Point, length_m: float) -> "Calibration":
        """A scale calibration from a reference object's two ends and its length in metres."""
        return cls("scale", (p1, p2), length_m=length_m)

    @classmethod
    def floor(cls, image_quad: Sequence[Point], width_m: float, depth_m: float) -> "Calibration":
        """A floor calibration from four image points (near-left, near-right, far-right, far-left)."""
        return cls("floor", tuple(image_quad), width_m=width_m, depth_m=depth_m)

    @property
    def metres_per_pixel(self) -> float:
        """m/px of a scale calibration. Raises CalibrationError for a floor calibration."""
        if self.kind != "scale":
            raise CalibrationError("a floor calibration has no single metres-per-pixel scale")
        return self._cache["m_per_px"]

    @property
    def homography(self) -> np.ndarray:
        """3x3 image-to-floor homography of a floor calibration (a copy)."""
        if self.kind != "floor":
            raise CalibrationError("a scale calibration has no floor homography")
        return self._cache["h"].copy()

    def measure(self, p: Point, q: Point) -> tuple[float, str]:
        """Distance from p to q (image pixels) in metres: returns (value, 'm').

        scale: ``|q - p| * metres_per_pixel``; floor: ground distance of the two points' floor
        positions (both must lie on the floor plane). Raises CalibrationError for a point on or
        beyond the horizon.
        """
        if self.kind == "scale":
            return ruler_length_m(p, q, self._cache["m_per_px"]), "m"
        return floor_distance_m(self._cache["h"], p, q), "m"

    def check(self, p: Point, q: Point, known_m: float) -> LengthCheck:
        """Measure a known length from p to q (image pixels) through this calibration (:class:`LengthCheck`).

        Raises CalibrationError for a length that is not positive or a point beyond the horizon.
        """
        known = _positive_length(known_m, "the check length")
        return LengthCheck((float(p[0]), float(p[1])), (float(q[0]), float(q[1])), known, self.measure(p, q)[0])

    def grid_lines(self, *, step_m: float = 0.5, margin_m: float = 0.0,
                   image_size: tuple[int, int] | None = None) -> list[FloorGridLine]:
        """Floor grid lines in image pixels (:func:`floor_grid_lines`); a scale calibration has none."""
        if self.kind != "floor":
            return []
        return floor_grid_lines(self._cache["h"], self.width_m, self.depth_m,
                                step_m=step_m, margin_m=margin_m, image_size=image_size)


def measure(calibration: Calibration | None, p: Point, q: Point) -> tuple[float, str]:
    """Length of a ruler from p to q: (metres, 'm') when calibrated, else (pixels, 'px')."""
    if calibration is None:
        return pixel_distance(p, q), "px"
    return calibration.measure(p, q)
