"""What a calibration would give, computed before it is saved (the calibration dialog's live preview).

* scale: the reference line's length ``|p2 - p1|`` in pixels, ``metres_per_pixel = L / |p2 - p1|``
  and its inverse (pixels per metre).
* floor: the corners named by their place in the image (``core.calibration.order_floor_corners``:
  the side nearest the bottom edge is the near edge), whatever order they were clicked in, and the near
  and far edges' pixels per metre (``|p2 - p1| / W`` and ``|p3 - p4| / W``: the far edge is smaller
  under perspective).
* warnings that refuse nothing (``scale_warnings``, ``floor_warnings``): inverted perspective, a nearly
  degenerate quadrilateral, an aspect that contradicts the image by more than 3x, references under 20 px.
* the check: a calibration fitted exactly to its own points cannot disagree with them (four corners
  reproject with zero error by construction), so the only check reported is an independent one: a
  known length the user gives — from the near-left corner to a fifth floor point, or a second object
  for a scale — measured through the calibration, with its error in metres and percent. Without one
  the preview says that no independent check was made.

``reprojection_error_m`` and ``diagonal_m`` are kept as figures of the fit (they test the arithmetic,
not the calibration) and are not shown as checks. Invalid input raises the same CalibrationError as
``core.calibration`` (collinear or coincident points, a length that is not positive, a non-convex quad).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from fieldstudio.core.calibration import (
    FLOOR_CORNER_ORDER,
    Calibration,
    LengthCheck,
    floor_distance_m,
    floor_warnings,
    image_to_floor,
    order_floor_corners,
    pixel_distance,
    scale_warnings,
)

Point = tuple[float, float]


@dataclass(frozen=True)
class CalibrationPreview:
    """The checked calibration and its figures.

    scale: ``reference_px`` (px), ``metres_per_pixel`` (m/px), ``pixels_per_metre`` (px/m).
    floor: ``reprojection_error_m`` (m, largest corner difference), ``diagonal_m`` (measured through H),
    ``diagonal_expected_m`` (``hypot(W, D)``), ``near_px_per_m`` and ``far_px_per_m`` (px/m).
    ``corners``: the points as saved (a floor's in the order near-left, near-right, far-right, far-left).
    ``warnings``: sentences; ``check``: the independent check, None when none was given.
    ``lines`` are the figures, the warnings and the check as sentences for the dialog.
    """

    calibration: Calibration
    lines: tuple[str, ...]
    corners: tuple[Point, ...] = ()
    warnings: tuple[str, ...] = ()
    check: LengthCheck | None = None
    reference_px: float | None = None
    metres_per_pixel: float | None = None
    pixels_per_metre: float | None = None
    reprojection_error_m: float | None = None
    diagonal_m: float | None = None
    diagonal_expected_m: float | None = None
    near_px_per_m: float | None = None
    far_px_per_m: float | None = None


def preview_calibration(kind: str, points: Sequence[Sequence[float]], *, length_m: float | None = None,
                        width_m: float | None = None, depth_m: float | None = None,
                        check: tuple[Sequence[float], Sequence[float], float] | None = None) -> CalibrationPreview:
    """Validate a calibration as ``core.calibration.Calibration`` does and compute its preview figures.

    Args:
        kind: 'scale' (two points, ``length_m``) or 'floor' (four corners in any order; ``width_m``
            along the near edge and ``depth_m``).
        points: image points in upright full-resolution pixels.
        check: optional (p, q, known metres): a length the user knows, measured through the
            calibration (for a floor, p is usually the near-left corner and q a fifth floor point).
    Raises:
        CalibrationError: degenerate input, with the message ``core.calibration`` gives; a check
            length that is not positive or a check point beyond the horizon.
    """
    pts = tuple((float(x), float(y)) for x, y in points)
    if kind == "scale":
        c = Calibration("scale", pts, length_m=length_m)
        px = pixel_distance(pts[0], pts[1])
        mpp = c.metres_per_pixel
        warnings = tuple(scale_warnings(pts[0], pts[1]))
        lines = [f"Reference line: {px:.1f} px = {c.length_m:g} m",
                 f"Scale: {mpp:.5f} m per pixel ({1 / mpp:.2f} px per metre)",
                 "Rulers measured with it: length in px x metres per pixel (valid in the plane of the reference)"]
        done = None if check is None else c.check(check[0], check[1], check[2])
        lines += [f"Warning: {w}" for w in warnings] + [_check_line(done, "scale")]
        return CalibrationPreview(c, tuple(lines), pts, warnings, done,
                                  reference_px=px, metres_per_pixel=mpp, pixels_per_metre=1 / mpp)
    if kind != "floor":
        Calibration(kind, pts, length_m=length_m, width_m=width_m, depth_m=depth_m)  # type: ignore[arg-type]
    corners = order_floor_corners(pts)
    c = Calibration("floor", corners, width_m=width_m, depth_m=depth_m)
    h = c.homography
    w_m, d_m = float(c.width_m), float(c.depth_m)  # type: ignore[arg-type]
    rect = ((0.0, 0.0), (w_m, 0.0), (w_m, d_m), (0.0, d_m))
    err = max(math.hypot(fx - rx, fy - ry) for (fx, fy), (rx, ry) in
              zip((image_to_floor(h, p) for p in corners), rect))
    diag = floor_distance_m(h, corners[0], corners[2])
    near = pixel_distance(corners[0], corners[1]) / w_m
    far = pixel_distance(corners[3], corners[2]) / w_m
    warnings = tuple(floor_warnings(corners, w_m, d_m))
    named = ", ".join(f"{name} ({x:.0f}, {y:.0f})" for name, (x, y) in zip(FLOOR_CORNER_ORDER, corners))
    lines = [f"Floor rectangle {w_m:g} m (near edge) x {d_m:g} m; corners by their place in the image: {named} px",
             f"Near edge {near:.1f} px per metre, far edge {far:.1f} px per metre"]
    done = None if check is None else c.check(check[0], check[1], check[2])
    lines += [f"Warning: {w}" for w in warnings] + [_check_line(done, "floor")]
    return CalibrationPreview(c, tuple(lines), corners, warnings, done,
                              reprojection_error_m=err, diagonal_m=diag, diagonal_expected_m=math.hypot(w_m, d_m),
                              near_px_per_m=near, far_px_per_m=far)


def _check_line(check: LengthCheck | None, kind: str) -> str:
    if check is None:
        if kind == "floor":
            return ("No independent check was made: four corners fix the homography exactly, so they cannot "
                    "test it. Click a fifth floor point on the picture and enter its distance from the near-left "
                    "corner to test it.")
        return ("No independent check was made: the reference line defines the scale, so it cannot test it. "
                "Click the two ends of a second object of known length on the picture to test it.")
    what = "the fifth point's distance from the near-left corner" if kind == "floor" else "the second length"
    return (f"Check: {what} through the calibration is {check.measured_m:.3f} m; you entered "
            f"{check.known_m:.3f} m: error {check.error_m:+.3f} m ({check.error_pct:+.1f} %)")
