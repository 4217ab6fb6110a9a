"""Painting one behaviour lane of the timeline (a subject's coded states and points), kept between paints.

An hour's coding puts thousands of bars and ticks in a lane, and the timeline repaints on every key press and on
every frame while the video plays. So what does not depend on the frame shown is painted once into two pixmaps of
the lane's size (:class:`LaneLayers`): the closed states' bars on the lane's background, and the points' tick
lines on transparency. A paint puts them on the widget and draws over them only what depends on the frame shown
or carries a text: the running states (they reach the frame shown), the outline of the bars on that frame, the
names of bars wide enough for one, the ticks' name chips and the highlight of a tick on that frame.

The layers are painted again whole when the view changes (zoom, scroll, width, another video); when a lane's marks
change (a key press adds or stops one event), only the pixel columns of the marks that changed are painted again,
with every mark that reaches into them, in the same order as a whole paint: the result is the same pixels as
painting the lane afresh. Pixel columns are computed for the whole lane at once (numpy over the frames' PTS) and
the marks are drawn one call per colour.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QLineF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPen, QPixmap

if TYPE_CHECKING:
    import numpy as np

TICK_MARGIN_PX = 3.0  # a tick's outline (3.5 px pen, square cap) reaches this far either side of its x
BAR_MARGIN_PX = 1.0


@dataclass
class _Marks:
    """One lane's marks as arrays for the view they were computed for (pixel x of the widget)."""

    starts: np.ndarray       # (S,) int64 start frame of each bar
    ends: np.ndarray         # (S,) int64 stop frame of each closed bar, -1 for a running one
    closed: np.ndarray       # (S,) bool
    x0: np.ndarray           # (S,) float64 left edge
    w: np.ndarray            # (S,) float64 width of a closed bar (at least 2 px); that of a running one is per paint
    bar_group: np.ndarray    # (S,) int64 the closed bar's colour among ``bar_colours``
    bar_colours: list[str]   # in order of first appearance among the bars
    tick_frames: np.ndarray  # (T,) int64 each tick's frame
    ticks_x: np.ndarray      # (T,) float64 x of each tick
    tick_group: np.ndarray   # (T,) int64 the tick's colour among ``tick_colours``
    tick_colours: list[str]


def _groups(colours: Sequence[str]) -> tuple[np.ndarray, list[str]]:
    """Each colour's index among the distinct colours in order of first appearance (the order they are drawn in)."""
    import numpy as np

    order: dict[str, int] = {}
    ids = np.fromiter((order.setdefault(c, len(order)) for c in colours), dtype=np.int64, count=len(colours))
    return ids, list(order)


def _marks(lane: Any, xs_of: Callable[[np.ndarray], np.ndarray],
           bar_ends: Callable[[np.ndarray], np.ndarray]) -> _Marks:
    import numpy as np

    segs, ticks = lane.segments, lane.events
    starts = np.fromiter((s.start for s in segs), dtype=np.int64, count=len(segs))
    ends = np.fromiter((-1 if s.end is None else s.end for s in segs), dtype=np.int64, count=len(segs))
    closed = ends >= 0
    x0 = xs_of(starts) if len(segs) else np.zeros(0)
    w = np.maximum(bar_ends(ends) - x0, 2.0) if len(segs) else np.zeros(0)
    bar_group, bar_colours = _groups([s.color for s in segs])
    frames = np.fromiter((t.index for t in ticks), dtype=np.int64, count=len(ticks))
    tick_group, tick_colours = _groups([t.color for t in ticks])
    return _Marks(starts, ends, closed, x0, w, bar_group, bar_colours, frames,
                  xs_of(frames) if len(ticks) else np.zeros(0), tick_group, tick_colours)


def _changed(old: list[np.ndarray], new: list[np.ndarray]) -> tuple[slice, slice]:
    """The rows that differ between two lists of marks (each given as arrays of the same fields, in the lane's
    order): (rows of ``old``, rows of ``new``) between the longest equal prefix and the longest equal suffix."""
    import numpy as np

    n_old, n_new = len(old[0]), len(new[0])
    n = min(n_old, n_new)
    same = np.ones(n, dtype=bool)
    for a, b in zip(old, new, strict=True):
        same &= a[:n] == b[:n]
    first = n if same.all() else int(np.argmin(same))
    rest = n - first  # the suffix compared, aligned on the ends, never reaching into the equal prefix
    same = np.ones(rest, dtype=bool)
    for a, b in zip(old, new, strict=True):
        same &= a[n_old - rest:] == b[n_new - rest:]
    last = rest if same.all() else rest - 1 - int(np.flatnonzero(~same)[-1])
    return slice(first, n_old - last), slice(first, n_new - last)


