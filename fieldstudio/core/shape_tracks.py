"""Vertex shapes kept in tracks: a polygon, polyline, points mark or skeleton on its keyframes, and the shape on the
frames between two keyframes, interpolated vertex by vertex.

A shape track is the keyframes of one object (one ``track_id``) over the frames of one video, all of one kind.
On a frame strictly between two consecutive keyframes ``f0 < f < f1`` each vertex is the linear interpolation of
the same vertex on the two keyframes, in the frame table's order (as boxes are, ``core.tracks``)::

    t = (f - f0) / (f1 - f0),      v_i(f) = (1 - t) * v_i(f0) + t * v_i(f1)

Vertex ``i`` of one keyframe is paired with vertex ``i`` of the next, so two keyframes with different vertex
counts are not interpolated: the frames between them show nothing (each keyframe shows on its own frame), and
:func:`gap_reason` says why. A skeleton point absent (None) on either keyframe is absent on every frame between
them: nothing is guessed across the gap. Outside the first and last keyframes a track shows nothing.
Qt-free and store-free.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from fieldstudio.core.tracks import keyframe_spans

Vertices = tuple  # ((x, y) | None, ...): a skeleton's absent points are None


def _as_tuple(geometry: Sequence) -> Vertices:
    return tuple(None if v is None else (float(v[0]), float(v[1])) for v in geometry)


def lerp_vertices(v0: Sequence, v1: Sequence, t: float) -> Vertices | None:
    """``(1 - t) * v0 + t * v1`` vertex by vertex, for t in [0, 1]; a vertex None on either side is None; None
    when the two have different vertex counts (not interpolated)."""
    if len(v0) != len(v1):
        return None
    return tuple(None if a is None or b is None else
                 ((1.0 - t) * float(a[0]) + t * float(b[0]), (1.0 - t) * float(a[1]) + t * float(b[1]))
                 for a, b in zip(v0, v1))


def gap_reason(frame0: int, v0: Sequence, frame1: int, v1: Sequence) -> str | None:
    """Why the frames between keyframes ``frame0`` and ``frame1`` show no interpolated shape, or None when they do
    (same vertex count, or the keyframes are on adjacent frames, with nothing between)."""
    if len(v0) == len(v1) or frame1 - frame0 <= 1:
        return None
    return (f"keyframes {frame0} ({len(v0)} vertices) and {frame1} ({len(v1)} vertices) differ in vertex count: "
            f"frames {frame0 + 1}-{frame1 - 1} are not interpolated (give both the same vertices to interpolate)")


@dataclass(frozen=True)
class TrackShape:
    """The shape of a track on one frame: ``keyframe`` if drawn, else interpolated between ``source`` keyframes.

    ``vertices``: ``((x, y) | None, ...)`` pixels; ``source`` the (f0, f1) keyframes it comes from, (f, f) for a
    keyframe."""

    frame_index: int
    vertices: Vertices
    keyframe: bool
    source: tuple[int, int]


def interpolate_shape_track(keyframes: Iterable[tuple[int, Sequence]],
                            frames: Iterable[int] | None = None) -> dict[int, TrackShape]:
    """The shapes of a track on every frame from its first to its last keyframe (or on ``frames`` only).

    Args:
        keyframes: (frame index, vertices) for the frames a person drew; vertices ``[[x, y] | None, ...]``.
        frames: the frame indices wanted; default every frame from the first to the last keyframe. Frames
            outside that span, and frames between two keyframes of different vertex counts, are left out.
    Returns:
        {frame index: TrackShape}, keyframes marked ``keyframe=True``.
    Raises:
        ValueError: two keyframes on the same frame.
    """
    keys: dict[int, Vertices] = {}
    for f, vertices in keyframes:
        if int(f) in keys:
            raise ValueError(f"the track has two keyframes on frame {f}")
        keys[int(f)] = _as_tuple(vertices)
    if not keys:
        return {}
    out: dict[int, TrackShape] = {}
    for f, f0, f1 in keyframe_spans(sorted(keys), frames):
        if f0 == f1:
            out[f] = TrackShape(f, keys[f], True, (f, f))
        elif (got := lerp_vertices(keys[f0], keys[f1], (f - f0) / (f1 - f0))) is not None:
            out[f] = TrackShape(f, got, False, (f0, f1))
    return out


def vertices_close(a: Sequence, b: Sequence, tol: float) -> bool:
    """Whether two vertex lists have the same count, the same absent points, and every coordinate within ``tol``."""
    if len(a) != len(b):
        return False
    for p, q in zip(a, b):
        if (p is None) != (q is None):
            return False
        if p is not None and (abs(float(p[0]) - float(q[0])) > tol or abs(float(p[1]) - float(q[1])) > tol):
            return False
    return True


def needed_keyframes(frames: Sequence[int], shapes: Sequence[Sequence], forced: Sequence[bool],
                     tol: float) -> list[int]:
    """Positions (into ``frames``, ascending frame indices) to keep as keyframes of a shape track a file lists on
    many frames (CVAT writes every frame of a track): each ``forced`` one (the file's own keyframes) and, between
    them, the fewest more such that per-vertex interpolation between the kept ones gives every listed shape back
    to within ``tol`` pixels (greedy from the first, as ``core.tracks.dense_keyframes`` does for
    boxes). The first and last are always kept."""
    n = len(frames)
    if n <= 2:
        return list(range(n))
    keep = [0]
    a = 0
    while a < n - 1:
        b = a + 1
        while b + 1 < n and not forced[b]:
            c = b + 1
            if not all(_reproduced(frames, shapes, a, c, k, tol) for k in range(a + 1, c)):
                break
            b = c
        keep.append(b)
        a = b
    return keep


def _reproduced(frames: Sequence[int], shapes: Sequence[Sequence], a: int, c: int, k: int, tol: float) -> bool:
    got = lerp_vertices(shapes[a], shapes[c], (frames[k] - frames[a]) / (frames[c] - frames[a]))
    return got is not None and vertices_close(got, shapes[k], tol)
