"""Angles: three points, the vertex in the middle, stored as a measurement (an annotation of kind ``angle``) and
measured on read, as rulers are.

The angle at vertex ``v`` between the arms to ``a`` and ``b`` is ``|atan2(u x w, u . w)|`` in degrees, ``u = a - v``,
``w = b - v``: 0 to 180. It is measured

* on the floor when the calibration in use for the media is a floor calibration and the three points have a
  floor position: the points are put on the floor first (``[u, v, w] = H [x, y, 1]``, ``(X, Y) = (u / w, v / w)``),
  so a right angle drawn on the floor reads 90 whatever the camera's perspective;
* in the image plane otherwise (a scale calibration changes no angle: it scales both arms alike).

The image-plane angle is always given too; ``how`` says which one ``degrees`` is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from fieldstudio.annotations import calibrations
from fieldstudio.annotations.annotation_records import AnnotationError, get_annotation, insert_annotation
from fieldstudio.core import calibration as core_cal
from fieldstudio.core.errors import CalibrationError
from fieldstudio.store.project import Project

Point = tuple[float, float]


def angle_degrees(a: Sequence[float], v: Sequence[float], b: Sequence[float]) -> float:
    """The angle at ``v`` between the arms to ``a`` and ``b``, degrees in [0, 180]. Raises ValueError for an arm of
    zero length."""
    ux, uy = a[0] - v[0], a[1] - v[1]
    wx, wy = b[0] - v[0], b[1] - v[1]
    if math.hypot(ux, uy) == 0 or math.hypot(wx, wy) == 0:
        raise ValueError("an arm of the angle has no length")
    return abs(math.degrees(math.atan2(ux * wy - uy * wx, ux * wx + uy * wy)))


class AngleMeasurement(NamedTuple):
    """``degrees``: on the floor when ``on_floor``, else in the image plane; ``image_degrees``: always the image
    plane's; ``how``: which plane and which calibration."""

    degrees: float
    image_degrees: float
    on_floor: bool
    how: str

    def text(self) -> str:
        """"37.5° on the floor" or "37.5° (image plane)"."""
        return f"{self.degrees:.1f}° on the floor" if self.on_floor else f"{self.degrees:.1f}° (image plane)"


def measure_points(project: Project, media_id: str, points: Sequence[Sequence[float]]) -> AngleMeasurement:
    """The angle of three image points (pixels; the vertex in the middle) on a media, with the calibration in use
    now. Raises ValueError for an arm of zero length, NotFound for an unknown media."""
    a, v, b = ((float(x), float(y)) for x, y in points)
    image = angle_degrees(a, v, b)
    record = calibrations.calibration_in_use(project, media_id)
    if record is None or record.kind != "floor":
        why = "no floor calibration in use" if record is None else "a scale calibration keeps image angles"
        return AngleMeasurement(image, image, False, f"in the image plane ({why})")
    h = record.to_core().homography
    try:
        floor = [core_cal.image_to_floor(h, p) for p in (a, v, b)]
        degrees = angle_degrees(*floor)
    except (CalibrationError, ValueError) as exc:
        return AngleMeasurement(image, image, False, f"in the image plane (not on the floor: {exc})")
    return AngleMeasurement(degrees, image, True, f"on the {record.describe()}")


def add_angle(project: Project, media_id: str, a: Sequence[float], vertex: Sequence[float], b: Sequence[float], *,
              frame_index: int | None = None, label_id: str | None = None, text: str | None = None,
              author: str | None = None) -> str:
    """Keep the angle at ``vertex`` between ``a`` and ``b`` (image pixels) on a photo or a video frame; returns its
    id. Raises AnnotationError (coincident points, a frame outside the table, a document), NotFound."""
    return insert_annotation(project, media_id, "angle", frame_index=frame_index, frame_required=True,
                             geometry=[list(a), list(vertex), list(b)], label_id=label_id, text=text, author=author)


def measure_angle(project: Project, annotation_id: str) -> AngleMeasurement:
    """The stored angle ``annotation_id`` measured with the calibration in use now. Raises NotFound,
    AnnotationError (not an angle)."""
    rec = get_annotation(project, annotation_id)
    if rec.kind != "angle":
        raise AnnotationError(f"annotation {annotation_id} is a {rec.kind}, not an angle")
    return measure_points(project, rec.media_id, rec.geometry)
