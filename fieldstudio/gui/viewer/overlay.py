"""Annotation graphics on the canvas: boxes with resize handles, rulers with live lengths, the floor grid.

Every item lives in scene coordinates, which are upright full-resolution image pixels (canvas.py), so
what is drawn and what is stored are the same numbers at any zoom and device pixel ratio. Handles and
text keep a constant size on screen. Items never write to the project: when a drag ends they call the
``changed`` callback with the new geometry, and the drawing tools (gui/tools/drawing.py) turn it into an
undoable edit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPainterPathStroker, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsSimpleTextItem, QGraphicsView, QWidget

from fieldstudio.annotations.colours import text_colour_for
from fieldstudio.gui.viewer.captions import place_captions

if TYPE_CHECKING:
    # the option's type only in the paint signatures: the class and QStyleOption's enum types are created
    # when an item is first painted, not at the window's start (issue 37)
    from PySide6.QtWidgets import QStyleOptionGraphicsItem

HANDLE_PX = 7.0  # handle size on screen, in device-independent pixels
GRAB_PX = 6.0  # how close (on screen) the pointer must be to a handle or an end to grab it
MIN_BOX_PX = 2.0  # smallest box side in image pixels
DOT_PX = 4.0  # radius of a ruler end or a picked point on screen
Z_GRID, Z_BOX, Z_RULER, Z_TEXT = 5.0, 20.0, 30.0, 40.0
CHIP_PAD_X, CHIP_PAD_Y = 4.0, 1.5  # caption chip padding around its text, screen pixels


def _screen_scale(item: QGraphicsItem) -> float:
    """Device-independent screen pixels per scene pixel in the first view showing ``item``."""
    scene = item.scene()
    views = scene.views() if scene is not None else []
    return views[0].transform().m11() if views else 1.0


class ScreenSizedItem(QGraphicsItem):
    """An item with decorations of a constant size on screen (handles, grab margins, end dots).

    Its ``boundingRect()``/``shape()`` grow and shrink with the view's zoom, so they read the zoom from
    ``view_scale()``, a value that changes only through ``set_view_scale``, which calls
    ``prepareGeometryChange()`` first. The scene's BSP index then always removes the item under the
    rectangle it was indexed with; reading the view's transform live gave a rectangle the index did not
    know, left a stale entry behind, and crashed when the deleted item was found there later. The canvas
    calls ``set_view_scale`` on its items after every zoom change; an item takes the view's scale when
    it joins a scene. The scale is device-independent pixels per scene pixel (the view transform's m11),
    so the screen's device pixel ratio does not enter the geometry.
    """

    def __init__(self) -> None:
        super().__init__()
        self._view_scale = 1.0

    def view_scale(self) -> float:
        """Device-independent screen pixels per scene pixel that the geometry is computed for."""
        return self._view_scale

    def set_view_scale(self, scale: float) -> None:
        scale = max(scale, 1e-6)
        if scale != self._view_scale:
            self.prepareGeometryChange()
            self._view_scale = scale
            self.update()

    def itemChange(self, change, value):  # noqa: ANN001, ANN201, N802 - Qt override
        if change == QGraphicsItem.GraphicsItemChange.ItemSceneHasChanged and value is not None:
            self.set_view_scale(_screen_scale(self))
        return super().itemChange(change, value)


def _label(parent: QGraphicsItem, color: QColor) -> QGraphicsSimpleTextItem:
    text = QGraphicsSimpleTextItem(parent)
    text.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
    text.setBrush(QBrush(color))
    text.setZValue(Z_TEXT)
    return text


class CaptionChip(QGraphicsItem):
    """A caption on a filled chip of the mark's colour with black or white text, whichever contrasts more
    (WCAG ratio >= 4.5:1 on any colour, annotations/colours.py). Constant size on screen
    (ItemIgnoresTransformations); its position is the chip's top-left corner in scene coordinates, set by
    :func:`arrange_captions`. ``text()`` / ``setText()`` as on a text item.
    """

    def __init__(self, color: QColor, text: str = ""):
        super().__init__()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setZValue(Z_TEXT)
        self.fill = QColor(color)
        self.fill.setAlpha(255)
        self.ink = QColor(text_colour_for(self.fill.name()))
        self.selected = False
        self._font = QFont()
        self._font.setPointSizeF(8.5)
        self._text = ""
        self._size = (0.0, 0.0)
        self.setText(text)

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:  # noqa: N802 - reads like QGraphicsSimpleTextItem's
        self.prepareGeometryChange()
        self._text = text
        bold = QFont(self._font)
        bold.setBold(True)  # measured bold: a selected chip draws its text bold, which clipped both ends before
        m = QFontMetricsF(bold)
        self._size = (m.horizontalAdvance(text) + 2 * CHIP_PAD_X, m.height() + 2 * CHIP_PAD_Y) if text else (0.0, 0.0)
        self.setVisible(bool(text))
        self.update()

    def screen_size(self) -> tuple[float, float]:
        """(width, height) of the chip on screen, device-independent pixels."""
        return self._size

    def set_selected_look(self, on: bool) -> None:
        if on != self.selected:
            self.selected = on
            self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return QRectF(0, 0, *self._size).adjusted(-1.5, -1.5, 1.5, 1.5)

    def paint(self, painter: QPainter, _option: QStyleOptionGraphicsItem, _widget: QWidget | None = None) -> None:
        if not self._text:
            return
        rect = QRectF(0, 0, *self._size)
        painter.setPen(QPen(self.ink, 2.0 if self.selected else 0.8))
        painter.setBrush(QBrush(self.fill))
        painter.drawRoundedRect(rect, 2.5, 2.5)
        font = QFont(self._font)
        font.setBold(self.selected)
        painter.setFont(font)
        painter.setPen(self.ink)
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, self._text)


def _follow_scene(chip: CaptionChip, change, value) -> None:  # noqa: ANN001 - Qt change and value
    """A mark's chip joins and leaves the scene with the mark (it is not a child, see BoxItem)."""
    if change == QGraphicsItem.GraphicsItemChange.ItemSceneChange and chip.scene() is not None \
            and chip.scene() is not value:
        chip.scene().removeItem(chip)
    elif change == QGraphicsItem.GraphicsItemChange.ItemSceneHasChanged and value is not None \
            and chip.scene() is not value:
        value.addItem(chip)


def follow_chip(chip: CaptionChip | None, change, value) -> None:  # noqa: ANN001 - Qt change and value
    """A mark's ``itemChange``: its chip looks selected with it and joins and leaves the scene with it."""
    if chip is None:
        return
    if change == QGraphicsItem.GraphicsItemChange.ItemSelectedHasChanged:
        chip.set_selected_look(bool(value))
    _follow_scene(chip, change, value)


def arrange_captions(chips: list[tuple[CaptionChip, tuple[float, float, float, float]]],
                     view: QGraphicsView | None) -> None:
    """Place each (chip, mark rectangle in scene pixels) so that no two chips overlap and every chip stays
    inside the part of the scene that ``view`` shows (captions.place_captions)."""
    chips = [(c, r) for c, r in chips if c.text()]
    if not chips:
        return
    scale = view.transform().m11() if view is not None else 1.0
    scene = chips[0][0].scene()
    size = getattr(view, "image_size", None)
    bounds = QRectF(0, 0, *size()) if size is not None else scene.sceneRect() if scene is not None else QRectF()
    if view is not None:
        shown = view.mapToScene(view.viewport().rect()).boundingRect()
        inter = bounds.intersected(shown)
        bounds = inter if inter.isValid() and not inter.isEmpty() else shown
    sizes = [(c.screen_size()[0] / scale, c.screen_size()[1] / scale) for c, _ in chips]
    rects = place_captions([r for _, r in chips], sizes,
                           (bounds.left(), bounds.top(), bounds.right(), bounds.bottom()))
    for (chip, _), (x, y, _x2, _y2) in zip(chips, rects):
        chip.setPos(x, y)


class BoxItem(ScreenSizedItem):
    """A box ``(x1, y1, x2, y2)`` in image pixels, moved and resized by 8 handles once selected.

    Interpolated boxes of a track (``keyframe`` False, no ``annotation_id``) are dashed; they can be
    selected, moved and resized like stored ones (the controller turns that into a keyframe).
    ``changed(item, (x, y, w, h))`` is called once when a move or resize ends.
    """

    def __init__(self, box: tuple[float, float, float, float], color: str, caption: str, *,
                 annotation_id: str | None, track_id: int | None, keyframe: bool,
                 changed: Callable[[BoxItem, tuple[float, float, float, float]], None] | None = None):
        super().__init__()
        x1, y1, x2, y2 = box
        self.rect = QRectF(QPointF(x1, y1), QPointF(x2, y2)).normalized()
        self.annotation_id, self.track_id, self.keyframe = annotation_id, track_id, keyframe
        self.color = QColor(color)
        self._changed = changed
        self._drag: tuple[str, QPointF, QRectF] | None = None  # (handle or "move", press point, rect then)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setAcceptHoverEvents(True)
        self.setZValue(Z_BOX)
        # the chip is a top-level item (the annotator adds it to the scene) so that it is drawn above
        # every box, not only above its own
        self.caption = CaptionChip(self.color, caption)
        self._place_caption()

    @property
    def editable(self) -> bool:
        """A stored box, or a track's interpolated box (moving it makes a keyframe); not a box being drawn."""
        return self.annotation_id is not None or self.track_id is not None

    # geometry
    def box_xywh(self) -> tuple[float, float, float, float]:
        r = self.rect
        return (r.x(), r.y(), r.width(), r.height())

    def _margin(self) -> float:
        return (HANDLE_PX + 2) / self.view_scale()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        m = self._margin()
        return self.rect.adjusted(-m, -m, m, m)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRect(self.boundingRect())
        return path

    def _handles(self) -> dict[str, QPointF]:
        r = self.rect
        cx, cy = r.center().x(), r.center().y()
        return {"tl": r.topLeft(), "t": QPointF(cx, r.top()), "tr": r.topRight(), "r": QPointF(r.right(), cy),
                "br": r.bottomRight(), "b": QPointF(cx, r.bottom()), "bl": r.bottomLeft(), "l": QPointF(r.left(), cy)}

    def handle_at(self, p: QPointF) -> str | None:
        """The handle ("tl", "t", ..., "l") under scene point ``p``, or None."""
        if not self.isSelected() or not self.editable:
            return None
        grab = GRAB_PX / self.view_scale()
        for name, h in self._handles().items():
            if abs(h.x() - p.x()) <= grab and abs(h.y() - p.y()) <= grab:
                return name
        return None

    def paint(self, painter: QPainter, _option: QStyleOptionGraphicsItem, _widget: QWidget | None = None) -> None:
        selected = self.isSelected()
        # a halo in the contrasting colour keeps an orange box visible on an orange vest
        halo = QPen(QColor(text_colour_for(self.color.name())), 4.5 if selected else 3.2)
        halo.setCosmetic(True)
        painter.setPen(halo)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(self.rect)
        pen = QPen(self.color, 2.5 if selected else 1.6)
        pen.setCosmetic(True)
        if not self.keyframe:
            pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        fill = QColor(self.color)
        fill.setAlpha(55 if selected else 0)
        painter.setBrush(QBrush(fill))
        painter.drawRect(self.rect)
        if self.isSelected() and self.editable:
            size = HANDLE_PX / self.view_scale()
            painter.setBrush(QBrush(QColor("white")))
            hpen = QPen(self.color, 1)
            hpen.setCosmetic(True)
            painter.setPen(hpen)
            for h in self._handles().values():
                painter.drawRect(QRectF(h.x() - size / 2, h.y() - size / 2, size, size))

    def _place_caption(self) -> None:
        # the first place arrange_captions tries; it moves the chip when another one is there
        h = self.caption.screen_size()[1] / self.view_scale()
        self.caption.setPos(self.rect.left(), self.rect.top() - h)

    def itemChange(self, change, value):  # noqa: ANN001, ANN201, N802 - Qt override
        # itemChange runs from __init__'s setFlag, before the chip exists
        follow_chip(getattr(self, "caption", None), change, value)
        return super().itemChange(change, value)

    # dragging
    def mousePressEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        super().mousePressEvent(event)
        if event.button() != Qt.MouseButton.LeftButton or not self.editable:
            return
        handle = self.handle_at(event.scenePos())
        inside = self.rect.contains(event.scenePos())
        if handle or inside:
            self._drag = (handle or "move", event.scenePos(), QRectF(self.rect))
            event.accept()

    def mouseMoveEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        if self._drag is None:
            return super().mouseMoveEvent(event)
        what, start, before = self._drag
        d = event.scenePos() - start
        r = QRectF(before)
        if what == "move":
            r.translate(d)
        else:
            if "l" in what:
                r.setLeft(min(before.left() + d.x(), before.right() - MIN_BOX_PX))
            if "r" in what:
                r.setRight(max(before.right() + d.x(), before.left() + MIN_BOX_PX))
            if "t" in what:
                r.setTop(min(before.top() + d.y(), before.bottom() - MIN_BOX_PX))
            if "b" in what:
                r.setBottom(max(before.bottom() + d.y(), before.top() + MIN_BOX_PX))
        self.prepareGeometryChange()
        self.rect = r
        self._place_caption()
        self.update()

    def mouseReleaseEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        drag, self._drag = self._drag, None
        super().mouseReleaseEvent(event)
        if drag is not None and self.rect != drag[2] and self._changed is not None:
            self._changed(self, self.box_xywh())

    def hoverMoveEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        handle = self.handle_at(event.scenePos())
        cursors = {"tl": Qt.CursorShape.SizeFDiagCursor, "br": Qt.CursorShape.SizeFDiagCursor,
                   "tr": Qt.CursorShape.SizeBDiagCursor, "bl": Qt.CursorShape.SizeBDiagCursor,
                   "t": Qt.CursorShape.SizeVerCursor, "b": Qt.CursorShape.SizeVerCursor,
                   "l": Qt.CursorShape.SizeHorCursor, "r": Qt.CursorShape.SizeHorCursor}
        if handle:
            self.setCursor(cursors[handle])
        elif self.editable and self.rect.contains(event.scenePos()):
            self.setCursor(Qt.CursorShape.SizeAllCursor)
        else:
            self.unsetCursor()


class RulerItem(ScreenSizedItem):
    """A ruler from ``p`` to ``q`` (image pixels) with its length written beside it.

    ``measure(p, q) -> str`` gives the text (metres when calibrated, else pixels) and is called live
    while an end is dragged; ``changed(item, p, q)`` is called once when the drag ends.
    """

    def __init__(self, p: tuple[float, float], q: tuple[float, float], color: str, *,
                 annotation_id: str | None, measure: Callable[[tuple[float, float], tuple[float, float]], str],
                 changed: Callable[[RulerItem, tuple[float, float], tuple[float, float]], None] | None = None):
        super().__init__()
        self.p, self.q = QPointF(*p), QPointF(*q)
        self.annotation_id = annotation_id
        self.color = QColor(color)
        self._measure, self._changed = measure, changed
        self._drag: tuple[str, QPointF, QPointF, QPointF] | None = None
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setAcceptHoverEvents(True)
        self.setZValue(Z_RULER)
        self.text = CaptionChip(self.color)
        self.refresh_text()

    def points(self) -> tuple[tuple[float, float], tuple[float, float]]:
        return (self.p.x(), self.p.y()), (self.q.x(), self.q.y())

    def set_points(self, p: QPointF, q: QPointF) -> None:
        self.prepareGeometryChange()
        self.p, self.q = QPointF(p), QPointF(q)
        self.refresh_text()
        self.update()

    def refresh_text(self) -> None:
        """Re-measure (after a drag, or after the calibration changed)."""
        self.text.setText(self._measure(*self.points()))
        mid = (self.p + self.q) / 2
        self.text.setPos(mid)

    def anchor_rect(self) -> tuple[float, float, float, float]:
        """Where the length chip wants to be: at the ruler's middle (scene pixels)."""
        mid = (self.p + self.q) / 2
        return (mid.x(), mid.y(), mid.x(), mid.y())

    def itemChange(self, change, value):  # noqa: ANN001, ANN201, N802 - Qt override
        # itemChange runs from __init__'s setFlag, before the chip exists
        follow_chip(getattr(self, "text", None), change, value)
        return super().itemChange(change, value)

    def _margin(self) -> float:
        return (GRAB_PX + 4) / self.view_scale()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        m = self._margin()
        return QRectF(self.p, self.q).normalized().adjusted(-m, -m, m, m)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.moveTo(self.p)
        path.lineTo(self.q)
        stroker = QPainterPathStroker()
        stroker.setWidth(2 * self._margin())
        return stroker.createStroke(path)

    def paint(self, painter: QPainter, _option: QStyleOptionGraphicsItem, _widget: QWidget | None = None) -> None:
        selected = self.isSelected()
        halo = QPen(QColor(text_colour_for(self.color.name())), 5 if selected else 3.5)
        halo.setCosmetic(True)
        painter.setPen(halo)
        painter.drawLine(QLineF(self.p, self.q))
        pen = QPen(self.color, 2.5 if selected else 2)
        pen.setCosmetic(True)
        painter.setPen(pen)
        painter.drawLine(QLineF(self.p, self.q))
        r = DOT_PX / self.view_scale()
        painter.setBrush(QBrush(self.color))
        for end in (self.p, self.q):
            painter.drawEllipse(end, r, r)

    def end_at(self, pos: QPointF) -> str | None:
        grab = GRAB_PX / self.view_scale()
        for name, end in (("p", self.p), ("q", self.q)):
            if QLineF(end, pos).length() <= grab:
                return name
        return None

    def mousePressEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        super().mousePressEvent(event)
        if event.button() == Qt.MouseButton.LeftButton and self.annotation_id is not None:
            self._drag = (self.end_at(event.scenePos()) or "move", event.scenePos(), QPointF(self.p), QPointF(self.q))
            event.accept()

    def mouseMoveEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        if self._drag is None:
            return super().mouseMoveEvent(event)
        what, start, p0, q0 = self._drag
        d = event.scenePos() - start
        p = p0 + d if what in ("p", "move") else p0
        q = q0 + d if what in ("q", "move") else q0
        self.set_points(p, q)

    def mouseReleaseEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        drag, self._drag = self._drag, None
        super().mouseReleaseEvent(event)
        if drag is not None and (self.p != drag[2] or self.q != drag[3]) and self._changed is not None:
            self._changed(self, *self.points())

    def hoverMoveEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        if self.annotation_id is not None and self.end_at(event.scenePos()):
            self.setCursor(Qt.CursorShape.CrossCursor)
        else:
            self.unsetCursor()


class GridItem(QGraphicsItem):
    """The floor plane's grid (lines of constant X and Y metres) so a person can check a calibration by eye."""

    def __init__(self, lines: list[tuple[tuple[float, float], tuple[float, float], bool]], color: str = "#00e5ff"):
        """``lines``: (start, end, on the calibration rectangle's border) in image pixels."""
        super().__init__()
        self.lines = [(QLineF(QPointF(*a), QPointF(*b)), border) for a, b, border in lines]
        self.color = QColor(color)
        self.setZValue(Z_GRID)
        xs = [v for line, _ in self.lines for v in (line.x1(), line.x2())] or [0.0]
        ys = [v for line, _ in self.lines for v in (line.y1(), line.y2())] or [0.0]
        self._bounds = QRectF(QPointF(min(xs), min(ys)), QPointF(max(xs), max(ys))).adjusted(-2, -2, 2, 2)

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._bounds

    def paint(self, painter: QPainter, _option: QStyleOptionGraphicsItem, _widget: QWidget | None = None) -> None:
        for line, border in self.lines:
            c = QColor(self.color)
            c.setAlpha(230 if border else 130)
            pen = QPen(c, 2 if border else 1)
            pen.setCosmetic(True)
            painter.setPen(pen)
            painter.drawLine(line)


class PickedPoints(ScreenSizedItem):
    """Points being picked for a calibration, numbered, joined in order (closed for four floor corners)."""

    def __init__(self, color: str = "#ffd60a"):
        super().__init__()
        self.points: list[QPointF] = []
        self.color = QColor(color)
        self.setZValue(Z_TEXT)
        self._texts: list[QGraphicsSimpleTextItem] = []

    def add(self, p: QPointF) -> None:
        self.prepareGeometryChange()
        self.points.append(QPointF(p))
        t = _label(self, self.color)
        t.setText(str(len(self.points)))
        t.setPos(p)
        self._texts.append(t)
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        if not self.points:
            return QRectF()
        xs = [p.x() for p in self.points]
        ys = [p.y() for p in self.points]
        m = (DOT_PX + 2) / self.view_scale()
        return QRectF(QPointF(min(xs), min(ys)), QPointF(max(xs), max(ys))).adjusted(-m, -m, m, m)

    def paint(self, painter: QPainter, _option: QStyleOptionGraphicsItem, _widget: QWidget | None = None) -> None:
        pen = QPen(self.color, 2)
        pen.setCosmetic(True)
        painter.setPen(pen)
        for a, b in zip(self.points, self.points[1:]):
            painter.drawLine(QLineF(a, b))
        if len(self.points) == 4:
            painter.drawLine(QLineF(self.points[-1], self.points[0]))
        r = DOT_PX / self.view_scale()
        painter.setBrush(QBrush(self.color))
        for p in self.points:
            painter.drawEllipse(p, r, r)
