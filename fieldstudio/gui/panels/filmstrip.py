"""The filmstrip of Compare's evidence pane: the frames one answer was sent, as thumbnails in request order, each
opening the viewer at that exact frame, beside a small timeline of the video with the ground truth's span and where
each frame sent falls on it.

Widgets only: the thumbnails come from ``media.thumbnails.frame_thumbnails`` (the project's thumbnail cache, the
missing ones decoded) in a worker off the GUI thread; the span and the video's extent from the answer's
``AnswerDetail.evidence`` (``compare.evidence``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QHBoxLayout, QLabel, QScrollArea, QToolButton, QVBoxLayout, QWidget

from fieldstudio.gui import workers
from fieldstudio.media import thumbnails

if TYPE_CHECKING:
    from fieldstudio.compare.views import AnswerDetail
    from fieldstudio.store.project import Project

THUMB_HEIGHT = 64
IN_SPAN, OUT_OF_SPAN, SPAN_FILL = QColor("#1b7f2a"), QColor("#404040"), QColor(46, 160, 67, 90)


def _key(f: dict[str, Any]) -> tuple[str, int] | None:
    """The thumbnail key of a frame sent: its video frame, or a still image's preview (index 0)."""
    if not f.get("media_id"):
        return None
    index = f.get("frame_index")
    return str(f["media_id"]), index if isinstance(index, int) and not isinstance(index, bool) else 0


