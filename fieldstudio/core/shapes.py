"""Vertex shapes beyond boxes: polygons (a spill, a restricted zone), polylines (a walkway edge) and points.

A shape is a list of vertices ``[[x, y], ...]`` in upright full-resolution image pixels (the same space as
boxes and rulers). A polygon is closed implicitly (its last vertex joins its first; the first is not repeated);
a polyline is open; a points mark is a set of separate points (CVAT's ``<points>``). Qt-free and store-free:
the records (``annotations.annotation_records``), the canvas and the formats all validate and measure through
these functions, so the numbers agree everywhere.
"""

from __future__ import annotations

import math
import operator
import sys
from collections.abc import Sequence
from itertools import islice
from operator import itemgetter

Point = tuple[float, float]

#: The vertex kinds and the fewest vertices each needs.
MIN_VERTICES = {"polygon": 3, "polyline": 2, "points": 1}
SHAPE_KINDS = tuple(MIN_VERTICES)


class ShapeError(ValueError):
    """A vertex list that cannot be a shape of the kind asked (too few vertices, not finite, zero area)."""


def as_vertices(kind: str, vertices: Sequence[Sequence[float]], size: tuple[int, int] | None = None) -> list[list[float]]:
    """Validated vertices ``[[x, y], ...]`` of a ``kind`` shape (one of :data:`SHAPE_KINDS`), as floats.

    ``size``: the image's (width, height) in pixels; vertices are clipped into it (as boxes are). A polygon's
    repeated closing vertex (equal to the first) is dropped, so does a vertex equal to the one before it.
    Raises ShapeError for an unknown kind, a malformed list, a coordinate that is not finite, every vertex beyond
    one edge of the image (wholly outside it), too few distinct vertices, or a polygon of zero area (all vertices on
    one line).
    """
    if kind not in MIN_VERTICES:
        raise ShapeError(f"unknown shape {kind!r}: use {', '.join(SHAPE_KINDS)}")
    try:  # an import validates 10^5 polygons through here: each step below is one pass in C (map, min, max)
        pts = [(float(x), float(y)) for x, y in vertices]
    except (TypeError, ValueError):
        raise ShapeError(f"a {kind} needs a list of (x, y) vertices, got {vertices!r}") from None
    if not pts:
        raise ShapeError(f"a {kind} needs at least {MIN_VERTICES[kind]} distinct vertices, got 0")
    xs, ys = list(map(_X, pts)), list(map(_Y, pts))
    # a NaN or an infinity makes the sum NaN or infinite (inf - inf is NaN)
    if not math.isfinite(sum(xs) + sum(ys)):
        bad = next((p for p in pts if not (math.isfinite(p[0]) and math.isfinite(p[1]))), None)
        if bad is not None:  # else finite values whose sum overflowed
            raise ShapeError(f"a {kind}'s vertices must be finite pixel coordinates, got {list(bad)!r}")
    lo_x, hi_x, lo_y, hi_y = min(xs), max(xs), min(ys), max(ys)
    if size is not None and size[0] and size[1]:
        w, h = float(size[0]), float(size[1])
        if hi_x < 0.0 or lo_x > w or hi_y < 0.0 or lo_y > h:   # clipping would fold it onto the edge: say where
            raise ShapeError(f"the {kind} lies wholly outside the {size[0]} x {size[1]} image")
        if lo_x < 0.0 or hi_x > w or lo_y < 0.0 or hi_y > h:   # else every vertex is inside: clipping keeps it
            pts = [(x if 0.0 <= x <= w else (0.0 if x < 0.0 else w), y if 0.0 <= y <= h else (0.0 if y < 0.0 else h))
                   for x, y in pts]
            lo_x, hi_x, lo_y, hi_y = max(lo_x, 0.0), min(hi_x, w), max(lo_y, 0.0), min(hi_y, h)
    if kind == "points" or not any(map(_EQ, pts, islice(pts, 1, None))):
        out = list(map(list, pts))
    else:  # a vertex equal to the one before it adds nothing
        out = [[x, y] for i, (x, y) in enumerate(pts) if i == 0 or pts[i - 1] != (x, y)]
    if kind == "polygon" and len(out) > 1 and out[-1] == out[0]:
        out.pop()
    need = MIN_VERTICES[kind]
    if len(out) < need:
        raise ShapeError(f"a {kind} needs at least {need} distinct vertices, got {len(out)}")
    if kind == "polygon" and not _area_above(out, max(-lo_x, hi_x, -lo_y, hi_y), 1e-9) and polygon_area(out) <= 1e-9:
        if _on_one_line(out):
            raise ShapeError("the polygon's vertices lie on one line: it has no area")
        # e.g. a bowtie: its two lobes' signed areas cancel, so no area in m² could be given for it
        raise ShapeError("the polygon crosses itself and its parts cancel out (signed area 0): draw each part as "
                         "its own polygon")
    return out


