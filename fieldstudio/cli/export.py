"""`fieldstudio export P --format coco|yolo|mot|csv|cvat --out PATH` (also `fieldstudio annotations export`).

The command calls ``fieldstudio.annotations.exports.export.export_annotations``, the same service the
GUI's Export menu calls.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fieldstudio.cli import output as cli_support


def register(app: typer.Typer) -> None:
    """Add the ``export`` command to ``app`` (``fieldstudio annotations export`` is the same command)."""
    app.command("export")(export)


def export(
    project: cli_support.ProjectArg,
    fmt: Annotated[str, typer.Option("--format", "-f", help="coco, yolo, mot, cvat or csv")],
    out: Annotated[Path, typer.Option("--out", "-o", help=(
        "coco: a .json file (or a folder for annotations.json); csv: a .csv file; "
        "yolo, mot and cvat: a folder (cvat: an .xml file when that makes one file: one video, or photos only)"))],
    images: Annotated[bool, typer.Option("--images", help=(
        "coco and yolo: also write the exact upright frames to images/"))] = False,
    keyframes_only: Annotated[bool, typer.Option("--keyframes-only", help=(
        "leave out the boxes interpolated between a track's keyframes"))] = False,
    raw_cells: cli_support.RawCellsOpt = False,
) -> None:
    """Export annotations: COCO JSON (boxes, polygons as segmentation, points as keypoints), YOLO text (boxes,
    polygons as segmentation lines), MOT CSV (tracks), CVAT XML (for video: tracks, shapes and skeletons per video; for images: photos.xml), CSV (every mark:
    segments, events, rulers, shapes with their area)."""
    from fieldstudio.annotations.exports.export import export_annotations

    with cli_support.open_project(project) as p:
        report = export_annotations(p, fmt, out, write_image_files=images, keyframes_only=keyframes_only,
                                    raw_cells=raw_cells)
    cli_support.out.print(f"{report.format}: {report.annotations} annotation(s), {report.images} image(s), "
                 f"{len(report.files)} file(s) written under {out}", markup=False)
    for note in report.notes:
        cli_support.out.print(f"  note: {note}", markup=False)
    for what, reason in report.skipped:
        cli_support.out.print(f"  skipped {what}: {reason}", markup=False)
    if report.cancelled:
        cli_support.out.print("cancelled before everything was written")
        raise typer.Exit(1)
