"""Keypoint skeletons (a worker's posture while lifting): a template names the points in order and the edges
drawn between them; a skeleton mark stores one ``[x, y]`` or None (absent: hidden, out of view, not placed) per
point of its template, in upright image pixels.

The built-in template is COCO's person: the 17 body keypoints in COCO's order and its 19 limbs (COCO "keypoints"
category: ``keypoints`` names and ``skeleton`` pairs, 1-based there, 0-based here). A project may give a label its
own template (a hand's 5 points, a forklift's 4 corners): the project setting ``skeleton_templates``
``{label id: {"points": [names], "limbs": [[i, j], ...]}}`` (:func:`templates_from_setting`), named
``label:<label id>`` (:func:`label_template_name`) in the marks that use it. Qt-free and store-free.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fieldstudio.core.shapes import ShapeError


@dataclass(frozen=True)
class SkeletonTemplate:
    """``points``: the names in order; ``edges``: pairs of 0-based point indices joined by a line."""

    name: str
    points: tuple[str, ...]
    edges: tuple[tuple[int, int], ...]

    def coco_skeleton(self) -> list[list[int]]:
        """The edges 1-based, as COCO's ``categories[].skeleton`` writes them."""
        return [[a + 1, b + 1] for a, b in self.edges]


COCO_PERSON = SkeletonTemplate(
    "coco-person-17",
    ("nose", "left_eye", "right_eye", "left_ear", "right_ear", "left_shoulder", "right_shoulder", "left_elbow",
     "right_elbow", "left_wrist", "right_wrist", "left_hip", "right_hip", "left_knee", "right_knee", "left_ankle",
     "right_ankle"),
    tuple((a - 1, b - 1) for a, b in ((16, 14), (14, 12), (17, 15), (15, 13), (12, 13), (6, 12), (7, 13), (6, 7),
                                      (6, 8), (7, 9), (8, 10), (9, 11), (2, 3), (1, 2), (1, 3), (2, 4), (3, 5),
                                      (4, 6), (5, 7))))

#: Templates by name; a skeleton mark names its template in the annotation's ``text``.
TEMPLATES = {COCO_PERSON.name: COCO_PERSON}
DEFAULT_TEMPLATE = COCO_PERSON.name


def template(name: str | None, known: Mapping[str, SkeletonTemplate] | None = None) -> SkeletonTemplate:
    """The template ``name`` among the built-in ones and ``known`` (a project's, :func:`templates_from_setting`);
    None: the built-in COCO person. Raises ShapeError for an unknown name."""
    every = {**TEMPLATES, **(known or {})}
    found = every.get(name or DEFAULT_TEMPLATE)
    if found is None:
        raise ShapeError(f"unknown skeleton template {name!r}: use {', '.join(every)}")
    return found


def template_named(point_names: Sequence[str] | None,
                   known: Mapping[str, SkeletonTemplate] | None = None) -> SkeletonTemplate | None:
    """The template whose points are ``point_names`` in that order (a COCO category's ``keypoints``), or None."""
    names = tuple(str(n) for n in point_names or ())
    return next((t for t in {**TEMPLATES, **(known or {})}.values() if t.points == names), None)


#: The template name an importer gives a skeleton whose template is its label's own, before the label has an id.
LABEL_OWN = "label:"


def label_template_name(label_id: str) -> str:
    """The name marks store for the template of label ``label_id``."""
    return f"label:{label_id}"


def make_template(name: str, points: Sequence[str], limbs: Sequence[Sequence[int]]) -> SkeletonTemplate:
    """A checked template: ``points`` unique non-empty names (stripped), ``limbs`` pairs of 0-based indices into
    them, no limb from a point to itself, none twice. Raises ShapeError (one line) otherwise."""
    names = tuple(str(n).strip() for n in points)
    if not names:
        raise ShapeError("a skeleton template needs at least one point name")
    if any(not n for n in names):
        raise ShapeError(f"point {names.index('') + 1} of the skeleton template has an empty name")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ShapeError(f"point name(s) {', '.join(twice)} given twice in the skeleton template")
    edges: list[tuple[int, int]] = []
    for limb in limbs:
        try:
            a, b = (int(i) for i in limb)
        except (TypeError, ValueError):
            raise ShapeError(f"a limb is two point numbers, got {limb!r}") from None
        if not (0 <= a < len(names) and 0 <= b < len(names)):
            raise ShapeError(f"limb {a}-{b} names a point outside 0..{len(names) - 1}")
        if a == b:
            raise ShapeError(f"limb {a}-{b} joins point {names[a]} to itself")
        if (a, b) in edges or (b, a) in edges:
            raise ShapeError(f"limb {a}-{b} ({names[a]}-{names[b]}) given twice")
        edges.append((a, b))
    return SkeletonTemplate(name, names, tuple(edges))


def templates_from_setting(value: Any) -> dict[str, SkeletonTemplate]:
    """{template name: template} of a project's ``skeleton_templates`` setting (None: none); entries that do not
    make a template (a hand-edited file) are left out, so the label falls back to the COCO person."""
    out: dict[str, SkeletonTemplate] = {}
    for label_id, entry in (value or {}).items() if isinstance(value, dict) else ():
        try:
            out[label_template_name(label_id)] = make_template(label_template_name(label_id), entry["points"],
                                                               entry.get("limbs", ()))
        except (ShapeError, KeyError, TypeError, AttributeError):
            continue
    return out


def as_points(tmpl: SkeletonTemplate, points: Sequence[Sequence[float] | None],
              size: tuple[int, int] | None = None) -> list[list[float] | None]:
    """Validated skeleton points: one ``[x, y]`` (floats, clipped into ``size`` = (width, height) when given) or
    None per point of ``tmpl``. Raises ShapeError for a wrong count, a coordinate that is not finite, or no point
    present at all."""
    if len(points) != len(tmpl.points):
        raise ShapeError(f"a {tmpl.name} skeleton has {len(tmpl.points)} points, got {len(points)}")
    out: list[list[float] | None] = []
    for name, p in zip(tmpl.points, points):
        if p is None:
            out.append(None)
            continue
        try:
            x, y = (float(c) for c in p)
        except (TypeError, ValueError):
            raise ShapeError(f"skeleton point {name} must be (x, y) or absent, got {p!r}") from None
        if not (math.isfinite(x) and math.isfinite(y)):
            raise ShapeError(f"skeleton point {name} must be finite pixel coordinates, got {p!r}")
        if size is not None and size[0] and size[1]:
            x, y = min(max(x, 0.0), float(size[0])), min(max(y, 0.0), float(size[1]))
        out.append([x, y])
    if all(p is None for p in out):
        raise ShapeError("a skeleton needs at least one point placed")
    return out


def present(points: Sequence[Sequence[float] | None]) -> list[list[float]]:
    """The points placed (absent ones left out), for bounds and counts."""
    return [list(p) for p in points if p is not None]