_X, _Y, _EQ = itemgetter(0), itemgetter(1), operator.eq
_EPS = sys.float_info.epsilon


def _area_above(vertices: list[list[float]], largest: float, floor: float) -> bool:
    """True when the shoelace area of ``vertices`` is certainly above ``floor``, whatever the order of summation:
    the two sums of products are taken in C (``map``), and their rounding differs from :func:`polygon_area`'s loop
    by less than 8 n² ε M² for n >= 3 vertices no farther than ``largest`` (M) from 0 (each way's twice-area sums
    n terms of at most 2 M², rounded within about (n + 2) ε of their absolute sum: under 3.4 n² ε M² of area
    each way; 8 leaves a margin), so a result above ``floor`` by that much is above it in :func:`polygon_area`
    too. False: not proven (the caller then asks :func:`polygon_area`)."""
    n = len(vertices)
    xs, ys = list(map(_X, vertices)), list(map(_Y, vertices))
    twice = sum(map(operator.mul, xs, ys[1:] + ys[:1])) - sum(map(operator.mul, xs[1:] + xs[:1], ys))
    return abs(twice) / 2.0 > floor + 8.0 * n * n * _EPS * largest * largest


def _on_one_line(vertices: Sequence[Sequence[float]]) -> bool:
    """True when every vertex lies on the line through the first vertex and the one farthest from it (within
    1e-9 px of it)."""
    x0, y0 = vertices[0]
    fx, fy = max(vertices, key=lambda v: math.hypot(v[0] - x0, v[1] - y0))
    length = math.hypot(fx - x0, fy - y0)
    if length == 0:
        return True
    return all(abs((fx - x0) * (y - y0) - (fy - y0) * (x - x0)) / length <= 1e-9 for x, y in vertices)


def polygon_area(vertices: Sequence[Sequence[float]]) -> float:
    """Area of the closed polygon through ``vertices`` (shoelace formula), in the vertices' units squared.

    Unsigned: the same for either winding. A self-crossing polygon gives the shoelace's net area, which is not the
    ground it covers: measure through ``annotations.shape_marks``, which refuses it (:func:`first_crossing`).
    """
    n = len(vertices)
    twice = 0.0
    for i in range(n):
        x1, y1 = vertices[i]
        x2, y2 = vertices[(i + 1) % n]
        twice += x1 * y2 - x2 * y1
    return abs(twice) / 2.0


