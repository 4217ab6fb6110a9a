"""Annotation exports of the whole project or of chosen media only (the export dialog's "scope").

``export_annotations_scoped(project, fmt, out, media_ids=None)`` is ``annotation_export.export_annotations``
when ``media_ids`` is None. With ``media_ids`` the same formats are written from the same pieces
(``box_images.collect_images``, ``coco.coco_document``'s layout, ``yolo.yolo_line``, ``mot.mot_rows``,
``annotation_csv.annotation_table``) restricted to those media. Class / category ids stay the
project's (every label, in the label set's order), so a media's export lines up with the project's.
Every file is written atomically.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path, PurePath

from sqlalchemy import select

from fieldstudio import __version__
from fieldstudio.core.atomic import atomic_write_text, atomic_writer
from fieldstudio.datasets.annotation_csv import annotation_table
from fieldstudio.datasets.annotation_export import FORMATS, export_annotations
from fieldstudio.datasets.box_images import (
    Cancelled,
    ExportError,
    ExportReport,
    Progress,
    categories,
    collect_images,
)
from fieldstudio.datasets.mot import mot_rows
from fieldstudio.datasets.yolo import yolo_line
from fieldstudio.store import annotations as ann
from fieldstudio.store.models import Media, utcnow
from fieldstudio.store.project import Project

#: What each format holds, for the export dialog.
FORMAT_TITLES = {
    "coco": "COCO JSON (boxes)",
    "yolo": "YOLO text files (boxes)",
    "mot": "MOT Challenge CSV (tracks)",
    "csv": "CSV of segments, events, tags and measurements",
}


def default_output(fmt: str, folder: Path, stem: str) -> Path:
    """A suggested output path: ``<stem>_coco.json``, ``<stem>_yolo/``, ``<stem>_mot/``, ``<stem>_annotations.csv``."""
    return folder / {"coco": f"{stem}_coco.json", "yolo": f"{stem}_yolo", "mot": f"{stem}_mot",
                     "csv": f"{stem}_annotations.csv"}[fmt]


def export_annotations_scoped(project: Project, fmt: str, out: Path, media_ids: Sequence[str] | None = None, *,
                              progress: Progress = lambda done, total: None,
                              cancelled: Cancelled = lambda: False) -> ExportReport:
    """Export the annotations of ``media_ids`` (None: the whole project) as ``fmt`` to ``out``.

    Output paths as ``annotation_export.export_annotations``: a ``.json`` file (or a folder that gets
    ``annotations.json``) for coco, a ``.csv`` file (or a folder that gets ``annotations.csv``) for
    csv, a folder for yolo and mot. Raises ExportError for an unknown format or a file where a folder
    is needed.
    """
    if media_ids is None:
        return export_annotations(project, fmt, out, progress=progress, cancelled=cancelled)
    fmt = fmt.lower().strip()
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    out = Path(out)
    if fmt in ("yolo", "mot") and out.is_file():
        raise ExportError(f"{out}: is a file; {fmt} export writes a folder")
    ids = list(media_ids)
    return {"coco": _coco, "yolo": _yolo, "mot": _mot, "csv": _csv}[fmt](project, out, ids, progress, cancelled)


def _coco(project: Project, out: Path, ids: list[str], progress: Progress, cancelled: Cancelled) -> ExportReport:
    json_path = out if out.suffix.lower() == ".json" else out / "annotations.json"
    images, skipped = collect_images(project, media_ids=ids)
    cats = categories(project, images)
    cat_id = {label_id: i + 1 for i, (label_id, _name) in enumerate(cats)}
    doc: dict = {"info": {"description": f"fieldstudio export of {project.name} ({len(ids)} media)",
                          "version": __version__, "date_created": utcnow().isoformat(timespec="seconds")},
                 "licenses": [], "images": [], "annotations": [],
                 "categories": [{"id": cat_id[lid], "name": name, "supercategory": ""} for lid, name in cats]}
    for image_id, im in enumerate(images, start=1):
        if cancelled():
            return ExportReport("coco", cancelled=True)
        doc["images"].append({"id": image_id, "file_name": im.file_name, "width": im.width, "height": im.height,
                              "fieldstudio_media_id": im.media_id, "frame_index": im.frame_index,
                              "pts_seconds": im.pts_seconds})
        for b in im.boxes:
            x1, y1, x2, y2 = b.box
            attrs = dict(b.attributes or {})
            if b.track_id is not None:
                attrs.update(track_id=b.track_id, keyframe=b.keyframe)
            doc["annotations"].append({
                "id": len(doc["annotations"]) + 1, "image_id": image_id, "category_id": cat_id[b.label_id],
                "bbox": [x1, y1, x2 - x1, y2 - y1], "area": (x2 - x1) * (y2 - y1), "iscrowd": 0,
                "attributes": attrs, "fieldstudio_id": b.annotation_id})
        progress(image_id, len(images))
    json_path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(json_path, json.dumps(doc, indent=1, ensure_ascii=False))
    return ExportReport("coco", files=[json_path], images=len(images), annotations=len(doc["annotations"]),
                        skipped=list(skipped))


def _yolo(project: Project, out: Path, ids: list[str], progress: Progress, cancelled: Cancelled) -> ExportReport:
    (out / "labels").mkdir(parents=True, exist_ok=True)
    images, skipped = collect_images(project, media_ids=ids)
    cats = categories(project, images)
    index = {label_id: i for i, (label_id, _name) in enumerate(cats)}
    report = ExportReport("yolo", skipped=list(skipped), images=len(images))
    for i, im in enumerate(images):
        if cancelled():
            report.cancelled = True
            return report
        lines = [yolo_line(index[b.label_id], b.box, im.width, im.height) for b in im.boxes]
        path = out / "labels" / f"{PurePath(im.file_name).stem}.txt"
        atomic_write_text(path, "\n".join(lines) + "\n")
        report.files.append(path)
        report.annotations += len(lines)
        progress(i + 1, len(images))
    atomic_write_text(out / "classes.txt", "".join(f"{name}\n" for _lid, name in cats))
    names = "\n".join(f"  {i}: {json.dumps(name)}" for i, (_lid, name) in enumerate(cats))
    atomic_write_text(out / "data.yaml", f"path: .\ntrain: images\nval: images\nnames:\n{names}\n")
    report.files += [out / "classes.txt", out / "data.yaml"]
    return report


def _mot(project: Project, out: Path, ids: list[str], progress: Progress, cancelled: Cancelled) -> ExportReport:
    out.mkdir(parents=True, exist_ok=True)
    report = ExportReport("mot")
    with project.read() as s:
        videos = list(s.scalars(select(Media).where(Media.kind == "video", Media.id.in_(ids))
                                .order_by(Media.file_name)))
    for i, m in enumerate(videos):
        if cancelled():
            report.cancelled = True
            return report
        boxes = ann.list_annotations(project, media_id=m.id, kinds=["box"])
        untracked = sum(1 for b in boxes if b.track_id is None)
        if untracked:
            report.skipped.append((m.file_name, f"{untracked} box(es) without a track id are not in MOT"))
        rows = mot_rows(project, m.id)
        progress(i + 1, len(videos))
        if not rows:
            continue
        seq = out / PurePath(m.file_name).stem
        (seq / "gt").mkdir(parents=True, exist_ok=True)
        atomic_write_text(seq / "gt" / "gt.txt", "".join(
            f"{f},{t},{x:.2f},{y:.2f},{w:.2f},{h:.2f},1,-1,-1,-1\n" for f, t, x, y, w, h in rows))
        fps = round(m.avg_fps) if m.avg_fps else 0
        atomic_write_text(seq / "seqinfo.ini", (
            f"[Sequence]\nname={seq.name}\nimDir=img1\nframeRate={fps}\nseqLength={m.frame_count or 0}\n"
            f"imWidth={m.width}\nimHeight={m.height}\nimExt=.jpg\n"))
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["track_id", "label"])
        labels_of: dict[int, str] = {}
        for b in boxes:
            if b.track_id is not None:
                labels_of.setdefault(b.track_id, b.label_name or "")
        writer.writerows(sorted(labels_of.items()))
        atomic_write_text(seq / "tracks.csv", buf.getvalue())
        report.files += [seq / "gt" / "gt.txt", seq / "seqinfo.ini", seq / "tracks.csv"]
        report.images += len({r[0] for r in rows})
        report.annotations += len(rows)
    return report


def _csv(project: Project, out: Path, ids: list[str], progress: Progress, cancelled: Cancelled) -> ExportReport:
    path = out if out.suffix.lower() == ".csv" else out / "annotations.csv"
    df = annotation_table(project, progress=progress, cancelled=cancelled)
    if cancelled():
        return ExportReport("csv", cancelled=True)
    df = df[df["media_id"].isin(ids)]
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_writer(path, "w") as fh:
        df.to_csv(fh, index=False, float_format="%.6f")
    return ExportReport("csv", files=[path], annotations=len(df))


def summary_text(report: ExportReport) -> str:
    """What the user reads after an export: counts, where the files are, what was left out."""
    if report.cancelled:
        return "The export was cancelled; files already written stay, the rest were not written."
    what = {"coco": "boxes", "yolo": "boxes", "mot": "track boxes", "csv": "rows"}.get(report.format, "annotations")
    lines = [f"Exported {report.annotations} {what}"
             + (f" on {report.images} image(s)/frame(s)" if report.format in ("coco", "yolo", "mot") else "")
             + f" as {report.format.upper()}."]
    if report.files:
        first = report.files[0]
        where = first if len(report.files) == 1 else _common_folder(report.files)
        lines.append(f"{len(report.files)} file(s) written to {where}")
    else:
        lines.append("No file was written (nothing of this kind to export).")
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
