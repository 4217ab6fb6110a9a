"""The canvas every photo, video frame and PDF page is shown in, with overlays drawn on top.

Scene coordinates are pixels of the upright full-resolution image, whatever the zoom, the preview size
and the screen's device pixel ratio (DESIGN.md, "Coordinates"): a reduced preview of a huge photo is
drawn scaled up so that its scene rectangle is still the full image.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QImage, QPainter, QPalette, QPen, QPixmap, QTransform
from PySide6.QtWidgets import QGraphicsRectItem, QGraphicsScene, QGraphicsView, QWidget

from fieldstudio.gui.viewer.overlay import ScreenSizedItem
from fieldstudio.gui.viewer.video_item import ExactFrameItem, VideoFrameItem

MIN_ZOOM = 0.02
MAX_ZOOM = 32.0
ZOOM_STEP = 1.25


def own_viewport() -> QWidget:
    """A viewport as Qt's own (QAbstractScrollArea makes a plain QWidget with these settings), made here.

    Its Python wrapper then exists from the start. Asked for with ``viewport()``, a Qt-made one is wrapped on
    the spot, and PySide first looks for its exact class among every QWidget subclass, creating the ~60 of
    them not yet used with their enum types (QWizard, QCalendarWidget, ...): 60-100 ms, the first time only,
    on two loaded cores. The drawing tools ask for the canvas's viewport while the window is built, so that
    was paid before the window's first paint (issue 37 item 3).
    """
    viewport = QWidget()
    viewport.setBackgroundRole(QPalette.ColorRole.Base)
    viewport.setAutoFillBackground(True)
    return viewport


class Canvas(QGraphicsView):
    """A zoomable, pannable view of one image in image-pixel scene coordinates.

    Signals: ``pointer_moved(x, y)`` in image pixels (floats; NaN when the pointer leaves the image),
    ``zoom_changed(zoom)`` where zoom is image pixels per physical screen pixel (1.0 is "1:1"),
    ``picture_painted()`` in the turn of the event loop after the first paint of a picture given to ``set_image``.
    """

    pointer_moved = Signal(float, float)
    zoom_changed = Signal(float)
    picture_painted = Signal()

    def __init__(self, parent=None):  # noqa: ANN001 - QWidget
        super().__init__(parent)
        self.setViewport(own_viewport())
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.SmoothPixmapTransform)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setMouseTracking(True)
        # the style given, not left to QBrush(QColor)'s overload search, which creates QGradient's enum types
        # (8 ms of a cold start, issue 37) looking at the gradient constructors
        self.setBackgroundBrush(QBrush(QColor("#202124"), Qt.BrushStyle.SolidPattern))
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._item = ExactFrameItem()
        self._item.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
        self.scene().addItem(self._item)
        self.video_item = VideoFrameItem()  # libVLC's pictures while playing; hidden otherwise
        self.video_item.setVisible(False)
        self.scene().addItem(self.video_item)
        self._image = QImage()
        self._replaced: list[QPixmap] = []  # pictures replaced this turn (set_image)
        self._unpainted = False  # a picture given to set_image is not painted yet
        self._full = (0, 0)
        self._fit = True
        self._highlights: list[QGraphicsRectItem] = []
        self._snapping = False
        self.horizontalScrollBar().valueChanged.connect(lambda _v: self._snap_to_pixels())
        self.verticalScrollBar().valueChanged.connect(lambda _v: self._snap_to_pixels())

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
        # the picture replaced is let go after the paint of the new one (paintEvent), not before it: freeing a
        # full-size frame hands its 8 MB (1080p) back to the system, ~1 ms on the GUI thread between the decoded
        # frame and its paint. One is kept at most (a canvas not painted meanwhile lets the older one go here).
        self._replaced = [self._item.pixmap()]
        self._unpainted = True
        self._draw(image)
        self.scene().setSceneRect(QRectF(0, 0, full[0], full[1]))
        if not keep_view or changed_size:
            self.fit()
        self.viewport().update()

    def set_detail(self, image: QImage) -> None:
        """The full-resolution picture of the frame ``set_image`` showed scaled down to the size it takes on
        screen: ``image()`` returns it from now on, and it is drawn as soon as the zoom asks for more pixels than
        the picture shown holds (at once if it does already). Until then the picture shown stays: it was made for
        this zoom by area averaging, which looks better than the full-resolution one scaled down by the paint,
        and costs no second paint."""
        if self._image.isNull() or (image.width(), image.height()) != self._full:
            return  # not the frame on show (cleared, or another size): nothing to refine
        self._image = image
        self._draw_detail_if_needed()

    def _draw(self, image: QImage) -> None:
        self._item.setPixmap(QPixmap.fromImage(image))
        sx = self._full[0] / image.width() if image.width() else 1.0
        sy = self._full[1] / image.height() if image.height() else 1.0
        self._item.setTransform(QTransform.fromScale(sx, sy))

    def _draw_detail_if_needed(self) -> None:
        """Draw ``image()`` (the full-resolution picture ``set_detail`` gave) in place of the smaller picture drawn,
        once that one has fewer pixels than the zoom shows it at."""
        shown = self._item.pixmap()
        if self._image.width() <= shown.width():
            return  # the picture drawn is the whole image
        want = self.render_size(self._full)
        if shown.width() + 1 >= want[0] and shown.height() + 1 >= want[1]:
            return
        self._replaced.append(shown)  # let go after the next paint, as set_image's
        self._draw(self._image)

    def paintEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        super().paintEvent(event)
        painted, self._unpainted = self._unpainted, False
        if self._replaced or painted:
            QTimer.singleShot(0, lambda: self._after_paint(painted))  # after this paint reaches the screen

    def _after_paint(self, painted: bool) -> None:
        self._replaced.clear()
        if painted:
            self.picture_painted.emit()

    def picture_on_its_way(self) -> bool:
        """True while a picture given to ``set_image`` waits for its first paint on a visible canvas:
        ``picture_painted`` follows that paint."""
        return self._unpainted and self.isVisible()

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
        more than ``full_size``: the size to have libVLC scale played pictures to. A frame of another size than
        the picture on show is fitted to the view (``set_image``), so its size is the one the fit gives it: the
        zoom of the picture it replaces (another video's, a photo's) says nothing about it."""
        w, h = full_size
        fitted = tuple(full_size) != self._full and w and h
        scale = (self._fit_scale(full_size) if fitted else self.transform().m11()) * self.devicePixelRatioF()
        if scale >= 1.0 or not w or not h:
            return (w, h)
        return (max(2, round(w * scale)), max(2, round(h * scale)))

    def _fit_scale(self, full_size: tuple[int, int]) -> float:
        """The view scale (device-independent pixels per image pixel) ``fit`` gives an image of ``full_size``:
        QGraphicsView.fitInView's, the viewport less a 2-pixel margin on every side, aspect kept."""
        view = self.viewport().rect().adjusted(2, 2, -2, -2)
        if view.isEmpty():
            return self.transform().m11()
        return min(view.width() / full_size[0], view.height() / full_size[1])

    def clear_image(self) -> None:
        self._hide_video()
        self._image = QImage()
        self._full = (0, 0)
        self._item.setPixmap(QPixmap())
        self.clear_highlights()

    def image(self) -> QImage:
        """The image currently shown (the exact frame when paused), at the resolution it was given: an exact video
        frame is at first the screen-sized picture, then the full-resolution one once ``set_detail`` gave it (one
        paint and one conversion later); ``image_size()`` is the full size throughout."""
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
        self._draw_detail_if_needed()
        self._snap_to_pixels()
        scale = self.transform().m11()
        for item in self.scene().items():
            if isinstance(item, ScreenSizedItem):
                item.set_view_scale(scale)
        self.zoom_changed.emit(self.zoom())

    def resizeEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        super().resizeEvent(event)
        if self._fit:
            self.fit()
        else:
            self._snap_to_pixels()

    def _snap_to_pixels(self) -> None:
        """At a whole zoom (1:1, 2:1 ... physical pixels), put the image's pixels on whole physical pixels.

        QGraphicsView places the image at whole device-independent pixels: centred when smaller than the
        view, else at minus the scroll bar's value. At a device pixel ratio such as 1.5 an odd number of
        them is a half physical pixel, and every image pixel is then smeared over two screen pixels. A
        centred axis is moved back onto the grid by widening the scene rectangle by a few view pixels
        (which shifts the centring), a scrolled axis by the nearest scroll bar value that lands on it.
        Off a whole zoom the scene rectangle is the image's and nothing is moved.
        """
        if self._snapping:
            return
        w, h = self._full
        image = QRectF(0, 0, w, h)
        zoom = self.zoom()
        if not w or not h or abs(zoom - round(zoom)) > 1e-6:
            if self.sceneRect() != image:
                self.setSceneRect(image)
            return
        self._snapping = True
        try:
            self.setSceneRect(image)
            if self._on_grid():
                return
            per_view_px = 1.0 / self.transform().m11()  # scene pixels under one device-independent pixel
            ex = ey = 0.0
            for axis, length, bar in (("x", w, self.horizontalScrollBar()), ("y", h, self.verticalScrollBar())):
                if self._on_grid(axis):
                    continue
                if bar.maximum() > bar.minimum():  # scrolled: the nearest value on the grid
                    v = bar.value()
                    for step in (1, -1, 2, -2, 3, -3, 4, -4):
                        if bar.minimum() <= v + step <= bar.maximum():
                            bar.setValue(v + step)
                            if self._on_grid(axis):
                                break
                    else:
                        bar.setValue(v)
                    continue
                room = (self.viewport().width() if axis == "x" else self.viewport().height()) / self.transform().m11()
                for k in range(1, 9):  # widen by 2k view pixels: the centred image moves by k of them
                    extra = 2 * k * per_view_px
                    if length + extra > room:
                        break
                    if axis == "x":
                        ex = extra
                    else:
                        ey = extra
                    self.setSceneRect(QRectF(0, 0, w + ex, h + ey))
                    if self._on_grid(axis):
                        break
                else:
                    if axis == "x":
                        ex = 0.0
                    else:
                        ey = 0.0
                    self.setSceneRect(QRectF(0, 0, w + ex, h + ey))
        finally:
            self._snapping = False

    def _on_grid(self, axis: str | None = None) -> bool:
        o = self.image_origin()
        values = {"x": (o.x(),), "y": (o.y(),), None: (o.x(), o.y())}[axis]
        return all(abs(v - round(v)) < 1e-6 for v in values)

    def image_origin(self) -> QPointF:
        """Where the image's top-left corner is in the viewport, in physical pixels (sub-pixel exact)."""
        t = self.viewportTransform()
        dpr = self.devicePixelRatioF()
        return QPointF(t.dx() * dpr, t.dy() * dpr)

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
    def set_highlights(self, rects: list[QRectF], color: str = "#ffd60a", *, current: int | None = None,
                       current_color: str = "#ff6d00") -> None:
        """Draw translucent rectangles (image pixels) over the image, replacing earlier ones; the one at
        index ``current`` (a search's current hit) stronger, in ``current_color`` with a thick outline."""
        self.clear_highlights()
        for k, r in enumerate(rects):
            strong = k == current
            fill = QColor(current_color if strong else color)
            fill.setAlpha(150 if strong else 90)
            item = QGraphicsRectItem(r)
            item.setBrush(QBrush(fill))
            pen = QPen(QColor(current_color if strong else color), 2.5 if strong else 0)
            pen.setCosmetic(True)
            item.setPen(pen)
            item.setZValue(11 if strong else 10)
            item.setData(0, "current" if strong else "hit")
            self.scene().addItem(item)
            self._highlights.append(item)

    def clear_highlights(self) -> None:
        for item in self._highlights:
            self.scene().removeItem(item)
        self._highlights.clear()

    def center_on(self, rect: QRectF) -> None:
        """Scroll so that ``rect`` (image pixels) is visible."""
        self.ensureVisible(rect, 40, 40)
