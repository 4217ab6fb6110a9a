"""Annotation exports of the whole project or of chosen media only (the export dialog's "scope").

``export_annotations_scoped(project, fmt, out, media_ids=None)`` is ``annotation_export.export_annotations``
restricted to ``media_ids``. Class / category ids stay the project's (every label, in the label set's
order), so a media's export lines up with the project's. Every file is written atomically.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from fieldstudio.annotations.exports.box_images import Cancelled, ExportReport, Progress
from fieldstudio.annotations.exports.export import export_annotations
from fieldstudio.store.project import Project

#: What each format holds, for the export dialog.
FORMAT_TITLES = {
    "coco": "COCO JSON (boxes)",
    "yolo": "YOLO text files (boxes)",
    "mot": "MOT Challenge CSV (tracks)",
    "cvat": "CVAT for video 1.1 XML (tracks)",
    "csv": "CSV of segments, events, tags and measurements",
}


def default_output(fmt: str, folder: Path, stem: str) -> Path:
    """A suggested output path: ``<stem>_coco.json``, ``<stem>_yolo/``, ``<stem>_mot/``, ``<stem>_annotations.csv``."""
    return folder / {"coco": f"{stem}_coco.json", "yolo": f"{stem}_yolo", "mot": f"{stem}_mot", "cvat": f"{stem}_cvat",
                     "csv": f"{stem}_annotations.csv"}[fmt]


def export_annotations_scoped(project: Project, fmt: str, out: Path, media_ids: Sequence[str] | None = None, *,
                              write_image_files: bool = False, raw_cells: bool = False,
                              progress: Progress = lambda done, total: None,
                              cancelled: Cancelled = lambda: False) -> ExportReport:
    """Export the annotations of ``media_ids`` (None: the whole project) as ``fmt`` to ``out``.

    ``annotation_export.export_annotations`` with a media scope; ``write_image_files`` (COCO and YOLO, the
    command line's ``--images``) also writes the exact upright frames to images/; ``raw_cells`` (CSV, the command
    line's ``--raw-cells``) writes cells a spreadsheet would run as formulas as stored. Output paths and errors as
    there.
    """
    return export_annotations(project, fmt, out, media_ids=None if media_ids is None else list(media_ids),
                              write_image_files=write_image_files, raw_cells=raw_cells, progress=progress,
                              cancelled=cancelled)


def summary_text(report: ExportReport) -> str:
    """What the user reads after an export: counts, where the files are, what was left out."""
    if report.cancelled:
        return "The export was cancelled; files already written stay, the rest were not written."
    # COCO and YOLO hold boxes and shapes (polygons, points, skeletons): "annotation(s)", as their files call them
    what = {"coco": "annotation(s)", "yolo": "annotation(s)", "mot": "track boxes", "cvat": "tracks and photo marks",
            "csv": "rows"}.get(report.format, "annotations")
    lines = [f"Exported {report.annotations} {what}"
             + (f" on {report.images} image(s)/frame(s)" if report.format in ("coco", "yolo", "mot")
               else f" of {report.images} video(s)/photo(s)" if report.format == "cvat" else "")
             + f" as {report.format.upper()}."]
    if report.files:
        first = report.files[0]
        where = first if len(report.files) == 1 else _common_folder(report.files)
        lines.append(f"{len(report.files)} file(s) written to {where}")
    else:
        lines.append("No file was written (nothing of this kind to export).")
    lines += [f"Note: {note}." for note in report.notes]
    if report.skipped:
        lines.append(f"Left out ({len(report.skipped)}):")
        lines += [f"  {what_}: {reason}" for what_, reason in report.skipped[:10]]
    return "\n".join(lines)


def _common_folder(paths: list[Path]) -> Path:
    parts = [Path(p).resolve().parts for p in paths]
    common = []
    for level in zip(*parts):
        if len(set(level)) != 1:
            break
        common.append(level[0])
    return Path(*common) if common else Path(paths[0]).parent
