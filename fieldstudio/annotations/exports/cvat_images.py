"""CVAT "for images 1.1" XML export of the marks on photos: one file for all the photos exported.

Layout (CVAT's documentation, "XML annotation format", for images)::

    <annotations><version>1.1</version>
      <meta><task><name/><size/><mode>annotation</mode><overlap/><start_frame/><stop_frame/>
        <labels><label><name/><color/></label>...</labels></task><dumped/></meta>
      <image id="0" name="site.jpg" width="400" height="300">
        <box label="worker" occluded="0" source="manual" xtl ytl xbr ybr z_order="0">
          <attribute name="vest">no</attribute></box>
        <polygon label occluded source points="x1,y1;x2,y2;..." z_order/>   (<polyline>, <points> alike)
        <skeleton label source z_order><points label="nose" occluded outside points="x,y"/>...</skeleton>
      </image>

One ``<image>`` per photo with marks, ``id`` 0, 1, ... in file-name order, ``name`` its file name. A skeleton holds
one ``<points>`` per point of its template (an absent point ``outside="1"`` at 0,0), its label declared a skeleton
in ``<meta>`` (``annotations.cvat_labels``). An angle is a ``<polyline>`` through its three points with the
attributes ``fieldstudio_kind`` "angle", ``degrees``, ``plane`` and ``measured_how`` and its points with 4
decimals, as in the video layout.
Unlabelled marks are under the declared label ``unlabelled``. Coordinates: upright pixels, 2 decimals.
datumaro's CVAT importer reads this file when the photos sit in an ``images/`` folder beside it (the layout of
CVAT's own export with images).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from fieldstudio.annotations import angles, cvat_labels, skeleton_templates
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import labels as label_store
from fieldstudio.annotations.exports.box_images import UNLABELLED
from fieldstudio.annotations.imports.cvat import ANGLE_KIND_ATTRIBUTE
from fieldstudio.core import skeletons
from fieldstudio.core.shapes import SHAPE_KINDS
from fieldstudio.store.models import Media, utcnow
from fieldstudio.store.project import Project

IMAGE_KINDS = ("box", *SHAPE_KINDS, "skeleton", "angle")
UNLABELLED_COLOUR = "#808080"
# an angle's points with 4 decimals: rounded to 2 (CVAT's), each point moves up to 0.007 px, which turns a 10 px arm by
# up to 0.08°, so the file's degrees could not be checked on import to 0.01° (imports.measurements.ANGLE_TOLERANCE_DEG);
# with 4, under 0.001° per arm
ANGLE_DIGITS = 4


def _mark(parent: ET.Element, tag: str, label: str, coords: dict[str, str], attributes: dict | None) -> ET.Element:
    el = ET.SubElement(parent, tag, {"label": label, "occluded": "0", "source": "manual", **coords, "z_order": "0"})
    for name, value in (attributes or {}).items():
        ET.SubElement(el, "attribute", {"name": str(name)}).text = "" if value is None else str(value)
    return el


def _points(vertices: Sequence[Sequence[float]], digits: int = 2) -> dict[str, str]:
    return {"points": ";".join(f"{x:.{digits}f},{y:.{digits}f}" for x, y in vertices)}


def cvat_images_document(project: Project, photos: Sequence[Media],
                         left_out: list[tuple[str, str]]) -> tuple[ET.ElementTree, int]:
    """The CVAT for images XML of ``photos``' marks; returns (tree, number of marks written). A skeleton whose
    template is not that of its label's first skeleton is left out, (what, why) added to ``left_out``."""
    root = ET.Element("annotations")
    ET.SubElement(root, "version").text = "1.1"
    meta = ET.SubElement(root, "meta")
    task = ET.SubElement(meta, "task")
    for tag, text in (("name", "photos"), ("size", str(len(photos))), ("mode", "annotation"), ("overlap", "0"),
                      ("start_frame", "0"), ("stop_frame", str(max(len(photos) - 1, 0)))):
        ET.SubElement(task, tag).text = text
    labels_el = ET.SubElement(task, "labels")
    declared = []
    for lab in label_store.list_labels(project):
        el = ET.SubElement(labels_el, "label")
        ET.SubElement(el, "name").text = lab.name
        ET.SubElement(el, "color").text = lab.color
        declared.append(lab.name)
    ET.SubElement(meta, "dumped").text = utcnow().isoformat(timespec="seconds")
    known = skeleton_templates.known(project)
    skeleton_labels: dict[str, skeletons.SkeletonTemplate] = {}
    written = 0
    for i, photo in enumerate(photos):
        image = ET.SubElement(root, "image", {"id": str(i), "name": photo.file_name, "width": str(photo.width or 0),
                                              "height": str(photo.height or 0)})
        for rec in ann.list_annotations(project, media_id=photo.id, kinds=list(IMAGE_KINDS)):
            label = rec.label_name or UNLABELLED
            if rec.kind == "box":
                x1, y1, x2, y2 = rec.geometry
                _mark(image, "box", label, {"xtl": f"{x1:.2f}", "ytl": f"{y1:.2f}", "xbr": f"{x2:.2f}",
                                            "ybr": f"{y2:.2f}"}, rec.attributes)
            elif rec.kind == "angle":
                measured = angles.measure_angle(project, rec.id)
                _mark(image, "polyline", label, _points(rec.geometry, ANGLE_DIGITS), {
                    ANGLE_KIND_ATTRIBUTE: "angle", "degrees": f"{measured.degrees:.4f}",
                    "plane": "floor" if measured.on_floor else "image", "measured_how": measured.how})
            elif rec.kind == "skeleton":
                tmpl = skeletons.template(rec.text, known)
                if skeleton_labels.setdefault(label, tmpl) is not tmpl:
                    left_out.append((f"{photo.file_name} skeleton of {label}",
                                     f"its template ({len(tmpl.points)} points) is not that of the label's first "
                                     f"skeleton ({len(skeleton_labels[label].points)} points): CVAT gives a "
                                     "skeleton label one template"))
                    continue
                el = _mark(image, "skeleton", label, {}, None)
                for name, p in zip(tmpl.points, rec.geometry):
                    ET.SubElement(el, "points", {"label": name, "occluded": "0", "source": "manual",
                                                 "outside": "1" if p is None else "0",
                                                 **_points([p if p is not None else (0.0, 0.0)])})
                for name, value in (rec.attributes or {}).items():
                    ET.SubElement(el, "attribute", {"name": str(name)}).text = "" if value is None else str(value)
            else:
                _mark(image, rec.kind, label, _points(rec.geometry), rec.attributes)
            written += 1
            if label == UNLABELLED and UNLABELLED not in declared:
                el = ET.SubElement(labels_el, "label")
                ET.SubElement(el, "name").text = UNLABELLED
                ET.SubElement(el, "color").text = UNLABELLED_COLOUR
                declared.append(UNLABELLED)
    cvat_labels.declare_skeletons(labels_el, skeleton_labels)
    ET.indent(root, space="  ")
    return ET.ElementTree(root), written
