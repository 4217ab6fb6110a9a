"""Marks made and changed on the canvas: boxes (B) and rulers (R) dragged out, polygons (P), polylines (Shift+P)
and points (D) clicked (gui/tools/shape_drawing.py), calibration points (C) picked, marks moved, edited (F2,
double-click), made keyframes (Shift+K) and deleted (Delete).

:class:`CanvasTools` filters the mouse events of the canvas while a tool is active (``ViewState.tool``) and
turns each finished gesture into one edit through ``ToolContext.apply``; what is drawn afterwards is read
back from the project (gui/viewer/frame_marks.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtWidgets import QGraphicsView

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.core.shapes import SHAPE_KINDS
from fieldstudio.gui.tools.shape_drawing import HINTS as SHAPE_HINTS
from fieldstudio.gui.tools.shape_drawing import ShapeDrawing, SkeletonDrawing
from fieldstudio.gui.viewer.frame_marks import RULER_COLOR
from fieldstudio.gui.viewer.overlay import BoxItem, PickedPoints, RulerItem
from fieldstudio.gui.viewer.shape_items import VertexItem

if TYPE_CHECKING:
    from PySide6.QtWidgets import QStatusBar

    from fieldstudio.gui.tools.context import ToolContext
    from fieldstudio.store.edits import Edit

MIN_DRAG_PX = 3.0  # a press-release shorter than this (image pixels) is a click, not a box or ruler
TOOLS = ("select", "box", "ruler", *SHAPE_KINDS, "skeleton", "scale", "floor", "angle")
CLICKED = (*SHAPE_KINDS, "skeleton")  # the tools whose marks are clicked vertex by vertex
PICKED = {"scale": 2, "angle": 3, "floor": 4}  # the tools made of a fixed number of clicked points, and how many
HINTS = {"box": "Box: drag a rectangle (Esc to stop)",
         "ruler": "Ruler: drag from one point to the other (Esc to stop)",
         "scale": "Calibrate scale: click the two ends of an object of known length (C again: a floor rectangle)",
         "floor": "Calibrate floor: click the 4 corners of a floor rectangle (any order)",
         "angle": "Angle: click a point of one arm, the vertex, then a point of the other arm (Esc to stop)",
         **SHAPE_HINTS}


class CanvasTools(QObject):
    """The select, box, ruler and calibration tools on ``ctx.canvas``; ``status`` (the status bar) shows a
    tool's hint while it is active. Signal ``tool_changed(name)`` with one of :data:`TOOLS`."""

    tool_changed = Signal(str)

    def __init__(self, ctx: ToolContext, status: QStatusBar, parent: QObject | None = None):
        super().__init__(parent)
        self.ctx, self.status = ctx, status
        self._temp = None  # the box or ruler being dragged out
        self._press: QPointF | None = None
        self._picked: PickedPoints | None = None  # calibration points picked so far
        self._released_at: QPoint | None = None  # global pixels of the last release that ended a drag
        self.chooser = None  # the label chooser while it asks (gui/tools/label_chooser.py)
        self.shape = ShapeDrawing(ctx, self)  # the polygon, polyline or points mark being clicked
        self.skeleton = SkeletonDrawing(ctx, self)  # the skeleton being placed point by point
        ctx.canvas.viewport().installEventFilter(self)
        ctx.canvas.installEventFilter(self)  # Enter and Backspace while a shape is drawn
        ctx.marks.shape_moved.connect(self._shape_moved)
        ctx.marks.box_moved.connect(self._box_moved)
        ctx.marks.ruler_moved.connect(self._ruler_moved)
        ctx.marks.angle_moved.connect(self._angle_moved)
        ctx.state.events.media.connect(self._media_shown)

    @property
    def tool(self) -> str:
        return self.ctx.state.tool

    def busy(self) -> bool:
        """True while a mark is being drawn or dragged: a redraw now would take it away."""
        scene = self.ctx.canvas.scene()
        return self._temp is not None or self.shape.drawing or self.skeleton.drawing or \
            (scene is not None and scene.mouseGrabberItem() is not None)

    def set_tool(self, tool: str) -> None:
        """One of :data:`TOOLS`: "select", "box", "ruler", "polygon", "polyline", "points", "scale" (2 points) or
        "floor" (4 points)."""
        ctx = self.ctx
        if tool != "select" and ctx.media is None:
            ctx.notify("open a photo or a video frame to annotate")
            tool = "select"
        self._drop_temp()
        ctx.state.tool = tool
        if tool in ("box", "ruler", *CLICKED):
            ctx.state.mark_kind = tool
        ctx.canvas.setDragMode(QGraphicsView.DragMode.ScrollHandDrag if tool == "select"
                               else QGraphicsView.DragMode.NoDrag)
        ctx.canvas.viewport().setCursor(Qt.CursorShape.OpenHandCursor if tool == "select"
                                        else Qt.CursorShape.CrossCursor)
        if tool in HINTS:
            ctx.notify(HINTS[tool])
        elif self.status.currentMessage() in HINTS.values():
            self.status.clearMessage()  # the tool's hint no longer applies
        if tool in PICKED:
            ctx.pause()
        self.tool_changed.emit(tool)

    def toggle(self, tool: str) -> None:
        """B / R / P / Shift+P / D: that tool, or back to select when it is the current one."""
        self.set_tool("select" if self.tool == tool else tool)

    def calibrate_key(self) -> None:
        """C: scale calibration; C again while picking: floor calibration."""
        self.set_tool("floor" if self.tool == "scale" else "scale")

    def _media_shown(self, _media: object) -> None:
        # points picked and a drag in progress belonged to the previous media
        self._press = None
        self._drop_temp()
        if self.tool in PICKED:
            self.set_tool("select")

    # --- the mouse on the canvas -----------------------------------------------------------------
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        ctx = self.ctx
        if obj is ctx.canvas:
            return self._shape_key(event)
        if ctx.media is not None and self.tool in CLICKED:
            return self._shape_mouse(event)
        if ctx.media is None or self.tool == "select":
            if event.type() == QEvent.Type.MouseButtonDblClick and ctx.media is not None:
                return self._double_click(event)
            return False
        kind = event.type()
        if kind == QEvent.Type.MouseButtonPress and event.button() == Qt.MouseButton.LeftButton:
            ctx.pause()
            p = ctx.canvas.image_point(event.position())
            if self.tool in PICKED:
                self._pick(p)
            else:
                self._press = p
            return True
        if kind == QEvent.Type.MouseMove and self._press is not None:
            self._drag_to(ctx.canvas.image_point(event.position()))
            return False  # the pointer position still reaches the status bar
        if kind == QEvent.Type.MouseButtonRelease and event.button() == Qt.MouseButton.LeftButton \
                and self._press is not None:
            self._released_at = event.globalPosition().toPoint()  # where the label chooser opens
            self._finish(ctx.canvas.image_point(event.position()))
            return True
        return False

    def _clicked(self) -> ShapeDrawing | SkeletonDrawing:
        return self.skeleton if self.tool == "skeleton" else self.shape

    def _shape_mouse(self, event: QEvent) -> bool:
        kind, ctx = event.type(), self.ctx
        if kind == QEvent.Type.MouseButtonPress and event.button() == Qt.MouseButton.LeftButton:
            ctx.pause()
            self._released_at = event.globalPosition().toPoint()
            self._clicked().click(ctx.canvas.image_point(event.position()))
            return True
        if kind == QEvent.Type.MouseButtonDblClick and event.button() == Qt.MouseButton.LeftButton:
            self._released_at = event.globalPosition().toPoint()
            if self.tool == "skeleton":  # a point per click: the second click of a double-click places the next
                self.skeleton.click(ctx.canvas.image_point(event.position()))
            else:
                self.shape.finish()
            return True
        if kind == QEvent.Type.MouseButtonRelease and event.button() == Qt.MouseButton.LeftButton:
            self._released_at = event.globalPosition().toPoint()
            return True
        if kind == QEvent.Type.MouseMove:
            self._clicked().pointer_at(ctx.canvas.image_point(event.position()))
        return False

    def _shape_key(self, event: QEvent) -> bool:
        """Enter finishes and Backspace takes back a vertex of the shape being drawn; S skips a skeleton's point."""
        if event.type() != QEvent.Type.KeyPress or self.tool not in CLICKED:
            return False
        drawing = self._clicked()
        if self.tool == "skeleton" and event.key() == Qt.Key.Key_S and not event.modifiers():
            self.skeleton.skip()
            return True
        if not drawing.drawing:
            return False
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._released_at = None
            drawing.finish()
            return True
        if event.key() == Qt.Key.Key_Backspace:
            drawing.back()
            return True
        return False

    def clip(self, p: QPointF) -> QPointF:
        """``p`` (image pixels) moved inside the picture shown."""
        return self._clip(p)

    def _clip(self, p: QPointF) -> QPointF:
        w, h = self.ctx.canvas.image_size()
        return QPointF(min(max(p.x(), 0.0), float(w)), min(max(p.y(), 0.0), float(h)))

    def _drag_to(self, p: QPointF) -> None:
        a, b = self._clip(self._press), self._clip(p)
        scene = self.ctx.canvas.scene()
        if self.tool == "box":
            if self._temp is None:
                self._temp = BoxItem((a.x(), a.y(), b.x(), b.y()), self.ctx.labels.color(self.ctx.labels.label_of("box")),
                                     "", annotation_id=None, track_id=None, keyframe=True)
                scene.addItem(self._temp)
            self._temp.prepareGeometryChange()
            self._temp.rect = QRectF(a, b).normalized()
            self._temp.update()
        elif self.tool == "ruler":
            if self._temp is None:
                self._temp = RulerItem((a.x(), a.y()), (b.x(), b.y()), RULER_COLOR, annotation_id=None,
                                       measure=self.ctx.marks.measurer(self._new_ruler_on_floor()))
                scene.addItem(self._temp)
            self._temp.set_points(a, b)

    def _finish(self, p: QPointF) -> None:
        from fieldstudio.annotations import box_tracks
        from fieldstudio.annotations import annotation_records as ann
        from fieldstudio.annotations import calibrations, edits, labels

        ctx = self.ctx
        a, b = self._clip(self._press), self._clip(p)
        self._press = None
        self._drop_temp()
        if abs(b.x() - a.x()) < MIN_DRAG_PX and abs(b.y() - a.y()) < MIN_DRAG_PX:
            return
        project, media, frame = ctx.project, ctx.media, ctx.frame_index()
        if self.tool == "box":
            r = QRectF(a, b).normalized()
            label_id = self.ask_label("box", r)
            track = box_tracks.next_track_id(project, media.id) if frame is not None else None
            edit = edits.AddBox(project, media.id, (r.x(), r.y(), r.width(), r.height()),
                                label_id, frame_index=frame, track_id=track)
            if ctx.apply(edit):  # selected, as a new polygon is: T tracks it, Delete removes it at once
                ctx.marks.select_drawn(edit.annotation_id)
                ctx.marks.refresh(frame_only=True)
        elif self.tool == "ruler":
            on_floor = self._new_ruler_on_floor()
            pq = ((a.x(), a.y()), (b.x(), b.y()))

            def ruler(label_id: str | None) -> Edit:
                return edits.AddRuler(project, media.id, *pq, frame_index=frame, on_floor=on_floor,
                                      label_id=label_id)
            label_id = ctx.labels.label_of("ruler")
            # no ruler label yet: "distance" is made with the ruler, in the same undo step
            edit = ruler(label_id) if label_id is not None or ctx.labels.picked("ruler") else \
                edits.WithDefaultLabel(project, labels.DEFAULT_LABEL_NAMES["ruler"], "ruler", ruler)
            if ctx.apply(edit):
                m = calibrations.measure_points(project, media.id, *pq, on_floor=on_floor)
                # an uncalibrated ruler says how to get metres; a calibrated one names its calibration
                ctx.notify(f"{m.metres:.2f} m ({m.how})" if m.metres is not None else m.how)

    def ask_label(self, kind: str, rect: QRectF, *, preview: bool = True) -> str | None:
        """The label of the new ``kind`` mark drawn over ``rect`` (image pixels): asked in the label chooser at
        the pointer when the kind's list has labels and the user has not turned it off (Annotate ▸ Ask the label
        of each new box; gui/tools/label_chooser.py); the answer becomes the kind's current label, so Enter
        keeps it next time. Esc keeps the current one. ``preview``: a box is drawn over ``rect`` meanwhile (a shape
        keeps its own draft in view instead)."""
        from fieldstudio.annotations import labels
        from fieldstudio.gui.tools.label_chooser import LabelChooser

        from fieldstudio.core import user_settings
        from fieldstudio.gui import settings

        ctx = self.ctx
        current = ctx.labels.label_of(kind)
        if not settings.get(user_settings.ASK_LABEL):  # Annotate ▸ Ask the label of each new box is off
            return current
        records = labels.list_labels(ctx.project, kind)
        if not records:  # nothing to choose from: the mark is unlabelled, as the status bar says
            return current
        keys = {rec.id: key for key, rec in labels.labels_by_key(ctx.project, kind).items()}
        shown = BoxItem((rect.left(), rect.top(), rect.right(), rect.bottom()), ctx.labels.color(current), "",
                        annotation_id=None, track_id=None, keyframe=True) if preview else None
        if shown is not None:
            ctx.canvas.scene().addItem(shown)  # the box stays in view while its label is asked
        try:
            chooser = LabelChooser(kind, records, keys, current, ctx.canvas)
            self.chooser = chooser
            chosen, label_id = chooser.choose(self._released_at or ctx.canvas.mapToGlobal(ctx.canvas.rect().center()))
        finally:
            self.chooser = None
            if shown is not None:
                ctx.canvas.scene().removeItem(shown)
        if not chosen:
            return current
        ctx.labels.set_label(kind, label_id)
        return label_id

    def _new_ruler_on_floor(self) -> bool:
        # the calibration in use for this media (chosen per camera group) measures it; on_floor records which
        from fieldstudio.annotations import calibrations

        in_use = calibrations.calibration_in_use(self.ctx.project, self.ctx.media.id)
        return in_use is not None and in_use.kind == "floor"

    def _drop_temp(self) -> None:
        for item in (self._temp, self._picked):
            if item is not None and item.scene() is not None:
                item.scene().removeItem(item)
        self._temp = None
        self._picked = None
        self.shape.cancel()
        self.skeleton.cancel()

    def _pick(self, p: QPointF) -> None:
        if self._picked is None:
            self._picked = PickedPoints()
            self.ctx.canvas.scene().addItem(self._picked)
        self._picked.add(self._clip(p))
        if len(self._picked.points) < PICKED[self.tool]:
            return
        points = [(q.x(), q.y()) for q in self._picked.points]
        if self.tool == "angle":
            self._drop_temp()
            self._add_angle(points)
            return
        self.set_tool("select")
        self.open_calibration_dialog(points)

    def open_calibration_dialog(self, points: list[tuple[float, float]]) -> None:
        """Ask for the known length (2 points: scale) or rectangle size (4: floor) of the picked points, save it."""
        from fieldstudio.gui.panels.calibration import CalibrationDialog

        canvas = self.ctx.canvas
        dialog = CalibrationDialog(self.ctx.project, self.ctx.media.id, points, self.ctx.apply_or_raise,
                                   canvas.window(), image=canvas.image(), full_size=canvas.image_size())
        dialog.status.connect(self.ctx.notify)
        dialog.exec()

    def _double_click(self, event) -> bool:  # noqa: ANN001 - QMouseEvent
        item = self.ctx.canvas.itemAt(event.position().toPoint())
        while item is not None and not isinstance(item, (BoxItem, RulerItem)):
            item = item.parentItem()
        if isinstance(item, BoxItem):
            if item.annotation_id is None:
                self.make_keyframe(item)
            else:
                item.setSelected(True)
                self.edit_selected()
            return True
        return False

    # --- changing marks --------------------------------------------------------------------------
    def edit_selected(self) -> None:
        """F2: the selected box's label, attributes and track in a small dialog."""
        from fieldstudio.annotations import edits
        from fieldstudio.gui.panels.box_editor import BoxEditorDialog

        ctx = self.ctx
        boxes = [i for i in ctx.marks.selected_items() if isinstance(i, BoxItem)]
        if not boxes:
            ctx.notify("select a box first (click it)")
            return
        box = boxes[0]
        annotation_id = box.annotation_id
        if annotation_id is None:  # an interpolated box: it becomes a keyframe to be edited
            edit = edits.MakeKeyframe(ctx.project, ctx.media.id, box.track_id, ctx.frame_index())
            if not ctx.apply(edit):
                return
            annotation_id = edit.annotation_id
            ctx.marks.select_on_refresh(annotation_id)
            ctx.marks.refresh(frame_only=True)
        BoxEditorDialog(ctx.project, annotation_id, ctx.apply, ctx.canvas.window()).exec()

    def make_keyframe(self, item: BoxItem | None = None) -> None:
        """Shift+K (or a double-click on it): an interpolated box or shape of a track becomes a keyframe where it is.
        With none selected, the track of the shape selected last is keyed on the frame shown (the shape of its
        keyframe before, or the interpolated one): a shape track is extended to a later frame this way, its
        vertices then dragged there."""
        from fieldstudio.annotations import edits

        ctx = self.ctx
        marks = [item] if item is not None else [i for i in ctx.marks.selected_items()
                                                 if isinstance(i, (BoxItem, VertexItem))]
        marks = [m for m in marks if m.annotation_id is None and m.track_id is not None]
        frame = ctx.frame_index()
        last = ctx.marks.last_shape_track
        if not marks and frame is not None and last is not None and ctx.media is not None and last[0] == ctx.media.id:
            if ctx.apply(edits.KeyShape(ctx.project, ctx.media.id, last[1], frame)):
                ctx.notify(f"track #{last[1]} keyed on frame {frame}: drag its vertices to where the object is")
            return
        if not marks:
            ctx.notify("select an interpolated (dashed) box or shape of a track to make it a keyframe, or select a "
                       "shape, go to a later frame and press Shift+K to extend its track there")
            return
        for m in marks:
            ctx.apply(edits.MakeKeyframe(ctx.project, ctx.media.id, m.track_id, frame) if isinstance(m, BoxItem)
                      else edits.KeyShape(ctx.project, ctx.media.id, m.track_id, frame))

    def delete_selected(self) -> None:
        """Delete: the marks selected on the canvas, in one edit."""
        from fieldstudio.annotations import edits

        ids = self.ctx.marks.selected_ids()
        if ids and self.ctx.project is not None:
            self.ctx.apply(edits.DeleteAnnotations(self.ctx.project, ids))

    def _box_moved(self, item: BoxItem, xywh: tuple[float, float, float, float]) -> None:
        """A box dragged or resized: a stored one moves; a track's interpolated one becomes a keyframe there
        (one edit, so one undo puts the interpolation back)."""
        from fieldstudio.annotations import edits

        ctx = self.ctx
        if item.annotation_id is not None:
            ctx.apply(edits.MoveBox(ctx.project, item.annotation_id, xywh, getattr(item, "version", None)))
            return
        try:
            edit = edits.MakeKeyframe(ctx.project, ctx.media.id, item.track_id, ctx.frame_index(), xywh)
        except FieldstudioError as exc:
            ctx.notify(str(exc))
            ctx.marks.refresh()
            return
        if ctx.apply(edit):
            ctx.marks.select_on_refresh(edit.annotation_id, alone=False)
            ctx.marks.refresh(frame_only=True)

    def _shape_moved(self, item, vertices: list[list[float]], what: str) -> None:  # noqa: ANN001 - ShapeItem
        """A polygon, polyline or points mark moved, or a vertex dragged, inserted or deleted: one edit."""
        from fieldstudio.annotations import edits

        ctx = self.ctx
        if item.annotation_id is not None:
            ctx.apply(edits.MoveShape(ctx.project, item.annotation_id, vertices, what, getattr(item, "version", None)))
            return
        # a track's interpolated shape: this frame becomes a keyframe where the vertices were left (one undo)
        edit = edits.KeyShape(ctx.project, ctx.media.id, item.track_id, ctx.frame_index(), vertices, what)
        if ctx.apply(edit):
            ctx.marks.select_on_refresh(edit.annotation_id, alone=False)
            ctx.marks.refresh(frame_only=True)

    def _add_angle(self, points: list[tuple[float, float]]) -> None:
        """Three points clicked with the angle tool (A): the angle is kept (one undo) and the tool stays on."""
        from fieldstudio.annotations import angles, edits

        ctx = self.ctx
        edit = edits.AddAngle(ctx.project, ctx.media.id, *points, frame_index=ctx.frame_index())
        if ctx.apply(edit):
            m = angles.measure_angle(ctx.project, edit.annotation_id)
            ctx.notify(f"angle {m.text()} ({m.how})")

    def _angle_moved(self, item: object, points: list[tuple[float, float]]) -> None:
        from fieldstudio.annotations import edits

        self.ctx.apply(edits.MoveAngle(self.ctx.project, item.annotation_id, points))

    def _ruler_moved(self, item: RulerItem, p: tuple[float, float], q: tuple[float, float]) -> None:
        from fieldstudio.annotations import edits

        self.ctx.apply(edits.MoveRuler(self.ctx.project, item.annotation_id, p, q))
