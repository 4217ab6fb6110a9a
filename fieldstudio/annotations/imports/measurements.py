"""Measurements read from annotation files (CVAT): a stopwatch made a mark to store, and an angle's degrees as its
file wrote them compared with the angle measured again with the project's calibration."""

from __future__ import annotations

from collections.abc import Callable

from fieldstudio.annotations import angles, mark_batches
from fieldstudio.annotations.imports.import_report import AnnotationImportReport
from fieldstudio.annotations.imports.parsed import ParsedBox
from fieldstudio.store.models import Media
from fieldstudio.store.project import Project


def stopwatch_of(media: Media, placed: ParsedBox, n_frames: int, label_of: Callable,
                 report: AnnotationImportReport) -> tuple[mark_batches.NewMark, str | None] | None:
    """(the stopwatch to store, the name of a label to create) of a placed stopwatch, or None (and a problem in
    ``report``) when it is not on a video or its end frame is not in the frame table."""
    end = placed.end_frame_index
    if media.kind != "video" or end is None or not 0 <= end < n_frames:
        report.problems.append((placed.where, f"a stopwatch needs a video with frames {placed.frame_index} to {end}; "
                                "skipped"))
        return None
    label_id, name = label_of(placed.label)
    return mark_batches.NewMark(media.id, "stopwatch", frame_index=placed.frame_index, end_frame_index=end,
                                label_id=label_id, text=(placed.attributes or {}).get("text")), name


#: An angle whose file gives degrees more than this far from the angle measured again on import is reported
ANGLE_TOLERANCE_DEG = 0.01


def compare_angle(project: Project, media: Media, placed: ParsedBox, points: list,
                  report: AnnotationImportReport) -> None:
    """One note in ``report`` when the angle through ``points`` (pixels), measured again with the calibration in use
    for ``media``, is more than ANGLE_TOLERANCE_DEG from the degrees its file wrote (another calibration, or points
    moved by hand in the file)."""
    try:
        measured = angles.measure_points(project, media.id, points)
    except ValueError:
        return   # no arm length: refused by the import's shape check already
    if abs(measured.degrees - placed.written_degrees) > ANGLE_TOLERANCE_DEG:
        report.notes.append(f"{placed.where}: the file's angle is {placed.written_degrees:.4f}°, measured again "
                            f"{measured.degrees:.4f}° {measured.how}")
