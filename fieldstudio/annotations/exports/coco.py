"""COCO JSON export of boxes, polygons (``segmentation``) and points (``keypoints``): photos and video frames as
images, labels as categories.

Format (cocodataset.org, "Data format", object detection): ``images`` [{id, file_name, width,
height}], ``annotations`` [{id, image_id, category_id, bbox: [x, y, w, h], area, iscrowd}],
``categories`` [{id, name, supercategory}]. Ids start at 1. ``bbox`` is the top-left corner and size
in pixels of the upright image (floats, not rounded). Extra keys carry what COCO has no field for:
an image's ``fieldstudio_media_id``, ``frame_index`` and ``pts_seconds``; an annotation's
``attributes`` (free attributes, plus ``track_id`` and ``keyframe`` as CVAT writes them) and
``fieldstudio_id``. Video frames are named ``<stem>_f000123.jpg`` (see ``box_images``).
Angles and stopwatches are left out: COCO has no field for a measurement (an angle's three points would read as
keypoints of an object that is not there) nor for a time between two frames; the CSV export and CVAT (angles) keep
them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from fieldstudio import __version__
from fieldstudio.annotations import skeleton_templates
from fieldstudio.core import shapes, skeletons
from fieldstudio.core.atomic import atomic_write_text
from fieldstudio.annotations.exports.box_images import (
    Cancelled,
    ExportReport,
    ExportShape,
    Progress,
    categories,
    collect_images,
    write_images,
)
from fieldstudio.store.models import utcnow
from fieldstudio.store.project import Project


def coco_document(project: Project, *, keyframes_only: bool = False,
                  media_ids: Sequence[str] | None = None) -> tuple[dict, list, list]:
    """The COCO dictionary of the project's boxes, or of ``media_ids``' only; returns (document, images,
    skipped). Category ids are the project's (every label) whichever media are exported."""
    images, skipped = collect_images(project, keyframes_only=keyframes_only,
                                     media_ids=None if media_ids is None else list(media_ids), with_shapes=True)
    scope = "" if media_ids is None else f" ({len(media_ids)} media)"
    cats = categories(project, images)
    cat_id = {label_id: i + 1 for i, (label_id, _name) in enumerate(cats)}
    doc: dict = {
        "info": {"description": f"fieldstudio export of {project.name}{scope}", "version": __version__,
                 "date_created": utcnow().isoformat(timespec="seconds")},
        "licenses": [],
        "images": [],
        "annotations": [],
        "categories": [{"id": cat_id[lid], "name": name, "supercategory": ""} for lid, name in cats],
    }
    # a label carried by skeletons is a COCO keypoint category: its points' names and the edges between them
    known = skeleton_templates.known(project)  # a label's own template, else the COCO person
    for im in images:
        for sh in im.shapes:
            if sh.kind == "skeleton":
                tmpl = skeletons.template(sh.template, known)
                cat = doc["categories"][cat_id[sh.label_id] - 1]
                cat.update(keypoints=list(tmpl.points), skeleton=tmpl.coco_skeleton())
    ann_id = 0
    for image_id, im in enumerate(images, start=1):
        doc["images"].append({"id": image_id, "file_name": im.file_name, "width": im.width, "height": im.height,
                              "fieldstudio_media_id": im.media_id, "frame_index": im.frame_index,
                              "pts_seconds": im.pts_seconds})
        for b in im.boxes:
            ann_id += 1
            x1, y1, x2, y2 = b.box
            attrs = dict(b.attributes or {})
            if b.track_id is not None:
                attrs.update(track_id=b.track_id, keyframe=b.keyframe)
            doc["annotations"].append({
                "id": ann_id, "image_id": image_id, "category_id": cat_id[b.label_id],
                "bbox": [x1, y1, x2 - x1, y2 - y1], "area": (x2 - x1) * (y2 - y1), "iscrowd": 0,
                "attributes": attrs, "fieldstudio_id": b.annotation_id})
        for sh in im.shapes:
            ann_id += 1
            doc["annotations"].append(_shape_annotation(ann_id, image_id, cat_id[sh.label_id], sh))
    return doc, images, skipped


