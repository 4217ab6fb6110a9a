"""Annotations of the demo project, read from ``sample_data/demo/annotations.json``.

The boxes, tracks, floor calibration, rulers, segments, events and tags were placed by hand on the sample
media (``sample_data/media``); ``sample_data/demo/README.md`` says how each was found. The file's format
(``fieldstudio-demo-annotations``, version 1)::

    {"labels": [{"name", "colour", "kinds" (optional), "attributes" (optional, see annotations.labels)}],
     "camera_groups": [{"name", "media": [file name, ...]}],
     "calibrations": [{"kind": "floor" or "scale", "camera_group", "points", "width_m", "depth_m", "length_m"}],
     "annotations": [{"media": file name, "kind": "box" | "ruler" | "polygon" | "segment" | "event" | "tag",
                      "label", "frame", "track", "attributes", "text",
                      "box": [x1, y1, x2, y2] (box), "points": [[x, y], [x, y]] and "on_floor" (ruler),
                      "points": [[x, y], ...] (polygon vertices), "end_frame" (segment)}]}

Coordinates are upright full-resolution pixels; keys other than ``media`` and ``kind`` may be left out.
The task set adds a few annotations of its own from a file of the same format (``demo.tasks``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select

from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations import labels
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.core.errors import ProjectError
from fieldstudio.core.paths import sample_data_dir
from fieldstudio.store.models import Media
from fieldstudio.store.project import Project

__all__ = ["FORMAT", "ANNOTATION_FILE", "WORKER_CLIP", "WORKER_PHOTO", "ELECTRICIANS", "HIVIS", "STORE_CLIP",
           "PARKING_CLIP", "DemoAnnotationReport", "read_annotation_file", "add_annotation_file",
           "add_demo_annotations"]

FORMAT = "fieldstudio-demo-annotations"
ANNOTATION_FILE = Path("demo") / "annotations.json"
"""The demo's annotations, relative to ``sample_data/``."""

# the sample files the demo's tasks and ratings refer to by name
WORKER_CLIP = "worker_zone_hardhat_vest_from_gif.mp4"
WORKER_PHOTO = "ppe_worker_hardhat_vest_warehouse_zone_frame045.png"
ELECTRICIANS = "ppe_electricians_hardhat_vest_wire_room_mta.jpg"
HIVIS = "ppe_electrician_hivis_systems_equipment_mta.jpg"
STORE_CLIP = "store_aisle_shoppers_from_gif.mp4"
PARKING_CLIP = "parking_lot_car_bicycle_from_gif.mp4"


@dataclass
class DemoAnnotationReport:
    """What was added: annotation ids per kind, the sample files that were not in the project, and the
    calibrations' ids (the first one also as ``calibration_id``)."""

    ids: dict[str, list[str]] = field(default_factory=dict)
    missing_media: list[str] = field(default_factory=list)
    calibration_ids: list[str] = field(default_factory=list)

    @property
    def calibration_id(self) -> str | None:
        return self.calibration_ids[0] if self.calibration_ids else None


def read_annotation_file(path: Path | None = None) -> dict[str, Any]:
    """The annotation file (default: the demo's, ``sample_data/demo/annotations.json``) as a dict.

    Raises ProjectError when it is missing or not of this format.
    """
    path = sample_data_dir() / ANNOTATION_FILE if path is None else Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ProjectError(f"{path}: cannot read the demo annotations ({exc}); reinstall fieldstudio") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("version") != 1:
        raise ProjectError(f"{path}: not a {FORMAT} file, version 1")
    return doc


def _xywh(box: list[float]) -> tuple[float, float, float, float]:
    x1, y1, x2, y2 = box
    return (x1, y1, x2 - x1, y2 - y1)