def first_crossing(vertices: Sequence[Sequence[float]]) -> Point | None:
    """Where two edges of the closed polygon through ``vertices`` meet that are not neighbours (sharing a vertex),
    or None when the polygon is simple (no edge crosses or touches another).

    A polygon whose edges cross has no single area: the shoelace formula gives the net of lobes wound in opposite
    directions (a figure eight's two loops subtract), not the ground it covers. The first meeting found (edges in
    vertex order) is returned, a point in pixels, so a person can see where to fix the outline. Every pair of edges
    is tested at once with numpy (orientation signs), in blocks of rows so that memory stays bounded: 4.7 ms for
    a 200-vertex outline at load average 12 (the Properties panel and the annotation list measure every polygon).
    """
    import numpy as np

    pts = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
    n = len(pts)
    if n < 4:
        return None
    a, b = pts, np.roll(pts, -1, axis=0)            # edge i runs from a[i] to b[i]
    ax, ay, bx, by = a[:, 0], a[:, 1], b[:, 0], b[:, 1]
    ux, uy = bx - ax, by - ay
    lox, hix, loy, hiy = np.minimum(ax, bx), np.maximum(ax, bx), np.minimum(ay, by), np.maximum(ay, by)
    rows = max(1, 1_000_000 // n)
    for start in range(0, n, rows):
        r = slice(start, min(n, start + rows))
        i = np.arange(r.start, r.stop)[:, None]
        j = np.arange(n)[None, :]
        # neighbours share a vertex: j = i ± 1, and the closing edge n-1 with edge 0
        pairs = (j >= i + 2) & ~((i == 0) & (j == n - 1))
        pairs &= (lox[r, None] <= hix[None, :]) & (lox[None, :] <= hix[r, None]) & \
            (loy[r, None] <= hiy[None, :]) & (loy[None, :] <= hiy[r, None])
        if not pairs.any():
            continue
        # orientation of a point against an edge's line: the sign of the cross product
        d1 = ux[None, :] * (ay[r, None] - ay[None, :]) - uy[None, :] * (ax[r, None] - ax[None, :])
        d2 = ux[None, :] * (by[r, None] - ay[None, :]) - uy[None, :] * (bx[r, None] - ax[None, :])
        d3 = ux[r, None] * (ay[None, :] - ay[r, None]) - uy[r, None] * (ax[None, :] - ax[r, None])
        d4 = ux[r, None] * (by[None, :] - ay[r, None]) - uy[r, None] * (bx[None, :] - ax[r, None])
        hit = pairs & (((d1 * d2 < 0) & (d3 * d4 < 0)) | (d1 == 0) | (d2 == 0) | (d3 == 0) | (d4 == 0))
        for row, col in zip(*np.nonzero(hit)):      # row-major: the first edge in vertex order first
            found = _segments_meet((ax[start + row], ay[start + row]), (bx[start + row], by[start + row]),
                                   (ax[col], ay[col]), (bx[col], by[col]))
            if found is not None:
                return float(found[0]), float(found[1])
    return None


def _segments_meet(a: Point, b: Point, c: Point, d: Point) -> Point | None:
    """A point where segments ab and cd meet (crossing, touching or overlapping), or None."""
    def cross(o: Point, p: Point, q: Point) -> float:
        return (p[0] - o[0]) * (q[1] - o[1]) - (p[1] - o[1]) * (q[0] - o[0])

    d1, d2, d3, d4 = cross(c, d, a), cross(c, d, b), cross(a, b, c), cross(a, b, d)
    if d1 * d2 < 0 and d3 * d4 < 0:
        t = d1 / (d1 - d2)
        return a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])
    for p, (s, e) in ((a, (c, d)), (b, (c, d)), (c, (a, b)), (d, (a, b))):
        if _on_segment(s, e, p, 0.0):
            return p
    return None


def path_length(vertices: Sequence[Sequence[float]], *, closed: bool = False) -> float:
    """Length of the path through ``vertices`` (``closed``: back to the first), in the vertices' units."""
    pts = list(vertices) + ([vertices[0]] if closed and len(vertices) > 2 else [])
    return sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(pts, pts[1:]))


def contains(vertices: Sequence[Sequence[float]], p: Sequence[float]) -> bool:
    """Whether point ``p`` lies inside the closed polygon ``vertices`` (even-odd rule; a point on an edge or
    a vertex counts as inside, so "is the worker in the zone" does not flicker on the line)."""
    x, y = float(p[0]), float(p[1])
    n = len(vertices)
    inside = False
    for i in range(n):
        (x1, y1), (x2, y2) = vertices[i], vertices[(i + 1) % n]
        if _on_segment((x1, y1), (x2, y2), (x, y)):
            return True
        if (y1 > y) != (y2 > y):
            cross_x = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
            if x < cross_x:
                inside = not inside
    return inside


