"""Where the caption chips of boxes and rulers go so that none covers another (plain geometry, no Qt).

Every rectangle is ``(x1, y1, x2, y2)`` in scene units (image pixels). A chip is tried, in order, just
above its box's top-left corner, inside that corner, below the box, above its top-right corner, then
stacked downwards inside the box and below it, each place pushed inside ``bounds`` (the part of the image
on screen); the first place that touches no chip placed before is taken. When none is free, the free
place of a row-by-row scan of ``bounds`` nearest to the box is taken; only when ``bounds`` has no room
left at all may two chips meet (the last resort keeps the chip at its first place).
"""

from __future__ import annotations

from collections.abc import Sequence

Rect = tuple[float, float, float, float]

#: Gap kept between two chips, as a fraction of a chip's height.
GAP = 0.08


def intersects(a: Rect, b: Rect) -> bool:
    """Whether two rectangles share interior area (touching edges do not count)."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _clamp(x: float, y: float, w: float, h: float, bounds: Rect) -> tuple[float, float]:
    bx1, by1, bx2, by2 = bounds
    x = min(max(x, bx1), max(bx1, bx2 - w))
    y = min(max(y, by1), max(by1, by2 - h))
    return x, y


def _candidates(box: Rect, w: float, h: float, step: float):  # noqa: ANN202 - generator of (x, y)
    x1, y1, x2, y2 = box
    yield x1, y1 - h
    yield x1, y1
    yield x1, y2
    yield x2 - w, y1 - h
    y = y1 + step
    while y < y2:
        yield x1, y
        y += step
    for k in range(1, 6):
        yield x1, y2 + k * step


def place_captions(boxes: Sequence[Rect], sizes: Sequence[tuple[float, float]], bounds: Rect) -> list[Rect]:
    """Chip rectangles, one per box (same order), none intersecting another while ``bounds`` has room.

    ``boxes`` are the marks the chips name, ``sizes`` each chip's (width, height), ``bounds`` where chips
    may go. Chips are placed from the top of the picture down (then left to right), so an outer box
    keeps its chip at its corner and a box nested in it gets the next free place.
    """
    order = sorted(range(len(boxes)), key=lambda i: (boxes[i][1], boxes[i][0], -(boxes[i][2] - boxes[i][0])))
    placed: list[Rect] = []
    out: list[Rect | None] = [None] * len(boxes)
    for i in order:
        w, h = sizes[i]
        gap = GAP * h
        step = h + gap

        def free(x: float, y: float) -> Rect | None:
            r = (x, y, x + w, y + h)
            padded = (x - gap, y - gap, x + w + gap, y + h + gap)
            return None if any(intersects(padded, p) for p in placed) else r

        chosen = None
        for cx, cy in _candidates(boxes[i], w, h, step):
            chosen = free(*_clamp(cx, cy, w, h, bounds))
            if chosen is not None:
                break
        if chosen is None:
            chosen = _scan(boxes[i], w, h, step, bounds, free)
        if chosen is None:  # no room left anywhere in bounds: the first place, over another chip
            x, y = _clamp(boxes[i][0], boxes[i][1] - h, w, h, bounds)
            chosen = (x, y, x + w, y + h)
        placed.append(chosen)
        out[i] = chosen
    return [r for r in out if r is not None]


def _scan(box: Rect, w: float, h: float, step: float, bounds: Rect, free) -> Rect | None:  # noqa: ANN001
    """The free place of a row-by-row scan of ``bounds`` nearest to the box's top-left corner, or None."""
    bx1, by1, bx2, by2 = bounds
    best, best_d = None, float("inf")
    y = by1
    while y + h <= by2 + 1e-9:
        x = bx1
        while x + w <= bx2 + 1e-9:
            r = free(x, y)
            if r is not None:
                d = (x - box[0]) ** 2 + (y - box[1]) ** 2
                if d < best_d:
                    best, best_d = r, d
            x += max(w / 4, 1e-6)
        y += step
    return best
