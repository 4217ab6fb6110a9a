"""Painting one behaviour lane of the timeline (a subject's coded states and points) in a few batched calls.

An hour's coding puts thousands of bars and ticks in a lane, and the timeline repaints on every key press and on
every frame while the video plays. So the pixel columns are computed for the whole lane at once (numpy over the
frames' PTS), the bars and ticks are drawn one call per colour, and only the few marks that carry a text or the
highlight of the frame shown (the current one, a running state, a bar wide enough for its name, a tick whose chip
fits) are drawn one by one. What is drawn is the same as drawing each mark on its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QLineF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPen

if TYPE_CHECKING:
    import numpy as np


def paint_behaviour_lane(p: QPainter, lane: Any, rect: QRectF, xs_of: Callable[[np.ndarray], np.ndarray],
                         bar_ends: Callable[[np.ndarray], np.ndarray], index: int, width: float,
                         metrics: QFontMetricsF, ink_of: Callable[[str], str]) -> list[str]:
    """Draw ``lane`` (a ``gui.timeline.Lane``, its ``heading`` set: a subject's lane) in ``rect``; the texts drawn.
    The type is not imported: ``gui.timeline`` imports this module.

    ``xs_of(frames)``: pixel x of each frame's PTS; ``bar_ends(ends)``: pixel x where a bar ending on each frame
    ends (its next frame's PTS); ``index``: the frame shown (its bars and ticks highlighted); ``width``: the
    widget's width (marks beyond it are not drawn)."""
    import numpy as np

    texts: list[str] = []
    if lane.segments:
        segs = lane.segments
        starts = np.fromiter((s.start for s in segs), dtype=np.int64, count=len(segs))
        ends = np.fromiter((s.end if s.end is not None else (index if index > s.start else -1) for s in segs),
                           dtype=np.int64, count=len(segs))
        x0 = xs_of(starts)
        x1 = bar_ends(ends)
        w = np.maximum(x1 - x0, 2.0)
        shown = (x0 + w >= 0) & (x0 <= width)
        by_colour: dict[tuple[str, bool], list[QRectF]] = {}
        for k in np.flatnonzero(shown):
            seg = segs[k]
            bar = QRectF(float(x0[k]), rect.top(), float(w[k]), rect.height())
            by_colour.setdefault((seg.color, seg.end is not None), []).append(bar)
        p.setPen(Qt.PenStyle.NoPen)
        for (colour, closed), bars in by_colour.items():
            c = QColor(colour)
            c.setAlpha(230 if closed else 130)
            p.setBrush(c)
            p.drawRects(bars)
        # one by one only the bars that get more than their fill: a name (wider than 8 px), the outline of a running
        # state or of the bar on the frame shown (not every bar started before it: an hour's record, every key)
        running = np.fromiter((s.end is None for s in segs), dtype=bool, count=len(segs))
        current = (starts <= index) & (running | (ends >= index))
        for k in np.flatnonzero(shown & ((w > 8) | running | current)):
            seg = segs[k]
            bar = QRectF(float(x0[k]), rect.top(), float(w[k]), rect.height())
            current = seg.start <= index <= (seg.end if seg.end is not None else index)
            if seg.end is None or current:
                ink = QColor(ink_of(seg.color))
                p.setPen(QPen(ink if current else QColor(seg.color), 2 if current else 1,
                              Qt.PenStyle.SolidLine if current else Qt.PenStyle.DashLine))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRect(bar.adjusted(0.5, 0.5, -0.5, -0.5))
            text = metrics.elidedText(seg.label, Qt.TextElideMode.ElideRight, bar.width() - 4) if w[k] > 8 else ""
            if text:
                p.setPen(QColor(ink_of(seg.color)))
                p.drawText(bar.adjusted(3, 0, -1, 0), Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, text)
                texts.append(text)
    if lane.events:
        ticks = lane.events
        frames = np.fromiter((t.index for t in ticks), dtype=np.int64, count=len(ticks))
        xs = xs_of(frames)
        shown = np.flatnonzero((xs >= -200) & (xs <= width))
        lines: dict[str, list[QLineF]] = {}
        outline: list[QLineF] = []
        for k in shown:
            line = QLineF(float(xs[k]), rect.top(), float(xs[k]), rect.bottom())
            outline.append(line)
            lines.setdefault(ticks[k].color, []).append(line)
        p.setPen(QPen(QColor("#000000"), 3.5))
        p.drawLines(outline)
        for colour, group in lines.items():
            p.setPen(QPen(QColor(colour), 2))
            p.drawLines(group)
        chips_end = -1.0  # a chip only where the previous one left room (and always on the frame shown)
        for k in shown:
            x, tick = float(xs[k]), ticks[k]
            current = tick.index == index
            if current:
                p.setPen(QPen(QColor("#ffffff"), 4))
                p.drawLine(QLineF(x, rect.top(), x, rect.bottom()))
                p.setPen(QPen(QColor(tick.color), 2))
                p.drawLine(QLineF(x, rect.top(), x, rect.bottom()))
            elif x < chips_end:
                continue
            box = QRectF(x + 4, rect.top() + 1, metrics.horizontalAdvance(tick.label) + 6, rect.height() - 2)
            chips_end = box.right()
            p.fillRect(box, QColor(tick.color))
            p.setPen(QColor(ink_of(tick.color)))
            p.drawText(box, Qt.AlignmentFlag.AlignCenter, tick.label)
            texts.append(tick.label)
    return texts
