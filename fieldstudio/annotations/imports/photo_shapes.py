"""Polygons, polylines and points marks on photos validated many at a time (issue 32: a COCO file of 10^5 polygons).

The import places and validates a shape one at a time (``importing._place``, ``importing._shape_of``:
``core.shapes.as_vertices``), about 20 µs of Python each. A shape on a photo (no frame table, no fractions, no track)
is held here instead and a batch of them is checked at once with NumPy: finite coordinates, every vertex inside the
image (so nothing is clipped, nothing lies far outside, the box it is placed by is not empty), no vertex equal to the
one before it, a polygon not closed by a repeat of its first vertex, enough vertices, and a polygon's shoelace area
above ``as_vertices``' 1e-9 px² by more than any rounding of the sum could change (the bound of
``shapes._area_above``). A shape that passes is exactly what the one-at-a-time path stores (its vertices as floats,
its bounds); any other goes through that path, in the file's order, which reports it as before.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from itertools import chain
from typing import Any

import numpy as np

from fieldstudio.annotations.imports.parsed import ParsedBox, ParsedMedia
from fieldstudio.core.shapes import MIN_VERTICES

#: Shapes checked per batch (bounds the arrays: 4,096 polygons of 200 vertices are 13 MB of coordinates).
BATCH = 4096
_KINDS = frozenset(MIN_VERTICES)
_EPS = sys.float_info.epsilon
_NUMBERS = frozenset({float, int})


class PhotoShapes:
    """The shapes on photos an import holds until a batch is full or a record of another kind comes.

    ``one(group, media, box)``: the one-at-a-time path; ``keep(media, box, kind, vertices, bounds)``: stores a shape
    proven valid (``vertices`` ``[[x, y], ...]`` floats, ``bounds`` ``(x1, y1, x2, y2)``)."""

    def __init__(self, one: Callable[[ParsedMedia, Any, ParsedBox], None],
                 keep: Callable[[Any, ParsedBox, str, list, tuple], None]):
        self.one, self.keep = one, keep
        self.items: list[tuple[ParsedMedia, Any, ParsedBox]] = []

    @staticmethod
    def takes(media: Any, group: ParsedMedia, box: ParsedBox) -> bool:
        """Whether ``box`` is a shape this batch checks: a polygon, polyline or points mark of pixels on a photo
        of known size."""
        return (box.shape is not None and box.shape[0] in _KINDS and media.kind == "image" and not group.normalised
                and box.frame_index in (None, 0) and bool(media.width) and bool(media.height)
                and len(box.shape[1]) > 0)

    def add(self, group: ParsedMedia, media: Any, box: ParsedBox) -> None:
        """Hold one shape (``takes`` true); a full batch is checked and stored."""
        self.items.append((group, media, box))
        if len(self.items) >= BATCH:
            self.flush()

    def flush(self) -> None:
        """Check and store the shapes held, in their order: each proven one kept, each other one sent through
        ``one``."""
        items, self.items = self.items, []
        if not items:
            return
        proven = _proven(items)
        if proven is None:
            for item in items:
                self.one(*item)
            return
        ok, starts, rows, bounds = proven
        for i, (group, media, box) in enumerate(items):
            if ok[i]:
                self.keep(media, box, box.shape[0], rows[starts[i]:starts[i + 1]], bounds[i])
            else:
                self.one(group, media, box)


def _proven(items: list) -> tuple[list[bool], list[int], list[list[float]], list[tuple]] | None:
    """(which shapes are proven valid, where each one's vertices start in ``rows`` (one more at the end), every
    vertex as ``[x, y]``, each shape's bounds); None when the vertices are not all (x, y) numbers."""
    counts = np.fromiter((len(box.shape[1]) for _g, _m, box in items), dtype=np.int64, count=len(items))
    total = int(counts.sum())
    try:
        vertices = list(chain.from_iterable(box.shape[1] for _g, _m, box in items))
        if set(map(len, vertices)) != {2}:        # as_vertices takes (x, y) pairs only
            return None
        values = list(chain.from_iterable(vertices))
        if not set(map(type, values)) <= _NUMBERS:    # float() of these is what NumPy stores
            return None
        flat = np.array(values, dtype=float)
        corners = np.array([box.box for _g, _m, box in items], dtype=float).reshape(len(items), 4)
    except (TypeError, ValueError, OverflowError):
        return None
    xs, ys = flat[0::2], flat[1::2]
    ends = np.cumsum(counts)
    starts = ends - counts
    w = np.array([float(m.width) for _g, m, _b in items])
    h = np.array([float(m.height) for _g, m, _b in items])
    kinds = [box.shape[0] for _g, _m, box in items]
    polygon = np.array([k == "polygon" for k in kinds])
    points = np.array([k == "points" for k in kinds])
    need = np.array([MIN_VERTICES[k] for k in kinds])
    with np.errstate(invalid="ignore", over="ignore"):
        finite = np.logical_and.reduceat(np.isfinite(xs) & np.isfinite(ys), starts)
        lo_x, hi_x = np.minimum.reduceat(xs, starts), np.maximum.reduceat(xs, starts)
        lo_y, hi_y = np.minimum.reduceat(ys, starts), np.maximum.reduceat(ys, starts)
        inside = (lo_x >= 0) & (hi_x <= w) & (lo_y >= 0) & (hi_y <= h)
        # a vertex equal to the one before it in the same shape (as_vertices drops it)
        repeat = np.zeros(total, dtype=bool)
        repeat[1:] = (xs[1:] == xs[:-1]) & (ys[1:] == ys[:-1])
        repeat[starts] = False
        repeats = np.logical_or.reduceat(repeat, starts) & ~points
        closed = polygon & (xs[starts] == xs[ends - 1]) & (ys[starts] == ys[ends - 1]) & (counts > 1)
        # the shoelace sum of each polygon, its last vertex joined to its first
        following = np.arange(1, total + 1)
        following[ends - 1] = starts
        twice = np.add.reduceat(xs * ys[following] - xs[following] * ys, starts)
        largest = np.maximum(hi_x, hi_y)
        area = ~polygon | (np.abs(twice) / 2.0 > 1e-9 + 8.0 * counts * counts * _EPS * largest * largest)
        # the box the shape is placed by (importing._place: tracks.clip_xyxy), finite and not empty once clipped
        x1, x2 = np.minimum(corners[:, 0], corners[:, 2]), np.maximum(corners[:, 0], corners[:, 2])
        y1, y2 = np.minimum(corners[:, 1], corners[:, 3]), np.maximum(corners[:, 1], corners[:, 3])
        placed = (np.isfinite(corners).all(axis=1) & (x2 - x1 > 0) & (y2 - y1 > 0)
                  & (np.minimum(np.maximum(x2, 0), w) - np.minimum(np.maximum(x1, 0), w) > 0)
                  & (np.minimum(np.maximum(y2, 0), h) - np.minimum(np.maximum(y1, 0), h) > 0))
    ok = finite & inside & ~repeats & ~closed & (counts >= need) & area & placed
    bounds = list(zip(lo_x.tolist(), lo_y.tolist(), hi_x.tolist(), hi_y.tolist()))
    return ok.tolist(), [*starts.tolist(), total], flat.reshape(-1, 2).tolist(), bounds