def _shape_annotation(ann_id: int, image_id: int, category_id: int, sh: ExportShape) -> dict:
    """A polygon as COCO ``segmentation`` (one polygon ``[x1, y1, x2, y2, ...]``, ``area`` its shoelace area,
    ``bbox`` its bounds); a points mark as ``keypoints`` ``[x, y, 2, ...]`` (v = 2: labelled and visible) with
    ``num_keypoints``; a skeleton as ``keypoints`` in its template's order, an absent point ``0, 0, 0`` (its label's
    category then names the points and the edges, ``keypoints`` and ``skeleton``); a polyline, which COCO has no field for, as ``fieldstudio_polyline`` beside its bbox.
    A shape of a shape track carries ``track_id`` and ``keyframe`` in its ``attributes``, as boxes do."""
    attrs = dict(sh.attributes or {})
    if sh.track_id is not None:
        attrs.update(track_id=sh.track_id, keyframe=sh.keyframe)
    if sh.kind == "skeleton":
        placed = [v for v in sh.vertices if v is not None]
        x1, y1, x2, y2 = shapes.bounds(placed)
        return {"id": ann_id, "image_id": image_id, "category_id": category_id, "bbox": [x1, y1, x2 - x1, y2 - y1],
                "area": (x2 - x1) * (y2 - y1), "iscrowd": 0, "num_keypoints": len(placed),
                "keypoints": [c for v in sh.vertices for c in ((0.0, 0.0, 0) if v is None else (v[0], v[1], 2))],
                "attributes": attrs, "fieldstudio_id": sh.annotation_id, "fieldstudio_kind": "skeleton"}
    x1, y1, x2, y2 = shapes.bounds(sh.vertices)
    flat = [c for v in sh.vertices for c in v]
    out: dict = {"id": ann_id, "image_id": image_id, "category_id": category_id, "bbox": [x1, y1, x2 - x1, y2 - y1],
                 "iscrowd": 0, "attributes": attrs, "fieldstudio_id": sh.annotation_id,
                 "fieldstudio_kind": sh.kind}
    if sh.kind == "polygon":
        out.update(segmentation=[flat], area=shapes.polygon_area(sh.vertices))
    elif sh.kind == "points":
        out.update(keypoints=[c for x, y in sh.vertices for c in (x, y, 2)], num_keypoints=len(sh.vertices),
                   area=(x2 - x1) * (y2 - y1))
    else:
        out.update(fieldstudio_polyline=flat, area=0.0)
    return out


def export_coco(project: Project, out: Path, *, write_image_files: bool = False, keyframes_only: bool = False,
                media_ids: Sequence[str] | None = None, progress: Progress = lambda done, total: None,
                cancelled: Cancelled = lambda: False) -> ExportReport:
    """Write the project's boxes as COCO JSON to ``out`` (a ``.json`` file, or a folder that gets
    ``annotations.json``), atomically; ``media_ids`` limits it to those media.

    With ``write_image_files`` the exact upright frames are written to ``images/`` beside the JSON
    (a missing media file is listed in ``report.skipped``; its boxes stay in the JSON).
    """
    out = Path(out)
    json_path = out if out.suffix.lower() == ".json" else out / "annotations.json"
    json_path.parent.mkdir(parents=True, exist_ok=True)
    doc, images, skipped = coco_document(project, keyframes_only=keyframes_only, media_ids=media_ids)
    report = ExportReport("coco", skipped=list(skipped), images=len(images), annotations=len(doc["annotations"]))
    if write_image_files:
        write_images(project, images, json_path.parent / "images", report, progress=progress, cancelled=cancelled)
        if report.cancelled:
            return report
    atomic_write_text(json_path, json.dumps(doc, indent=1, ensure_ascii=False))
    report.files.append(json_path)
    return report
