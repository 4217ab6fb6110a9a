"""The annotation tools of the main window: boxes (B), rulers (R), calibration (C), segments (I/O), events (E).

Every change goes through :meth:`AnnotationController.apply`: the Qt-free edit (store/edits.py) is done
first, committing one transaction, and only then pushed on the QUndoStack, whose first ``redo`` does
nothing (edits.py explains why). So every edit, undo and redo is in the project file before the call
returns: there is no Save and no unsaved state. The overlay is rebuilt from the project after each
change, so what is drawn is always what is stored.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QGraphicsView, QMessageBox

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui.undo import EditCommand
from fieldstudio.gui.viewer.overlay import BoxItem, GridItem, PickedPoints, RulerItem

if TYPE_CHECKING:
    from collections.abc import Callable

    from PySide6.QtWidgets import QStatusBar

    from fieldstudio.annotations import records as ann
    from fieldstudio.gui.state import ViewState
    from fieldstudio.gui.viewer.canvas import Canvas
    from fieldstudio.store.edits import Edit

log = logging.getLogger(__name__)

NO_LABEL_COLOR = "#f5f5f5"
MIN_DRAG_PX = 3.0  # a press-release shorter than this (image pixels) is a click, not a box or ruler


class AnnotationController(QObject):
    """Tools, overlay and undo stack for the media that ``state`` says is shown in ``canvas``.

    It reads the project, media, frame on screen and playing flag from ``state`` (gui/state.py) and
    reports through ``notify(message)`` and ``status`` (the status bar, for the tools' hints). Signals:
    ``changed()`` after any annotation, label or calibration change (panels refresh); ``tool_changed(name)``
    with "select", "box", "ruler", "scale" or "floor"; ``pause_requested()`` when drawing starts while a
    video plays; ``frame_requested(index)`` to show another frame (copy to next frame);
    ``markers_changed(segments, events)`` with the timeline's segment and event markers.
    """

    changed = Signal()
    tool_changed = Signal(str)
    pause_requested = Signal()
    frame_requested = Signal(int)
    markers_changed = Signal(list, list)

    def __init__(self, state: ViewState, canvas: Canvas, notify: Callable[[str], None], status: QStatusBar,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.state, self.canvas, self.notify, self.status = state, canvas, notify, status
        self.undo_stack = QUndoStack(self)
        self.label_id: str | None = None
        self.show_grid = True
        self._items: list = []
        self._temp = None
        self._press: QPointF | None = None
        self._picked: PickedPoints | None = None
        self._colors: dict[str, str] = {}
        self._select_next: str | None = None
        self._grid: GridItem | None = None
        self._grid_for: str | None = None  # media id the grid (and label colours) were read for
        self.canvas.viewport().installEventFilter(self)
        self.canvas.scene().selectionChanged.connect(self._selection_changed)
        state.events.media.connect(self._media_shown)
        state.events.frame.connect(self._frame_shown)

    # --- context ---------------------------------------------------------------------------------
    @property
    def tool(self) -> str:
        """The current tool ("select", "box", "ruler", "scale", "floor"): the window state's ``tool``."""
        return self.state.tool

    @property
    def project(self):  # noqa: ANN201 - Project | None
        return self.state.project

    @property
    def media(self):  # noqa: ANN201 - Media | None
        m = self.state.media
        return m if m is not None and m.kind in ("image", "video") else None

    def frame_index(self) -> int | None:
        """The frame marks attach to: the frame on screen (None on a photo), never one that failed to decode."""
        return self.state.video_frame()

    def _after_undo(self, edit: Edit, op: str, error: str | None) -> None:
        """After an undo or redo of this stack: what was done, and where when it is not on screen, in the
        status bar (a refusal: its reason); the marks are re-read."""
        if error is not None:
            self.notify(error)
        else:
            self.notify(f"{'Undid' if op == 'undo' else 'Redid'} {edit.text.lower()}{self._where(edit)}")
        self.refresh()
        self.changed.emit()

    def _where(self, edit: Edit) -> str:
        """" on <file>, frame N" for an edit of a mark that is not on the media and frame shown, else ""."""
        from fieldstudio.annotations import records as ann
        from fieldstudio.media import library

        annotation_id = getattr(edit, "annotation_id", None) or next(iter(getattr(edit, "annotation_ids", ())), None)
        if annotation_id is None or self.project is None:
            return ""
        try:
            record = ann.get_annotation(self.project, annotation_id)
            media = library.find_media(self.project, record.media_id)
        except FieldstudioError:
            return ""
        shown = self.state.media
        same_frame = record.frame_index is None or record.frame_index == self.state.frame_index
        if shown is not None and shown.id == media.id and same_frame:
            return ""
        return f" on {media.file_name}" + ("" if record.frame_index is None else f", frame {record.frame_index}")

    def apply(self, edit: Edit) -> bool:
        """Do ``edit`` (committed at once) and put it on the undo stack; False (with a message) if refused."""
        if self.project is None:
            return False
        try:
            self.apply_or_raise(edit)
        except FieldstudioError as exc:
            self.notify(str(exc))
            self.refresh()  # a box or ruler dragged on screen goes back to what is stored
            return False
        return True

    def apply_or_raise(self, edit: Edit) -> None:
        """``apply`` for panels that show the store's message themselves: the error propagates, nothing is pushed."""
        if self.project is not None and self.project.read_only:
            raise FieldstudioError(f"{self.project.path.name} is read-only: the change was not made")
        edit.do()
        self.undo_stack.push(EditCommand(edit, self._after_undo))
        self.refresh()
        self.changed.emit()

    def project_changed(self) -> None:
        """A new project (or none): forget the history and the current label."""
        self.undo_stack.clear()
        self.label_id = None
        self.set_tool("select")
        self.reload_labels()

    def reload_labels(self) -> None:
        from fieldstudio.annotations import labels

        self._colors = {}
        if self.project is not None:
            self._colors = {r.id: r.color for r in labels.list_labels(self.project)}
            if self.label_id not in self._colors:
                self.label_id = None

    def color(self, label_id: str | None) -> str:
        return self._colors.get(label_id, NO_LABEL_COLOR) if label_id else NO_LABEL_COLOR

    def connect_actions(self, actions: dict) -> None:  # noqa: ANN001 - {action id: QAction} (gui/shortcuts.py)
        """Connect the Annotate menu's tool, mark and label actions to this controller."""
        actions["select_tool"].triggered.connect(lambda: self.set_tool("select"))
        actions["box_tool"].triggered.connect(lambda: self.set_tool("select" if self.tool == "box" else "box"))
        actions["ruler_tool"].triggered.connect(
            lambda: self.set_tool("select" if self.tool == "ruler" else "ruler"))
        actions["calibrate"].triggered.connect(self.calibrate_key)
        actions["delete_marks"].triggered.connect(self.delete_selected)
        actions["edit_mark"].triggered.connect(self.edit_selected)
        actions["copy_next"].triggered.connect(self.copy_to_next_frame)
        actions["make_keyframe"].triggered.connect(lambda: self.make_keyframe())
        actions["segment_start"].triggered.connect(self.start_segment)
        actions["segment_end"].triggered.connect(self.end_segment)
        actions["event"].triggered.connect(self.mark_event)
        for k in range(1, 10):
            actions[f"label_{k}"].triggered.connect(lambda _=False, k=k: self.use_label_key(k))

    # --- tools -----------------------------------------------------------------------------------
    def set_tool(self, tool: str) -> None:
        """"select", "box", "ruler", "scale" (2 points) or "floor" (4 points)."""
        if tool in ("box", "ruler", "scale", "floor") and self.media is None:
            self.notify("open a photo or a video frame to annotate")
            tool = "select"
        self._drop_temp()
        self.state.tool = tool
        self.canvas.setDragMode(QGraphicsView.DragMode.ScrollHandDrag if tool == "select"
                                else QGraphicsView.DragMode.NoDrag)
        self.canvas.viewport().setCursor(Qt.CursorShape.OpenHandCursor if tool == "select"
                                         else Qt.CursorShape.CrossCursor)
        hints = {"box": "Box: drag a rectangle (Esc to stop)",
                 "ruler": "Ruler: drag from one point to the other (Esc to stop)",
                 "scale": "Calibrate scale: click the two ends of an object of known length "
                          "(C again: a floor rectangle)",
                 "floor": "Calibrate floor: click the 4 corners of a floor rectangle in order"}
        if tool in hints:
            self.notify(hints[tool])
        elif self.status.currentMessage() in hints.values():
            self.status.clearMessage()  # the tool's hint no longer applies
        if tool in ("scale", "floor") and self.state.playing:
            self.pause_requested.emit()
        self.tool_changed.emit(tool)

    def _media_shown(self, _media: object) -> None:
        self.media_changed()

    def _frame_shown(self, frame: tuple[int, float, bool]) -> None:
        if self.state.playing and not frame[2]:
            return  # the marks stay as they are while playing (issue 21); the exact frame on pause redraws them
        self.frame_changed()

    def media_changed(self) -> None:
        """Another media is shown: points picked and a drag in progress belonged to the previous one."""
        self._press = None
        self._drop_temp()
        self._grid_for = None
        if self.tool in ("scale", "floor"):
            self.set_tool("select")

    def calibrate_key(self) -> None:
        """C: scale calibration; C again while picking: floor calibration."""
        self.set_tool("floor" if self.tool == "scale" else "scale")

    def use_label_key(self, key: int) -> None:
        """Keys 1-9: the label with that key becomes current and is given to the selected marks."""
        from fieldstudio.annotations import edits
        from fieldstudio.annotations import labels

        if self.project is None:
            return
        record = labels.label_for_key(self.project, key)
        if record is None:
            self.notify(f"no label has key {key}: Annotate ▸ Labels… sets them")
            return
        self.label_id = record.id
        self.notify(f"label: {record.name}")
        for aid in self.selected_ids():
            self.apply(edits.SetLabel(self.project, aid, record.id))

    def selected_items(self) -> list:
        return [i for i in self.canvas.scene().selectedItems() if isinstance(i, (BoxItem, RulerItem))]

    def _selection_changed(self) -> None:
        self.state.selection = tuple(self.selected_ids())

    def selected_ids(self) -> list[str]:
        return [i.annotation_id for i in self.selected_items() if i.annotation_id]

    def delete_selected(self) -> None:
        from fieldstudio.annotations import edits

        ids = self.selected_ids()
        if ids and self.project is not None:
            self.apply(edits.DeleteAnnotations(self.project, ids))

    def copy_to_next_frame(self) -> None:
        from fieldstudio.annotations import edits

        boxes = [i for i in self.selected_items() if isinstance(i, BoxItem) and i.annotation_id]
        index = self.frame_index()
        if not boxes or index is None:
            self.notify("select a box on a video frame to copy it to the next frame")
            return
        if index + 1 >= self.state.frame_count:
            self.notify("this is the last frame")
            return
        done = [self.apply(edits.CopyBox(self.project, b.annotation_id, index + 1)) for b in boxes]
        if any(done):
            self.frame_requested.emit(index + 1)

    def make_keyframe(self, item: BoxItem | None = None) -> None:
        from fieldstudio.annotations import edits

        boxes = [item] if item is not None else [i for i in self.selected_items() if isinstance(i, BoxItem)]
        boxes = [b for b in boxes if b.annotation_id is None and b.track_id is not None]
        if not boxes:
            self.notify("select an interpolated (dashed) box of a track to make it a keyframe")
            return
        for b in boxes:
            self.apply(edits.MakeKeyframe(self.project, self.media.id, b.track_id, self.frame_index()))

    def start_segment(self) -> None:
        from fieldstudio.annotations import edits
        from fieldstudio.annotations import records as ann

        index = self._video_frame("start a segment")
        if index is None:
            return
        if any(r.frame_index == index and r.label_id == self.label_id
               for r in ann.open_segments(self.project, self.media.id)):
            self.notify(f"a segment of this label already starts on frame {index} (O ends it)")
            return
        self.apply(edits.AddSegment(self.project, self.media.id, self.label_id, index))

    def end_segment(self) -> None:
        from fieldstudio.annotations import edits
        from fieldstudio.annotations import records as ann

        index = self._video_frame("end a segment")
        if index is None:
            return
        open_ = [r for r in ann.open_segments(self.project, self.media.id) if r.frame_index <= index]
        mine = [r for r in open_ if r.label_id == self.label_id] or open_
        if not mine:
            self.notify("no open segment starts at or before this frame (I starts one)")
            return
        target = max(mine, key=lambda r: r.frame_index)
        self.apply(edits.CloseSegment(self.project, target.id, index))

    def mark_event(self) -> None:
        from fieldstudio.annotations import edits
        from fieldstudio.annotations import records as ann

        index = self._video_frame("mark an event")
        if index is None:
            return
        if any(r.label_id == self.label_id for r in ann.list_annotations(
                self.project, media_id=self.media.id, kinds=["event"], frame_index=index)):
            self.notify(f"an event of this label is already marked on frame {index}")
            return
        self.apply(edits.AddEvent(self.project, self.media.id, index, self.label_id))

    def _video_frame(self, what: str) -> int | None:
        if self.media is None or self.media.kind != "video":
            self.notify(f"open a video to {what}")
            return None
        if self.state.playing:
            self.pause_requested.emit()
        return self.state.frame_index

    def move_segment_end(self, annotation_id: str, which: str, index: int) -> None:
        """A segment end dragged on the timeline."""
        from fieldstudio.annotations import edits

        if which == "start":
            self.apply(edits.MoveSegmentStart(self.project, annotation_id, index))
        else:
            self.apply(edits.CloseSegment(self.project, annotation_id, index))

    # --- overlay ---------------------------------------------------------------------------------
    def clear(self) -> None:
        scene = self.canvas.scene()
        for item in self._items:
            if item.scene() is scene:
                scene.removeItem(item)
        self._items.clear()

    def select_on_refresh(self, annotation_id: str) -> None:
        """Select this mark (alone) when it is next drawn: after a jump from the annotation list."""
        for item in self.selected_items():
            item.setSelected(False)
        self._select_next = annotation_id

    def frame_changed(self) -> None:
        """Another frame of the same media is shown: redraw its marks only (labels, grid and timeline stay)."""
        self.refresh(frame_only=True)

    def refresh(self, *, frame_only: bool = False) -> None:
        """Redraw the marks of the media and frame shown, and the timeline's segments and events.

        ``frame_only`` skips what does not depend on the frame (labels, calibration grid, timeline
        markers), which keeps stepping and playback to two small queries per frame.
        """
        from fieldstudio.annotations import records as ann

        selected = set(self.selected_ids())
        if self._select_next is not None:
            selected.add(self._select_next)
        self.clear()
        media = self.media
        if self.project is None or media is None:
            return
        full = not frame_only or self._grid_for != media.id
        if full:
            self.reload_labels()
            self._grid = self._make_grid(media) if self.show_grid else None
            self._grid_for = media.id
        frame = self.frame_index()
        scene = self.canvas.scene()
        for b in ann.boxes_on_frame(self.project, media.id, frame):
            caption = " ".join(x for x in (b.label_name or "", f"#{b.track_id}" if b.track_id is not None else "",
                                           "" if b.keyframe else "(interpolated)") if x)
            item = BoxItem(b.box, self.color(b.label_id), caption, annotation_id=b.annotation_id,
                           track_id=b.track_id, keyframe=b.keyframe, changed=self._box_moved)
            item.setToolTip(self._box_tip(b))
            scene.addItem(item)
            self._items.append(item)
        rulers = [r for r in ann.list_annotations(self.project, media_id=media.id, kinds=["ruler"])
                  if r.frame_index is None or r.frame_index == frame]
        for r in rulers:
            (p, q) = r.geometry
            item = RulerItem(tuple(p), tuple(q), self.color(r.label_id) if r.label_id else "#ffd60a",
                             annotation_id=r.id, measure=self._measurer(r.on_floor), changed=self._ruler_moved)
            scene.addItem(item)
            self._items.append(item)
        if self._grid is not None:
            self.canvas.scene().addItem(self._grid)
            self._items.append(self._grid)
        for item in self._items:
            if getattr(item, "annotation_id", None) in selected:
                item.setSelected(True)
                if item.annotation_id == self._select_next:
                    self._select_next = None
        if full:
            self._update_timeline(media)

    def _box_tip(self, b: ann.FrameBox) -> str:
        parts = [b.label_name or "(no label)"]
        if b.track_id is not None:
            parts.append(f"track {b.track_id}")
        if b.attributes:
            parts.append(", ".join(f"{k}={v}" for k, v in b.attributes.items()))
        x1, y1, x2, y2 = b.box
        parts.append(f"x {x1:.0f} y {y1:.0f} w {x2 - x1:.0f} h {y2 - y1:.0f} px")
        if not b.keyframe:
            parts.append("interpolated: double-click (or Shift+K) to make it a keyframe")
        return "\n".join(parts)

    def _make_grid(self, media) -> GridItem | None:  # noqa: ANN001 - Media
        from fieldstudio.annotations import calibrations

        record = calibrations.calibration_for(self.project, media.id, "floor")
        if record is None:
            return None
        try:
            core = record.to_core()
            lines = core.grid_lines(step_m=0.5, image_size=(media.width or 0, media.height or 0) or None)
        except FieldstudioError as exc:
            self.notify(f"floor grid: {exc}")
            return None
        edge = {0.0, float(record.width_m or 0), float(record.depth_m or 0)}
        grid = GridItem([(tuple(g.start), tuple(g.end), round(g.offset_m, 6) in edge) for g in lines])
        grid.setToolTip(record.describe())
        return grid

    def _measurer(self, on_floor: bool):  # noqa: ANN202 - callable
        from fieldstudio.annotations import calibrations

        media_id = self.media.id

        def measure(p: tuple[float, float], q: tuple[float, float]) -> str:
            m = calibrations.measure_points(self.project, media_id, p, q, on_floor=on_floor)
            return f"{m.metres:.2f} m" if m.metres is not None else f"{m.pixels:.0f} px (uncalibrated)"
        return measure

    def _update_timeline(self, media) -> None:  # noqa: ANN001 - Media
        from fieldstudio.annotations import records as ann
        from fieldstudio.gui.timeline import EventMarker, SegmentMarker

        if media.kind != "video":
            return
        marks = ann.list_annotations(self.project, media_id=media.id, kinds=["segment", "event"])
        segments = [SegmentMarker(r.frame_index, r.end_frame_index, self.color(r.label_id), r.label_name or "", r.id)
                    for r in marks if r.kind == "segment"]
        events = [EventMarker(r.frame_index, self.color(r.label_id), r.label_name or "")
                  for r in marks if r.kind == "event"]
        self.markers_changed.emit(segments, events)

    def _box_moved(self, item: BoxItem, xywh: tuple[float, float, float, float]) -> None:
        from fieldstudio.annotations import edits

        self.apply(edits.MoveBox(self.project, item.annotation_id, xywh))

    def _ruler_moved(self, item: RulerItem, p: tuple[float, float], q: tuple[float, float]) -> None:
        from fieldstudio.annotations import edits

        self.apply(edits.MoveRuler(self.project, item.annotation_id, p, q))

    # --- drawing on the canvas -------------------------------------------------------------------
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if self.media is None or self.tool == "select":
            if event.type() == QEvent.Type.MouseButtonDblClick and self.media is not None:
                return self._double_click(event)
            return False
        kind = event.type()
        if kind == QEvent.Type.MouseButtonPress and event.button() == Qt.MouseButton.LeftButton:
            if self.state.playing:
                self.pause_requested.emit()
            p = self.canvas.image_point(event.position())
            if self.tool in ("scale", "floor"):
                self._pick(p)
            else:
                self._press = p
            return True
        if kind == QEvent.Type.MouseMove and self._press is not None:
            self._drag_to(self.canvas.image_point(event.position()))
            return False  # the pointer position still reaches the status bar
        if kind == QEvent.Type.MouseButtonRelease and event.button() == Qt.MouseButton.LeftButton \
                and self._press is not None:
            self._finish(self.canvas.image_point(event.position()))
            return True
        return False

    def _clip(self, p: QPointF) -> QPointF:
        w, h = self.canvas.image_size()
        return QPointF(min(max(p.x(), 0.0), float(w)), min(max(p.y(), 0.0), float(h)))

    def _drag_to(self, p: QPointF) -> None:
        a, b = self._clip(self._press), self._clip(p)
        scene = self.canvas.scene()
        if self.tool == "box":
            if self._temp is None:
                self._temp = BoxItem((a.x(), a.y(), b.x(), b.y()), self.color(self.label_id), "",
                                     annotation_id=None, track_id=None, keyframe=True)
                scene.addItem(self._temp)
            self._temp.prepareGeometryChange()
            self._temp.rect = QRectF(a, b).normalized()
            self._temp.update()
        elif self.tool == "ruler":
            if self._temp is None:
                self._temp = RulerItem((a.x(), a.y()), (b.x(), b.y()), "#ffd60a", annotation_id=None,
                                       measure=self._measurer(self._new_ruler_on_floor()))
                scene.addItem(self._temp)
            self._temp.set_points(a, b)

    def _finish(self, p: QPointF) -> None:
        from fieldstudio.annotations import calibrations
        from fieldstudio.annotations import edits
        from fieldstudio.annotations import records as ann

        a, b = self._clip(self._press), self._clip(p)
        self._press = None
        self._drop_temp()
        if abs(b.x() - a.x()) < MIN_DRAG_PX and abs(b.y() - a.y()) < MIN_DRAG_PX:
            return
        media, frame = self.media, self.frame_index()
        if self.tool == "box":
            r = QRectF(a, b).normalized()
            track = ann.next_track_id(self.project, media.id) if frame is not None else None
            self.apply(edits.AddBox(self.project, media.id, (r.x(), r.y(), r.width(), r.height()), self.label_id,
                                    frame_index=frame, track_id=track))
        elif self.tool == "ruler":
            on_floor = self._new_ruler_on_floor()
            if self.apply(edits.AddRuler(self.project, media.id, (a.x(), a.y()), (b.x(), b.y()), frame_index=frame,
                                         on_floor=on_floor, label_id=self.label_id)):
                m = calibrations.measure_points(self.project, media.id, (a.x(), a.y()), (b.x(), b.y()),
                                                on_floor=on_floor)
                # an uncalibrated ruler says how to get metres; a calibrated one names its calibration
                self.notify(f"{m.metres:.2f} m ({m.how})" if m.metres is not None else m.how)

    def _new_ruler_on_floor(self) -> bool:
        # a floor calibration, when there is one, is what a supervisor measures distances on the ground with
        from fieldstudio.annotations import calibrations

        return calibrations.calibration_for(self.project, self.media.id, "floor") is not None

    def _drop_temp(self) -> None:
        for item in (self._temp, self._picked):
            if item is not None and item.scene() is not None:
                item.scene().removeItem(item)
        self._temp = None
        self._picked = None

    def _pick(self, p: QPointF) -> None:
        if self._picked is None:
            self._picked = PickedPoints()
            self.canvas.scene().addItem(self._picked)
        self._picked.add(self._clip(p))
        need = 2 if self.tool == "scale" else 4
        if len(self._picked.points) < need:
            return
        points = [(q.x(), q.y()) for q in self._picked.points]
        self.set_tool("select")
        self.open_calibration_dialog(points)

    def open_calibration_dialog(self, points: list[tuple[float, float]]) -> None:
        """Ask for the known length (2 points: scale) or rectangle size (4: floor) of the picked points, save it."""
        from fieldstudio.gui.panels.calibration import CalibrationDialog

        dialog = CalibrationDialog(self.project, self.media.id, points, self.apply_or_raise, self.canvas.window())
        dialog.status.connect(self.notify)
        dialog.exec()

    def _double_click(self, event) -> bool:  # noqa: ANN001 - QMouseEvent
        item = self.canvas.itemAt(event.position().toPoint())
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

    def edit_selected(self) -> None:
        """F2: the selected box's label, attributes and track in a small dialog."""
        from fieldstudio.gui.panels.box_editor import BoxEditorDialog

        ids = [i.annotation_id for i in self.selected_items() if isinstance(i, BoxItem) and i.annotation_id]
        if not ids:
            self.notify("select a box first (click it)")
            return
        BoxEditorDialog(self.project, ids[0], self.apply, self.canvas.window()).exec()

    # --- leaving ---------------------------------------------------------------------------------
    def confirm_open_segments(self) -> bool:
        """Before the project closes: offer to end open segments. False when the user cancels."""
        from fieldstudio.annotations import edits
        from fieldstudio.annotations import records as ann

        if self.project is None or self.project.read_only:
            return True
        open_ = ann.open_segments(self.project)
        if not open_:
            return True
        names = ", ".join(f"{r.label_name or 'segment'} from frame {r.frame_index}" for r in open_[:5])
        box = QMessageBox(QMessageBox.Icon.Question, "Open segments",
                          f"{len(open_)} segment(s) are still open ({names}).\n\n"
                          "End them on the last frame of their video, or keep them open to finish later?",
                          parent=self.canvas.window())
        end = box.addButton("End them", QMessageBox.ButtonRole.AcceptRole)
        box.addButton("Keep open", QMessageBox.ButtonRole.DestructiveRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.exec()
        if box.clickedButton() is cancel:
            return False
        if box.clickedButton() is end:
            from fieldstudio.media import library

            for r in open_:
                table = library.load_frame_table(self.project, library.find_media(self.project, r.media_id))
                last = len(table) - 1 if table is not None else r.frame_index
                self.apply(edits.CloseSegment(self.project, r.id, last))
        return True
