"""Box geometry and tracks: corner/size conversions, linear interpolation between keyframes, overlaps.

Boxes are ``(x1, y1, x2, y2)`` floats in pixels of the upright full-resolution frame with x1 < x2 and
y1 < y2 (the stored form); ``(x, y, w, h)`` is the drawing and COCO form (top-left corner and size).

A track is the boxes of one object (one ``track_id``) over the frames of one video. The boxes a person
drew are keyframes; on a frame strictly between two consecutive keyframes ``f0 < f < f1`` the box is
their linear interpolation, corner by corner::

    t = (f - f0) / (f1 - f0),      box(f) = (1 - t) * box(f0) + t * box(f1)

the rule CVAT and Label Studio use for "interpolation mode" rectangles. Interpolation runs over frame
indices (the frame table's order), not over timestamps, so a variable-frame-rate video interpolates per
decoded frame. Outside the first and last keyframes a track has no box.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

Box = tuple[float, float, float, float]


def xywh_to_xyxy(rect: Sequence[float]) -> Box:
    """``(x, y, w, h)`` -> ``(x1, y1, x2, y2)``; a negative width or height is flipped (dragging up-left).

    Raises ValueError for a value that is not finite or a box of zero width or height.
    """
    x, y, w, h = _finite(rect, 4, "box (x, y, w, h)")
    return normalise_xyxy((x, y, x + w, y + h))


def xyxy_to_xywh(box: Sequence[float]) -> Box:
    """``(x1, y1, x2, y2)`` -> ``(x, y, w, h)`` with w, h >= 0."""
    x1, y1, x2, y2 = normalise_xyxy(box)
    return x1, y1, x2 - x1, y2 - y1


def normalise_xyxy(box: Sequence[float]) -> Box:
    """Corners ordered so that x1 < x2 and y1 < y2. Raises ValueError for non-finite or empty boxes."""
    x1, y1, x2, y2 = _finite(box, 4, "box (x1, y1, x2, y2)")
    x1, x2 = min(x1, x2), max(x1, x2)
    y1, y2 = min(y1, y2), max(y1, y2)
    if x2 - x1 <= 0 or y2 - y1 <= 0:
        raise ValueError(f"box {tuple(box)} has zero width or height")
    return x1, y1, x2, y2


def clip_xyxy(box: Sequence[float], width: float, height: float) -> Box:
    """The part of a box inside the image ``[0, width] x [0, height]``.

    Raises ValueError when nothing of the box lies inside the image.
    """
    x1, y1, x2, y2 = normalise_xyxy(box)
    cx1, cy1 = min(max(x1, 0.0), width), min(max(y1, 0.0), height)
    cx2, cy2 = min(max(x2, 0.0), width), min(max(y2, 0.0), height)
    if cx2 - cx1 <= 0 or cy2 - cy1 <= 0:
        raise ValueError(f"box {tuple(box)} lies outside the {width:g}x{height:g} image")
    return cx1, cy1, cx2, cy2


def _finite(values: Sequence[float], n: int, name: str) -> tuple[float, ...]:
    try:
        out = tuple(map(float, values))
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be {n} numbers, got {values!r}") from None
    # a NaN or an infinity makes the sum NaN or infinite; a finite sum proves every value finite
    if len(out) != n or not (math.isfinite(sum(out)) or all(map(math.isfinite, out))):
        raise ValueError(f"{name} must be {n} finite numbers, got {values!r}")
    return out


def lerp_box(box0: Sequence[float], box1: Sequence[float], t: float) -> Box:
    """``(1 - t) * box0 + t * box1`` corner by corner, for t in [0, 1]."""
    return tuple((1.0 - t) * float(a) + t * float(b) for a, b in zip(box0, box1))  # type: ignore[return-value]


@dataclass(frozen=True)
class TrackBox:
    """The box of a track on one frame: ``keyframe`` if drawn, else interpolated between ``source`` keys.

    ``source`` is the frame index pair (f0, f1) of the keyframes it comes from; (f, f) for a keyframe.
    """

    frame_index: int
    box: Box
    keyframe: bool
    source: tuple[int, int]


def interpolate_track(keyframes: Mapping[int, Sequence[float]] | Iterable[tuple[int, Sequence[float]]],
                      frames: Iterable[int] | None = None) -> dict[int, TrackBox]:
    """Boxes of a track on every frame from its first to its last keyframe (or on ``frames`` only).

    Args:
        keyframes: frame index -> box ``(x1, y1, x2, y2)`` for the frames a person drew.
        frames: the frame indices wanted; default every frame from the first to the last keyframe.
            Frames outside that span are left out of the result.
    Returns:
        {frame index: TrackBox}, keyframes marked ``keyframe=True``; between consecutive keyframes
        f0 < f < f1 the box is ``(1 - t) box(f0) + t box(f1)`` with ``t = (f - f0) / (f1 - f0)``.
    Raises:
        ValueError: two keyframes on the same frame.
    """
    items = list(keyframes.items()) if isinstance(keyframes, Mapping) else list(keyframes)
    keys: dict[int, Box] = {}
    for f, box in items:
        if int(f) in keys:
            raise ValueError(f"the track has two keyframes on frame {f}")
        keys[int(f)] = tuple(float(v) for v in box)  # type: ignore[assignment]
    if not keys:
        return {}
    out: dict[int, TrackBox] = {}
    for f, f0, f1 in keyframe_spans(sorted(keys), frames):
        if f0 == f1:
            out[f] = TrackBox(f, keys[f], True, (f, f))
        else:
            out[f] = TrackBox(f, lerp_box(keys[f0], keys[f1], (f - f0) / (f1 - f0)), False, (f0, f1))
    return out


def keyframe_spans(order: Sequence[int], frames: Iterable[int] | None = None) -> Iterator[tuple[int, int, int]]:
    """For each frame wanted (default every frame from the first keyframe to the last; frames outside that span
    left out), ``(frame, f0, f1)``: ``(f, f, f)`` on a keyframe, else the consecutive keyframes ``f0 < f < f1``
    around it. ``order``: the keyframes' frame indices, ascending, at least one. The walk of both box tracks
    (here) and shape tracks (``core.shape_tracks``)."""
    first, last = order[0], order[-1]
    wanted = range(first, last + 1) if frames is None else sorted({int(f) for f in frames})
    j = 0
    for f in wanted:
        if f < first or f > last:
            continue
        while order[j] < f and order[j + 1] <= f:
            j += 1                      # wanted is sorted, so j only moves forward
        yield (f, f, f) if order[j] == f else (f, order[j], order[j + 1])


def overlapping_pairs(intervals: Sequence[tuple[str, int, int | None]]) -> list[tuple[str, str]]:
    """Pairs of intervals that share at least one frame.

    Args:
        intervals: (id, start frame, end frame or None for an open interval that runs on); both ends
            are inclusive frame indices.
    Returns:
        (id_a, id_b) pairs, a starting no later than b, sorted by start frame. Two intervals overlap
        when ``start_b <= end_a`` (an interval ending on frame 10 and one starting on frame 10 share it).
    """
    rows = sorted(intervals, key=lambda r: (r[1], r[0]))
    pairs: list[tuple[str, str]] = []
    for i, (ida, sa, ea) in enumerate(rows):
        end_a = math.inf if ea is None else ea
        for idb, sb, _eb in rows[i + 1:]:
            if sb > end_a:
                break
            pairs.append((ida, idb))
    return pairs


# MOT writes left, top, width and height rounded to 0.01 px: a rounded box is off its true value by up
# to 0.005 per coordinate, and so is a box interpolated from rounded keyframes, so an interpolated frame
# of the export differs from the line through its rounded keyframes by up to 0.01 (plus float noise).
# Compared on x2/y2 instead, the rounding of width adds to that of left (0.02), which is why the
# comparison is made on (left, top, width, height).
DENSE_TOL_PX = 0.011


def dense_keyframes(frames: list[int], boxes: np.ndarray, tol: float = DENSE_TOL_PX) -> list[int]:
    """Positions (into ``frames``) to keep as keyframes of a track given on consecutive frames.

    Greedy from the first box: the next keyframe is the farthest box such that linear interpolation
    between the current keyframe and it gives every box between to within ``tol`` pixels per coordinate
    of (left, top, width, height), the coordinates MOT files round (interpolation is linear in either
    form, so this changes only where the rounding is measured). The first and last boxes are always
    kept. ``boxes`` is (n, 4) ``(x1, y1, x2, y2)``.
    """
    n = len(frames)
    if n <= 2:
        return list(range(n))
    f = np.asarray(frames, dtype=float)
    boxes = np.asarray(boxes, dtype=float)
    boxes = np.concatenate([boxes[:, :2], boxes[:, 2:] - boxes[:, :2]], axis=1)
    keep = [0]
    a = 0
    while a < n - 1:
        b = a + 1
        while b + 1 < n:
            c = b + 1
            t = ((f[a + 1:c] - f[a]) / (f[c] - f[a]))[:, None]
            pred = (1 - t) * boxes[a] + t * boxes[c]
            if np.abs(pred - boxes[a + 1:c]).max() > tol:
                break
            b = c
        keep.append(b)
        a = b
    return keep
