"""What the Properties panel says of one selected mark: its label, geometry in pixels and, where a calibration
applies, in metres (naming the calibration), its frame and its track's keyframe range.

One function both fronts could ask (the window's Properties panel today); it reads through the owning
modules (annotation records, tracks, calibrations) and changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from fieldstudio.annotations import angles, box_tracks, calibrations, shape_marks, shape_tracks
from fieldstudio.annotations.annotation_records import AnnotationRecord, get_annotation
from fieldstudio.core import shape_tracks as core_shape_tracks
from fieldstudio.core import shapes, skeletons
from fieldstudio.store.project import Project


@dataclass(frozen=True)
class MarkFacts:
    """One mark (a box, ruler, shape or angle) as Properties shows it.

    ``pixels``: a box's ``(x, y, w, h)`` or a ruler's ``(x1, y1, x2, y2)``, upright image pixels; ``metres``:
    a ruler's length, or a box's bottom edge (its width where it stands) in metres, None when no calibration
    applies; ``how``: which calibration gave the metres, or how to get them; ``track``: ``(track id, first
    keyframe, last keyframe, keyframe count)`` of a box in a track, else None. A polygon, polyline or points
    mark: ``pixels`` is its bounding box ``(x, y, w, h)``, ``shape`` its vertex count, area and length
    (``shape_marks.ShapeMeasure``) and ``metres`` its area in m² (polygon) or length in m (polyline). An
    angle: ``pixels`` its vertex ``(x, y)``, ``metres`` None, ``how`` its degrees and the plane they are measured in.
    A shape of a track has ``track`` as a box has, and ``track_note`` says why the frames next to it are not
    interpolated (keyframes of different vertex counts), else None.
    """

    record: AnnotationRecord
    pixels: tuple[float, float, float, float]
    metres: float | None
    how: str
    track: tuple[int, int, int, int] | None
    shape: shape_marks.ShapeMeasure | None = None
    track_note: str | None = None


def mark_facts(project: Project, annotation_id: str) -> MarkFacts:
    """The facts of the box, ruler, polygon, polyline, points mark or angle ``annotation_id``. Raises NotFound for an
    unknown annotation, ValueError for another kind (a segment, an event or a tag has no geometry to show here)."""
    rec = get_annotation(project, annotation_id)
    if rec.kind == "box":
        x1, y1, x2, y2 = (float(v) for v in rec.geometry)
        pixels = (x1, y1, x2 - x1, y2 - y1)
        # a box stands on its bottom edge: on the floor's plane when the floor calibration is the one in use
        m = calibrations.measure_points(project, rec.media_id, (x1, y2), (x2, y2))
    elif rec.kind == "angle":
        m_angle = angles.measure_angle(project, annotation_id)
        return MarkFacts(rec, tuple(float(v) for v in rec.geometry[1]), None,  # type: ignore[arg-type]
                         f"{m_angle.text()} ({m_angle.how})", None)
    elif rec.kind == "ruler":
        (x1, y1), (x2, y2) = rec.geometry
        pixels = (float(x1), float(y1), float(x2), float(y2))
        m = calibrations.measure_ruler(project, annotation_id)
    elif rec.kind in shapes.SHAPE_KINDS:
        x1, y1, x2, y2 = shapes.bounds(rec.geometry)
        measured = shape_marks.measure_vertices(project, rec.media_id, rec.kind, rec.geometry)
        metres = measured.area_m2 if rec.kind == "polygon" else measured.length_m
        track, note = _shape_track(project, rec)
        return MarkFacts(rec, (x1, y1, x2 - x1, y2 - y1), metres, measured.how, track, measured, note)
    elif rec.kind == "skeleton":
        placed = skeletons.present(rec.geometry)
        x1, y1, x2, y2 = shapes.bounds(placed)
        track, note = _shape_track(project, rec)
        source = "its label's template" if (rec.text or "").startswith(skeletons.LABEL_OWN) else rec.text
        return MarkFacts(rec, (x1, y1, x2 - x1, y2 - y1), None,
                         f"{len(placed)} of {len(rec.geometry)} points placed ({source})", track, track_note=note)
    else:
        raise ValueError(f"annotation {annotation_id} is a {rec.kind}: only boxes, rulers and shapes have geometry")
    track = None
    if rec.kind == "box" and rec.track_id is not None:
        keys = box_tracks.track_keyframes(project, rec.media_id, rec.track_id)
        if keys:
            track = (rec.track_id, keys[0].frame_index, keys[-1].frame_index, len(keys))
    return MarkFacts(rec, pixels, m.metres, m.how, track)


def _shape_track(project: Project, rec: AnnotationRecord) -> tuple[tuple[int, int, int, int] | None, str | None]:
    """(track, track_note) of a shape: its track's keyframe range and count, and why the frames between it and the
    keyframes next to it are not interpolated (``core.shape_tracks.gap_reason``), if they are not."""
    if rec.track_id is None or rec.frame_index is None:
        return None, None
    keys = shape_tracks.shape_keyframes(project, rec.media_id, rec.track_id)
    if not keys:
        return None, None
    frames = [k.frame_index for k in keys]
    notes = []
    if rec.frame_index in frames:
        i = frames.index(rec.frame_index)
        for a, b in ((i - 1, i), (i, i + 1)):
            if 0 <= a and b < len(keys):
                why = core_shape_tracks.gap_reason(frames[a], keys[a].geometry, frames[b], keys[b].geometry)
                if why:
                    notes.append(why)
    return (rec.track_id, frames[0], frames[-1], len(keys)), "; ".join(notes) or None