def add_annotation_file(project: Project, path: Path | None = None) -> DemoAnnotationReport:
    """Add the labels, camera groups, calibrations and annotations of an annotation file (module docstring).

    Media are found by file name; whatever is on a sample file that is not in the project is skipped (the
    file listed in the report). The videos' frame index must be built (``video_index.index_videos``), as
    ``build_demo`` does. Raises ProjectError for an unreadable file or a mark whose label is not in its
    kind's label list (the label's ``kinds``), AnnotationError for a bad annotation.
    """
    doc = read_annotation_file(path)
    report = DemoAnnotationReport()
    label_id = {lab["name"]: _ensure_label(project, lab) for lab in doc["labels"]}
    offered = {name: labels.get_label(project, i) for name, i in label_id.items()}
    for a in doc["annotations"]:
        # the window never gives a mark a label from another kind's list (a ruler is no "person"), so
        # neither does the demo; checked before anything is added
        if a.get("label") in offered and not offered[a["label"]].offered_for(a["kind"]):
            raise ProjectError(f"{path or ANNOTATION_FILE}: a {a['kind']} on {a['media']} is labelled "
                               f"{a['label']!r}, which is not in the {a['kind']} label list")
    with project.read() as s:
        media = {m.file_name: m.id for m in s.scalars(select(Media).where(Media.status == "ok"))}
    referenced = [name for g in doc["camera_groups"] for name in g["media"]] + [a["media"] for a in doc["annotations"]]
    report.missing_media = [name for name in dict.fromkeys(referenced) if name not in media]

    present_groups = set()
    for group in doc["camera_groups"]:
        members = [media[name] for name in group["media"] if name in media]
        if members:
            cal.set_camera_group(project, members, group["name"])
            present_groups.add(group["name"])
    for c in doc["calibrations"]:
        if c.get("camera_group") in present_groups:
            report.calibration_ids.append(cal.save_calibration(
                project, c["kind"], c["points"], camera_group=c["camera_group"], length_m=c.get("length_m"),
                width_m=c.get("width_m"), depth_m=c.get("depth_m")))
    for a in doc["annotations"]:
        if a["media"] not in media:
            continue
        report.ids.setdefault(a["kind"], []).append(_add_one(project, media[a["media"]], a, label_id))
    return report


def _ensure_label(project: Project, lab: dict[str, Any]) -> str:
    """The label of an entry of the file's ``labels``, created with its kinds and attributes when new."""
    found = labels.find_label(project, lab["name"])
    if found is not None:
        return found.id
    return labels.create_label(project, lab["name"], lab["colour"], kinds=lab.get("kinds"),
                               attributes=lab.get("attributes"))


def _add_one(project: Project, media_id: str, a: dict[str, Any], label_id: dict[str, str]) -> str:
    """Add one annotation entry of the file; returns its id."""
    kind, label = a["kind"], label_id.get(a["label"]) if a.get("label") else None
    if kind == "box":
        return ann.add_box(project, media_id, _xywh(a["box"]), label, frame_index=a.get("frame"),
                           track_id=a.get("track"), attributes=a.get("attributes"))
    if kind == "ruler":
        p, q = a["points"]
        return ann.add_ruler(project, media_id, p, q, frame_index=a.get("frame"), on_floor=bool(a.get("on_floor")),
                             label_id=label, text=a.get("text"))
    if kind == "polygon":
        return ann.add_shape(project, media_id, "polygon", a["points"], frame_index=a.get("frame"), label_id=label,
                             text=a.get("text"))
    if kind == "segment":
        return ann.add_segment(project, media_id, label, a["frame"], a.get("end_frame"), text=a.get("text"))
    if kind == "event":
        return ann.add_event(project, media_id, a["frame"], label, text=a.get("text"))
    if kind == "tag":
        return ann.add_tag(project, media_id, a["text"], a.get("frame"), label_id=label)
    raise ann.AnnotationError(f"demo annotation of unknown kind {kind!r}")


def add_demo_annotations(project: Project) -> DemoAnnotationReport:
    """Add the demo's annotations (``sample_data/demo/annotations.json``, see :func:`add_annotation_file`)."""
    return add_annotation_file(project)