class LaneLayers:
    """The kept layers of one behaviour lane (a ``gui.timeline.Lane`` with ``heading``: one subject's row).

    :meth:`paint` draws the lane; the caller gives ``view``, a value that changes whenever the x of a frame or
    the lane's size or background does (the layers are then painted again whole)."""

    def __init__(self) -> None:
        self._view: object = None
        self._lane: Any = None
        self._marks: _Marks | None = None
        self._bars: QPixmap | None = None
        self._ticks: QPixmap | None = None
        self.repainted: list[tuple[float, float]] | None = None  # what the last paint redid: None whole, else spans

    def paint(self, p: QPainter, lane: Any, rect: QRectF, background: QColor, view: object,
              xs_of: Callable[[np.ndarray], np.ndarray], bar_ends: Callable[[np.ndarray], np.ndarray], index: int,
              width: float, metrics: QFontMetricsF, ink_of: Callable[[str], str]) -> list[str]:
        """Draw ``lane`` in ``rect`` of the widget painted by ``p``; the texts drawn. The type is not imported:
        ``gui.timeline`` imports this module.

        ``background``: the lane's fill; ``xs_of(frames)``: pixel x of each frame's PTS; ``bar_ends(ends)``: pixel x
        where a bar ending on each frame ends (its next frame's PTS; -1: the clip's end); ``index``: the frame shown
        (its bars and ticks highlighted); ``width``: the widget's width (marks beyond it are not drawn)."""
        ratio = p.device().devicePixelRatioF() if p.device() is not None else 1.0
        key = (view, width, rect.height(), background.rgba(), ratio)
        if key != self._view or self._bars is None or self._ticks is None:
            self._view, self._lane = key, lane
            self._marks = _marks(lane, xs_of, bar_ends)
            self._bars, self._ticks = _pixmap(width, rect.height(), ratio), _pixmap(width, rect.height(), ratio)
            self._paint_layers(background, None, None, width)
            self.repainted = None
        elif lane is not self._lane:
            self.repainted = self._update(lane, background, xs_of, bar_ends, width)
        else:
            self.repainted = []
        p.drawPixmap(rect.topLeft(), self._bars)
        return self._paint_live(p, lane, rect, bar_ends, index, width, metrics, ink_of)

    # --- the kept layers -------------------------------------------------------------------------
    def _update(self, lane: Any, background: QColor, xs_of: Callable[[np.ndarray], np.ndarray],
                bar_ends: Callable[[np.ndarray], np.ndarray], width: float) -> list[tuple[float, float]]:
        """The lane's marks changed: the layers are painted again over the columns of the marks that differ (found
        by comparing the marks in order from both ends: a key press inserts or changes one or two)."""
        before = self._marks
        self._lane, m = lane, _marks(lane, xs_of, bar_ends)
        self._marks = m
        if before.bar_colours != m.bar_colours or before.tick_colours != m.tick_colours:
            self._paint_layers(background, None, None, width)  # the colours are drawn in another order: all again
            return [(0.0, width)]
        was, now = _changed([before.starts, before.ends, before.bar_group], [m.starts, m.ends, m.bar_group])
        bars = [(marks.x0[rows][marks.closed[rows]], (marks.x0 + marks.w)[rows][marks.closed[rows]])
                for marks, rows in ((before, was), (m, now))]
        lefts = [float(x.min()) for x, _ in bars if len(x)]
        rights = [float(x.max()) for _, x in bars if len(x)]
        bar_span = (min(lefts) - BAR_MARGIN_PX, max(rights) + BAR_MARGIN_PX) if lefts else None
        was, now = _changed([before.tick_frames, before.tick_group], [m.tick_frames, m.tick_group])
        xs = [x for x in (before.ticks_x[was], m.ticks_x[now]) if len(x)]
        tick_span = (min(float(x.min()) for x in xs) - TICK_MARGIN_PX,
                     max(float(x.max()) for x in xs) + TICK_MARGIN_PX) if xs else None
        if bar_span is not None or tick_span is not None:
            self._paint_layers(background, bar_span, tick_span, width)
        return [span for span in (bar_span, tick_span) if span is not None]

    def _paint_layers(self, background: QColor, bar_span: tuple[float, float] | None,
                      tick_span: tuple[float, float] | None, width: float) -> None:
        """Paint the bars' layer over ``bar_span`` and the ticks' over ``tick_span`` (pixel x from, to), or both
        whole when both are None; the marks reaching into a span are drawn again, clipped to it."""
        import numpy as np

        m, whole = self._marks, bar_span is None and tick_span is None
        height = self._bars.height() / self._bars.devicePixelRatio()
        if whole or bar_span is not None:
            left, right = (0.0, width) if whole else (math.floor(bar_span[0]), math.ceil(bar_span[1]))
            p = QPainter(self._bars)
            clip = QRectF(left, 0, right - left, height)
            p.setClipRect(clip)
            p.fillRect(clip, background)
            p.setPen(Qt.PenStyle.NoPen)
            # whole pixel columns, and every bar reaching within a pixel of them: the pixels in the span come out as
            # a whole paint makes them
            near = m.closed & (m.x0 + m.w >= max(left, 0.0) - 1) & (m.x0 <= min(right, width) + 1)
            for g, colour in enumerate(m.bar_colours):
                picked = np.flatnonzero(near & (m.bar_group == g))
                if not len(picked):
                    continue
                c = QColor(colour)
                c.setAlpha(230)
                p.setBrush(c)
                p.drawRects([QRectF(float(m.x0[k]), 0, float(m.w[k]), height) for k in picked])
            p.end()
        if whole or tick_span is not None:
            left, right = (0.0, width) if whole else (math.floor(tick_span[0]), math.ceil(tick_span[1]))
            p = QPainter(self._ticks)
            clip = QRectF(left, 0, right - left, height)
            p.setClipRect(clip)
            p.setCompositionMode(QPainter.CompositionMode.CompositionMode_Source)
            p.fillRect(clip, Qt.GlobalColor.transparent)
            p.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceOver)
            near = (m.ticks_x >= max(left, 0.0) - TICK_MARGIN_PX) & (m.ticks_x <= min(right, width) + TICK_MARGIN_PX)
            picked = np.flatnonzero(near)
            p.setPen(QPen(QColor("#000000"), 3.5))
            p.drawLines([QLineF(float(m.ticks_x[k]), 0, float(m.ticks_x[k]), height) for k in picked])
            for g, colour in enumerate(m.tick_colours):
                mine = picked[m.tick_group[picked] == g]
                if len(mine):
                    p.setPen(QPen(QColor(colour), 2))
                    p.drawLines([QLineF(float(m.ticks_x[k]), 0, float(m.ticks_x[k]), height) for k in mine])
            p.end()

    # --- what depends on the frame shown ---------------------------------------------------------
    def _paint_live(self, p: QPainter, lane: Any, rect: QRectF, bar_ends: Callable[[np.ndarray], np.ndarray],
                    index: int, width: float, metrics: QFontMetricsF, ink_of: Callable[[str], str]) -> list[str]:
        import numpy as np

        m = self._marks
        texts: list[str] = []
        segs = lane.segments
        if len(segs):
            running = ~m.closed
            w = m.w.copy()
            live = np.flatnonzero(running)
            if len(live):  # a running state reaches the frame shown (past its start), else the clip's end
                ends = np.where(index > m.starts[live], index, -1)
                w[live] = np.maximum(bar_ends(ends) - m.x0[live], 2.0)
            shown = (m.x0 + w >= 0) & (m.x0 <= width)
            p.setPen(Qt.PenStyle.NoPen)
            for k in np.flatnonzero(shown & running):
                c = QColor(segs[k].color)
                c.setAlpha(130)
                p.setBrush(c)
                p.drawRect(QRectF(float(m.x0[k]), rect.top(), float(w[k]), rect.height()))
            # one by one only the bars that get more than their fill: a name (wider than 8 px), the outline of a
            # running state or of the bar on the frame shown (not every bar started before it)
            current = (m.starts <= index) & (running | (m.ends >= index))
            for k in np.flatnonzero(shown & ((w > 8) | running | current)):
                seg = segs[k]
                bar = QRectF(float(m.x0[k]), rect.top(), float(w[k]), rect.height())
                on = bool(current[k])
                if seg.end is None or on:
                    ink = QColor(ink_of(seg.color))
                    p.setPen(QPen(ink if on else QColor(seg.color), 2 if on else 1,
                                  Qt.PenStyle.SolidLine if on else Qt.PenStyle.DashLine))
                    p.setBrush(Qt.BrushStyle.NoBrush)
                    p.drawRect(bar.adjusted(0.5, 0.5, -0.5, -0.5))
                text = metrics.elidedText(seg.label, Qt.TextElideMode.ElideRight, bar.width() - 4) if w[k] > 8 else ""
                if text:
                    p.setPen(QColor(ink_of(seg.color)))
                    p.drawText(bar.adjusted(3, 0, -1, 0), Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                               text)
                    texts.append(text)
        p.drawPixmap(rect.topLeft(), self._ticks)
        ticks = lane.events
        if ticks:
            xs = m.ticks_x
            chips_end = -1.0  # a chip only where the previous one left room (and always on the frame shown)
            for k in np.flatnonzero((xs >= -200) & (xs <= width)):
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


def _pixmap(width: float, height: float, ratio: float) -> QPixmap:
    pixmap = QPixmap(max(round(width * ratio), 1), max(round(height * ratio), 1))
    pixmap.setDevicePixelRatio(ratio)
    pixmap.fill(Qt.GlobalColor.transparent)
    return pixmap
