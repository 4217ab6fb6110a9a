"""A keypoint skeleton on the canvas (issue 32): its template's edges between the points placed, a dot per point,
each point dragged on its own once the skeleton is selected (a drag elsewhere on it moves the whole skeleton).

Scene coordinates are upright image pixels (overlay.py). ``changed(item, points, what)`` is called once when a
drag ends, ``points`` one ``[x, y]`` or None (absent) per template point; the item never writes to the project.
:class:`DraftSkeleton` shows the points placed so far while one is drawn (gui/tools/skeleton_drawing.py).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPainterPathStroker, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from fieldstudio.annotations.colours import text_colour_for
from fieldstudio.core.skeletons import SkeletonTemplate
from fieldstudio.gui.viewer.overlay import DOT_PX, GRAB_PX, Z_BOX, CaptionChip, ScreenSizedItem, _follow_scene

Z_SKELETON = Z_BOX + 3.0


def _paint_skeleton(item: ScreenSizedItem, painter: QPainter, points: list[QPointF | None],
                    edges: tuple[tuple[int, int], ...], color: QColor, selected: bool) -> None:
    halo = QPen(QColor(text_colour_for(color.name())), 4.5 if selected else 3.5)
    halo.setCosmetic(True)
    pen = QPen(color, 2.5 if selected else 2.0)
    pen.setCosmetic(True)
    lines = [QLineF(points[a], points[b]) for a, b in edges
             if a < len(points) and b < len(points) and points[a] is not None and points[b] is not None]
    for p in (halo, pen):
        painter.setPen(p)
        painter.drawLines(lines)
    r = DOT_PX / item.view_scale() * (1.3 if selected else 1.0)
    painter.setPen(halo)
    painter.setBrush(QBrush(color))
    for p in points:
        if p is not None:
            painter.drawEllipse(p, r, r)


class SkeletonItem(ScreenSizedItem):
    """A skeleton of ``template`` through ``points`` (``[x, y]`` or None each), coloured by its label."""

    def __init__(self, template: SkeletonTemplate, points: list, color: str, caption: str, *,
                 annotation_id: str | None, changed: Callable | None = None):
        super().__init__()
        self.kind = "skeleton"
        self.template = template
        self.points = [None if p is None else QPointF(float(p[0]), float(p[1])) for p in points]
        self.annotation_id = annotation_id
        self.color = QColor(color)
        self._changed = changed
        self._drag: tuple[int | None, QPointF, list] | None = None
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setAcceptHoverEvents(True)
        self.setZValue(Z_SKELETON)
        self.caption = CaptionChip(self.color, caption)
        self._bounds = QRectF()
        self._update_bounds()

    def point_list(self) -> list[list[float] | None]:
        """The points as ``[x, y]`` or None, in template order."""
        return [None if p is None else [p.x(), p.y()] for p in self.points]

    def anchor_rect(self) -> tuple[float, float, float, float]:
        r = self._bounds
        return (r.left(), r.top(), r.right(), r.bottom())

    def _update_bounds(self) -> None:
        placed = [p for p in self.points if p is not None] or [QPointF()]
        xs, ys = [p.x() for p in placed], [p.y() for p in placed]
        self._bounds = QRectF(QPointF(min(xs), min(ys)), QPointF(max(xs), max(ys)))

    def _margin(self) -> float:
        return (GRAB_PX + 4) / self.view_scale()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        m = self._margin()
        return self._bounds.adjusted(-m, -m, m, m)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        for a, b in self.template.edges:
            if self.points[a] is not None and self.points[b] is not None:
                path.moveTo(self.points[a])
                path.lineTo(self.points[b])
        r = self._margin()
        stroker = QPainterPathStroker()
        stroker.setWidth(2 * r)
        out = stroker.createStroke(path)
        for p in self.points:
            if p is not None:
                out.addEllipse(p, r, r)
        return out

    def point_at(self, pos: QPointF) -> int | None:
        """The index of the placed point under ``pos`` (within the grab distance on screen), or None."""
        grab = GRAB_PX / self.view_scale()
        best, best_d = None, grab
        for i, p in enumerate(self.points):
            if p is not None and (d := QLineF(p, pos).length()) <= best_d:
                best, best_d = i, d
        return best

    def paint(self, painter: QPainter, _option: QStyleOptionGraphicsItem, _widget: QWidget | None = None) -> None:
        _paint_skeleton(self, painter, self.points, self.template.edges, self.color, self.isSelected())

    def itemChange(self, change, value):  # noqa: ANN001, ANN201, N802 - Qt override
        chip = getattr(self, "caption", None)
        if chip is not None:
            if change == QGraphicsItem.GraphicsItemChange.ItemSelectedHasChanged:
                chip.set_selected_look(bool(value))
            _follow_scene(chip, change, value)
        return super().itemChange(change, value)

    def move_point(self, index: int | None, to: QPointF | None = None, delta: QPointF | None = None) -> None:
        """Put point ``index`` at ``to``, or move every placed point from the drag's start by ``delta``."""
        self.prepareGeometryChange()
        if index is None:
            before = self._drag[2] if self._drag is not None else list(self.points)
            self.points = [None if p is None else QPointF(p + delta) for p in before]
        else:
            self.points[index] = QPointF(to)
        self._update_bounds()
        self.update()

    def mousePressEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        super().mousePressEvent(event)
        if event.button() != Qt.MouseButton.LeftButton or self.annotation_id is None:
            return
        index = self.point_at(event.scenePos()) if self.isSelected() else None
        self._drag = (index, event.scenePos(), [None if p is None else QPointF(p) for p in self.points])
        event.accept()

    def mouseMoveEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        if self._drag is None:
            return super().mouseMoveEvent(event)
        index, start, _before = self._drag
        if index is None:
            self.move_point(None, delta=event.scenePos() - start)
        else:
            self.move_point(index, to=event.scenePos())

    def mouseReleaseEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        drag, self._drag = self._drag, None
        super().mouseReleaseEvent(event)
        if drag is not None and self.points != drag[2] and self._changed is not None:
            what = "Move skeleton" if drag[0] is None else f"Move {self.template.points[drag[0]]}"
            self._changed(self, self.point_list(), what)

    def hoverMoveEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        index = self.point_at(event.scenePos()) if self.isSelected() else None
        self.setToolTip(self.template.points[index] if index is not None else "")
        if self.annotation_id is not None:
            self.setCursor(Qt.CursorShape.CrossCursor if index is not None else Qt.CursorShape.SizeAllCursor)


class DraftSkeleton(ScreenSizedItem):
    """The skeleton being placed: the points so far (None: skipped) joined by the template's edges."""

    def __init__(self, template: SkeletonTemplate, color: str):
        super().__init__()
        self.template = template
        self.color = QColor(color)
        self.points: list[QPointF | None] = []
        self.setZValue(Z_SKELETON + 1)

    def set_points(self, points: list[QPointF | None]) -> None:
        self.prepareGeometryChange()
        self.points = list(points)
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        placed = [p for p in self.points if p is not None]
        if not placed:
            return QRectF()
        m = (DOT_PX + 4) / self.view_scale()
        xs, ys = [p.x() for p in placed], [p.y() for p in placed]
        return QRectF(QPointF(min(xs), min(ys)), QPointF(max(xs), max(ys))).adjusted(-m, -m, m, m)

    def paint(self, painter: QPainter, _option: QStyleOptionGraphicsItem, _widget: QWidget | None = None) -> None:
        _paint_skeleton(self, painter, self.points, self.template.edges, self.color, True)
