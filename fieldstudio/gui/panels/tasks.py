"""The task editor: a filterable list of the project's tasks and a form for the chosen one.

Thin over the headless services: ``fieldstudio.tasks.task_records`` (validation, create / change / delete and
their undoable edits, frames <-> seconds) and ``fieldstudio.tasks.ground_truth`` (ground truth computed
from annotations, kept linked). Each Save, New, Duplicate, Delete and Link is one undoable edit committed
at once (Ctrl+Z / Ctrl+Shift+Z while the list has focus, or the Undo / Redo buttons).

Signals: ``loaded()`` once an opened project's tasks are shown; ``open_media_at(media_id, frame)`` asks the window to show a task's input at its start frame;
``status(text)`` for the status bar; ``run_on_tasks(task_ids)`` from the list's context menu ("Run model on
these tasks…", gui/panels/run_menu.py). Slots: ``set_project``, ``follow_view(state)`` (the window's state:
"Use current frame" takes the frame it shows) and ``refresh_ground_truths()`` (connect it to annotation or
calibration changes).
"""

from __future__ import annotations

import logging

import shiboken6
from PySide6.QtCore import QModelIndex, Qt, Signal, Slot
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import (QSpinBox,
                               QSplitter, QVBoxLayout, QWidget)

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui.panels import task_form
from fieldstudio.gui.panels.run_menu import RunTasksMenu
from fieldstudio.gui.panels.task_links import ERROR_STYLE, WARNING_STYLE, TaskGroundTruthLinks
from fieldstudio.gui import workers
from fieldstudio.gui.panels.task_table import TASK_ID_ROLE, TaskListing, read_listing
from fieldstudio.gui.undo import EditCommand
from fieldstudio.store.edits import Edit
from fieldstudio.store.changes import EditConflict
from fieldstudio.store.project import Project
from fieldstudio.tasks import ground_truth as gt
from fieldstudio.tasks import task_records as ts

log = logging.getLogger(__name__)