class EvidenceTimeline(QWidget):
    """A video's time from its first to its last frame, the ground truth's span as a green band (a line for one
    frame) and one tick per frame sent of that video (green inside the span, grey outside); times are written in
    seconds after the first frame."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setMinimumHeight(46)
        self.setMaximumHeight(46)
        self.extent: tuple[float, float] | None = None
        self.span: tuple[float, float] | None = None
        self.ticks: list[tuple[float, bool]] = []

    def set_marks(self, extent: tuple[float, float] | None, span: tuple[float, float] | None,
                  ticks: list[tuple[float, bool]]) -> None:
        """``extent``: first and last frame's PTS seconds (None: nothing to draw); ``span``: the ground truth's
        first and last frame in PTS seconds, or None; ``ticks``: (PTS seconds, in the span) per frame sent."""
        self.extent, self.span, self.ticks = extent, span, ticks
        self.setToolTip("" if extent is None else self.summary())
        self.update()

    def summary(self) -> str:
        """What the timeline shows, in words (its tooltip)."""
        if self.extent is None:
            return ""
        t0 = self.extent[0]
        parts = [f"video 0.000–{self.extent[1] - t0:.3f} s after its first frame"]
        if self.span is not None:
            parts.append(f"ground truth {self.span[0] - t0:.3f}–{self.span[1] - t0:.3f} s")
        inside = sum(1 for _, hit in self.ticks if hit)
        parts.append(f"{len(self.ticks)} frames sent of it, {inside} in the ground truth")
        return "; ".join(parts)

    def _x(self, seconds: float, left: float, width: float) -> float:
        t0, t1 = self.extent
        return left + (0.5 if t1 <= t0 else (seconds - t0) / (t1 - t0)) * width

    def paintEvent(self, _event) -> None:  # noqa: ANN001, N802 - Qt's name
        if self.extent is None:
            return
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        left, width, top, bar_h = 6.0, max(1.0, self.width() - 12.0), 6.0, 16.0
        p.fillRect(QRectF(left, top, width, bar_h), QColor("#e4e4e4"))
        if self.span is not None:
            a, b = self._x(self.span[0], left, width), self._x(self.span[1], left, width)
            p.fillRect(QRectF(a, top - 2, max(2.0, b - a), bar_h + 4), SPAN_FILL)
            p.setPen(QPen(IN_SPAN, 1.5))
            p.drawRect(QRectF(a, top - 2, max(2.0, b - a), bar_h + 4))
        for seconds, hit in self.ticks:
            x = self._x(seconds, left, width)
            p.setPen(QPen(IN_SPAN if hit else OUT_OF_SPAN, 2))
            p.drawLine(int(x), int(top), int(x), int(top + bar_h))
        p.setPen(QPen(QColor("#303030")))
        y = int(top + bar_h + 16)
        p.drawText(int(left), y, "0 s")
        end = f"{self.extent[1] - self.extent[0]:.2f} s"
        p.drawText(int(left + width - p.fontMetrics().horizontalAdvance(end)), y, end)
        if self.span is not None:
            text = f"ground truth {self.span[0] - self.extent[0]:.2f}–{self.span[1] - self.extent[0]:.2f} s"
            p.drawText(int(left + width / 2 - p.fontMetrics().horizontalAdvance(text) / 2), y, text)
        p.end()


class FrameStrip(QWidget):
    """The frames one answer was sent as clickable thumbnails (``open_frame(media id, frame index)``), above the
    :class:`EvidenceTimeline`. ``shown(n)`` is emitted once the thumbnails of an answer are drawn (n of them)."""

    open_frame = Signal(str, int)
    shown = Signal(int)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("filmstrip")
        self.title = QLabel()
        self.row = QWidget()
        self.row_layout = QHBoxLayout(self.row)
        self.row_layout.setContentsMargins(2, 2, 2, 2)
        self.row_layout.setSpacing(4)
        self.row_layout.addStretch(1)
        self.scroll = QScrollArea()
        self.scroll.setWidget(self.row)
        self.scroll.setWidgetResizable(True)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setFixedHeight(THUMB_HEIGHT + 48)
        self.timeline = EvidenceTimeline()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        layout.addWidget(self.scroll)
        layout.addWidget(self.timeline)
        self.buttons: list[QToolButton] = []
        self._keys: list[tuple[str, int] | None] = []
        self._generation = 0
        self._first_hit: QToolButton | None = None
        self._worker: workers.Worker | None = None
        self.setVisible(False)

    def show_answer(self, project: Project | None, detail: AnswerDetail | None) -> None:
        """Show ``detail``'s frames sent (placeholders at once, the thumbnails when the worker returns) and its
        timeline; hidden when the answer records no frame."""
        self._generation += 1
        if self._worker is not None:
            self._worker.cancel()
            self._worker = None
        for b in self.buttons:
            b.deleteLater()
        self.buttons, self._keys = [], []
        frames = list(detail.frames) if detail is not None else []
        self.setVisible(bool(frames))
        if not frames:
            self.timeline.set_marks(None, None, [])
            return
        ev = detail.evidence or {}
        in_span = set(ev.get("frames_in_span") or [])
        span_media = ev.get("span_media_id")
        for f in frames:
            self.buttons.append(self._button(f, f.get("media_id") == span_media and f.get("frame_index") in in_span))
            self._keys.append(_key(f))
        for b in self.buttons:
            self.row_layout.insertWidget(self.row_layout.count() - 1, b)
        first_hit = next((b for b, f in zip(self.buttons, frames) if f.get("media_id") == span_media
                          and f.get("frame_index") in in_span), None)
        self._first_hit = first_hit
        self._scroll_to_first_hit()
        starred = sum(1 for f in frames if f.get("media_id") == span_media and f.get("frame_index") in in_span)
        self.title.setText(f"<b>Frames sent</b>: {len(frames)}" + (f", {starred} in the ground truth (green)"
                                                                   if span_media else "")
                           + "; click one to open it in the viewer")
        timeline = ev.get("timeline")
        if timeline:
            ticks = [(float(f["pts_s"]), f.get("frame_index") in in_span and f.get("media_id") == span_media)
                     for f in frames if f.get("media_id") == timeline["media_id"] and f.get("pts_s") is not None]
            self.timeline.set_marks((timeline["start_s"], timeline["end_s"]),
                                    tuple(ev["span_s"]) if ev.get("span_s") and span_media == timeline["media_id"]
                                    else None, ticks)
        else:
            self.timeline.set_marks(None, None, [])
        keys = [k for k in self._keys if k is not None]
        if project is None or not keys:
            self.shown.emit(0)
            return
        generation = self._generation
        worker = workers.Worker(thumbnails.frame_thumbnails, project, keys)
        worker.signals.result.connect(lambda out: self._apply(generation, out))
        worker.signals.error.connect(lambda _message: self._apply(generation, {}))
        self._worker = workers.start(worker)

    def _button(self, f: dict[str, Any], hit: bool) -> QToolButton:
        b = QToolButton()
        b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextUnderIcon)
        b.setIconSize(QSize(int(THUMB_HEIGHT * 16 / 9), THUMB_HEIGHT))
        index = f.get("frame_index")
        pts = f.get("pts_s")
        b.setText(("image" if index is None else f"{index}") + (f" · {pts:.2f} s" if pts is not None else ""))
        facts = [f"{f.get('file_name') or f.get('media_id') or ''}",
                 "a still image" if index is None else f"frame {index}",
                 f"PTS {pts:.3f} s" if pts is not None else None,
                 f"sent {f['width']}×{f['height']} px" if f.get("width") and f.get("height") else None,
                 f"JPEG q{f['quality']}" if f.get("quality") is not None else None,
                 f"{f['bytes']:,} bytes" if f.get("bytes") is not None else None,
                 f"sha256 {f['sha256']}" if f.get("sha256") else None,
                 "in the ground truth's span" if hit else None]
        b.setToolTip("\n".join(x for x in facts if x))
        b.setStyleSheet(f"QToolButton {{ border: 2px solid {IN_SPAN.name() if hit else 'transparent'}; }}")
        media_id = f.get("media_id")
        if media_id and isinstance(index, int):
            b.clicked.connect(lambda _=False, m=str(media_id), i=index: self.open_frame.emit(m, i))
        else:
            b.setEnabled(bool(media_id))
        return b

    def _apply(self, generation: int, found: dict[tuple[str, int], bytes]) -> None:
        if generation != self._generation:
            return                 # another answer was clicked meanwhile
        self._worker = None
        drawn = 0
        for b, key in zip(self.buttons, self._keys):
            jpeg = found.get(key) if key is not None else None
            pixmap = QPixmap()
            if jpeg and pixmap.loadFromData(jpeg, "JPEG"):
                b.setIcon(QIcon(pixmap.scaledToHeight(THUMB_HEIGHT, Qt.TransformationMode.SmoothTransformation)))
                drawn += 1
        self._scroll_to_first_hit()
        self.shown.emit(drawn)

    def _scroll_to_first_hit(self) -> None:
        """Bring the first frame inside the ground truth into view: those frames are the ones to look at."""
        self.row_layout.activate()
        self.row.adjustSize()
        self.scroll.horizontalScrollBar().setValue(0)
        if self._first_hit is not None:
            self.scroll.ensureWidgetVisible(self._first_hit, 60, 0)
