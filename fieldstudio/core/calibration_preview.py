"""What a calibration would give, computed before it is saved (the calibration dialog's live preview).

* scale: the reference line's length ``|p2 - p1|`` in pixels, ``metres_per_pixel = L / |p2 - p1|``
  and its inverse (pixels per metre).
* floor: the homography H of ``core.calibration.floor_homography`` checked against its own input:
  each image corner is mapped back to the floor (``X = u / w, Y = v / w``, ``[u, v, w] = H [x, y, 1]``)
  and compared with the rectangle's corner (0, 0), (W, 0), (W, D), (0, D): the largest difference is
  the reprojection error (about 0 for a sound H); the diagonal near-left -> far-right is measured
  through H and compared with ``sqrt(W**2 + D**2)``; the near and far edges' pixels per metre
  (``|p2 - p1| / W`` and ``|p3 - p4| / W``) show the perspective (far edge smaller).

Invalid input raises the same CalibrationError as ``core.calibration`` (collinear or coincident
points, a length that is not positive, a non-convex quad), with its message for the user.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from fieldstudio.core.calibration import Calibration, floor_distance_m, image_to_floor, pixel_distance


@dataclass(frozen=True)
class CalibrationPreview:
    """The checked calibration and its figures.

    scale: ``reference_px`` (px), ``metres_per_pixel`` (m/px), ``pixels_per_metre`` (px/m).
    floor: ``reprojection_error_m`` (m, largest corner difference), ``diagonal_m`` (measured through H),
    ``diagonal_expected_m`` (``hypot(W, D)``), ``near_px_per_m`` and ``far_px_per_m`` (px/m).
    ``lines`` are the same figures as sentences for the dialog.
    """

    calibration: Calibration
    lines: tuple[str, ...]
    reference_px: float | None = None
    metres_per_pixel: float | None = None
    pixels_per_metre: float | None = None
    reprojection_error_m: float | None = None
    diagonal_m: float | None = None
    diagonal_expected_m: float | None = None
    near_px_per_m: float | None = None
    far_px_per_m: float | None = None


def preview_calibration(kind: str, points: Sequence[Sequence[float]], *, length_m: float | None = None,
                        width_m: float | None = None, depth_m: float | None = None) -> CalibrationPreview:
    """Validate a calibration as ``core.calibration.Calibration`` does and compute its preview figures.

    Args:
        kind: 'scale' (two points, ``length_m``) or 'floor' (four points near-left, near-right,
            far-right, far-left; ``width_m`` and ``depth_m``).
        points: image points in upright full-resolution pixels.
    Raises:
        CalibrationError: degenerate input, with the message ``core.calibration`` gives.
    """
    pts = tuple((float(x), float(y)) for x, y in points)
    if kind == "scale":
        c = Calibration("scale", pts, length_m=length_m)
        px = pixel_distance(pts[0], pts[1])
        mpp = c.metres_per_pixel
        return CalibrationPreview(c, (
            f"Reference line: {px:.1f} px = {c.length_m:g} m",
            f"Scale: {mpp:.5f} m per pixel ({1 / mpp:.2f} px per metre)",
            "Rulers measured with it: length in px x metres per pixel (valid in the plane of the reference)"),
            reference_px=px, metres_per_pixel=mpp, pixels_per_metre=1 / mpp)
    c = Calibration(kind, pts, length_m=length_m, width_m=width_m, depth_m=depth_m)  # type: ignore[arg-type]
    h = c.homography
    w_m, d_m = float(c.width_m), float(c.depth_m)  # type: ignore[arg-type]
    rect = ((0.0, 0.0), (w_m, 0.0), (w_m, d_m), (0.0, d_m))
    err = max(math.hypot(fx - rx, fy - ry) for (fx, fy), (rx, ry) in
              zip((image_to_floor(h, p) for p in pts), rect))
    diag = floor_distance_m(h, pts[0], pts[2])
    expected = math.hypot(w_m, d_m)
    near = pixel_distance(pts[0], pts[1]) / w_m
    far = pixel_distance(pts[3], pts[2]) / w_m
    return CalibrationPreview(c, (
        f"Floor rectangle {w_m:g} m x {d_m:g} m; corners reproject within {err * 1000:.2f} mm",
        f"Diagonal near-left to far-right through the homography: {diag:.3f} m (expected {expected:.3f} m)",
        f"Near edge {near:.1f} px per metre, far edge {far:.1f} px per metre"),
        reprojection_error_m=err, diagonal_m=diag, diagonal_expected_m=expected,
        near_px_per_m=near, far_px_per_m=far)
