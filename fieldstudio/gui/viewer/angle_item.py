"""An angle drawn over the picture: two arms from the vertex, an arc between them and its degrees on a chip;
each of the three points dragged on its own, or the whole angle moved by an arm.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPainterPathStroker, QPen
from PySide6.QtWidgets import QGraphicsItem, QWidget

from fieldstudio.annotations.colours import text_colour_for
from fieldstudio.gui.viewer.overlay import DOT_PX, GRAB_PX, Z_RULER, CaptionChip, ScreenSizedItem, _follow_scene

if TYPE_CHECKING:
    # the option's type only in the paint signatures: the class and QStyleOption's enum types are created
    # when an item is first painted, not at the window's start (issue 37)
    from PySide6.QtWidgets import QStyleOptionGraphicsItem

ANGLE_COLOR = "#7cfc00"
ARC_PX = 28.0  # the arc's radius on screen


class AngleItem(ScreenSizedItem):
    """Points ``[a, vertex, b]`` (image pixels). ``measure(points) -> str`` gives the chip's text, live while a point
    is dragged; ``changed(item, points)`` is called once when a drag ends."""

    def __init__(self, points: Sequence[Sequence[float]], color: str, *, annotation_id: str | None,
                 measure: Callable[[list[tuple[float, float]]], str],
                 changed: Callable[[AngleItem, list[tuple[float, float]]], None] | None = None):
        super().__init__()
        self.pts = [QPointF(float(x), float(y)) for x, y in points]
        self.annotation_id = annotation_id
        self.color = QColor(color)
        self._measure, self._changed = measure, changed
        self._drag: tuple[int | None, QPointF, list[QPointF]] | None = None
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setAcceptHoverEvents(True)
        self.setZValue(Z_RULER)
        self.text = CaptionChip(self.color)
        self.refresh_text()

    def points(self) -> list[tuple[float, float]]:
        """``[a, vertex, b]`` in image pixels."""
        return [(p.x(), p.y()) for p in self.pts]

    def set_points(self, pts: Sequence[QPointF]) -> None:
        self.prepareGeometryChange()
        self.pts = [QPointF(p) for p in pts]
        self.refresh_text()
        self.update()

    def refresh_text(self) -> None:
        """Measure again (after a drag, or after the calibration changed); the chip sits by the vertex."""
        self.text.setText(self._measure(self.points()))
        self.text.setPos(self.pts[1])

    def anchor_rect(self) -> tuple[float, float, float, float]:
        """Where the chip wants to be: at the vertex (scene pixels)."""
        v = self.pts[1]
        return (v.x(), v.y(), v.x(), v.y())

    def itemChange(self, change, value):  # noqa: ANN001, ANN201, N802 - Qt override
        chip = getattr(self, "text", None)  # itemChange runs from __init__'s setFlag, before the chip exists
        if chip is not None:
            if change == QGraphicsItem.GraphicsItemChange.ItemSelectedHasChanged:
                chip.set_selected_look(bool(value))
            _follow_scene(chip, change, value)   # the chip joins and leaves the scene with the angle
        return super().itemChange(change, value)

    def _margin(self) -> float:
        return (GRAB_PX + ARC_PX + 4) / self.view_scale()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        xs, ys = [p.x() for p in self.pts], [p.y() for p in self.pts]
        m = self._margin()
        return QRectF(QPointF(min(xs), min(ys)), QPointF(max(xs), max(ys))).adjusted(-m, -m, m, m)

    def _arms(self) -> QPainterPath:
        path = QPainterPath(self.pts[0])
        path.lineTo(self.pts[1])
        path.lineTo(self.pts[2])
        return path

    def shape(self) -> QPainterPath:
        stroker = QPainterPathStroker()
        stroker.setWidth(2 * (GRAB_PX + 4) / self.view_scale())
        return stroker.createStroke(self._arms())

    def paint(self, painter: QPainter, _option: QStyleOptionGraphicsItem, _widget: QWidget | None = None) -> None:
        selected = self.isSelected()
        for colour, width in ((QColor(text_colour_for(self.color.name())), 5 if selected else 3.5),
                              (self.color, 2.5 if selected else 2)):
            pen = QPen(colour, width)
            pen.setCosmetic(True)
            painter.setPen(pen)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(self._arms())
        a, v, b = self.pts
        start = math.degrees(math.atan2(-(a.y() - v.y()), a.x() - v.x()))
        end = math.degrees(math.atan2(-(b.y() - v.y()), b.x() - v.x()))
        span = (end - start + 540.0) % 360.0 - 180.0           # the arc inside the angle, never the reflex side
        r = ARC_PX / self.view_scale()
        painter.drawArc(QRectF(v.x() - r, v.y() - r, 2 * r, 2 * r), round(start * 16), round(span * 16))
        dot = DOT_PX / self.view_scale()
        painter.setBrush(QBrush(self.color))
        for p in self.pts:
            painter.drawEllipse(p, dot, dot)

    def point_at(self, pos: QPointF) -> int | None:
        """Index of the point under ``pos`` (0: a, 1: the vertex, 2: b), None elsewhere."""
        grab = GRAB_PX / self.view_scale()
        for i, p in enumerate(self.pts):
            if QLineF(p, pos).length() <= grab:
                return i
        return None

    def mousePressEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        super().mousePressEvent(event)
        if event.button() == Qt.MouseButton.LeftButton and self.annotation_id is not None:
            self._drag = (self.point_at(event.scenePos()), event.scenePos(), [QPointF(p) for p in self.pts])
            event.accept()

    def mouseMoveEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        if self._drag is None:
            return super().mouseMoveEvent(event)
        which, start, before = self._drag
        d = event.scenePos() - start
        self.set_points([p + d if which is None or which == i else p for i, p in enumerate(before)])

    def mouseReleaseEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        drag, self._drag = self._drag, None
        super().mouseReleaseEvent(event)
        if drag is not None and self.pts != drag[2] and self._changed is not None:
            self._changed(self, self.points())

    def hoverMoveEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        if self.annotation_id is not None and self.point_at(event.scenePos()) is not None:
            self.setCursor(Qt.CursorShape.CrossCursor)
        else:
            self.unsetCursor()