def _on_segment(a: Point, b: Point, p: Point, tol: float = 1e-9) -> bool:
    cross = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
    if abs(cross) > tol * max(1.0, math.hypot(b[0] - a[0], b[1] - a[1])):
        return False
    return min(a[0], b[0]) - tol <= p[0] <= max(a[0], b[0]) + tol and \
        min(a[1], b[1]) - tol <= p[1] <= max(a[1], b[1]) + tol


def nearest_edge(kind: str, vertices: Sequence[Sequence[float]], p: Sequence[float]) -> tuple[int, float, Point]:
    """The edge of the shape nearest to ``p``: (index of its first vertex, distance in pixels, the nearest
    point on it). A polygon's edges include the closing one (last to first); a polyline's do not.
    Raises ShapeError for a points mark (it has no edges)."""
    if kind == "points":
        raise ShapeError("a points mark has no edges")
    n = len(vertices)
    edges = n if kind == "polygon" else n - 1
    best: tuple[int, float, Point] | None = None
    for i in range(edges):
        a, b = vertices[i], vertices[(i + 1) % n]
        dx, dy = b[0] - a[0], b[1] - a[1]
        length2 = dx * dx + dy * dy
        t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2))
        q = (a[0] + t * dx, a[1] + t * dy)
        d = math.hypot(p[0] - q[0], p[1] - q[1])
        if best is None or d < best[1]:
            best = (i, d, q)
    assert best is not None
    return best


def insert_vertex(kind: str, vertices: Sequence[Sequence[float]], edge: int, p: Sequence[float]) -> list[list[float]]:
    """The vertices with ``p`` inserted on edge ``edge`` (between vertex ``edge`` and the next)."""
    out = [list(map(float, v)) for v in vertices]
    out.insert(edge + 1, [float(p[0]), float(p[1])])
    return as_vertices(kind, out)


def remove_vertex(kind: str, vertices: Sequence[Sequence[float]], index: int) -> list[list[float]]:
    """The vertices without vertex ``index``. Raises ShapeError when the shape would have too few left."""
    if len(vertices) <= MIN_VERTICES[kind]:
        raise ShapeError(f"a {kind} keeps at least {MIN_VERTICES[kind]} vertices; delete the whole mark instead")
    out = [list(map(float, v)) for i, v in enumerate(vertices) if i != index]
    return as_vertices(kind, out)


def bounds(vertices: Sequence[Sequence[float]]) -> tuple[float, float, float, float]:
    """``(x1, y1, x2, y2)`` of the vertices' bounding box."""
    xs, ys = list(map(float, map(_X, vertices))), list(map(float, map(_Y, vertices)))
    return min(xs), min(ys), max(xs), max(ys)


# a vertex this far past an edge (a share of the image's size) is not an annotator's overshoot: clipping it changes
# the shape, so it is reported
FAR_OUTSIDE = 0.05


def far_outside(vertices: list, size: tuple[int, int]) -> str | None:
    """Why the vertices (pixels; None: a skeleton's absent point) are reported when clipped into ``size`` (width,
    height): how many lie more than ``FAR_OUTSIDE`` of the image's size past an edge; None when none do or the size
    is unknown. An import says it beside the shape it clipped."""
    w, h = size
    if not (w and h):
        return None
    mx, my = FAR_OUTSIDE * w, FAR_OUTSIDE * h
    placed = [v for v in vertices if v is not None]
    xs, ys = list(map(_X, placed)), list(map(_Y, placed))
    if not xs or (-mx <= min(xs) and max(xs) <= w + mx and -my <= min(ys) and max(ys) <= h + my):
        return None   # the bounds are near the image: no vertex is far outside (a NaN may hide here: the caller
                      # refuses a vertex that is not finite before it reports this)
    far = [v for v in vertices if v is not None and (not -mx <= v[0] <= w + mx or not -my <= v[1] <= h + my)]
    if not far:
        return None
    return (f"{len(far)} vertex(es) far outside the {w} x {h} image (e.g. ({far[0][0]:g}, {far[0][1]:g})): "
            "clipped to its edge, the shape changed")
