"""Polygons, polylines and points marks on the canvas, edited by their vertices (issue 32).

A :class:`ShapeItem` lives in scene coordinates (upright full-resolution image pixels, as every mark; see
overlay.py). Once selected it shows a handle on each vertex: drag a handle to move that vertex, drag inside a
polygon (or on a polyline's line, or on a point) to move the whole mark, double-click an edge to insert a vertex
there, Alt+click a vertex to delete it. Each gesture ends in one call of ``changed(item, vertices, what)``
(``what`` names the edit for the undo menu: "Move polygon", "Move vertex", "Insert vertex", "Delete vertex");
the item never writes to the project. :class:`DraftShape` is the shape being drawn (gui/tools/shape_drawing.py).

A move event changes one vertex (or translates them all) and repaints: no path is rebuilt per vertex, so a
200-vertex polygon stays well under one frame time per move (benchmarks/).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPainterPathStroker, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QWidget

from fieldstudio.annotations.colours import text_colour_for
from fieldstudio.core import shapes
from fieldstudio.gui.viewer.overlay import (DOT_PX, GRAB_PX, HANDLE_PX, Z_BOX, CaptionChip, ScreenSizedItem,
                                            follow_chip)

if TYPE_CHECKING:
    # the option's type only in the paint signatures: the class and QStyleOption's enum types are created
    # when an item is first painted, not at the window's start (issue 37)
    from PySide6.QtWidgets import QStyleOptionGraphicsItem

Z_SHAPE = Z_BOX + 2.0  # above boxes (a zone is often drawn around them), below rulers
DRAG_ROOM_PX = 48.0  # a dragged vertex leaving the bounds grows them by this much more (screen pixels)

Changed = Callable[["ShapeItem", list[list[float]], str], None]


class VertexItem(ScreenSizedItem):
    """What a mark made of vertices has in common (a shape, a skeleton): ``vertices`` (QPointF, or None for a
    skeleton's absent point), its caption chip, hit-testing a vertex, and a drag of one vertex or of them all that
    ends in ``changed(item, vertices, what)`` with ``what`` from :meth:`drag_text`."""

    def __init__(self, vertices: list, color: str, caption: str, *, annotation_id: str | None,
                 changed: Changed | None, z: float):
        super().__init__()
        self.vertices = [None if v is None else QPointF(float(v[0]), float(v[1])) for v in vertices]
        self.annotation_id = annotation_id
        # a shape track's frame: an interpolated one (no annotation_id, keyframe False) is drawn dashed and edited
        # like a stored one; the drawing tool turns its edit into a keyframe (annotations.shape_tracks.key_shape)
        self.track_id: int | None = None
        self.keyframe = True
        self.color = QColor(color)
        self._changed = changed
        self._drag: tuple[int | None, QPointF, list] | None = None  # (vertex or None: all, press point, before)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setAcceptHoverEvents(True)
        self.setZValue(z)
        self.caption = CaptionChip(self.color, caption)
        self._bounds = QRectF()
        self._update_bounds()

    @property
    def editable(self) -> bool:
        """A stored mark, or a track's interpolated shape (its edit makes a keyframe); not a mark being drawn."""
        return self.annotation_id is not None or (self.track_id is not None and not self.keyframe)

    def vertex_list(self) -> list:
        """The vertices as ``[[x, y], ...]`` image pixels (None where a skeleton's point is absent)."""
        return [None if v is None else [v.x(), v.y()] for v in self.vertices]

    def anchor_rect(self) -> tuple[float, float, float, float]:
        """The mark's bounding box (scene pixels), where its caption chip goes."""
        r = self._bounds
        return (r.left(), r.top(), r.right(), r.bottom())

    def _update_bounds(self) -> None:
        self._bounds = self._vertex_bounds()

    def _vertex_bounds(self) -> QRectF:
        placed = [v for v in self.vertices if v is not None] or [QPointF()]
        xs, ys = [v.x() for v in placed], [v.y() for v in placed]
        return QRectF(QPointF(min(xs), min(ys)), QPointF(max(xs), max(ys)))

    def _dirty_rect(self, index: int, old: QPointF | None) -> QRectF:
        """What moving vertex ``index`` from ``old`` changes on screen (scene pixels): the whole mark here; a
        shape narrows it to the vertex's neighbourhood."""
        return self.boundingRect()

    def vertex_at(self, p: QPointF) -> int | None:
        """The index of the vertex under scene point ``p`` (within the grab distance on screen), or None."""
        grab = GRAB_PX / self.view_scale()
        best, best_d = None, grab
        for i, v in enumerate(self.vertices):
            if v is not None and (d := QLineF(v, p).length()) <= best_d:
                best, best_d = i, d
        return best

    def itemChange(self, change, value):  # noqa: ANN001, ANN201, N802 - Qt override
        # itemChange runs from __init__'s setFlag, before the chip exists
        follow_chip(getattr(self, "caption", None), change, value)
        return super().itemChange(change, value)

    def move_vertex(self, index: int | None, to: QPointF | None = None, delta: QPointF | None = None) -> None:
        """Put vertex ``index`` at ``to`` (scene pixels), or move every vertex from the drag's start by ``delta``
        (``index`` None). What a mouse move does; also the benchmark's entry.

        A vertex moved within the mark's bounds repaints only what it changes (``_dirty_rect``): a 200-vertex
        polygon's fill repainted whole on every mouse move cost most of a frame's time on a 1080p frame."""
        if index is None:
            self.prepareGeometryChange()
            before = self._drag[2] if self._drag is not None else list(self.vertices)
            self.vertices = [None if v is None else QPointF(v + delta) for v in before]
            self._update_bounds()
            self.update()
            return
        old = self.vertices[index]
        self.vertices[index] = to = QPointF(to)
        if self._drag is None:
            bounds = self._vertex_bounds()
        elif self._bounds.contains(to):
            bounds = self._bounds  # while dragging the bounds only grow (exact again on release)
        else:  # grown with room to spare: each growth repaints the whole mark
            room = DRAG_ROOM_PX / self.view_scale()
            bounds = self._bounds.united(QRectF(to.x() - room, to.y() - room, 2 * room, 2 * room))
        if bounds != self._bounds:
            self.prepareGeometryChange()  # the scene's index and the old area repainted, before the bounds change
            self._bounds = bounds
            self.update()
        else:
            self.update(self._dirty_rect(index, old))

    def drag_text(self, index: int | None) -> str:
        """The undo text of a drag of vertex ``index`` (None: the whole mark)."""
        return "Move vertex" if index is not None else "Move mark"

    def _emit(self, what: str) -> None:
        if self._changed is not None:
            self._changed(self, self.vertex_list(), what)

    def start_drag(self, event, index: int | None) -> None:  # noqa: ANN001 - QGraphicsSceneMouseEvent
        """Begin dragging vertex ``index`` (None: the whole mark) from the press ``event``."""
        self._drag = (index, event.scenePos(), [None if v is None else QPointF(v) for v in self.vertices])
        event.accept()

    def mouseMoveEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        if self._drag is None:
            return super().mouseMoveEvent(event)
        index, start, _before = self._drag
        if index is None:
            self.move_vertex(None, delta=event.scenePos() - start)
        else:
            self.move_vertex(index, to=event.scenePos())

    def mouseReleaseEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        drag, self._drag = self._drag, None
        if drag is not None and self._vertex_bounds() != self._bounds:
            self.prepareGeometryChange()
            self._update_bounds()
        super().mouseReleaseEvent(event)
        if drag is not None and self.vertices != drag[2]:
            self._emit(self.drag_text(drag[0]))


class ShapeItem(VertexItem):
    """A ``kind`` ("polygon", "polyline", "points") mark through ``vertices`` (image pixels).

    ``changed(item, vertices, what)`` is called once when a gesture ends (see the module docstring).
    """

    def __init__(self, kind: str, vertices: list[list[float]], color: str, caption: str, *,
                 annotation_id: str | None, changed: Changed | None = None):
        super().__init__(vertices, color, caption, annotation_id=annotation_id, changed=changed, z=Z_SHAPE)
        self.kind = kind

    def drag_text(self, index: int | None) -> str:
        return f"Move {self.kind}" if index is None else "Move vertex"

    def _margin(self) -> float:
        return (max(HANDLE_PX, GRAB_PX) + 3) / self.view_scale()

    def _dirty_rect(self, index: int, old: QPointF | None) -> QRectF:
        """The vertex before and after the move and its two neighbours on the outline (a polygon's fill changes
        only inside the two triangles they make), widened by the handles, halo and antialiasing."""
        n = len(self.vertices)
        near = [old, self.vertices[index]]
        if self.kind != "points":
            for j in (index - 1, index + 1):
                if 0 <= j < n or (self.kind == "polygon" and n > 2):
                    near.append(self.vertices[j % n])
        placed = [v for v in near if v is not None]
        xs, ys = [v.x() for v in placed], [v.y() for v in placed]
        m = self._margin() + 2 / self.view_scale()
        return QRectF(QPointF(min(xs), min(ys)), QPointF(max(xs), max(ys))).adjusted(-m, -m, m, m)

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        m = self._margin()
        return self._bounds.adjusted(-m, -m, m, m)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        if self.kind == "polygon":
            path.addPolygon(QPolygonF(self.vertices))
            path.closeSubpath()
        stroke = QPainterPath()
        if self.kind == "points":
            r = self._margin()
            for v in self.vertices:
                stroke.addEllipse(v, r, r)
            return stroke
        stroke.addPolygon(QPolygonF(self.vertices + ([self.vertices[0]] if self.kind == "polygon" else [])))
        stroker = QPainterPathStroker()
        stroker.setWidth(2 * self._margin())
        return path.united(stroker.createStroke(stroke)) if self.kind == "polygon" else stroker.createStroke(stroke)

    # painting
    def paint(self, painter: QPainter, _option: QStyleOptionGraphicsItem, _widget: QWidget | None = None) -> None:
        selected = self.isSelected()
        halo = QPen(QColor(text_colour_for(self.color.name())), 4.5 if selected else 3.2)
        halo.setCosmetic(True)
        pen = QPen(self.color, 2.5 if selected else 1.8)
        pen.setCosmetic(True)
        if not self.keyframe:
            pen.setStyle(Qt.PenStyle.DashLine)   # interpolated, as a track's boxes are
        poly = QPolygonF(self.vertices)
        r = DOT_PX / self.view_scale()
        if self.kind == "points":
            painter.setPen(halo)
            painter.setBrush(QBrush(self.color))
            for v in self.vertices:
                painter.drawEllipse(v, r * 1.2, r * 1.2)
        else:
            for p in (halo, pen):
                painter.setPen(p)
                if self.kind == "polygon":
                    fill = QColor(self.color)
                    fill.setAlpha(70 if selected else 40)
                    painter.setBrush(QBrush(fill) if p is pen else Qt.BrushStyle.NoBrush)
                    painter.drawPolygon(poly)
                else:
                    painter.setBrush(Qt.BrushStyle.NoBrush)
                    painter.drawPolyline(poly)
        if selected and self.editable:
            size = HANDLE_PX / self.view_scale()
            painter.setBrush(QBrush(QColor("white")))
            hpen = QPen(self.color, 1)
            hpen.setCosmetic(True)
            painter.setPen(hpen)
            for v in self.vertices:
                painter.drawRect(QRectF(v.x() - size / 2, v.y() - size / 2, size, size))

    def mousePressEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        super().mousePressEvent(event)
        if event.button() != Qt.MouseButton.LeftButton or not self.editable:
            return
        index = self.vertex_at(event.scenePos()) if self.isSelected() else None
        if index is not None and event.modifiers() & Qt.KeyboardModifier.AltModifier:
            try:
                self.vertices = [QPointF(*v) for v in shapes.remove_vertex(self.kind, self.vertex_list(), index)]
            except shapes.ShapeError:
                return  # too few vertices left: the mark stays whole (Delete removes it)
            self._emit("Delete vertex")
            event.accept()
            return
        self.start_drag(event, index)

    def mouseDoubleClickEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        """A double-click on an edge of a selected polygon or polyline inserts a vertex there."""
        if not self.editable or self.kind == "points" or not self.isSelected():
            return super().mouseDoubleClickEvent(event)
        p = event.scenePos()
        edge, distance, q = shapes.nearest_edge(self.kind, self.vertex_list(), (p.x(), p.y()))
        if distance > self._margin() or self.vertex_at(p) is not None:
            return super().mouseDoubleClickEvent(event)
        self.vertices = [QPointF(*v) for v in shapes.insert_vertex(self.kind, self.vertex_list(), edge, q)]
        self._emit("Insert vertex")
        event.accept()

    def hoverMoveEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        if self.editable and self.isSelected() and self.vertex_at(event.scenePos()) is not None:
            self.setCursor(Qt.CursorShape.CrossCursor)
        elif self.editable:
            self.setCursor(Qt.CursorShape.SizeAllCursor)
        else:
            self.unsetCursor()


class DraftShape(ScreenSizedItem):
    """The shape being drawn: the vertices clicked so far and a rubber band to the pointer."""

    def __init__(self, kind: str, color: str):
        super().__init__()
        self.kind = kind
        self.color = QColor(color)
        self.vertices: list[QPointF] = []
        self.pointer: QPointF | None = None
        self.setZValue(Z_SHAPE + 1)

    def set_points(self, vertices: list[QPointF], pointer: QPointF | None) -> None:
        self.prepareGeometryChange()
        self.vertices, self.pointer = list(vertices), pointer
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        pts = self.vertices + ([self.pointer] if self.pointer is not None else [])
        if not pts:
            return QRectF()
        xs, ys = [p.x() for p in pts], [p.y() for p in pts]
        m = (DOT_PX + 3) / self.view_scale()
        return QRectF(QPointF(min(xs), min(ys)), QPointF(max(xs), max(ys))).adjusted(-m, -m, m, m)

    def paint(self, painter: QPainter, _option: QStyleOptionGraphicsItem, _widget: QWidget | None = None) -> None:
        pen = QPen(self.color, 2)
        pen.setCosmetic(True)
        painter.setPen(pen)
        if self.kind != "points":
            painter.drawPolyline(QPolygonF(self.vertices))
            if self.pointer is not None and self.vertices:
                dashed = QPen(pen)
                dashed.setStyle(Qt.PenStyle.DashLine)
                painter.setPen(dashed)
                painter.drawLine(QLineF(self.vertices[-1], self.pointer))
                if self.kind == "polygon" and len(self.vertices) > 1:
                    painter.drawLine(QLineF(self.pointer, self.vertices[0]))
        r = DOT_PX / self.view_scale()
        painter.setPen(pen)
        painter.setBrush(QBrush(self.color))
        for v in self.vertices:
            painter.drawEllipse(v, r, r)
