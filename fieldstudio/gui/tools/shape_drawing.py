"""Drawing polygons (P), polylines (Shift+P) and points (D) by clicks on the canvas, and keypoint skeletons
(Shift+D) point by point (issue 32).

A click adds a vertex (clipped to the picture); Enter or a double-click finishes the mark; Backspace takes the
last vertex back; Esc (the select tool) drops the unfinished mark. A finished mark asks for its label in the label
chooser as a new box does (gui/tools/drawing.py ``ask_label``) and is stored by one edit (``AddShape``): one undo
step. The tool stays on, so the next click starts the next mark.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QPointF, QRectF

from fieldstudio.core import shapes
from fieldstudio.gui.viewer.shape_items import DraftShape

if TYPE_CHECKING:
    from fieldstudio.gui.tools.context import ToolContext

HINTS = {
    "polygon": "Polygon: click each corner; Enter or double-click closes it, Backspace takes the last one back, "
               "Esc stops",
    "polyline": "Polyline: click each point of the line; Enter or double-click ends it, Backspace takes the last "
                "one back, Esc stops",
    "points": "Points: click each point; Enter or double-click keeps them as one mark, Backspace takes the last "
              "one back, Esc stops",
    "skeleton": "Skeleton: click the nose (1 of 17); S skips a point, Backspace takes the last back, Enter keeps "
                "the skeleton, Esc stops",
}


class CanvasHost(Protocol):
    """What the shape tool asks of the canvas tools (gui/tools/drawing.py ``CanvasTools``)."""

    def clip(self, p: QPointF) -> QPointF: ...

    def ask_label(self, kind: str, rect: QRectF, *, preview: bool = True) -> str | None: ...


class ShapeDrawing:
    """The vertices of the polygon, polyline or points mark being drawn with the state's current tool."""

    def __init__(self, ctx: ToolContext, tools: CanvasHost):
        self.ctx, self.tools = ctx, tools
        self.vertices: list[QPointF] = []
        self.draft: DraftShape | None = None

    @property
    def drawing(self) -> bool:
        """True while a mark has at least one vertex (a redraw of the overlay must not take it away)."""
        return bool(self.vertices)

    def click(self, p: QPointF) -> None:
        """A vertex at ``p`` (image pixels, clipped to the picture)."""
        self.vertices.append(self.tools.clip(p))
        self._show(None)

    def pointer_at(self, p: QPointF) -> None:
        """The rubber band follows the pointer."""
        if self.vertices:
            self._show(self.tools.clip(p))

    def back(self) -> None:
        """Backspace: the last vertex is taken back (the whole mark when it was the only one)."""
        if self.vertices:
            self.vertices.pop()
            self._show(None)
        if not self.vertices:
            self.cancel()

    def cancel(self) -> None:
        """Drop the unfinished mark."""
        self.vertices = []
        if self.draft is not None and self.draft.scene() is not None:
            self.draft.scene().removeItem(self.draft)
        self.draft = None

    def finish(self) -> bool:
        """Enter or a double-click: store the mark (its label asked first) as one edit. A mark with too few
        vertices is refused in the status bar and drawing goes on. Returns True when a mark was stored."""
        from fieldstudio.annotations import edits

        ctx, kind = self.ctx, self.ctx.state.tool
        vertices = [[v.x(), v.y()] for v in self.vertices]
        try:
            vertices = shapes.as_vertices(kind, vertices)
        except shapes.ShapeError as exc:
            ctx.notify(f"{exc}; click more points (Esc stops)")
            return False
        x1, y1, x2, y2 = shapes.bounds(vertices)
        self._show(None)
        label_id = self.tools.ask_label(kind, QRectF(QPointF(x1, y1), QPointF(x2, y2)), preview=False)
        self.cancel()
        edit = edits.AddShape(ctx.project, ctx.media.id, kind, vertices, label_id=label_id,
                              frame_index=ctx.frame_index(), track_id=new_track(ctx))
        if not ctx.apply(edit):
            return False
        ctx.marks.select_drawn(edit.annotation_id)
        ctx.marks.refresh(frame_only=True)
        return True

    def _show(self, pointer: QPointF | None) -> None:
        if self.draft is None:
            self.draft = DraftShape(self.ctx.state.tool, self.ctx.labels.color(self.ctx.labels.label_of(
                self.ctx.state.tool)))
            self.ctx.canvas.scene().addItem(self.draft)
        self.draft.set_points(self.vertices, pointer)


