"""One entry point for annotation exports: ``export_annotations(project, fmt, out)``.

Formats: ``coco`` (boxes, JSON file), ``yolo`` (boxes, folder of text files), ``mot`` (tracks,
folder of MOT sequences), ``cvat`` (CVAT for video 1.1 XML per video, CVAT for images 1.1 XML of the photos), ``csv`` (segments, events, tags and ruler measurements, CSV file).
Every file is written atomically (a temporary file, fsync, ``os.replace``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from fieldstudio.annotations.exports.box_images import Cancelled, ExportError, ExportReport, Progress
from fieldstudio.annotations.exports.coco import export_coco
from fieldstudio.annotations.exports.csv_table import export_annotation_csv
from fieldstudio.annotations.exports.cvat import export_cvat
from fieldstudio.annotations.exports.mot import export_mot
from fieldstudio.annotations.exports.yolo import export_yolo
from fieldstudio.store.project import Project

FORMATS = ("coco", "yolo", "mot", "cvat", "csv")


def export_annotations(project: Project, fmt: str, out: Path, *, media_ids: Sequence[str] | None = None,
                       progress: Progress = lambda done, total: None,
                       cancelled: Cancelled = lambda: False,
                       write_image_files: bool = False, keyframes_only: bool = False,
                       raw_cells: bool = False) -> ExportReport:
    """Export the project's annotations (or ``media_ids``' only) as ``fmt`` (one of FORMATS) to ``out``.

    ``out`` is a file for coco (``.json``; a folder gets ``annotations.json``) and csv (``.csv``; a
    folder gets ``annotations.csv``), a folder for yolo, mot and cvat (cvat: an ``.xml`` file when that makes
    one file: one video with marks, or photos only). ``write_image_files`` (coco, yolo)
    also writes the exact upright frames; ``keyframes_only`` leaves out interpolated track boxes; ``raw_cells``
    (csv) writes cells exactly as stored, even those a spreadsheet would run as a formula.
    Raises ExportError for an unknown format or an output that is an existing file where a folder
    is needed.
    """
    fmt = fmt.lower().strip()
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    out = Path(out)
    if fmt in ("yolo", "mot") and out.is_file() or fmt == "cvat" and out.is_file() and out.suffix.lower() != ".xml":
        raise ExportError(f"{out}: is a file; {fmt} export writes a folder")
    want = {"coco": ".json", "csv": ".csv"}.get(fmt)
    if want and out.is_file() and out.suffix.lower() != want:
        raise ExportError(f"{out}: is a file but not {want}; give a {want} path or a folder")
    if fmt == "coco":
        return export_coco(project, out, write_image_files=write_image_files, keyframes_only=keyframes_only,
                           media_ids=media_ids, progress=progress, cancelled=cancelled)
    if fmt == "yolo":
        return export_yolo(project, out, write_image_files=write_image_files, keyframes_only=keyframes_only,
                           media_ids=media_ids, progress=progress, cancelled=cancelled)
    if fmt == "cvat":
        return export_cvat(project, out, media_ids=media_ids, progress=progress, cancelled=cancelled)
    if fmt == "mot":
        return export_mot(project, out, keyframes_only=keyframes_only, media_ids=media_ids, progress=progress,
                          cancelled=cancelled)
    return export_annotation_csv(project, out, media_ids=media_ids, raw_cells=raw_cells, progress=progress,
                                 cancelled=cancelled)
