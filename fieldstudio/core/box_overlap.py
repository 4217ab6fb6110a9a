"""Overlap of axis-aligned boxes in pixels: intersection over union, greedy non-maximum suppression, and one-to-one
matching of found boxes to boxes marked by hand (precision and recall at an IoU).

Boxes are ``(x0, y0, x1, y1)`` with x0 < x1, y0 < y1 (top left, bottom right), as the face and people detectors give
them. Pure functions over numbers; no image, no Qt.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

Box = tuple[float, float, float, float]
T = TypeVar("T")


def box_iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two ``(x0, y0, x1, y1)`` boxes, 0-1 (0 when they do not overlap or one is empty)."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def suppress(items: Sequence[T], max_iou: float, box: Callable[[T], Sequence[float]],
             score: Callable[[T], float]) -> list[T]:
    """Greedy non-maximum suppression: best score first, an item is kept when its box overlaps every kept one by at
    most ``max_iou``. Returns the kept items, best first."""
    kept: list[T] = []
    for item in sorted(items, key=lambda i: -score(i)):
        if all(box_iou(box(item), box(k)) <= max_iou for k in kept):
            kept.append(item)
    return kept


def match_boxes(found: Sequence[Sequence[float]], marked: Sequence[Sequence[float]],
                min_iou: float = 0.5) -> list[tuple[int, int]]:
    """One-to-one matches ``(found index, marked index)`` with IoU >= ``min_iou``, the pairs of highest IoU taken
    first (each found box and each marked box used at most once). Precision is ``len(matches) / len(found)``,
    recall ``len(matches) / len(marked)``."""
    pairs = sorted(((box_iou(f, m), i, j) for i, f in enumerate(found) for j, m in enumerate(marked)), reverse=True)
    used_f: set[int] = set()
    used_m: set[int] = set()
    out = []
    for iou, i, j in pairs:
        if iou < min_iou:
            break
        if i not in used_f and j not in used_m:
            used_f.add(i)
            used_m.add(j)
            out.append((i, j))
    return out
