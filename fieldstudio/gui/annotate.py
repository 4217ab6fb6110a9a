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
from fieldstudio.gui import workers
from fieldstudio.gui.undo import EditCommand
from fieldstudio.gui.viewer.overlay import BoxItem, GridItem, PickedPoints, RulerItem, arrange_captions

if TYPE_CHECKING:
    from collections.abc import Callable

    from PySide6.QtWidgets import QStatusBar

    from fieldstudio.annotations import annotation_records as ann
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
    with "select", "box", "ruler", "scale" or "floor";
    ``markers_changed(segments, events)`` with the timeline's segment and event markers;
    ``label_shown(text)`` with the active kind's current label for the status bar.

    Each kind of mark has its own current label (``label_of(kind)``): a box, a ruler, a segment and an
    event never take each other's; the active kind (``state.mark_kind``) is the one keys 1-9 change.
    """

    changed = Signal()
    tool_changed = Signal(str)
    markers_changed = Signal(list, list)
    label_shown = Signal(str)

    def __init__(self, state: ViewState, canvas: Canvas, notify: Callable[[str], None], status: QStatusBar,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.state, self.canvas, self.notify, self.status = state, canvas, notify, status
        self.undo_stack = QUndoStack(self)
        self._chosen: dict[str, str | None] = {}  # kind -> label picked by the user (None: unlabelled)
        self.show_grid = True
        self._items: list = []
        self._temp = None
        self._press: QPointF | None = None
        self._picked: PickedPoints | None = None
        self._colors: dict[str, str] = {}
        self._select_next: str | None = None
        self._just_marked: tuple[str, str, int] | None = None  # (kind, id, frame) of the last I or E mark
        self._select_next_track: tuple[int, int] | None = None  # (track, frame): selected again after [ or ]
        self._grid: GridItem | None = None
        self._grid_for: str | None = None  # media id the grid (and label colours) were read for
        self.worker: workers.Worker | None = None  # the last tracking worker (tests wait on it)
        self.canvas.viewport().installEventFilter(self)
        self.canvas.scene().selectionChanged.connect(self._selection_changed)
        # captions stay inside the part of the picture on screen: placed again after a zoom or a scroll
        self.canvas.zoom_changed.connect(lambda _z: self.arrange_captions())
        self.canvas.horizontalScrollBar().valueChanged.connect(lambda _v: self.arrange_captions())
        self.canvas.verticalScrollBar().valueChanged.connect(lambda _v: self.arrange_captions())
        state.events.mark_kind.connect(lambda _k: self._show_label())
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
        from fieldstudio.annotations import annotation_records as ann
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
        """A new project (or none): forget the history and the current labels."""
        self.undo_stack.clear()
        self._chosen = {}
        self.set_tool("select")
        self.state.mark_kind = "box"
        self.reload_labels()

    def reload_labels(self) -> None:
        from fieldstudio.annotations import labels

        self._colors = {}
        if self.project is not None:
            records = labels.list_labels(self.project)
            self._colors = {r.id: r.color for r in records}
            offered = {r.id: r for r in records}
            for kind, label_id in list(self._chosen.items()):
                if label_id is not None and (label_id not in offered or not offered[label_id].offered_for(kind)):
                    del self._chosen[kind]  # deleted, or no longer in that kind's list: back to the default
        self._show_label()

    # --- labels per kind -------------------------------------------------------------------------
    def label_of(self, kind: str) -> str | None:
        """The label a new mark of ``kind`` gets: the one picked for that kind, else the kind's default
        (``labels.default_label``: "distance" for a ruler), else None (unlabelled)."""
        from fieldstudio.annotations import labels

        if kind in self._chosen:
            return self._chosen[kind]
        if self.project is None:
            return None
        record = labels.default_label(self.project, kind)
        return record.id if record is not None else None

    @property
    def label_id(self) -> str | None:
        """The current label of the active kind (``state.mark_kind``)."""
        return self.label_of(self.state.mark_kind)

    def set_label(self, kind: str, label_id: str | None) -> None:
        """Make ``label_id`` the current label of ``kind`` (None: unlabelled)."""
        self._chosen[kind] = label_id
        self._show_label()

    def label_text(self) -> str:
        """The status bar's read-out: the active kind and its current label."""
        from fieldstudio.annotations import labels

        kind = self.state.mark_kind
        label_id = self.label_of(kind)
        name = None
        if label_id is not None and self.project is not None:
            try:
                name = labels.get_label(self.project, label_id).name
            except FieldstudioError:
                name = None
        if name is None and kind == "ruler":
            name = labels.DEFAULT_LABEL_NAMES["ruler"]
        return f"{kind} label: {name or '(none)'}"

    def _show_label(self) -> None:
        # a document or the welcome page takes no marks: no label read-out there
        self.label_shown.emit(self.label_text() if self.project is not None and self.media is not None else "")

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
        actions["track_forward"].triggered.connect(lambda: self.track(1))
        actions["track_backward"].triggered.connect(lambda: self.track(-1))
        actions["segment_start"].triggered.connect(self.start_segment)
        actions["segment_end"].triggered.connect(self.end_segment)
        actions["event"].triggered.connect(self.mark_event)
        for k in range(1, 10):
            actions[f"label_{k}"].triggered.connect(lambda _=False, k=k: self.use_label_key(k))
        actions["prev_keyframe"].triggered.connect(lambda: self.jump_keyframe(-1))
        actions["next_keyframe"].triggered.connect(lambda: self.jump_keyframe(1))

    def jump_keyframe(self, step: int) -> None:
        """[ / ]: show the previous (``step`` -1) or next (+1) keyframe of the selected box's track."""
        from fieldstudio.annotations import annotation_records as ann

        index = self.frame_index()
        tracks = [i.track_id for i in self.selected_items() if isinstance(i, BoxItem) and i.track_id is not None]
        if index is None or not tracks:
            self.notify("select a box of a track on a video frame to go to its keyframes")
            return
        track = tracks[0]
        frames = [r.frame_index for r in ann.track_keyframes(self.project, self.media.id, track)]
        target = max((f for f in frames if f < index), default=None) if step < 0 else \
            min((f for f in frames if f > index), default=None)
        if target is None:
            self.notify(f"track #{track} has no keyframe {'before' if step < 0 else 'after'} frame {index}")
            return
        self._select_next_track = (track, target)
        self.state.request_frame(self.media.id, target)

    # --- tools -----------------------------------------------------------------------------------
    def set_tool(self, tool: str) -> None:
        """"select", "box", "ruler", "scale" (2 points) or "floor" (4 points)."""
        if tool in ("box", "ruler", "scale", "floor") and self.media is None:
            self.notify("open a photo or a video frame to annotate")
            tool = "select"
        self._drop_temp()
        self.state.tool = tool
        if tool in ("box", "ruler"):
            self.state.mark_kind = tool
        self.canvas.setDragMode(QGraphicsView.DragMode.ScrollHandDrag if tool == "select"
                                else QGraphicsView.DragMode.NoDrag)
        self.canvas.viewport().setCursor(Qt.CursorShape.OpenHandCursor if tool == "select"
                                         else Qt.CursorShape.CrossCursor)
        hints = {"box": "Box: drag a rectangle (Esc to stop)",
                 "ruler": "Ruler: drag from one point to the other (Esc to stop)",
                 "scale": "Calibrate scale: click the two ends of an object of known length "
                          "(C again: a floor rectangle)",
                 "floor": "Calibrate floor: click the 4 corners of a floor rectangle (any order)"}
        if tool in hints:
            self.notify(hints[tool])
        elif self.status.currentMessage() in hints.values():
            self.status.clearMessage()  # the tool's hint no longer applies
        if tool in ("scale", "floor") and self.state.playing:
            self.state.playing = False  # the viewer pauses on the exact frame
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
        self._just_marked = None
        self._drop_temp()
        self._grid_for = None
        self._show_label()
        if self.tool in ("scale", "floor"):
            self.set_tool("select")

    def calibrate_key(self) -> None:
        """C: scale calibration; C again while picking: floor calibration."""
        self.set_tool("floor" if self.tool == "scale" else "scale")

    def use_label_key(self, key: int) -> None:
        """Keys 1-9: the label with that key in the active kind's list becomes that kind's current label
        and is given to the selected marks of that kind."""
        from fieldstudio.annotations import edits
        from fieldstudio.annotations import labels

        if self.project is None:
            return
        kind = self.state.mark_kind
        record = labels.label_for_key(self.project, key, kind)
        if record is None:
            self.notify(f"no {kind} label has key {key}: Annotate ▸ Labels… sets them")
            return
        # no message of its own: the status bar's read-out (label_shown) names the label and follows the
        # kind, tool, media and tab, where a timed copy of it would outlive the state it described
        self.set_label(kind, record.id)
        item_kind = {"box": BoxItem, "ruler": RulerItem}.get(kind)
        for item in self.selected_items():
            if item_kind is not None and isinstance(item, item_kind) and item.annotation_id:
                self.apply(edits.SetLabel(self.project, item.annotation_id, record.id))
        # I or E then a key: the segment or event just marked on this frame takes the label (as a
        # selected box does), so the label can be picked after the mark as well as before
        just = self._just_marked
        if just is not None and just[0] == kind and just[2] == self.state.frame_index and kind in ("segment", "event"):
            from fieldstudio.annotations import annotation_records as ann

            try:
                alive = not ann.get_annotation(self.project, just[1]).deleted
            except FieldstudioError:
                alive = False
            if alive:
                self.apply(edits.SetLabel(self.project, just[1], record.id))

    def selected_items(self) -> list:
        return [i for i in self.canvas.scene().selectedItems() if isinstance(i, (BoxItem, RulerItem))]

    def _selection_changed(self) -> None:
        self.state.selection = tuple(self.selected_ids())
        items = self.selected_items()
        if items and self.tool == "select":
            self.state.mark_kind = "box" if isinstance(items[0], BoxItem) else "ruler"

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
            self.state.request_frame(self.media.id, index + 1)

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
        from fieldstudio.annotations import annotation_records as ann

        index = self._video_frame("start a segment")
        if index is None:
            return
        self.state.mark_kind = "segment"
        label_id = self.label_of("segment")
        if any(r.frame_index == index and r.label_id == label_id
               for r in ann.open_segments(self.project, self.media.id)):
            self.notify(f"a segment of this label already starts on frame {index} (O ends it)")
            return
        edit = edits.AddSegment(self.project, self.media.id, label_id, index)
        if self.apply(edit):
            self._just_marked = ("segment", edit.annotation_id, index)

    def end_segment(self) -> None:
        from fieldstudio.annotations import edits
        from fieldstudio.annotations import annotation_records as ann

        index = self._video_frame("end a segment")
        if index is None:
            return
        self.state.mark_kind = "segment"
        open_ = [r for r in ann.open_segments(self.project, self.media.id) if r.frame_index <= index]
        mine = [r for r in open_ if r.label_id == self.label_of("segment")] or open_
        if not mine:
            self.notify("no open segment starts at or before this frame (I starts one)")
            return
        target = max(mine, key=lambda r: r.frame_index)
        self.apply(edits.CloseSegment(self.project, target.id, index))

    def mark_event(self) -> None:
        from fieldstudio.annotations import edits
        from fieldstudio.annotations import annotation_records as ann

        index = self._video_frame("mark an event")
        if index is None:
            return
        self.state.mark_kind = "event"
        label_id = self.label_of("event")
        if any(r.label_id == label_id for r in ann.list_annotations(
                self.project, media_id=self.media.id, kinds=["event"], frame_index=index)):
            self.notify(f"an event of this label is already marked on frame {index}")
            return
        edit = edits.AddEvent(self.project, self.media.id, index, label_id)
        if self.apply(edit):
            self._just_marked = ("event", edit.annotation_id, index)

    def _video_frame(self, what: str) -> int | None:
        if self.media is None or self.media.kind != "video":
            self.notify(f"open a video to {what}")
            return None
        if self.state.playing:
            self.state.playing = False  # the viewer pauses on the exact frame
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
        from fieldstudio.annotations import annotation_records as ann

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
            item.version = b.version  # a move made from this read is refused if someone changed the box since
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
        self.arrange_captions()
        follow = None
        if self._select_next_track is not None and self._select_next_track[1] == frame:
            follow, self._select_next_track = self._select_next_track[0], None
        for item in self._items:
            if getattr(item, "annotation_id", None) in selected or \
                    (follow is not None and isinstance(item, BoxItem) and item.track_id == follow):
                item.setSelected(True)
                if item.annotation_id == self._select_next:
                    self._select_next = None
        if full:
            self._update_timeline(media)

    def arrange_captions(self) -> None:
        """Place the caption chips of the marks shown so that none covers another (overlay.arrange_captions)."""
        chips = []
        for item in self._items:
            if isinstance(item, BoxItem):
                r = item.rect
                chips.append((item.caption, (r.left(), r.top(), r.right(), r.bottom())))
            elif isinstance(item, RulerItem):
                chips.append((item.text, item.anchor_rect()))
        arrange_captions(chips, self.canvas)

    def _box_tip(self, b: ann.FrameBox) -> str:
        parts = [b.label_name or "(no label)"]
        if b.track_id is not None:
            parts.append(f"track {b.track_id}")
        if b.attributes:
            parts.append(", ".join(f"{k}={'yes' if v is True else 'no' if v is False else v}"
                                   for k, v in b.attributes.items()))
        x1, y1, x2, y2 = b.box
        parts.append(f"x {x1:.0f} y {y1:.0f} w {x2 - x1:.0f} h {y2 - y1:.0f} px")
        if not b.keyframe:
            parts.append("interpolated: drag or resize it to correct it, or double-click (Shift+K), "
                         "to make it a keyframe")
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
        from fieldstudio.annotations import annotation_records as ann
        from fieldstudio.gui.timeline import EventMarker, SegmentMarker

        if media.kind != "video":
            return
        marks = ann.list_annotations(self.project, media_id=media.id, kinds=["segment", "event"])
        segments = [SegmentMarker(r.frame_index, r.end_frame_index, self.color(r.label_id), r.label_name or "", r.id)
                    for r in marks if r.kind == "segment"]
        events = [EventMarker(r.frame_index, self.color(r.label_id), r.label_name or "", r.id)
                  for r in marks if r.kind == "event"]
        self.markers_changed.emit(segments, events)

    def _box_moved(self, item: BoxItem, xywh: tuple[float, float, float, float]) -> None:
        """A box dragged or resized: a stored one moves; a track's interpolated one becomes a keyframe there
        (one edit, so one undo puts the interpolation back)."""
        from fieldstudio.annotations import edits

        if item.annotation_id is not None:
            self.apply(edits.MoveBox(self.project, item.annotation_id, xywh, getattr(item, "version", None)))
            return
        try:
            edit = edits.MakeKeyframe(self.project, self.media.id, item.track_id, self.frame_index(), xywh)
        except FieldstudioError as exc:
            self.notify(str(exc))
            self.refresh()
            return
        if self.apply(edit):
            self._select_next = edit.annotation_id
            self.refresh(frame_only=True)

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
                self.state.playing = False  # the viewer pauses on the exact frame
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
                self._temp = BoxItem((a.x(), a.y(), b.x(), b.y()), self.color(self.label_of("box")), "",
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
        from fieldstudio.annotations import labels
        from fieldstudio.annotations import annotation_records as ann

        a, b = self._clip(self._press), self._clip(p)
        self._press = None
        self._drop_temp()
        if abs(b.x() - a.x()) < MIN_DRAG_PX and abs(b.y() - a.y()) < MIN_DRAG_PX:
            return
        media, frame = self.media, self.frame_index()
        if self.tool == "box":
            r = QRectF(a, b).normalized()
            track = ann.next_track_id(self.project, media.id) if frame is not None else None
            self.apply(edits.AddBox(self.project, media.id, (r.x(), r.y(), r.width(), r.height()),
                                    self.label_of("box"), frame_index=frame, track_id=track))
        elif self.tool == "ruler":
            on_floor = self._new_ruler_on_floor()
            pq = ((a.x(), a.y()), (b.x(), b.y()))

            def ruler(label_id: str | None) -> Edit:
                return edits.AddRuler(self.project, media.id, *pq, frame_index=frame, on_floor=on_floor,
                                      label_id=label_id)
            label_id = self.label_of("ruler")
            # no ruler label yet: "distance" is made with the ruler, in the same undo step
            edit = ruler(label_id) if label_id is not None or "ruler" in self._chosen else \
                edits.WithDefaultLabel(self.project, labels.DEFAULT_LABEL_NAMES["ruler"], "ruler", ruler)
            if self.apply(edit):
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

        dialog = CalibrationDialog(self.project, self.media.id, points, self.apply_or_raise, self.canvas.window(),
                                   image=self.canvas.image(), full_size=self.canvas.image_size())
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

        from fieldstudio.annotations import edits

        boxes = [i for i in self.selected_items() if isinstance(i, BoxItem)]
        if not boxes:
            self.notify("select a box first (click it)")
            return
        box = boxes[0]
        annotation_id = box.annotation_id
        if annotation_id is None:  # an interpolated box: it becomes a keyframe to be edited
            edit = edits.MakeKeyframe(self.project, self.media.id, box.track_id, self.frame_index())
            if not self.apply(edit):
                return
            annotation_id = edit.annotation_id
            self.select_on_refresh(annotation_id)
            self.refresh(frame_only=True)
        BoxEditorDialog(self.project, annotation_id, self.apply, self.canvas.window()).exec()

    # --- tracking ----------------------------------------------------------------------------------
    def track(self, direction: int) -> workers.Worker | None:
        """T / Shift+T: follow the selected box forward (1) or backward (-1) to the end of the video.

        ``annotations.tracking.follow_box`` runs on a worker behind a progress dialog with Cancel; its
        keyframes are stored as one edit (one undo removes the stretch), the status bar says how far it
        went and why it stopped, and the last frame tracked is shown with the track's box selected.
        """
        from fieldstudio.annotations import tracking
        from fieldstudio.core import user_settings
        from fieldstudio.gui import settings

        media, frame = self.media, self.frame_index()
        boxes = [i for i in self.selected_items() if isinstance(i, BoxItem) and i.editable]
        if media is None or media.kind != "video" or frame is None or len(boxes) != 1:
            self.notify("select one box on a video frame to track it (T forward, Shift+T backward)")
            return None
        if self.project.read_only:
            self.notify(f"{self.project.path.name} is read-only: nothing can be tracked into it")
            return None
        if self.state.playing:
            self.state.playing = False  # the viewer pauses on the exact frame
        box = boxes[0]
        try:
            start = tracking.track_start(self.project, media.id, frame, annotation_id=box.annotation_id,
                                         track_id=box.track_id)
        except FieldstudioError as exc:
            self.notify(str(exc))
            return None
        target = self.state.frame_count - 1 if direction > 0 else 0
        if target == frame:
            self.notify("this is the " + ("last" if direction > 0 else "first") + " frame: nothing to track")
            return None
        every = settings.get(user_settings.TRACKING_KEYFRAME_EVERY)

        def done(result: tracking.TrackResult) -> None:
            edit = tracking.stretch_edit(self.project, result)
            if edit is not None and not self.apply(edit):
                return
            self.notify(result.message)
            if edit is not None and result.last_frame != frame:
                stored = dict(zip((m.frame_index for m in edit.marks), edit.annotation_ids))
                if result.last_frame in stored:
                    self.select_on_refresh(stored[result.last_frame])
                self.state.request_frame(media.id, result.last_frame)

        word = "forward" if direction > 0 else "backward"
        self.worker = workers.run_with_progress(
            self.canvas.window(), f"Tracking {word} from frame {frame}…", tracking.follow_box, self.project, start,
            target, every=every, title=f"Track {word}", done=done, failed=lambda m: self.notify(f"tracking: {m}"))
        return self.worker

    # --- leaving ---------------------------------------------------------------------------------
    def confirm_open_segments(self) -> bool:
        """Before the project closes: offer to end open segments. False when the user cancels."""
        from fieldstudio.annotations import edits
        from fieldstudio.annotations import annotation_records as ann

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
            from fieldstudio.media import library, video_index

            for r in open_:
                table = video_index.load_frame_table(self.project, library.find_media(self.project, r.media_id))
                last = len(table) - 1 if table is not None else r.frame_index
                self.apply(edits.CloseSegment(self.project, r.id, last))
        return True
