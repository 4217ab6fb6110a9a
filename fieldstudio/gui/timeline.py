"""The timeline under the video: time ruler, thumbnail strip, playhead, segment bars and event ticks.

Positions are frame indices; the x axis is PTS time, so a variable-frame-rate video is drawn true to
time. Drag the playhead to scrub (``scrubbed`` while dragging, ``released`` on release); Ctrl+wheel
or the zoom buttons zoom around the pointer, the wheel scrolls a zoomed timeline.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QWidget

from fieldstudio.gui.imaging import format_pts

if TYPE_CHECKING:
    import numpy as np

RULER_H = 18
STRIP_H = 44
LANE_H = 16


@dataclass(frozen=True)
class SegmentMarker:
    """A time segment drawn as a bar: frames ``start``..``end`` (``end`` None while still open)."""

    start: int
    end: int | None
    color: str
    label: str = ""
    key: str = ""  # the annotation id; segments with a key have ends that can be dragged


@dataclass(frozen=True)
class EventMarker:
    """An event drawn as a tick at frame ``index``."""

    index: int
    color: str
    label: str = ""


class Timeline(QWidget):
    """Timeline of one video. Call ``set_video`` with the PTS seconds of every frame.

    Signals: ``scrubbed(index)`` while the playhead is dragged, ``released(index)`` when it is let go,
    ``segment_end_moved(key, which, index)`` when an end ("start" or "end") of a segment bar is dragged
    to another frame.
    """

    scrubbed = Signal(int)
    released = Signal(int)
    segment_end_moved = Signal(str, str, int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setMinimumHeight(RULER_H + STRIP_H + 2 * LANE_H + 6)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMouseTracking(True)
        self.setToolTip("Drag to scrub; Ctrl+wheel zooms, the wheel scrolls a zoomed timeline")
        self._t: Sequence[float] = ()  # numpy is imported with the first video, not at start-up
        self._index = 0
        self._view = (0.0, 1.0)  # visible seconds
        self._thumbs: list[tuple[int, QImage]] = []
        self._segments: list[SegmentMarker] = []
        self._events: list[EventMarker] = []
        self._loop: tuple[int, int] | None = None
        self._dragging = False
        self._end_drag: tuple[SegmentMarker, str] | None = None  # (segment, "start" | "end") being dragged

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(800, RULER_H + STRIP_H + 2 * LANE_H + 6)

    # --- content ---------------------------------------------------------------------------------
    def set_video(self, seconds: np.ndarray | Sequence[float]) -> None:
        """A new video: ``seconds`` is the float array (N,) of every frame's PTS in seconds."""
        if len(seconds):
            import numpy as np

            self._t = np.asarray(seconds, dtype=np.float64)
        else:
            self._t = ()
        self._index = 0
        self._thumbs, self._segments, self._events, self._loop = [], [], [], None
        self._view = (self._start(), self._end())
        self.update()

    def clear(self) -> None:
        self.set_video(())

    def set_index(self, index: int) -> None:
        """Move the playhead to frame ``index``, scrolling a zoomed view to keep it visible."""
        self._index = index
        if len(self._t) and not self._dragging:
            t = self._t[min(max(index, 0), len(self._t) - 1)]
            a, b = self._view
            if not a <= t <= b:
                span = b - a
                a = min(max(self._start(), t - span / 2), self._end() - span)
                self._view = (a, a + span)
        self.update()

    def set_thumbnails(self, thumbs: list[tuple[int, QImage]]) -> None:
        """Thumbnails as (frame index, image) pairs, drawn at their frame's time."""
        self._thumbs = sorted(thumbs, key=lambda p: p[0])
        self.update()

    def set_markers(self, segments: list[SegmentMarker], events: list[EventMarker]) -> None:
        self._segments, self._events = list(segments), list(events)
        self.update()

    def set_loop(self, loop: tuple[int, int] | None) -> None:
        self._loop = loop
        self.update()

    # --- zoom ------------------------------------------------------------------------------------
    def zoom(self, factor: float, about_x: float | None = None) -> None:
        """Zoom the time axis by ``factor`` (>1 zooms in) about pixel ``about_x`` (default: the playhead)."""
        if not len(self._t):
            return
        a, b = self._view
        total = max(self._end() - self._start(), 1e-6)
        center = self._x_to_t(about_x) if about_x is not None else self._t[min(self._index, len(self._t) - 1)]
        span = min(total, max((b - a) / factor, min(total, 0.5)))
        frac = (center - a) / (b - a) if b > a else 0.5
        a = center - frac * span
        a = min(max(self._start(), a), self._end() - span)
        self._view = (a, a + span)
        self.update()

    # --- geometry --------------------------------------------------------------------------------
    def _start(self) -> float:
        return float(self._t[0]) if len(self._t) else 0.0

    def _end(self) -> float:
        if len(self._t) < 2:
            return self._start() + 1.0
        last = float(self._t[-1])
        import numpy as np  # loaded with the video (set_video)

        return last + float(np.median(np.diff(self._t[-10:])))

    def _t_to_x(self, t: float) -> float:
        a, b = self._view
        return (t - a) / (b - a) * self.width() if b > a else 0.0

    def _x_to_t(self, x: float) -> float:
        a, b = self._view
        return a + x / max(self.width(), 1) * (b - a)

    def index_at_x(self, x: float) -> int:
        """The frame shown at the time under pixel ``x``."""
        if not len(self._t):
            return 0
        i = bisect.bisect_right(self._t, self._x_to_t(x) + 1e-9) - 1
        return min(max(i, 0), len(self._t) - 1)

    def x_of_index(self, index: int) -> float:
        """Pixel x of frame ``index``'s PTS."""
        if not len(self._t):
            return 0.0
        return self._t_to_x(float(self._t[min(max(index, 0), len(self._t) - 1)]))

    # --- events ----------------------------------------------------------------------------------
    def segment_end_at(self, x: float, y: float) -> tuple[SegmentMarker, str] | None:
        """The segment end ("start"/"end") within 5 px of (x, y) in the segment lane, if any."""
        seg_top = RULER_H + STRIP_H + 2
        if not seg_top <= y <= seg_top + LANE_H or not len(self._t):
            return None
        for seg in self._segments:
            if not seg.key:
                continue
            if seg.end is not None and abs(self.x_of_index(seg.end) - x) <= 5:
                return seg, "end"
            if abs(self.x_of_index(seg.start) - x) <= 5:
                return seg, "start"
        return None

    def mousePressEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        if event.button() == Qt.MouseButton.LeftButton and len(self._t):
            grab = self.segment_end_at(event.position().x(), event.position().y())
            if grab is not None:
                self._end_drag = grab
                self.setCursor(Qt.CursorShape.SizeHorCursor)
                return
            self._dragging = True
            self._index = self.index_at_x(event.position().x())
            self.scrubbed.emit(self._index)
            self.update()

    def mouseMoveEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        if self._end_drag is not None:
            seg, which = self._end_drag
            index = self.index_at_x(min(max(event.position().x(), 0), self.width() - 1))
            moved = replace(seg, start=index) if which == "start" else replace(seg, end=index)
            self._segments = [moved if s is seg else s for s in self._segments]
            self._end_drag = (moved, which)
            self.scrubbed.emit(index)
            self.update()
            return
        if self._dragging:
            index = self.index_at_x(min(max(event.position().x(), 0), self.width() - 1))
            if index != self._index:
                self._index = index
                self.scrubbed.emit(index)
                self.update()
        elif len(self._t):
            i = self.index_at_x(event.position().x())
            self.setToolTip(f"frame {i}  {format_pts(float(self._t[i]))}")

    def mouseReleaseEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        if self._end_drag is not None and event.button() == Qt.MouseButton.LeftButton:
            seg, which = self._end_drag
            self._end_drag = None
            self.unsetCursor()
            self.segment_end_moved.emit(seg.key, which, seg.start if which == "start" else seg.end)
            return
        if self._dragging and event.button() == Qt.MouseButton.LeftButton:
            self._dragging = False
            self._index = self.index_at_x(min(max(event.position().x(), 0), self.width() - 1))
            self.released.emit(self._index)
            self.update()

    def wheelEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        dy = event.angleDelta().y()
        if not dy:
            return
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.zoom(1.25 ** (dy / 120), event.position().x())
        else:
            a, b = self._view
            shift = -(b - a) * 0.1 * dy / 120
            a = min(max(self._start(), a + shift), self._end() - (b - a))
            self._view = (a, a + (b - a))
            self.update()
        event.accept()

    # --- painting --------------------------------------------------------------------------------
    def paintEvent(self, _event) -> None:  # noqa: ANN001, N802 - Qt override
        p = QPainter(self)
        p.fillRect(self.rect(), QColor("#2b2d31"))
        if not len(self._t):
            p.setPen(QColor("#9aa0a6"))
            p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "no video")
            return
        w = self.width()
        self._paint_ruler(p, w)
        self._paint_strip(p)
        self._paint_markers(p)
        x = self.x_of_index(self._index)
        p.setPen(QPen(QColor("#ff3b30"), 2))
        p.drawLine(QPointF(x, 0), QPointF(x, self.height()))
        p.setBrush(QColor("#ff3b30"))
        p.drawPolygon(QPolygonF([QPointF(x - 6, 0), QPointF(x + 6, 0), QPointF(x, 8)]))
        p.end()

    def _paint_ruler(self, p: QPainter, w: int) -> None:
        a, b = self._view
        span = b - a
        steps = [0.04, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600]
        step = next((s for s in steps if span / s <= max(w / 90, 1)), steps[-1])
        p.setPen(QColor("#9aa0a6"))
        font = QFont(p.font())
        font.setPointSizeF(7.5)
        p.setFont(font)
        t = math.floor(a / step) * step
        while t <= b:
            x = self._t_to_x(t)
            p.drawLine(QPointF(x, RULER_H - 5), QPointF(x, RULER_H))
            label = format_pts(t)
            label = label[3:] if label.startswith("00:") else label
            p.drawText(QPointF(x + 2, RULER_H - 6), label if step < 1 else label[:-4])
            t += step
        if self._loop:
            x0, x1 = self.x_of_index(self._loop[0]), self.x_of_index(self._loop[1])
            p.fillRect(QRectF(x0, 0, max(x1 - x0, 2), RULER_H), QColor(10, 132, 255, 80))

    def _paint_strip(self, p: QPainter) -> None:
        top = RULER_H
        p.fillRect(QRectF(0, top, self.width(), STRIP_H), QColor("#1e1f22"))
        if not self._thumbs:
            return
        for k, (index, image) in enumerate(self._thumbs):
            x = self.x_of_index(index)
            nxt = self.x_of_index(self._thumbs[k + 1][0]) if k + 1 < len(self._thumbs) else self.width()
            if nxt < 0 or x > self.width():
                continue
            tw = image.width() * STRIP_H / max(image.height(), 1)
            p.drawImage(QRectF(x, top, min(tw, max(nxt - x, 1)), STRIP_H), image,
                        QRectF(0, 0, min(image.width(), max(nxt - x, 1) * image.height() / STRIP_H),
                               image.height()))

    def _paint_markers(self, p: QPainter) -> None:
        seg_top = RULER_H + STRIP_H + 2
        ev_top = seg_top + LANE_H + 2
        last = len(self._t) - 1
        for seg in self._segments:
            x0 = self.x_of_index(seg.start)
            x1 = self.x_of_index(seg.end if seg.end is not None else self._index if self._index > seg.start else last)
            color = QColor(seg.color)
            color.setAlpha(200 if seg.end is not None else 110)
            p.fillRect(QRectF(x0, seg_top, max(x1 - x0, 2), LANE_H), color)
            if seg.end is None:
                p.setPen(QPen(QColor(seg.color), 1, Qt.PenStyle.DashLine))
                p.drawRect(QRectF(x0, seg_top, max(x1 - x0, 2), LANE_H))
        for ev in self._events:
            x = self.x_of_index(ev.index)
            p.setPen(QPen(QColor(ev.color), 2))
            p.drawLine(QPointF(x, ev_top), QPointF(x, ev_top + LANE_H))
