"""The timeline under the video: time ruler, thumbnail strip, playhead, and lanes of segments and events.

Positions are frame indices; the x axis is PTS time, so a variable-frame-rate video is drawn true to
time. Drag the playhead to scrub (``scrubbed`` while dragging, ``released`` on release); Ctrl+wheel
or the zoom buttons zoom around the pointer, the wheel scrolls a zoomed timeline.

Segments and events are drawn in lanes, one per label (:func:`lay_out_lanes`): a label whose segments
overlap gets as many rows as it needs, so a new segment never hides another. Each bar and tick carries
its label; the marks under the playhead are outlined; hovering one tells its label, start, end and
duration (PTS seconds). With more lanes than fit, Shift+wheel or the scroll bar on the right scrolls them.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import QScrollBar, QSizePolicy, QToolTip, QWidget

from fieldstudio.annotations.colours import text_colour_for
from fieldstudio.gui.imaging import format_pts

if TYPE_CHECKING:
    import numpy as np

RULER_H = 18
STRIP_H = 44
LANE_H = 16
LANES_TOP = RULER_H + STRIP_H + 2
MIN_LANES, MAX_LANES = 2, 4  # lanes the widget is tall enough for; more scroll
NO_LABEL = "(no label)"


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
    key: str = ""  # the annotation id


@dataclass(frozen=True)
class Lane:
    """One row of the lanes: the marks of ``label`` (``row`` > 0 for segments overlapping row 0's)."""

    label: str
    color: str
    row: int
    segments: tuple[SegmentMarker, ...]
    events: tuple[EventMarker, ...]
    heading: str = ""  # a behaviour lane's subject, written at its left; its marks carry their behaviours' names


def lay_out_lanes(segments: Sequence[SegmentMarker], events: Sequence[EventMarker], last: int) -> list[Lane]:
    """Lanes by label (in order of first appearance in time), a label's segments packed into the fewest
    rows in which none overlaps another (an open segment reaches ``last``); events in the label's first row."""
    labels: dict[str, str] = {}
    for m in sorted([*segments, *events], key=lambda m: getattr(m, "start", getattr(m, "index", 0))):
        labels.setdefault(m.label or NO_LABEL, m.color)
    lanes: list[Lane] = []
    for label, color in labels.items():
        rows = pack_rows([m for m in segments if (m.label or NO_LABEL) == label], last)
        evs = tuple(m for m in events if (m.label or NO_LABEL) == label)
        for i, row in enumerate(rows or [[]]):
            lanes.append(Lane(label, color, i, tuple(row), evs if i == 0 else ()))
    return lanes


def pack_rows(segments: Sequence[SegmentMarker], last: int) -> list[list[SegmentMarker]]:
    """``segments`` by start, packed into the fewest rows in which none overlaps another (an open one reaches
    ``last``)."""
    rows: list[list[SegmentMarker]] = []
    ends: list[int] = []
    for seg in sorted(segments, key=lambda m: m.start):
        end = seg.end if seg.end is not None else last
        for i, row_end in enumerate(ends):
            if seg.start > row_end:
                rows[i].append(seg)
                ends[i] = end
                break
        else:
            rows.append([seg])
            ends.append(end)
    return rows


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
        self.setFixedHeight(self._height_for(0))
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMouseTracking(True)
        self.setToolTip("Drag to scrub; Ctrl+wheel zooms, the wheel scrolls a zoomed timeline")
        self._t: Sequence[float] = ()  # numpy is imported with the first video, not at start-up
        self._index = 0
        self._view = (0.0, 1.0)  # visible seconds
        self._thumbs: list[tuple[int, QImage]] = []
        self._segments: list[SegmentMarker] = []
        self._events: list[EventMarker] = []
        self._lanes: list[Lane] = []
        self._behaviour_lanes: list[Lane] = []  # one per subject (and row), under the label lanes
        self._lane_layers: dict[tuple[str, int], object] = {}  # (subject, row): its behaviour_lane_paint.LaneLayers
        self._lane_scroll = QScrollBar(Qt.Orientation.Vertical, self)
        self._lane_scroll.setToolTip("More lanes: scroll (or Shift+wheel)")
        self._lane_scroll.valueChanged.connect(lambda _v: self.update())
        self._lane_scroll.hide()
        self.drawn_texts: list[str] = []  # the texts last painted on the lanes (for tests and accessibility)
        self._loop: tuple[int, int] | None = None
        self._dragging = False
        self._end_drag: tuple[SegmentMarker, str] | None = None  # (segment, "start" | "end") being dragged
        self._backdrop_generation = 0  # counts the changes of the frames' times and of the thumbnails
        self._backdrop_key: tuple | None = None
        self._backdrop_pixmap = QPixmap()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(800, self._height_for(len(self._lanes)))

    @staticmethod
    def _height_for(lanes: int) -> int:
        return LANES_TOP + min(max(lanes, MIN_LANES), MAX_LANES) * LANE_H + 4

    def lanes(self) -> list[Lane]:
        """The lanes as laid out now (label, row, marks)."""
        return list(self._lanes)

    def first_lane(self) -> int:
        """Index of the lane shown at the top (lanes scrolled away above it)."""
        return self._lane_scroll.value() if self._lane_scroll.isVisible() else 0

    # --- content ---------------------------------------------------------------------------------
    def set_video(self, seconds: np.ndarray | Sequence[float]) -> None:
        """A new video: ``seconds`` is the float array (N,) of every frame's PTS in seconds."""
        if len(seconds):
            import numpy as np

            self._t = np.asarray(seconds, dtype=np.float64)
        else:
            self._t = ()
        self._index = 0
        self._thumbs, self._loop = [], None
        self._backdrop_generation += 1
        self._behaviour_lanes = []
        self._lane_layers = {}
        self.set_markers([], [])
        self._view = (self._start(), self._end())
        self.update()

    def clear(self) -> None:
        self.set_video(())

    def set_index(self, index: int) -> None:
        """Move the playhead to frame ``index``, scrolling a zoomed view to keep it visible. Nothing is repainted when
        neither moves: the frame shown after a release is where the release put the playhead, and repainting the
        timeline then was 0.6 ms of the paint that brings that frame to the screen (issue 37 item 6)."""
        before = (self._index, self._view)
        self._index = index
        if len(self._t) and not self._dragging:
            t = self._t[min(max(index, 0), len(self._t) - 1)]
            a, b = self._view
            if not a <= t <= b:
                span = b - a
                a = min(max(self._start(), t - span / 2), self._end() - span)
                self._view = (a, a + span)
        if (self._index, self._view) != before:
            self.update()

    def set_thumbnails(self, thumbs: list[tuple[int, QImage]]) -> None:
        """Thumbnails as (frame index, image) pairs, drawn at their frame's time."""
        self._thumbs = sorted(thumbs, key=lambda p: p[0])
        self._backdrop_generation += 1
        self.update()

    def set_markers(self, segments: list[SegmentMarker], events: list[EventMarker]) -> None:
        """The segments and events to draw, laid out in lanes by label."""
        self._segments, self._events = list(segments), list(events)
        self._relayout()

    def set_behaviour_lanes(self, lanes: list[Lane]) -> None:
        """The coded behaviours' lanes (gui/behaviour_coding.py), drawn under the label lanes."""
        self._behaviour_lanes = list(lanes)
        kept = {(lane.heading, lane.row) for lane in lanes}
        self._lane_layers = {k: v for k, v in self._lane_layers.items() if k in kept}
        self._relayout()

    def _relayout(self) -> None:
        self._lanes = lay_out_lanes(self._segments, self._events, max(len(self._t) - 1, 0)) + self._behaviour_lanes
        height = self._height_for(len(self._lanes))
        if self.minimumHeight() != height:
            self.setMinimumHeight(height)
            self.setMaximumHeight(height)
        overflow = len(self._lanes) - MAX_LANES
        self._lane_scroll.setVisible(overflow > 0)
        self._lane_scroll.setRange(0, max(overflow, 0))
        self._lane_scroll.setPageStep(MAX_LANES)
        self._place_scroll()
        self.update()

    def _place_scroll(self) -> None:
        w = self._lane_scroll.sizeHint().width()
        self._lane_scroll.setGeometry(self.width() - w, LANES_TOP, w, max(self.height() - LANES_TOP, 1))

    def resizeEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        super().resizeEvent(event)
        self._place_scroll()

    def _visible_lanes(self) -> list[tuple[Lane, QRectF]]:
        """(lane, its rectangle) for each lane on screen."""
        first = self.first_lane()
        out = []
        for i, lane in enumerate(self._lanes[first:first + MAX_LANES]):
            out.append((lane, QRectF(0, LANES_TOP + i * LANE_H, self.width(), LANE_H - 1)))
        return out

    def _segment_rect(self, seg: SegmentMarker, lane_rect: QRectF) -> QRectF:
        last = len(self._t) - 1
        x0 = self.x_of_index(seg.start)
        end = seg.end if seg.end is not None else (self._index if self._index > seg.start else last)
        # a bar reaches the end of its last frame: the next frame's PTS (the clip's end after the last)
        x1 = self.x_of_index(end + 1) if end + 1 <= last else self._t_to_x(self._end())
        return QRectF(x0, lane_rect.top(), max(x1 - x0, 2), lane_rect.height())

    def marker_rects(self) -> list[tuple[str, str, str, QRectF]]:
        """(kind "segment"/"event", label, annotation id, rectangle in widget pixels) of each mark drawn."""
        out = []
        for lane, rect in self._visible_lanes():
            if lane.heading:
                continue  # a behaviour lane: its marks are coded events, listed in the Behaviour dock
            for seg in lane.segments:
                out.append(("segment", lane.label, seg.key, self._segment_rect(seg, rect)))
            for ev in lane.events:
                x = self.x_of_index(ev.index)
                out.append(("event", lane.label, ev.key, QRectF(x - 3, rect.top(), 6, rect.height())))
        return out

    def describe_at(self, x: float, y: float) -> str | None:
        """Label, start, end and duration of the mark under (x, y), or None."""
        hits = [m for m in self.marker_rects() if m[3].adjusted(-2, 0, 2, 0).contains(QPointF(x, y))]
        if not hits:
            return None
        hits.sort(key=lambda m: m[0] != "event")  # a tick drawn over a bar is the one meant
        kind, label, key, _rect = hits[0]
        if kind == "event":
            ev = next(e for e in self._events if e.key == key and (e.label or NO_LABEL) == label)
            return f"{label}: event on frame {ev.index} ({format_pts(self._seconds(ev.index))})"
        seg = next(s for s in self._segments if s.key == key and (s.label or NO_LABEL) == label)
        t0 = self._seconds(seg.start)
        if seg.end is None:
            return f"{label}: segment from frame {seg.start} ({format_pts(t0)}), still open (O ends it)"
        t1 = self._seconds(seg.end)
        return (f"{label}: frames {seg.start}-{seg.end}, {format_pts(t0)} to {format_pts(t1)}, "
                f"duration {t1 - t0:.3f} s (PTS)")

    def _seconds(self, index: int) -> float:
        return float(self._t[min(max(index, 0), len(self._t) - 1)]) if len(self._t) else 0.0

    def set_loop(self, loop: tuple[int, int] | None) -> None:
        """The loop's (first, last) frame to draw, or None; repainted only when it changed (see ``set_index``)."""
        if loop != self._loop:
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

    def _xs_of(self, frames: np.ndarray) -> np.ndarray:
        """``x_of_index`` of many frames at once."""
        import numpy as np

        a, b = self._view
        t = self._t[np.clip(frames, 0, len(self._t) - 1)]
        return (t - a) / (b - a) * self.width() if b > a else np.zeros(len(frames))

    def _bar_ends(self, ends: np.ndarray) -> np.ndarray:
        """Where bars ending on frames ``ends`` end (-1: the last frame): the next frame's PTS, the clip's end
        after the last frame (as ``_segment_rect``)."""
        import numpy as np

        last = len(self._t) - 1
        after = np.where(ends < 0, last, ends) + 1
        return np.where(after <= last, self._xs_of(np.minimum(after, last)), self._t_to_x(self._end()))

    def x_of_index(self, index: int) -> float:
        """Pixel x of frame ``index``'s PTS."""
        if not len(self._t):
            return 0.0
        return self._t_to_x(float(self._t[min(max(index, 0), len(self._t) - 1)]))

    # --- events ----------------------------------------------------------------------------------
    def segment_end_at(self, x: float, y: float) -> tuple[SegmentMarker, str] | None:
        """The segment end ("start"/"end") within 5 px of (x, y) in its lane, if any."""
        if not len(self._t):
            return None
        for lane, rect in self._visible_lanes():
            if not rect.top() <= y <= rect.bottom() + 1:
                continue
            for seg in lane.segments:
                if not seg.key:
                    continue
                bar = self._segment_rect(seg, rect)
                if seg.end is not None and abs(bar.right() - x) <= 5:
                    return seg, "end"
                if abs(bar.left() - x) <= 5:
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
            self._lanes = [replace(lane, segments=tuple(moved if s is seg else s for s in lane.segments))
                           for lane in self._lanes]
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
            x, y = event.position().x(), event.position().y()
            tip = self.describe_at(x, y) if y >= LANES_TOP else None
            if tip is None:
                i = self.index_at_x(x)
                tip = f"frame {i}  {format_pts(float(self._t[i]))}"
            self.setToolTip(tip)
            if QToolTip.isVisible():
                QToolTip.showText(event.globalPosition().toPoint(), tip, self)

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
        if event.modifiers() & Qt.KeyboardModifier.ShiftModifier and self._lane_scroll.isVisible():
            self._lane_scroll.setValue(self._lane_scroll.value() - (1 if dy > 0 else -1))
        elif event.modifiers() & Qt.KeyboardModifier.ControlModifier:
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
        p.drawPixmap(QPointF(0, 0), self._backdrop())
        self._paint_markers(p)
        x = self.x_of_index(self._index)
        p.setPen(QPen(QColor("#ff3b30"), 2))
        p.drawLine(QPointF(x, 0), QPointF(x, self.height()))
        p.setBrush(QColor("#ff3b30"))
        p.drawPolygon(QPolygonF([QPointF(x - 6, 0), QPointF(x + 6, 0), QPointF(x, 8)]))
        p.end()

    def _backdrop(self) -> QPixmap:
        """The ruler and the thumbnail strip, painted again only when the view, the width, the loop, the frames'
        times or the thumbnails change: a move of the playhead repaints the timeline and drew them anew each time
        (1.5-2 ms with 24 thumbnails, on the GUI thread, at every move of a drag and at a release, beside the
        decode of the frame the user waits for, issue 37)."""
        dpr = self.devicePixelRatioF()
        key = (self._backdrop_generation, self.width(), dpr, self._view, self._loop, self.font().key())
        if key != self._backdrop_key:
            # whole device pixels that cover it all: at 150 % or 175 % an edge falls inside a pixel, which a picture
            # rounded down left in the background colour (a row under the strip, a column at its end)
            pixmap = QPixmap(max(1, math.ceil(self.width() * dpr)), math.ceil((RULER_H + STRIP_H) * dpr))
            pixmap.setDevicePixelRatio(dpr)
            pixmap.fill(QColor("#2b2d31"))
            p = QPainter(pixmap)
            p.setFont(self.font())  # a painter on a pixmap starts with the application's font, not the widget's
            self._paint_ruler(p, self.width())
            self._paint_strip(p)
            p.end()
            self._backdrop_key, self._backdrop_pixmap = key, pixmap
        return self._backdrop_pixmap

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
        self.drawn_texts = []
        font = QFont(p.font())
        font.setPointSizeF(7.5)
        p.setFont(font)
        metrics = QFontMetricsF(font)
        index = self._index
        if not self._lanes:
            p.setPen(QColor("#9aa0a6"))
            p.drawText(QRectF(6, LANES_TOP, self.width() - 12, LANE_H), Qt.AlignmentFlag.AlignVCenter,
                       "segments (I to start, O to end) and events (E) appear here, a lane per label")
        inks: dict[str, str] = {}

        def ink_of(colour: str) -> str:  # black or white text on a colour, worked out once per colour and paint
            if colour not in inks:
                inks[colour] = text_colour_for(QColor(colour).name())
            return inks[colour]

        for k, (lane, rect) in enumerate(self._visible_lanes()):
            background = QColor("#24262a") if k % 2 else QColor("#2f3136")
            if lane.heading:  # a subject's coded behaviours: thousands of marks, kept painted between paints
                from fieldstudio.gui.behaviour_lane_paint import LaneLayers

                layers = self._lane_layers.setdefault((lane.heading, lane.row), LaneLayers())
                self.drawn_texts += layers.paint(p, lane, rect, background, (self._view, id(self._t)), self._xs_of,
                                                 self._bar_ends, index, self.width(), metrics, ink_of)
                self._paint_heading(p, lane, rect, metrics)
                continue
            p.fillRect(rect, background)
            for seg in lane.segments:
                bar = self._segment_rect(seg, rect)
                if bar.right() < 0 or bar.left() > self.width():
                    continue
                color = QColor(seg.color)
                color.setAlpha(230 if seg.end is not None else 130)
                p.fillRect(bar, color)
                current = seg.start <= index <= (seg.end if seg.end is not None else len(self._t) - 1)
                if seg.end is None or current:
                    ink = QColor(ink_of(seg.color))
                    pen = QPen(ink if current else QColor(seg.color), 2 if current else 1,
                               Qt.PenStyle.SolidLine if current else Qt.PenStyle.DashLine)
                    p.setPen(pen)
                    p.setBrush(Qt.BrushStyle.NoBrush)
                    p.drawRect(bar.adjusted(0.5, 0.5, -0.5, -0.5))
                name = lane.label if lane.label != NO_LABEL else "segment"
                text = metrics.elidedText(name,
                                          Qt.TextElideMode.ElideRight, bar.width() - 4)
                if text:
                    p.setPen(QColor(ink_of(seg.color)))
                    p.drawText(bar.adjusted(3, 0, -1, 0), Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                               text)
                    self.drawn_texts.append(text)
            for ev in lane.events:
                x = self.x_of_index(ev.index)
                if x < -200 or x > self.width():
                    continue
                current = ev.index == index
                p.setPen(QPen(QColor("#ffffff") if current else QColor("#000000"), 4 if current else 3.5))
                p.drawLine(QPointF(x, rect.top()), QPointF(x, rect.bottom()))
                p.setPen(QPen(QColor(ev.color), 2))
                p.drawLine(QPointF(x, rect.top()), QPointF(x, rect.bottom()))
                text = lane.label if lane.label != NO_LABEL else "event"
                box = QRectF(x + 4, rect.top() + 1, metrics.horizontalAdvance(text) + 6, rect.height() - 2)
                p.fillRect(box, QColor(ev.color))
                p.setPen(QColor(ink_of(ev.color)))
                p.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
                self.drawn_texts.append(text)

    def _paint_heading(self, p: QPainter, lane: Lane, rect: QRectF, metrics: QFontMetricsF) -> None:
        """A behaviour lane's subject, at its left (on its first row)."""
        if lane.row == 0:
            head = QRectF(rect.left() + 2, rect.top() + 1, metrics.horizontalAdvance(lane.heading) + 8,
                          rect.height() - 2)
            p.fillRect(head, QColor(0, 0, 0, 170))
            p.setPen(QColor("#ffffff"))
            p.drawText(head, Qt.AlignmentFlag.AlignCenter, lane.heading)
            self.drawn_texts.append(lane.heading)