class TaskEditorPanel(TaskGroundTruthLinks, QWidget):
    """The task list (filter by category and answer type, search) and the editor of the chosen task."""

    open_media_at = Signal(str, int)
    status = Signal(str)
    run_on_tasks = Signal(list)
    loaded = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.project: Project | None = None
        self.undo_stack = QUndoStack(self)
        self.record: ts.TaskRecord | None = None
        self.inputs: list[dict] = []
        self._view = None  # gui.state.ViewState of the window, once followed
        self.media: dict[str, tuple[str, str, int | None]] = {}  # id -> (file name, kind, frame count)
        self._loading = False
        self.dirty = False
        self.pending: dict[str, gt.GroundTruthChange] = {}   # task id -> change the annotations would make
        self._generation = 0                                  # the project opened; a newer one drops older reads
        self._worker: workers.Worker | None = None            # reading the opened project's tasks
        self._build_list()
        self._build_form()
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.list_side)
        split.addWidget(self.form_scroll)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(split)
        self._actions()
        self.run_menu = RunTasksMenu(self.table, self.selected_task_ids, self.visible_task_ids, self.run_on_tasks.emit)
        self._show_record(None)

    # ------------------------------------------------------------ building (panels/task_form.py)
    def _build_list(self) -> None:
        task_form.build_list(self)

    def _build_form(self) -> None:
        task_form.build_form(self)

    def _actions(self) -> None:
        task_form.build_actions(self)

    # ------------------------------------------------------------ project and list
    def set_project(self, project: Project | None) -> None:
        """Show the tasks of ``project`` (None: nothing), read on a worker (``task_table.read_listing``; 2-3 s at
        100,000 tasks); ``loaded`` is emitted once they are shown. Clears the undo history."""
        self.project = project
        self.undo_stack.clear()
        self.record = None
        self.pending = {}
        self._generation += 1
        if self._worker is not None:
            self._worker.cancel()
            self._worker = None
        if project is None:
            self._show_listing(TaskListing(), None)
            self.loaded.emit()
            return
        gen = self._generation
        worker = self._worker = workers.Worker(read_listing, project)
        worker.signals.result.connect(lambda listing: self._opened(gen, listing))
        worker.signals.error.connect(lambda message: self._open_failed(gen, message))
        self.count_label.setText("loading…")
        workers.start(worker)

    def loading(self) -> bool:
        """True while the opened project's tasks are being read (``loaded`` comes when they are shown)."""
        return self._worker is not None

    def _opened(self, gen: int, listing: TaskListing) -> None:
        if gen != self._generation or not shiboken6.isValid(self.table):
            return                       # another project was opened since, or the panel is gone
        self._worker = None
        self._set_pending(listing.pending)
        self._show_listing(listing, None)
        self.loaded.emit()

    def _open_failed(self, gen: int, message: str) -> None:
        if gen != self._generation or not shiboken6.isValid(self.table):
            return
        self._worker = None
        self.count_label.setText("")
        self.status.emit(f"Could not read the tasks: {message}")

    def reload(self, select_id: str | None = None) -> None:
        """Read the tasks and media again; keep (or move to ``select_id``) the chosen task."""
        keep = select_id or (self.record.id if self.record else None)
        opening = self._worker is not None
        if opening:                      # an edit before the opened project's tasks came: they are read here
            self._generation += 1
            self._worker.cancel()
            self._worker = None
        listing = read_listing(self.project, with_pending=opening) if self.project else TaskListing()
        if opening:
            self._set_pending(listing.pending)
        self._show_listing(listing, keep)
        if opening:
            self.loaded.emit()

    def _show_listing(self, listing: TaskListing, keep: str | None) -> None:
        self.media = listing.media
        self.model.set_rows(listing.rows)
        current_cat = self.category_filter.currentData()
        self.category_filter.blockSignals(True)
        self.category_filter.clear()
        self.category_filter.addItem("All categories", None)
        cats = listing.categories
        for c in cats:
            self.category_filter.addItem(c or "(none)", c)
        i = self.category_filter.findData(current_cat)
        self.category_filter.setCurrentIndex(max(i, 0))
        self.category_filter.blockSignals(False)
        self.category.blockSignals(True)
        self.category.clear()
        self.category.addItems([c for c in cats if c])
        self.category.blockSignals(False)
        self.input_media.blockSignals(True)
        self.input_media.clear()
        self.input_media.addItem("(not in the project)", None)
        for mid, (name, kind, _n) in self.media.items():
            self.input_media.addItem(f"{name}  [{kind}]", mid)
        self.input_media.blockSignals(False)
        self._refilter()
        if not keep or not self.select_task(keep):
            self._show_record(None)

    def _refilter(self) -> None:
        self.proxy.set_filter(self.category_filter.currentData(), self.type_filter.currentData(), self.search.text())
        self.count_label.setText(f"{self.proxy.rowCount()} of {len(self.model.all_rows)} tasks")

    def visible_task_ids(self) -> list[str]:
        """Task ids shown after filtering, top to bottom."""
        return [self.proxy.index(r, 0).data(TASK_ID_ROLE) for r in range(self.proxy.rowCount())]

    def selected_task_ids(self) -> list[str]:
        """Task ids of the selected rows, top to bottom."""
        rows = sorted(self.table.selectionModel().selectedRows(), key=lambda i: i.row())
        return [i.data(TASK_ID_ROLE) for i in rows]

    def select_task(self, task_id: str) -> bool:
        """Choose ``task_id`` in the list (clearing filters that hide it); False when unknown."""
        for attempt in range(2):
            for r in range(self.proxy.rowCount()):
                idx = self.proxy.index(r, 0)
                if idx.data(TASK_ID_ROLE) == task_id:
                    self.table.setCurrentIndex(idx)
                    self.table.scrollTo(idx)
                    if self.record is None or self.record.id != task_id:
                        self._load(task_id)
                    return True
            if attempt == 0:
                self.category_filter.setCurrentIndex(0)
                self.type_filter.setCurrentIndex(0)
                self.search.clear()
        return False

    def _current_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        if self._loading or not current.isValid():
            return
        task_id = current.data(TASK_ID_ROLE)
        if self.record is not None and task_id == self.record.id:
            return
        if self.dirty and self.record is not None:
            if not self.save():
                self.status.emit("Fix the marked problems or press Revert before choosing another task")
                self._loading = True
                self.select_task(self.record.id)
                self._loading = False
            else:
                self.select_task(task_id)  # saving re-read the list and chose the saved task again
            return
        self._load(task_id)

    def _load(self, task_id: str) -> None:
        try:
            record = ts.get_task(self.project, task_id)
        except FieldstudioError as exc:
            self.status.emit(str(exc))
            record = None
        self._show_record(record)

    # ------------------------------------------------------------ the form
    def _show_record(self, record: ts.TaskRecord | None) -> None:
        self._loading = True
        self.record = record
        self.edit_message.hide()
        self.form.setEnabled(record is not None)
        self.duplicate_button.setEnabled(record is not None)
        self.delete_button.setEnabled(record is not None)
        r = record
        self.id_edit.setText(r.external_id or "" if r else "")
        self.source_label.setText(f"source: {r.source}" if r else "")
        self.query.setPlainText(r.query if r else "")
        self.answer_type.setCurrentIndex(max(self.answer_type.findData(r.answer_type if r else "free_text"), 0))
        self.ground_truth.setPlainText(r.ground_truth or "" if r else "")
        tol = (r.tolerances or {}) if r else {}
        self.r_th.setText("" if tol.get("r_th") is None else f"{tol['r_th']:g}")
        self.t_th.setText("" if tol.get("T_th") is None else f"{tol['T_th']:g}")
        self.category.setEditText(r.category or "" if r else "")
        self.sub_category.setText(r.sub_category or "" if r else "")
        self.scenario.setCurrentIndex(max(self.scenario.findData(r.scenario if r else None), 0))
        self.notes.setPlainText(r.notes or "" if r else "")
        self.inputs = [self._with_frames(dict(i)) for i in (r.inputs if r else ())]
        self._fill_inputs_list(0)
        self._loading = False
        self.dirty = False
        self._show_link()
        self._validate()

    def _with_frames(self, item: dict) -> dict:
        mid = item.get("media_id")
        for key, frame_key in (("start_s", "start_frame"), ("end_s", "end_frame")):
            item[frame_key] = None
            if mid and item.get(key) is not None and self._is_indexed_video(mid):
                item[frame_key] = ts.frame_at_time(self.project, mid, item[key])
        return item

    def _is_indexed_video(self, media_id: str | None) -> bool:
        info = self.media.get(media_id or "")
        return bool(info and info[1] == "video" and info[2])

    def _fill_inputs_list(self, row: int) -> None:
        self.inputs_list.blockSignals(True)
        self.inputs_list.clear()
        for item in self.inputs:
            span = ""
            if item.get("start_s") is not None or item.get("end_s") is not None:
                span = f"  [{_secs(item.get('start_s'))} – {_secs(item.get('end_s'))}]"
            missing = "" if item.get("media_id") else "  (not in the project)"
            self.inputs_list.addItem(f"{item.get('name') or '?'}{span}{missing}")
        self.inputs_list.blockSignals(False)
        if self.inputs:
            self.inputs_list.setCurrentRow(min(max(row, 0), len(self.inputs) - 1))
        self._show_input(self.inputs_list.currentRow())

    def _show_input(self, row: int) -> None:
        item = self.inputs[row] if 0 <= row < len(self.inputs) else None
        was, self._loading = self._loading, True
        for w in (self.input_media, self.start_frame, self.end_frame, self.remove_input, self.open_button):
            w.setEnabled(item is not None)
        self.input_media.setCurrentIndex(max(self.input_media.findData(item.get("media_id")) if item else 0, 0))
        video = item is not None and self._is_indexed_video(item.get("media_id"))
        for spin, key in ((self.start_frame, "start_frame"), (self.end_frame, "end_frame")):
            spin.setEnabled(video)
            spin.setMaximum(max((self.media[item["media_id"]][2] or 1) - 1, 0) if video else 10_000_000)
            spin.setValue(-1 if not item or item.get(key) is None else item[key])
        self._update_times()
        self._loading = was
        self._update_use_buttons()
        self._fill_link_targets()

    def _update_times(self) -> None:
        row = self.inputs_list.currentRow()
        item = self.inputs[row] if 0 <= row < len(self.inputs) else {}
        self.start_time.setText(_secs(item.get("start_s")) if item.get("start_s") is not None else "whole media")
        self.end_time.setText(_secs(item.get("end_s")) if item.get("end_s") is not None else "")

    def _input_edited(self) -> None:
        if self._loading:
            return
        row = self.inputs_list.currentRow()
        if not 0 <= row < len(self.inputs):
            return
        item = self.inputs[row]
        mid = self.input_media.currentData()
        if mid != item.get("media_id"):
            item.update(media_id=mid, name=self.media[mid][0] if mid else item.get("name", ""),
                        start_s=None, end_s=None, start_frame=None, end_frame=None)
            self._fill_inputs_list(row)
        elif self._is_indexed_video(mid):
            for spin, key, skey in ((self.start_frame, "start_frame", "start_s"), (self.end_frame, "end_frame", "end_s")):
                frame = spin.value()
                item[key] = None if frame < 0 else frame
                item[skey] = None if frame < 0 else ts.frame_time_s(self.project, mid, frame)
            self._fill_inputs_list(row)
        self._changed()

    def _update_use_buttons(self) -> None:
        ok = self.position is not None and self.record is not None and self.inputs_list.currentRow() >= 0
        self.use_start.setEnabled(ok)
        self.use_end.setEnabled(ok)

    def _use_current(self, spin: QSpinBox) -> None:
        if self.position is None:
            return
        media_id, frame = self.position
        if self.input_media.currentData() != media_id:
            self.input_media.setCurrentIndex(self.input_media.findData(media_id))
        spin.setValue(frame)

    def _add_input(self) -> None:
        mid = self.position[0] if self.position else None
        name = self.media[mid][0] if mid in self.media else ""
        self.inputs.append({"name": name, "media_id": mid if mid in self.media else None, "start_s": None,
                            "end_s": None, "start_frame": None, "end_frame": None})
        self._fill_inputs_list(len(self.inputs) - 1)
        self._changed()

    def _remove_input(self) -> None:
        row = self.inputs_list.currentRow()
        if 0 <= row < len(self.inputs):
            del self.inputs[row]
            self._fill_inputs_list(row)
            self._changed()

    def _changed(self, *_: object) -> None:
        if self._loading:
            return
        self.dirty = True
        self._validate()

    def form_fields(self) -> dict:
        """The editable fields as the form shows them (``tasks.records.EDITABLE`` minus the link fields)."""
        tolerances = {}
        for key, edit in (("r_th", self.r_th), ("T_th", self.t_th)):
            text = edit.text().strip()
            if text:
                try:
                    tolerances[key] = float(text)
                except ValueError:
                    tolerances[key] = text  # reported by validate
        return {
            "external_id": self.id_edit.text().strip() or None, "query": self.query.toPlainText(),
            "answer_type": self.answer_type.currentData(), "ground_truth": self.ground_truth.toPlainText() or None,
            "category": self.category.currentText().strip() or None,
            "sub_category": self.sub_category.text().strip() or None, "scenario": self.scenario.currentData(),
            "tolerances": tolerances or None, "notes": self.notes.toPlainText() or None,
            "inputs": [{k: i.get(k) for k in ("name", "media_id", "start_s", "end_s")} for i in self.inputs],
        }

    def _validate(self) -> list[ts.Issue]:
        issues = ts.validate(self.form_fields()) if self.record is not None else []
        for label, fields in ((self.query_message, ("query", "scenario")), (self.gt_message, ("ground_truth",)),
                              (self.tol_message, ("tolerances",)), (self.input_message, ("inputs",))):
            mine = [i for i in issues if i.field in fields]
            label.setVisible(bool(mine))
            label.setText("\n".join(i.message for i in mine))
            label.setStyleSheet(ERROR_STYLE if any(i.severity == "error" for i in mine) else WARNING_STYLE)
        errors = [i for i in issues if i.severity == "error"]
        self.save_button.setEnabled(self.record is not None and self.dirty and not errors)
        self.revert_button.setEnabled(self.dirty)
        return errors

    # ------------------------------------------------------------ edits
    def _push(self, edit: Edit, task_id: str | None = None) -> bool:
        """Do ``edit`` (one transaction) and put it on the undo stack; False (and a message) when refused."""
        try:
            edit.do()
        except FieldstudioError as exc:
            self.status.emit(str(exc))
            if isinstance(exc, EditConflict) and self.record is not None:
                self.after_edit(self.record.id)   # show the task as the other user left it
            self.edit_message.setText(str(exc))
            self.edit_message.setStyleSheet(ERROR_STYLE)
            self.edit_message.show()
            return False
        shown = task_id or getattr(edit, "task_id", None)
        self.undo_stack.push(EditCommand(edit, lambda e, _op, error: self._after_undo(e, error, shown)))
        return True

    def _after_undo(self, edit: Edit, error: str | None, task_id: str | None) -> None:
        if error is not None:
            self.status.emit(f"{edit.text}: {error}")
        if self.project is not None:
            self._find_pending()                 # an undone Accept makes its change pending again
        self.after_edit(task_id or getattr(edit, "task_id", None))

    def after_edit(self, task_id: str | None) -> None:
        """Re-read the list and show ``task_id`` (after an edit, an undo or a redo)."""
        self.record = None
        self.dirty = False
        self.reload(select_id=task_id)

    @Slot()
    def save(self) -> bool:
        """Store the form's changes as one undoable edit; False when there are errors (shown inline)."""
        if self.record is None or self.project is None:
            return False
        if self._validate():
            return False
        if not self.dirty:
            return True
        current = self.record.fields()
        changes = {k: v for k, v in self.form_fields().items() if v != current.get(k)}
        if not changes:
            self.dirty = False
            self._validate()
            return True
        if not self._push(ts.UpdateTask(self.project, self.record.id, "Edit task",
                                         expected_version=self.record.version, **changes)):
            return False
        self.status.emit(f"Saved task {self.form_fields()['external_id'] or ''}".strip())
        self.after_edit(self.record.id if self.record else None)
        return True

    @Slot()
    def new_task(self) -> None:
        """Create a task (over the viewer's media from its current frame, when known) and choose it."""
        if self.project is None or (self.dirty and not self.save()):
            return
        inputs = []
        if self.position and self.position[0] in self.media:
            mid, frame = self.position
            start = ts.frame_time_s(self.project, mid, frame) if self._is_indexed_video(mid) else None
            inputs = [{"media_id": mid, "start_s": start}]
        edit = ts.CreateTask(self.project, "New task", query="New task: write the question", inputs=inputs)
        if self._push(edit):
            self.after_edit(edit.task_id)
            self.query.setFocus()
            self.query.selectAll()

    @Slot()
    def duplicate_task(self) -> None:
        if self.project is None or self.record is None or (self.dirty and not self.save()):
            return
        edit = ts.CreateTask(self.project, "Duplicate task", **ts.duplicate_fields(self.record))
        if self._push(edit):
            self.after_edit(edit.task_id)

    @Slot()
    def delete_task(self) -> None:
        if self.project is None or self.record is None:
            return
        rows = self.visible_task_ids()
        row = rows.index(self.record.id) if self.record.id in rows else 0
        if self._push(ts.DeleteTask(self.project, self.record.id)):
            self.status.emit(f"Deleted task {self.record.external_id}; Ctrl+Z brings it back")
            rest = [t for t in rows if t != self.record.id]
            self.after_edit(rest[min(row, len(rest) - 1)] if rest else None)

    # ------------------------------------------------------------ viewer
    def follow_view(self, state) -> None:  # noqa: ANN001 - gui.state.ViewState
        """Follow the window's state: "Use current frame" takes the photo or video frame it shows."""
        self._view = state
        state.events.media.connect(lambda _m: self._update_use_buttons())
        state.events.frame.connect(lambda _f: self._update_use_buttons())
        self._update_use_buttons()

    def text_target(self) -> str | None:
        """The open task's ground truth, when it is typed (not linked to an annotation); else None."""
        if self.record is None or self.ground_truth.isReadOnly() or not self.form.isEnabled():
            return None
        return f"ground truth of task {self.record.external_id or self.record.id[:8]}"

    def suggest_text(self, text: str) -> None:
        """Annotate ▸ Read text here: the text read becomes the ground truth in the form, unsaved, for the person
        to check and Save (or Revert)."""
        self.ground_truth.setPlainText(text)
        self.status.emit("Ground truth filled with the text read (OCR): check it, then Save or Revert")

    def on_ground_truth_changed(self, _task_id: str) -> None:
        """A ground truth was changed in another tab (Compare): read the tasks again."""
        self.reload()

    def on_tasks_imported(self) -> None:
        """Tasks were imported (File menu): read them again."""
        self.reload()

    def on_annotations_changed(self) -> None:
        """The viewer's marks changed: ground truths linked to them follow."""
        self.refresh_ground_truths()

    @property
    def position(self) -> tuple[str, int] | None:
        """(media id, frame index) the viewer shows (``ViewState.shown_position``), None without one."""
        return self._view.shown_position() if self._view is not None else None

    @Slot()
    def open_at_start(self) -> None:
        """Emit ``open_media_at`` for the chosen input (else the first one with a media) at its start frame."""
        row = self.inputs_list.currentRow()
        candidates = ([self.inputs[row]] if 0 <= row < len(self.inputs) else []) + self.inputs
        for item in candidates:
            if item.get("media_id"):
                self.open_media_at.emit(item["media_id"], int(item.get("start_frame") or 0))
                return
        self.status.emit("This task names no media of the project")


def _secs(seconds: float | None) -> str:
    return "…" if seconds is None else f"{seconds:.3f} s"
