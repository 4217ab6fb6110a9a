"""CVAT 1.1's skeleton labels in ``<meta><task><labels>``, written and read (both CVAT XML layouts use them).

As CVAT writes a skeleton label (its documentation's "XML annotation format" examples)::

    <label><name>worker</name><color>#..</color><type>skeleton</type><attributes/>
      <svg>&lt;line data-type="edge" data-node-from="1" data-node-to="2" ..&gt;&lt;/line&gt; ..
           &lt;circle data-type="element node" data-element-id="1" data-node-id="1" data-label-name="nose" cx cy ..&gt;
           &lt;/circle&gt; ..</svg></label>
    <label><name>nose</name><color>#..</color><type>points</type><attributes/><parent>worker</parent></label> ..

The points are sub-labels (``<parent>``) in the template's order; the ``<svg>`` (escaped text) draws the template in
CVAT's 100 x 100 label editor: one ``<circle>`` per point (node ids 1-based, in order) and one ``<line>`` per limb
between two node ids. fieldstudio keeps no drawing of a template, so the points are placed on a circle.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Mapping

from fieldstudio.core import skeletons

EDITOR_SIZE = 100.0   # CVAT's skeleton editor draws the template in a 100 x 100 box


def _node_xy(i: int, n: int) -> tuple[float, float]:
    angle = 2 * math.pi * i / max(n, 1) - math.pi / 2
    return EDITOR_SIZE / 2 + 40 * math.cos(angle), EDITOR_SIZE / 2 + 40 * math.sin(angle)


def skeleton_svg(tmpl: skeletons.SkeletonTemplate) -> str:
    """The ``<svg>`` text of a skeleton label: a ``<line>`` per limb, then a ``<circle>`` per point (1-based ids)."""
    n = len(tmpl.points)
    parts = []
    for a, b in tmpl.edges:
        (x1, y1), (x2, y2) = _node_xy(a, n), _node_xy(b, n)
        parts.append(ET.tostring(ET.Element("line", {
            "x1": f"{x1:.2f}", "y1": f"{y1:.2f}", "x2": f"{x2:.2f}", "y2": f"{y2:.2f}", "stroke": "black",
            "stroke-width": "0.5", "data-type": "edge", "data-node-from": str(a + 1), "data-node-to": str(b + 1)}),
            encoding="unicode", short_empty_elements=False))
    for i, name in enumerate(tmpl.points):
        x, y = _node_xy(i, n)
        parts.append(ET.tostring(ET.Element("circle", {
            "r": "1.5", "cx": f"{x:.2f}", "cy": f"{y:.2f}", "stroke": "black", "fill": "#b3b3b3", "stroke-width": "0.1",
            "data-type": "element node", "data-element-id": str(i + 1), "data-node-id": str(i + 1),
            "data-label-name": name}), encoding="unicode", short_empty_elements=False))
    return "".join(parts)


def declare_skeletons(labels_el: ET.Element, skeleton_labels: Mapping[str, skeletons.SkeletonTemplate]) -> None:
    """Turn the ``<label>`` of each name in ``skeleton_labels`` (label name -> its template) into a skeleton label
    and add its points as sub-labels right after it (see the module text). ``labels_el``: ``<labels>``."""
    for label in list(labels_el):
        name = label.findtext("name")
        tmpl = skeleton_labels.get(name or "")
        if tmpl is None:
            continue
        colour = label.findtext("color") or "#808080"
        ET.SubElement(label, "type").text = "skeleton"
        ET.SubElement(label, "attributes")
        ET.SubElement(label, "svg").text = skeleton_svg(tmpl)
        at = list(labels_el).index(label)
        for k, point in enumerate(tmpl.points, start=1):
            sub = ET.Element("label")
            ET.SubElement(sub, "name").text = point
            ET.SubElement(sub, "color").text = colour
            ET.SubElement(sub, "type").text = "points"
            ET.SubElement(sub, "attributes")
            ET.SubElement(sub, "parent").text = name
            labels_el.insert(at + k, sub)


def read_skeletons(meta: ET.Element) -> dict[str, skeletons.SkeletonTemplate]:
    """{label name: template} of the skeleton labels a file's ``<meta>`` declares: the built-in COCO person when
    the points are its 17 in its order, else a template of the label's own (``skeletons.LABEL_OWN``) of the
    sub-labels in their order (else the ``<svg>`` nodes by id) and the ``<svg>`` limbs. A label whose points or
    limbs make no template (an empty or repeated name, a limb to a node that is not there) is left out: its
    skeletons are then read by their points' names as before."""
    labels = list(meta.iter("label"))
    out: dict[str, skeletons.SkeletonTemplate] = {}
    for label in labels:
        name = (label.findtext("name") or "").strip()
        if (label.findtext("type") or "").strip() != "skeleton" or not name:
            continue
        nodes: dict[int, str] = {}
        edges: list[tuple[int, int]] = []
        try:
            drawing = ET.fromstring(f"<svg>{label.findtext('svg') or ''}</svg>")
            for el in drawing.iter():
                if el.get("data-type") == "element node":
                    nodes[int(el.get("data-node-id", ""))] = el.get("data-label-name", "")
                elif el.get("data-type") == "edge":
                    edges.append((int(el.get("data-node-from", "")), int(el.get("data-node-to", ""))))
        except (ET.ParseError, ValueError):
            nodes, edges = {}, []
        points = [(sub.findtext("name") or "") for sub in labels if (sub.findtext("parent") or "").strip() == name]
        points = points or [nodes[k] for k in sorted(nodes)]
        index = {point: i for i, point in enumerate(points)}
        try:
            limbs = [(index[nodes[a]], index[nodes[b]]) for a, b in edges]
            tmpl = skeletons.make_template(skeletons.LABEL_OWN, points, limbs)
        except (KeyError, skeletons.ShapeError):
            continue
        out[name] = skeletons.COCO_PERSON if tmpl.points == skeletons.COCO_PERSON.points else tmpl
    return out
