"""Keypoint skeletons (a worker's posture while lifting): a template names the points in order and the edges
drawn between them; a skeleton mark stores one ``[x, y]`` or None (absent: hidden, out of view, not placed) per
point of its template, in upright image pixels.

The built-in template is COCO's person: the 17 body keypoints in COCO's order and its 19 limbs (COCO "keypoints"
category: ``keypoints`` names and ``skeleton`` pairs, 1-based there, 0-based here). Qt-free and store-free.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

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


def template(name: str | None) -> SkeletonTemplate:
    """The template ``name`` (None: the built-in COCO person). Raises ShapeError for an unknown name."""
    found = TEMPLATES.get(name or DEFAULT_TEMPLATE)
    if found is None:
        raise ShapeError(f"unknown skeleton template {name!r}: use {', '.join(TEMPLATES)}")
    return found


def template_named(point_names: Sequence[str] | None) -> SkeletonTemplate | None:
    """The template whose points are ``point_names`` in that order (a COCO category's ``keypoints``), or None."""
    names = tuple(str(n) for n in point_names or ())
    return next((t for t in TEMPLATES.values() if t.points == names), None)


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
