"""The canvas every photo, video frame and PDF page is shown in, with overlays drawn on top.

Scene coordinates are pixels of the upright full-resolution image, whatever the zoom, the preview size
and the screen's device pixel ratio (DESIGN.md, "Coordinates"): a reduced preview of a huge photo is
drawn scaled up so that its scene rectangle is still the full image.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QImage, QPainter, QPen, QPixmap, QTransform
from PySide6.QtWidgets import QGraphicsPixmapItem, QGraphicsRectItem, QGraphicsScene, QGraphicsView

from fieldstudio.gui.viewer.overlay import ScreenSizedItem
from fieldstudio.gui.viewer.video_item import VideoFrameItem

MIN_ZOOM = 0.02
MAX_ZOOM = 32.0
ZOOM_STEP = 1.25


class Canvas(QGraphicsView):
    """A zoomable, pannable view of one image in image-pixel scene coordinates.

    Signals: ``pointer_moved(x, y)`` in image pixels (floats; NaN when the pointer leaves the image),
    ``zoom_changed(zoom)`` where zoom is image pixels per physical screen pixel (1.0 is "1:1").
    """

    pointer_moved = Signal(float, float)
    zoom_changed = Signal(float)

    def __init__(self, parent=None):  # noqa: ANN001 - QWidget
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.SmoothPixmapTransform)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setMouseTracking(True)
        self.setBackgroundBrush(QBrush(QColor("#202124")))
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._item = QGraphicsPixmapItem()
        self._item.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
        self.scene().addItem(self._item)
        self.video_item = VideoFrameItem()  # libVLC's pictures while playing; hidden otherwise
        self.video_item.setVisible(False)
        self.scene().addItem(self.video_item)
        self._image = QImage()
        self._full = (0, 0)
        self._fit = True
        self._highlights: list[QGraphicsRectItem] = []

    # --- the image -------------------------------------------------------------------------------
    def set_image(self, image: QImage, full_size: tuple[int, int] | None = None, *, keep_view: bool = False) -> None:
        """Show ``image``; ``full_size`` (W, H) pixels is the size it stands for (a preview may be smaller).

        ``keep_view`` keeps zoom and scroll (stepping through a video); otherwise the view fits the image.
        """
        full = full_size or (image.width(), image.height())
        changed_size = full != self._full
        self._hide_video()
        self._image = image
        self._full = full
        self._item.setPixmap(QPixmap.fromImage(image))
        sx = full[0] / image.width() if image.width() else 1.0
        sy = full[1] / image.height() if image.height() else 1.0
        self._item.setTransform(QTransform.fromScale(sx, sy))
        self.scene().setSceneRect(QRectF(0, 0, full[0], full[1]))
        if not keep_view or changed_size:
            self.fit()
        self.viewport().update()

    def set_video_frame(self, image: QImage, serial: int, full_size: tuple[int, int]) -> None:
        """Show a played picture (borrowed, not copied: see ``VideoFrameItem``) standing for a frame of
        ``full_size`` (W, H) pixels. The exact frame's pixmap is hidden under it, so a frame costs one blit;
        ``set_image`` (the exact frame on pause) hides the played picture again."""
        if full_size != self._full:
            self._full = full_size
            self.scene().setSceneRect(QRectF(0, 0, full_size[0], full_size[1]))
            self.fit()
        item = self.video_item
        item.set_full_size(full_size)
        if not item.isVisible():
            item.set_frame(image, serial)
            item.setVisible(True)
            self._item.setVisible(False)
            return
        # painted now rather than after the scene's queued update: the buffer is the newest picture, and
        # a picture that waits for the event loop is one libVLC may replace before it is seen
        item.set_frame(image, serial, update=False)
        self.viewport().repaint(self.mapFromScene(item.sceneBoundingRect()).boundingRect().adjusted(-1, -1, 1, 1))

    def _hide_video(self) -> None:
        if self.video_item.isVisible():
            self.video_item.setVisible(False)
            self.video_item.clear()
            self._item.setVisible(True)

    def render_size(self, full_size: tuple[int, int]) -> tuple[int, int]:
        """(W, H) physical screen pixels a frame of ``full_size`` pixels takes at the current zoom, never
        more than ``full_size``: the size to have libVLC scale played pictures to."""
        scale = self.transform().m11() * self.devicePixelRatioF()
        w, h = full_size
        if scale >= 1.0 or not w or not h:
            return (w, h)
        return (max(2, round(w * scale)), max(2, round(h * scale)))

    def clear_image(self) -> None:
        self._hide_video()
        self._image = QImage()
        self._full = (0, 0)
        self._item.setPixmap(QPixmap())
        self.clear_highlights()

    def image(self) -> QImage:
        """The image currently shown (the exact frame when paused), at the resolution it was given."""
        return self._image

    def image_size(self) -> tuple[int, int]:
        """Full-resolution (W, H) pixels of what is shown."""
        return self._full

    # --- zoom and pan ----------------------------------------------------------------------------
    def zoom(self) -> float:
        """Image pixels per physical screen pixel shown: 1.0 is 1:1 on any screen."""
        return self.transform().m11() * self.devicePixelRatioF()

    def set_zoom(self, zoom: float) -> None:
        """Zoom to ``zoom`` (clamped to 0.02..32) about the view centre's anchor."""
        zoom = min(MAX_ZOOM, max(MIN_ZOOM, zoom))
        scale = zoom / self.devicePixelRatioF()
        self._fit = False
        self.setTransform(QTransform.fromScale(scale, scale))
        self._zoomed()

    def zoom_in(self) -> None:
        self.set_zoom(self.zoom() * ZOOM_STEP)

    def zoom_out(self) -> None:
        self.set_zoom(self.zoom() / ZOOM_STEP)

    def one_to_one(self) -> None:
        self.set_zoom(1.0)

    def fit(self) -> None:
        """Fit the whole image in the view and keep fitting when the window is resized."""
        self._fit = True
        if self._full[0] and self._full[1]:
            self.fitInView(QRectF(0, 0, *self._full), Qt.AspectRatioMode.KeepAspectRatio)
        self._zoomed()

    def _zoomed(self) -> None:
        """After every change of the view's transform: items sized in screen pixels update their geometry
        (through prepareGeometryChange, so the scene's index stays true), then listeners hear the zoom."""
        scale = self.transform().m11()
        for item in self.scene().items():
            if isinstance(item, ScreenSizedItem):
                item.set_view_scale(scale)
        self.zoom_changed.emit(self.zoom())

    def resizeEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        super().resizeEvent(event)
        if self._fit:
            self.fit()

    def wheelEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        if event.angleDelta().y() == 0:
            return super().wheelEvent(event)
        factor = ZOOM_STEP ** (event.angleDelta().y() / 120)
        self.set_zoom(self.zoom() * factor)
        event.accept()

    # --- pointer ---------------------------------------------------------------------------------
    def image_point(self, viewport_pos: QPointF) -> QPointF:
        """The image-pixel point under a viewport position (device-independent pixels, sub-pixel exact)."""
        inverse, _ = self.viewportTransform().inverted()
        return inverse.map(QPointF(viewport_pos))

    def mouseMoveEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        p = self.image_point(event.position())
        w, h = self._full
        if 0 <= p.x() < w and 0 <= p.y() < h:
            self.pointer_moved.emit(p.x(), p.y())
        else:
            self.pointer_moved.emit(float("nan"), float("nan"))
        super().mouseMoveEvent(event)

    # --- highlights (search hits) ----------------------------------------------------------------
    def set_highlights(self, rects: list[QRectF], color: str = "#ffd60a") -> None:
        """Draw translucent rectangles (image pixels) over the image, replacing earlier ones."""
        self.clear_highlights()
        fill = QColor(color)
        fill.setAlpha(90)
        for r in rects:
            item = QGraphicsRectItem(r)
            item.setBrush(QBrush(fill))
            item.setPen(QPen(QColor(color), 0))
            item.setZValue(10)
            self.scene().addItem(item)
            self._highlights.append(item)

    def clear_highlights(self) -> None:
        for item in self._highlights:
            self.scene().removeItem(item)
        self._highlights.clear()

    def center_on(self, rect: QRectF) -> None:
        """Scroll so that ``rect`` (image pixels) is visible."""
        self.ensureVisible(rect, 40, 40)