class SkeletonDrawing:
    """The points of the skeleton being placed, in its template's order (the skeleton label's own template, taken
    when the first point is placed; else the built-in COCO person): a click places the next point, S skips it
    (absent: hidden or out of view), Backspace takes the last one back, Enter keeps the skeleton with the points
    not reached absent; placing the last point keeps it."""

    def __init__(self, ctx: ToolContext, tools: CanvasHost):
        from fieldstudio.core import skeletons

        self.ctx, self.tools = ctx, tools
        self.template = skeletons.COCO_PERSON
        self.points: list[QPointF | None] = []
        self.draft = None

    @property
    def drawing(self) -> bool:
        return bool(self.points)

    def hint(self) -> str:
        """What the status bar says: the next point to place."""
        names = self.template.points
        if len(self.points) >= len(names):
            return "Skeleton: every point placed"
        nxt = names[len(self.points)].replace("_", " ")
        return (f"Skeleton: click the {nxt} ({len(self.points) + 1} of {len(names)}); S skips it, Backspace takes "
                "the last back, Enter keeps the skeleton, Esc stops")

    def click(self, p: QPointF) -> None:
        self._add(self.tools.clip(p))

    def skip(self) -> None:
        """S: the next point is absent."""
        self._add(None)

    def pointer_at(self, p: QPointF) -> None:  # noqa: ARG002 - the same calls as ShapeDrawing
        return

    def back(self) -> None:
        if self.points:
            self.points.pop()
            self._show()
        if not self.points:
            self.cancel()
        self.ctx.notify(self.hint())

    def cancel(self) -> None:
        self.points = []
        if self.draft is not None and self.draft.scene() is not None:
            self.draft.scene().removeItem(self.draft)
        self.draft = None

    def _add(self, p: QPointF | None) -> None:
        if not self.points:
            from fieldstudio.annotations import skeleton_templates

            self.template = skeleton_templates.template_for_label(self.ctx.project,
                                                                  self.ctx.labels.label_of("skeleton"))
        self.points.append(p)
        self._show()
        if len(self.points) >= len(self.template.points):
            self.finish()
        else:
            self.ctx.notify(self.hint())

    def finish(self) -> bool:
        """Store the skeleton (the points not reached absent) as one edit, its label asked first."""
        from fieldstudio.annotations import edits

        ctx = self.ctx
        n = len(self.template.points)
        points = [None if p is None else [p.x(), p.y()] for p in self.points[:n]]
        points += [None] * (n - len(points))
        placed = [p for p in points if p is not None]
        if not placed:
            ctx.notify("place at least one point of the skeleton (Esc stops)")
            return False
        x1, y1, x2, y2 = shapes.bounds(placed)
        label_id = self.tools.ask_label("skeleton", QRectF(QPointF(x1, y1), QPointF(x2, y2)), preview=False)
        self.cancel()
        edit = edits.AddSkeleton(ctx.project, ctx.media.id, points, template=self.template.name, label_id=label_id,
                                 frame_index=ctx.frame_index(), track_id=new_track(ctx))
        if not ctx.apply(edit):
            return False
        ctx.marks.select_drawn(edit.annotation_id)
        ctx.marks.refresh(frame_only=True)
        ctx.notify(f"skeleton kept: {len(placed)} of {n} points placed")
        return True

    def _show(self) -> None:
        from fieldstudio.gui.viewer.skeleton_item import DraftSkeleton

        if self.draft is None:
            self.draft = DraftSkeleton(self.template, self.ctx.labels.color(self.ctx.labels.label_of("skeleton")))
            self.ctx.canvas.scene().addItem(self.draft)
        self.draft.set_points(self.points)


def new_track(ctx: ToolContext) -> int | None:
    """A new track id for a shape drawn on a video frame (None on a photo): as a new box, every shape on a video
    starts its own track, so Ctrl+D and Shift+K add keyframes to it (annotations.shape_tracks)."""
    from fieldstudio.annotations import box_tracks

    if ctx.media is None or ctx.media.kind != "video" or ctx.frame_index() is None or ctx.project.read_only:
        return None
    return box_tracks.next_track_id(ctx.project, ctx.media.id)
