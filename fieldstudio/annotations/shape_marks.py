"""Polygons, polylines and points marks (issue 32) measured in metres through the calibration that applies to their
media (copied to another frame and kept in tracks by ``annotations.shape_tracks``).

Their storage is ``annotation_records`` (kinds "polygon", "polyline", "points"; vertices ``[[x, y], ...]`` in
upright image pixels) and their geometry rules ``core.shapes``. Measuring: on a media with a floor calibration
every vertex is taken to lie on the floor plane and mapped through its homography (``core.calibration
.image_to_floor``), so a polygon's area is the shoelace area of the mapped vertices in m² (exact for a flat
polygon on the floor: a homography maps straight edges to straight edges); with only a scale calibration the
pixel area is multiplied by (metres per pixel)². A polygon whose edges cross or touch (``core.shapes.first_crossing``)
gets no area at all, in pixels or metres: its shoelace area is the net of lobes wound in opposite directions, not
the ground it covers, and the reason names where the edges cross. Qt-free; both fronts ask these functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fieldstudio.annotations import calibrations
from fieldstudio.annotations.annotation_records import AnnotationError, get_annotation
from fieldstudio.core import calibration as core_cal
from fieldstudio.core import shapes
from fieldstudio.core.errors import CalibrationError
from fieldstudio.store.project import Project


@dataclass(frozen=True)
class ShapeMeasure:
    """A shape's size: ``vertices`` count; ``area_px`` (polygon, px²) and ``length_px`` (polyline: its length;
    polygon: its perimeter; points: 0); ``area_m2`` / ``length_m`` through the calibration named in ``how``, None
    when none applies (``how`` then says how to get metres) or a vertex is beyond the floor's horizon."""

    vertices: int
    area_px: float | None
    length_px: float
    area_m2: float | None
    length_m: float | None
    how: str
    calibration: calibrations.CalibrationRecord | None = None
    """The calibration that gave the metres (None: pixels only)."""


def measure_vertices(project: Project, media_id: str, kind: str,
                     vertices: Sequence[Sequence[float]]) -> ShapeMeasure:
    """Measure a ``kind`` shape through ``vertices`` (pixels) on ``media_id`` with the calibration in use for it
    (``calibrations.calibration_in_use``: the floor's unless a person chose the scale's, as for rulers).
    Raises NotFound for an unknown media, ShapeError for bad vertices."""
    pts = shapes.as_vertices(kind, vertices)
    closed = kind == "polygon"
    crossing = shapes.first_crossing(pts) if closed else None
    if crossing is not None:
        # the shoelace would give the net of opposite lobes, not the ground covered: no area rather than a wrong one
        return ShapeMeasure(len(pts), None, shapes.path_length(pts, closed=True), None, None,
                            f"no area: edges cross at ({crossing[0]:.1f}, {crossing[1]:.1f}); a polygon whose edges "
                            "cross has no single area: move the vertices so that they do not, or draw each part as "
                            "its own polygon")
    area_px = shapes.polygon_area(pts) if closed else None
    length_px = 0.0 if kind == "points" else shapes.path_length(pts, closed=closed)
    record = calibrations.calibration_in_use(project, media_id)
    floor = record if record is not None and record.kind == "floor" else None
    if floor is not None:
        try:
            h = floor.to_core().homography
            metres = [core_cal.image_to_floor(h, tuple(p)) for p in pts]
        except CalibrationError as exc:
            return ShapeMeasure(len(pts), area_px, length_px, None, None, f"pixels only: {exc}")
        return ShapeMeasure(len(pts), area_px, length_px, shapes.polygon_area(metres) if closed else None,
                            None if kind == "points" else shapes.path_length(metres, closed=closed), floor.describe(),
                            floor)
    scale = record if record is not None and record.kind == "scale" else None
    if scale is not None:
        try:
            m_per_px = scale.to_core().metres_per_pixel
        except CalibrationError as exc:
            return ShapeMeasure(len(pts), area_px, length_px, None, None, f"pixels only: {exc}")
        return ShapeMeasure(len(pts), area_px, length_px, None if area_px is None else area_px * m_per_px ** 2,
                            None if kind == "points" else length_px * m_per_px, scale.describe(), scale)
    return ShapeMeasure(len(pts), area_px, length_px, None, None,
                        "pixels only: no calibration; calibrate the floor (C twice: four corners of a floor "
                        "rectangle) to read the area in m²")


def measure_shape(project: Project, annotation_id: str) -> ShapeMeasure:
    """:func:`measure_vertices` of a stored polygon, polyline or points mark. Raises NotFound, and
    AnnotationError for another kind."""
    rec = get_annotation(project, annotation_id)
    if rec.kind not in shapes.SHAPE_KINDS:
        raise AnnotationError(f"annotation {annotation_id} is a {rec.kind}, not a polygon, polyline or points")
    return measure_vertices(project, rec.media_id, rec.kind, rec.geometry)

