"""A keypoint skeleton on the canvas (issue 32): its template's edges between the points placed, a dot per point,
each point dragged on its own once the skeleton is selected (a drag elsewhere on it moves the whole skeleton).

Scene coordinates are upright image pixels (overlay.py). ``changed(item, points, what)`` is called once when a
drag ends, ``points`` one ``[x, y]`` or None (absent) per template point; the item never writes to the project.
:class:`DraftSkeleton` shows the points placed so far while one is drawn (gui/tools/shape_drawing.py).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPainterPathStroker, QPen
from PySide6.QtWidgets import QStyleOptionGraphicsItem, QWidget

from fieldstudio.annotations.colours import text_colour_for
from fieldstudio.core.skeletons import SkeletonTemplate
from fieldstudio.gui.viewer.overlay import DOT_PX, GRAB_PX, Z_BOX, ScreenSizedItem
from fieldstudio.gui.viewer.shape_items import VertexItem

Z_SKELETON = Z_BOX + 3.0


def _paint_skeleton(item: ScreenSizedItem, painter: QPainter, points: list[QPointF | None],
                    edges: tuple[tuple[int, int], ...], color: QColor, selected: bool, dashed: bool = False) -> None:
    halo = QPen(QColor(text_colour_for(color.name())), 4.5 if selected else 3.5)
    halo.setCosmetic(True)
    pen = QPen(color, 2.5 if selected else 2.0)
    pen.setCosmetic(True)
    if dashed:  # a track's interpolated skeleton
        pen.setStyle(Qt.PenStyle.DashLine)
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


class SkeletonItem(VertexItem):
    """A skeleton of ``template`` through ``points`` (``[x, y]`` or None each), coloured by its label."""

    def __init__(self, template: SkeletonTemplate, points: list, color: str, caption: str, *,
                 annotation_id: str | None, changed: Callable | None = None):
        super().__init__(points, color, caption, annotation_id=annotation_id, changed=changed, z=Z_SKELETON)
        self.kind = "skeleton"
        self.template = template

    def _margin(self) -> float:
        return (GRAB_PX + 4) / self.view_scale()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        m = self._margin()
        return self._bounds.adjusted(-m, -m, m, m)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        for a, b in self.template.edges:
            if self.vertices[a] is not None and self.vertices[b] is not None:
                path.moveTo(self.vertices[a])
                path.lineTo(self.vertices[b])
        r = self._margin()
        stroker = QPainterPathStroker()
        stroker.setWidth(2 * r)
        out = stroker.createStroke(path)
        for p in self.vertices:
            if p is not None:
                out.addEllipse(p, r, r)
        return out

    def paint(self, painter: QPainter, _option: QStyleOptionGraphicsItem, _widget: QWidget | None = None) -> None:
        _paint_skeleton(self, painter, self.vertices, self.template.edges, self.color, self.isSelected(),
                        dashed=not self.keyframe)

    def drag_text(self, index: int | None) -> str:
        return "Move skeleton" if index is None else f"Move {self.template.points[index]}"

    def mousePressEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        super().mousePressEvent(event)
        if event.button() == Qt.MouseButton.LeftButton and self.editable:
            self.start_drag(event, self.vertex_at(event.scenePos()) if self.isSelected() else None)

    def hoverMoveEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        index = self.vertex_at(event.scenePos()) if self.isSelected() else None
        self.setToolTip(self.template.points[index] if index is not None else "")
        if self.editable:
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
