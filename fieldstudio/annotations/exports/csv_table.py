"""CSV of boxes, polygons, polylines, points, time segments, events, tags, rulers, angles and stopwatches (pandas),
one row per annotation.

Columns: ``annotation_id, kind, media, media_id, label, text, start_frame, end_frame, start_pts,
end_pts, start_s, end_s, duration_s, open, overlaps, pixels, metres, measured_how, x, y, width, height,
track_id, vertices, area_px, area_m2, degrees, image_degrees, plane``, then one ``attr:<name>`` column per box
attribute found (sorted by name): yes/no for a yes/no attribute, the number, choice or text as stored otherwise (``labels.check_attribute_values``).
A box has its top-left corner and size in upright image pixels, and its frame when on a video (stored
boxes only: keyframes and single boxes, not the frames a track interpolates).
Frames are indices in the video's frame table; ``*_pts`` are in the stream's time base and ``*_s`` are
``pts * time_base`` seconds (never index / fps); ``duration_s = end_s - start_s``. An event, ruler or
frame tag has only a start. ``open`` marks a segment not yet ended; ``overlaps`` lists (by id, ``;``
separated) the segments of the same label it shares frames with. Rulers carry their length in pixels
and, when a calibration applies, in metres, computed now with the current calibration
(``calibrations.measure_ruler``); ``measured_how`` names it or says how to calibrate. A polygon, polyline or
points mark has its vertices as ``x,y;x,y;...`` (pixels), its bounds in x, y, width, height, its length (a
polygon's perimeter) in ``pixels`` and ``metres``, and a polygon its area in ``area_px`` and ``area_m2``, measured
as the Properties panel does (``shape_marks.measure_vertices``). A skeleton has its template in ``text`` and its
points in ``vertices`` in the template's order, an absent point empty (``x,y;;x,y``). A shape of a track has its
``track_id``; as for boxes, the rows are the stored keyframes (COCO and YOLO write a track's interpolated shapes).
An angle has its three points in ``vertices`` (arm end, vertex, arm end), its angle in ``degrees`` (on the floor
when the floor calibration is in use and the points have a floor position, else in the image plane), the image
plane's in ``image_degrees``, ``plane`` "floor" or "image", and the calibration in ``measured_how``
(``angles.measure_angle``, measured now). A stopwatch has its start and end frames, their PTS and seconds, and
``duration_s`` (end PTS − start PTS, ``stopwatch.reading_of``); ``measured_how`` repeats it in words.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from fieldstudio.annotations import angles, stopwatch
from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import shape_marks
from fieldstudio.core import shapes
from fieldstudio.core.shapes import SHAPE_KINDS
from fieldstudio.annotations.exports.box_images import Cancelled, ExportReport, Progress
from fieldstudio.core.atomic import atomic_writer
from fieldstudio.core.spreadsheet_cells import protect_frame
from fieldstudio.store.models import Media
from fieldstudio.store.project import Project

COLUMNS = ["annotation_id", "kind", "media", "media_id", "label", "text", "start_frame", "end_frame",
           "start_pts", "end_pts", "start_s", "end_s", "duration_s", "open", "overlaps", "pixels", "metres",
           "measured_how", "x", "y", "width", "height", "track_id", "vertices", "area_px", "area_m2", "degrees",
           "image_degrees", "plane"]
ATTRIBUTE_PREFIX = "attr:"


def _cell(value: object) -> object:
    """An attribute value as a cell: yes/no for a yes/no attribute."""
    if value is True:
        return "yes"
    if value is False:
        return "no"
    return value


def annotation_table(project: Project, *, media_ids: Sequence[str] | None = None,
                     progress: Progress = lambda done, total: None,
                     cancelled: Cancelled = lambda: False) -> pd.DataFrame:
    """The rows described in the module docstring as a DataFrame (columns ``COLUMNS`` and the ``attr:``
    columns), of every media or of ``media_ids`` only."""
    recs = ann.list_annotations(project, kinds=["box", *SHAPE_KINDS, "skeleton", "segment", "event", "ruler", "tag",
                                                "angle", "stopwatch"])
    if media_ids is not None:
        wanted = set(media_ids)
        recs = [r for r in recs if r.media_id in wanted]
    with project.read() as s:
        names = {m.id: m.file_name for m in s.query(Media).all()}
    overlaps: dict[str, list[str]] = {}
    for a, b in ann.overlapping_segments(project):
        overlaps.setdefault(a.id, []).append(b.id)
        overlaps.setdefault(b.id, []).append(a.id)
    rows = []
    for i, r in enumerate(recs):
        if cancelled():
            break
        pixels = metres = how = None
        if r.kind == "ruler":
            pixels, metres, how = cal.measure_ruler(project, r.id)
        box = {}
        if r.kind == "box":
            x1, y1, x2, y2 = r.geometry
            box = {"x": x1, "y": y1, "width": x2 - x1, "height": y2 - y1, "track_id": r.track_id,
                   **{ATTRIBUTE_PREFIX + k: _cell(v) for k, v in (r.attributes or {}).items()}}
        elif r.kind == "skeleton":  # its template in text; an absent point is an empty x,y
            x1, y1, x2, y2 = shapes.bounds([q for q in r.geometry if q is not None])
            box = {"x": x1, "y": y1, "width": x2 - x1, "height": y2 - y1, "track_id": r.track_id,
                   "vertices": ";".join("" if q is None else f"{q[0]:.2f},{q[1]:.2f}" for q in r.geometry),
                   **{ATTRIBUTE_PREFIX + k: _cell(v) for k, v in (r.attributes or {}).items()}}
        elif r.kind == "angle":
            a = angles.measure_angle(project, r.id)
            how = a.how
            box = {"vertices": ";".join(f"{x:.2f},{y:.2f}" for x, y in r.geometry), "degrees": a.degrees,
                   "image_degrees": a.image_degrees, "plane": "floor" if a.on_floor else "image"}
        elif r.kind == "stopwatch":
            how = stopwatch.reading_of(r).text()
        elif r.kind in SHAPE_KINDS:
            x1, y1, x2, y2 = shapes.bounds(r.geometry)
            m = shape_marks.measure_vertices(project, r.media_id, r.kind, r.geometry)
            pixels, metres, how = m.length_px, m.length_m, m.how
            box = {"x": x1, "y": y1, "width": x2 - x1, "height": y2 - y1, "track_id": r.track_id,
                   "area_px": m.area_px, "area_m2": m.area_m2,
                   "vertices": ";".join(f"{x:.2f},{y:.2f}" for x, y in r.geometry),
                   **{ATTRIBUTE_PREFIX + k: _cell(v) for k, v in (r.attributes or {}).items()}}
        rows.append({
            "annotation_id": r.id, "kind": r.kind, "media": names.get(r.media_id), "media_id": r.media_id,
            "label": r.label_name, "text": r.text, "start_frame": r.frame_index, "end_frame": r.end_frame_index,
            "start_pts": r.pts, "end_pts": r.end_pts, "start_s": r.pts_seconds, "end_s": r.end_pts_seconds,
            "duration_s": r.duration_s, "open": r.is_open if r.kind == "segment" else None,
            "overlaps": ";".join(overlaps.get(r.id, [])) or None, "pixels": pixels, "metres": metres,
            "measured_how": how, **box})
        progress(i + 1, len(recs))
    attrs = sorted({k for row in rows for k in row if k.startswith(ATTRIBUTE_PREFIX)})
    df = pd.DataFrame(rows, columns=COLUMNS + attrs)
    for col in ("start_frame", "end_frame", "start_pts", "end_pts", "track_id"):
        df[col] = df[col].astype("Int64")
    return df


def export_annotation_csv(project: Project, out: Path, *, media_ids: Sequence[str] | None = None,
                          raw_cells: bool = False, progress: Progress = lambda done, total: None,
                          cancelled: Cancelled = lambda: False) -> ExportReport:
    """Write the CSV (of ``media_ids`` only, when given) to ``out`` (a ``.csv`` file, or a folder that gets
    ``annotations.csv``), atomically. A text cell a spreadsheet would run as a formula gets a leading apostrophe
    (``core.spreadsheet_cells``) unless ``raw_cells``."""
    out = Path(out)
    path = out if out.suffix.lower() == ".csv" else out / "annotations.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    df = annotation_table(project, media_ids=media_ids, progress=progress, cancelled=cancelled)
    report = ExportReport("csv", annotations=len(df))
    if cancelled():
        report.cancelled = True
        return report
    with atomic_writer(path, "w") as fh:
        (df if raw_cells else protect_frame(df)).to_csv(fh, index=False, float_format="%.6f")   # labels, tags
    report.files.append(path)
    return report
