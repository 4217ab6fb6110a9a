"""YOLO text export of boxes: one ``labels/<image stem>.txt`` per image, ``classes.txt`` and ``data.yaml``.

Each line is ``class cx cy w h`` (Ultralytics / Darknet "YOLO format"): the 0-based class index in
``classes.txt`` order, then the box centre and size divided by the upright image width W and height H::

    cx = (x1 + x2) / 2 / W,   cy = (y1 + y2) / 2 / H,   w = (x2 - x1) / W,   h = (y2 - y1) / H

written with 6 decimals. A polygon is a segmentation line ``class x1 y1 x2 y2 ... xn yn`` (Ultralytics' segment
format: each vertex divided by W and H); a skeleton a pose line ``class cx cy w h x1 y1 v1 ... x17 y17 v17`` (its
placed points' box, then each template point over W and H with v = 2, an absent one ``0 0 0``; ``data.yaml`` then
gives Ultralytics' ``kpt_shape: [N, 3]`` for the set, one N, and ``kpt_names`` ``{class index: [point names]}``,
no ``flip_idx``: which point mirrors which is not known for a label's own template); polylines and points have no YOLO form and are listed as skipped. W and H are the upright size (EXIF orientation applied), the pitfall that
mis-scales boxes when a loader ignores it (pitfalls.md §4). With ``write_image_files`` the upright
frames are written to ``images/`` under the same stems.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path, PurePath

from fieldstudio.core.atomic import atomic_write_text
from fieldstudio.annotations.exports.box_images import (
    Cancelled,
    ExportReport,
    Progress,
    categories,
    collect_images,
    write_images,
)
from fieldstudio.annotations import skeleton_templates
from fieldstudio.store.project import Project


def yolo_line(class_index: int, box: tuple[float, float, float, float], width: int, height: int) -> str:
    """``"class cx cy w h"`` normalised by the image size (formula in the module docstring)."""
    x1, y1, x2, y2 = box
    cx, cy = (x1 + x2) / 2 / width, (y1 + y2) / 2 / height
    w, h = (x2 - x1) / width, (y2 - y1) / height
    return f"{class_index} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}"


def yolo_polygon_line(class_index: int, vertices, width: int, height: int) -> str:  # noqa: ANN001 - vertex pairs
    """``"class x1 y1 ... xn yn"``, each vertex divided by the image size (Ultralytics' segment format)."""
    return f"{class_index} " + " ".join(f"{x / width:.6f} {y / height:.6f}" for x, y in vertices)


def yolo_pose_line(class_index: int, points, width: int, height: int) -> str:  # noqa: ANN001 - points or None
    """``"class cx cy w h x1 y1 v1 ..."``: the placed points' box, then every point over the image size (v = 2 placed,
    ``0 0 0`` absent), Ultralytics' pose format."""
    placed = [p for p in points if p is not None]
    xs, ys = [p[0] for p in placed], [p[1] for p in placed]
    head = yolo_line(class_index, (min(xs), min(ys), max(xs), max(ys)), width, height)
    return head + "".join(" 0 0 0" if p is None else f" {p[0] / width:.6f} {p[1] / height:.6f} 2" for p in points)


def export_yolo(project: Project, out: Path, *, write_image_files: bool = False, keyframes_only: bool = False,
                media_ids: Sequence[str] | None = None, progress: Progress = lambda done, total: None,
                cancelled: Cancelled = lambda: False) -> ExportReport:
    """Write the project's boxes (or ``media_ids``' only) in YOLO format into the folder ``out`` (created);
    each file atomically. Class indices are the project's (every label) whichever media are exported.

    Returns an ExportReport (images written, boxes, files, media skipped with reasons).
    """
    out = Path(out)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    images, skipped = collect_images(project, keyframes_only=keyframes_only,
                                     media_ids=None if media_ids is None else list(media_ids), with_shapes=True)
    cats = categories(project, images)
    index = {label_id: i for i, (label_id, _name) in enumerate(cats)}
    report = ExportReport("yolo", skipped=list(skipped), images=len(images))
    pose_points = 0
    templates: dict = {}                          # template name -> template, read once
    point_names: dict[int, tuple[str, ...]] = {}   # class index -> its skeletons' point names (kpt_names)
    total = len(images) * (2 if write_image_files else 1)
    for i, im in enumerate(images):
        if cancelled():
            report.cancelled = True
            return report
        lines = [yolo_line(index[b.label_id], b.box, im.width, im.height) for b in im.boxes]
        for sh in im.shapes:
            if sh.kind == "polygon":
                lines.append(yolo_polygon_line(index[sh.label_id], sh.vertices, im.width, im.height))
            elif sh.kind == "skeleton" and pose_points in (0, len(sh.vertices)):
                lines.append(yolo_pose_line(index[sh.label_id], sh.vertices, im.width, im.height))
                pose_points = len(sh.vertices)
                if sh.template not in templates:
                    templates[sh.template] = skeleton_templates.template_of(project, sh.template)
                point_names.setdefault(index[sh.label_id], templates[sh.template].points)
            elif sh.kind == "skeleton":   # data.yaml's kpt_shape gives one point count for the whole set
                report.skipped.append((f"skeleton {(sh.annotation_id or 'interpolated')[:8]} on {im.file_name}",
                                       f"its {len(sh.vertices)} points are not the {pose_points} of the set's first "
                                       "skeleton (YOLO pose has one kpt_shape; COCO and CVAT carry it)"))
            else:
                report.skipped.append((f"{sh.kind} {(sh.annotation_id or 'interpolated')[:8]} on {im.file_name}",
                                       "YOLO has no form for it (COCO, CVAT and CSV carry it)"))
        path = out / "labels" / f"{PurePath(im.file_name).stem}.txt"
        atomic_write_text(path, "\n".join(lines) + "\n")
        report.files.append(path)
        report.annotations += len(lines)
        progress(i + 1, total)
    atomic_write_text(out / "classes.txt", "".join(f"{name}\n" for _lid, name in cats))
    names = "\n".join(f"  {i}: {json.dumps(name)}" for i, (_lid, name) in enumerate(cats))
    pose = f"kpt_shape: [{pose_points}, 3]\n" if pose_points else ""
    if point_names:   # Ultralytics reads kpt_shape; kpt_names gives each class's points their names back on import
        pose += "kpt_names:\n" + "".join(f"  {k}: {json.dumps(list(point_names[k]))}\n" for k in sorted(point_names))
    atomic_write_text(out / "data.yaml", f"path: .\ntrain: images\nval: images\n{pose}names:\n{names}\n")
    report.files += [out / "classes.txt", out / "data.yaml"]
    if write_image_files:
        write_images(project, images, out / "images", report, progress=progress, cancelled=cancelled,
                     done_before=len(images), total=total)
    return report
