"""The annotation controller of the viewer: one undo stack and one way to make an edit, for the tools that
mark the media shown.

Every change goes through :meth:`AnnotationController.apply`: the Qt-free edit (store/edits.py) is done
first, committing one transaction, and only then pushed on the QUndoStack, whose first ``redo`` does
nothing (edits.py explains why). So every edit, undo and redo is in the project file before the call
returns: there is no Save and no unsaved state. The overlay (gui/viewer/frame_marks.py) is rebuilt from
the project after each change, so what is drawn is always what is stored.

The parts: ``labels`` (gui/tools/labels.py, the label each kind of mark gets), ``marks`` (the overlay),
``drawing`` (gui/tools/drawing.py: boxes, rulers, calibration points, moving and editing marks),
``time_marks`` (gui/tools/time_marks.py: segments and events) and ``tracking`` (gui/tools/tracking.py).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui.tools.context import ToolContext
from fieldstudio.gui.tools.labels import MarkLabels
from fieldstudio.gui.tools.time_marks import TimeMarks
from fieldstudio.gui.tools.tracking import Tracking
from fieldstudio.gui.tools.stopwatch_keys import StopwatchKeys
from fieldstudio.gui.tools.trajectory_view import TrajectoryView
from fieldstudio.gui.undo import EditCommand
from fieldstudio.gui.viewer.frame_marks import FrameMarks
from fieldstudio.gui.viewer.overlay import BoxItem, RulerItem

if TYPE_CHECKING:
    from collections.abc import Callable

    from PySide6.QtWidgets import QStatusBar

    from fieldstudio.gui.state import ViewState
    from fieldstudio.gui.tools.drawing import CanvasTools
    from fieldstudio.gui.viewer.canvas import Canvas
    from fieldstudio.store.edits import Edit

log = logging.getLogger(__name__)

BEHAVIOUR_ONLY = frozenset(("behaviour",))  # annotations.behaviour.behaviour_events.KIND, not imported at start


class AnnotationController(QObject):
    """Tools, overlay and undo stack for the media that ``state`` says is shown in ``canvas``.

    It reads the project, media, frame on screen and playing flag from ``state`` (gui/state.py) and
    reports through ``notify(message)`` and ``status`` (the status bar, for the tools' hints). Signal
    ``changed()`` after any annotation, label or calibration change (panels refresh), just after ``edited(edit)``
    naming the edit done, undone or redone (a view that can re-read only the rows it touched,
    ``annotations.edits.annotation_ids_of``, listens to that one instead). The overlay's
    ``marks.markers_changed`` feeds the timeline, ``labels.label_shown`` the status bar's label read-out.

    Each kind of mark has its own current label (``label_of(kind)``): a box, a ruler, a segment and an
    event never take each other's; the active kind (``state.mark_kind``) is the one keys 1-9 change.
    """

    changed = Signal()
    edited = Signal(object)  # the Edit done, undone or redone; ``changed`` follows

    def __init__(self, state: ViewState, canvas: Canvas, notify: Callable[[str], None], status: QStatusBar,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.state, self.canvas, self.notify = state, canvas, notify
        self.undo_stack = QUndoStack(self)
        self.labels = MarkLabels(state, self)
        self.marks = FrameMarks(state, canvas, self.labels, notify, self)
        ctx = ToolContext(state, canvas, self.marks, self.labels, self.apply, self.apply_or_raise, notify)
        # the drawing tools are built on first use (a media shown, a tool chosen): their modules, the skeleton
        # templates and their Qt classes (QGraphicsView's and QGradient's enum types) cost 15-25 ms of a cold
        # start, before the first paint, that an empty canvas never uses (issue 37)
        self._ctx, self._status, self._drawing = ctx, status, None
        state.events.media.connect(self._media_shown)
        self.time_marks = TimeMarks(ctx)
        self.tracking = Tracking(ctx)
        self.trajectory = TrajectoryView(ctx, self)   # the open trajectory follows the track's and calibrations' edits
        self.changed.connect(self.trajectory.refresh)
        self.stopwatch = StopwatchKeys(ctx)
        self._label_actions: list = []  # Annotate ▸ Use label's keys 1-9 (connect_actions), named for their labels
        state.events.project.connect(self._project_changed)

    # --- what the window and the panels use ------------------------------------------------------
    @property
    def tool(self) -> str:
        """The current tool ("select", "box", "ruler", "polygon", "polyline", "points", "scale", "floor"): the
        window state's ``tool``."""
        return self.state.tool

    @property
    def drawing(self) -> CanvasTools:
        """The select, box, ruler, shape and calibration tools on the canvas (gui/tools/drawing.py), built on first
        use: they filter the canvas's mouse events only once there is a media to mark."""
        if self._drawing is None:
            from fieldstudio.gui.tools.drawing import CanvasTools

            self._drawing = CanvasTools(self._ctx, self._status, self)
        return self._drawing

    def _media_shown(self, media: object) -> None:
        # the first media shown: its marks can be moved, edited and drawn from now on
        if media is not None and self._drawing is None:
            self.drawing  # noqa: B018 - built for its event filters and the overlay's signals

    def set_tool(self, tool: str) -> None:
        self.drawing.set_tool(tool)

    def label_of(self, kind: str) -> str | None:
        """The label a new mark of ``kind`` gets (see gui/tools/labels.py)."""
        return self.labels.label_of(kind)

    @property
    def label_id(self) -> str | None:
        """The current label of the active kind (``state.mark_kind``)."""
        return self.labels.label_of(self.state.mark_kind)

    def refresh(self, *, frame_only: bool = False) -> None:
        """Redraw the marks of the media and frame shown (gui/viewer/frame_marks.py)."""
        self.marks.refresh(frame_only=frame_only)

    def select_on_refresh(self, annotation_id: str) -> None:
        """Select this mark (alone) when it is next drawn: after a jump from the annotation list."""
        self.marks.select_on_refresh(annotation_id)

    def selected_ids(self) -> list[str]:
        return self.marks.selected_ids()

    def frame_index(self) -> int | None:
        """The frame marks attach to: the frame on screen (None on a photo), never one that failed to decode."""
        return self.state.video_frame()

    def move_segment_end(self, annotation_id: str, which: str, index: int) -> None:
        """A segment end dragged on the timeline."""
        self.time_marks.move_segment_end(annotation_id, which, index)

    def confirm_open_segments(self) -> bool:
        """Before the project closes: offer to end open segments. False when the user cancels."""
        return self.time_marks.confirm_open_segments()

    def track(self, direction: int):  # noqa: ANN201 - workers.Worker | None
        """T / Shift+T (gui/tools/tracking.py)."""
        return self.tracking.track(direction)

    @property
    def worker(self):  # noqa: ANN201 - workers.Worker | None
        """The last tracking worker (tests wait on it)."""
        return self.tracking.worker

    # --- edits -----------------------------------------------------------------------------------
    def apply(self, edit: Edit) -> bool:
        """Do ``edit`` (committed at once) and put it on the undo stack; False (with a message) if refused."""
        if self.state.project is None:
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
        project = self.state.project
        if project is not None and project.read_only:
            raise FieldstudioError(f"{project.path.name} is read-only: the change was not made")
        edit.do()
        self.undo_stack.push(EditCommand(edit, self._after_undo))
        self._edited(edit)

    def _edited(self, edit: Edit) -> None:
        """After ``edit`` was done, undone or redone: the marks and the panels follow. An edit of behaviour
        events only tells ``edited`` (the Behaviour dock and its lanes): the marks on the frame, the timeline's
        segments and the annotation list never hold them, and a key press must stay within a frame's time."""
        from fieldstudio.annotations.edits import annotation_kinds_of

        if annotation_kinds_of(edit) == BEHAVIOUR_ONLY:
            self.edited.emit(edit)
            return
        self.refresh()
        self.edited.emit(edit)
        self.changed.emit()

    def push_done(self, edit: Edit) -> None:
        """Put an edit already done (on a worker: a large import) on the undo stack, as ``apply_or_raise`` does."""
        self.undo_stack.push(EditCommand(edit, self._after_undo))
        self._edited(edit)

    def _after_undo(self, edit: Edit, op: str, error: str | None) -> None:
        """After an undo or redo of this stack: what was done, and where when it is not on screen, in the
        status bar (a refusal: its reason); the marks are re-read."""
        if error is not None:
            self.notify(error)
        else:
            self.notify(f"{'Undid' if op == 'undo' else 'Redid'} {edit.text.lower()}{self._where(edit)}")
        self._edited(edit)

    def _where(self, edit: Edit) -> str:
        """" on <file>, frame N" for an edit of a mark that is not on the media and frame shown, else ""."""
        from fieldstudio.annotations import annotation_records as ann
        from fieldstudio.media import library

        project = self.state.project
        annotation_id = getattr(edit, "annotation_id", None) or next(iter(getattr(edit, "annotation_ids", ())), None)
        if annotation_id is None or project is None:
            return ""
        try:
            record = ann.get_annotation(project, annotation_id)
            media = library.find_media(project, record.media_id)
        except FieldstudioError:
            return ""
        shown = self.state.media
        # a segment's end moved or set names the frame of that end, not the segment's start
        frame = getattr(edit, "frame_index", None)
        frame = record.frame_index if frame is None else frame
        same_frame = frame is None or frame == self.state.frame_index
        if shown is not None and shown.id == media.id and same_frame:
            return ""
        # a stretch (a track run) names its first and last frames, not the frame of one of its boxes
        ids = list(getattr(edit, "annotation_ids", ()))
        if frame is not None and len(ids) > 1 and getattr(edit, "frame_index", None) is None:
            try:
                frames = [f for i in ids if (f := ann.get_annotation(project, i).frame_index) is not None]
            except FieldstudioError:
                frames = []
            if len(set(frames)) > 1:
                return f" on {media.file_name}, frames {min(frames)}-{max(frames)}"
        return f" on {media.file_name}" + ("" if frame is None else f", frame {frame}")

    def _project_changed(self, project: object) -> None:
        """A new project (or none): forget the history, the current labels and the marks drawn."""
        self.undo_stack.clear()
        self.marks.clear()
        self.labels.forget()
        if self._drawing is not None:
            self._drawing.set_tool("select")
        else:  # no tool was ever chosen: the canvas is as a new one, in the select tool
            self.state.tool = "select"
        self.state.mark_kind = "box"
        self.labels.reload()

    # --- keys ------------------------------------------------------------------------------------
    def use_label_key(self, key: int) -> None:
        """Keys 1-9: the label with that key in the active kind's list becomes that kind's current label
        and is given to the selected marks of that kind."""
        from fieldstudio.annotations import annotation_records as ann
        from fieldstudio.annotations import edits, labels

        project = self.state.project
        if project is None:
            return
        kind = self.state.mark_kind
        record = labels.label_for_key(project, key, kind)
        if record is None:
            self.notify(f"no {kind} label has key {key}: Annotate ▸ Labels… sets them")
            return
        # no message of its own: the status bar's read-out (label_shown) names the label and follows the
        # kind, tool, media and tab, where a timed copy of it would outlive the state it described
        self.labels.set_label(kind, record.id)
        item_kind = {"box": BoxItem, "ruler": RulerItem}.get(kind)
        for item in self.marks.selected_items():
            if item.annotation_id and (isinstance(item, item_kind) if item_kind is not None
                                       else getattr(item, "kind", None) == kind):
                self.apply(edits.SetLabel(project, item.annotation_id, record.id))
        # I or E then a key: the segment or event just marked on this frame takes the label (as a
        # selected box does), so the label can be picked after the mark as well as before
        just = self.time_marks.just_marked
        if just is not None and just[0] == kind and just[2] == self.state.frame_index and kind in ("segment", "event"):
            try:
                alive = not ann.get_annotation(project, just[1]).deleted
            except FieldstudioError:
                alive = False
            if alive:
                self.apply(edits.SetLabel(project, just[1], record.id))

    def connect_actions(self, actions: dict) -> None:  # noqa: ANN001 - {action id: QAction} (gui/shortcuts.py)
        """Connect the Annotate menu's tool, mark and label actions, and [ ] (keyframes), to the tools."""
        timed, track = self.time_marks, self.tracking
        draw = lambda: self.drawing  # noqa: E731 - the tools are built on first use
        for aid, slot in (("select_tool", lambda: draw().set_tool("select")),
                          ("box_tool", lambda: draw().toggle("box")),
                          ("ruler_tool", lambda: draw().toggle("ruler")), ("angle_tool", lambda: draw().toggle("angle")),
                          ("calibrate", lambda: draw().calibrate_key()),
                          ("polygon_tool", lambda: draw().toggle("polygon")),
                          ("polyline_tool", lambda: draw().toggle("polyline")),
                          ("points_tool", lambda: draw().toggle("points")),
                          ("skeleton_tool", lambda: draw().toggle("skeleton")),
                          ("delete_marks", lambda: draw().delete_selected()),
                          ("edit_mark", lambda: draw().edit_selected()),
                          ("make_keyframe", lambda: draw().make_keyframe()), ("copy_next", track.copy_to_next_frame),
                          ("track_forward", lambda: track.track(1)), ("track_backward", lambda: track.track(-1)),
                          ("trajectory", self.trajectory.show_selected), ("stopwatch_start", self.stopwatch.start),
                          ("stopwatch_stop", self.stopwatch.stop),
                          ("prev_keyframe", lambda: track.jump_keyframe(-1)),
                          ("next_keyframe", lambda: track.jump_keyframe(1)), ("segment_start", timed.start_segment),
                          ("segment_end", timed.end_segment), ("event", timed.mark_event)):
            actions[aid].triggered.connect(slot)
        for k in range(1, 10):
            actions[f"label_{k}"].triggered.connect(lambda _=False, k=k: self.use_label_key(k))
        self._label_actions = [actions[f"label_{k}"] for k in range(1, 10)]
        from fieldstudio.core import user_settings
        from fieldstudio.gui import settings

        ask = actions["ask_label"]
        ask.setCheckable(True)
        ask.setChecked(settings.get(user_settings.ASK_LABEL))
        ask.toggled.connect(lambda on: settings.set(user_settings.ASK_LABEL, on))
        # the read-out changes with the kind, the media and the label list: the menu's names follow it
        self.labels.label_shown.connect(self.name_label_keys)
        self.name_label_keys()

    def name_label_keys(self, _shown: str = "") -> None:
        """Annotate ▸ Use label: each key's action names the label it picks in the active kind's list
        ("3  helmet"), or says the key picks none ("3  (no box label)")."""
        project, kind = self.state.project, self.state.mark_kind
        by_key = {}
        if project is not None:  # the store is imported with a project, never during the window's cold start
            from fieldstudio.annotations import labels
            from fieldstudio.gui import opened_reads

            read = lambda: labels.labels_by_key(project, kind)  # noqa: E731
            by_key = (opened_reads.take(self.state, project, opened_reads.BOX_LABEL_KEYS, read) if kind == "box"
                      else read())
        for k, action in enumerate(self._label_actions, start=1):
            rec = by_key.get(k)
            action.setText(f"&{k}  {rec.name}" if rec is not None else f"&{k}  (no {kind} label)")
