"""The Behaviour dock: the coded events of the video shown, its time budget, and two coders compared.

Three tabs over the Qt-free services of ``annotations/behaviour`` (the CLI's ``fieldstudio ethogram`` calls the
same): **Events** lists each event (start and stop as frame and PTS time, subject, behaviour, modifiers, coder);
double-click shows its start frame, Edit… changes its frames, subject or modifiers, Delete removes it, each one
undoable edit through ``apply_edit``. **Time budget** shows count, total and mean duration and % of the observed
time per subject and behaviour, over the video or a chosen interval, for one coder or all. **Coders** compares two
coders: Cohen's kappa per time slice and events matched within a tolerance.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFormLayout,
                               QHBoxLayout, QHeaderView, QLabel, QLineEdit, QPlainTextEdit, QPushButton, QSpinBox,
                               QTableWidget, QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget)

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui.imaging import format_pts

if TYPE_CHECKING:
    from fieldstudio.annotations.behaviour.behaviour_events import BehaviourEvent
    from fieldstudio.store.edits import Edit
    from fieldstudio.store.project import Project

EVENT_COLUMNS = ("Start", "Stop", "Subject", "Behaviour", "Modifiers", "Coder")
BUDGET_COLUMNS = ("Subject", "Behaviour", "Type", "Count", "Total (s)", "Mean (s)", "% observed")
ALL_CODERS = "(all coders)"


def _table(columns: tuple[str, ...], name: str) -> QTableWidget:
    table = QTableWidget(0, len(columns))
    table.setObjectName(name)
    table.setHorizontalHeaderLabels(columns)
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.horizontalHeader().setStretchLastSection(True)
    return table


class EventEditDialog(QDialog):
    """Edit one event: start and stop frame (a point event has one frame), subject, modifiers."""

    def __init__(self, event: BehaviourEvent, subjects: list[str], last_frame: int, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(f"Edit {event.behaviour}")
        form = QFormLayout(self)
        self.start = QSpinBox()
        self.start.setRange(0, last_frame)
        self.start.setValue(event.frame_index)
        form.addRow("Start frame", self.start)
        self.stop = QSpinBox()
        self.stop.setRange(0, last_frame)
        self.stop.setValue(event.end_frame_index if event.end_frame_index is not None else event.frame_index)
        self.stop.setEnabled(event.type == "state" and not event.is_open)
        form.addRow("Stop frame", self.stop)
        self.subject = QComboBox()
        self.subject.addItems(["", *subjects] if event.subject in subjects or not event.subject
                              else ["", event.subject, *subjects])
        self.subject.setCurrentText(event.subject)
        form.addRow("Subject", self.subject)
        self.modifiers = QLineEdit(", ".join(event.modifiers))
        form.addRow("Modifiers", self.modifiers)
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        box.accepted.connect(self.accept)
        box.rejected.connect(self.reject)
        form.addRow(box)


class BehaviourPanel(QWidget):
    """The dock's widget. ``set_video(project, media)`` follows the media shown; ``refresh()`` after any edit.

    Signals: ``open_frame(media_id, frame_index)`` (double-click), ``status(str)``.
    """

    open_frame = Signal(str, int)
    status = Signal(str)

    def __init__(self, apply_edit: Callable[[Edit], None], parent: QWidget | None = None):
        super().__init__(parent)
        self.apply_edit = apply_edit
        self.project: Project | None = None
        self.media = None  # the media shown (a store row), or None
        self.events: list[BehaviourEvent] = []
        self._filled = True  # the tables show ``events`` (False: read since, to show when the dock comes in front)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.coding_label = QLabel("")
        self.coding_label.setObjectName("coding_label")
        self.coding_label.setWordWrap(True)
        layout.addWidget(self.coding_label)
        self.tabs = QTabWidget()
        layout.addWidget(self.tabs)
        self.tabs.addTab(self._events_tab(), "Events")
        self.tabs.addTab(self._budget_tab(), "Time budget")
        self.tabs.addTab(self._coders_tab(), "Coders")

    # --- building --------------------------------------------------------------------------------
    def _events_tab(self) -> QWidget:
        page = QWidget()
        v = QVBoxLayout(page)
        self.event_table = _table(EVENT_COLUMNS, "behaviour_events")
        self.event_table.cellDoubleClicked.connect(self._show_event)
        v.addWidget(self.event_table)
        row = QHBoxLayout()
        edit = QPushButton("Edit…")
        edit.clicked.connect(self.edit_selected)
        delete = QPushButton("Delete")
        delete.clicked.connect(self.delete_selected)
        row.addWidget(edit)
        row.addWidget(delete)
        row.addStretch(1)
        v.addLayout(row)
        return page

    def _budget_tab(self) -> QWidget:
        page = QWidget()
        v = QVBoxLayout(page)
        form = QFormLayout()  # rows, not one line: the dock stays as narrow as the Properties it is tabbed with
        self.budget_coder = QComboBox()
        self.budget_coder.setObjectName("budget_coder")
        self.budget_from = QDoubleSpinBox()
        self.budget_to = QDoubleSpinBox()
        for spin, tip in ((self.budget_from, "observed from (s after the first frame)"),
                          (self.budget_to, "observed to (s); 0: the video's end")):
            spin.setRange(0, 10 ** 7)
            spin.setDecimals(3)
            spin.setSuffix(" s")
            spin.setToolTip(tip)
        form.addRow("Coder", self.budget_coder)
        form.addRow("From", self.budget_from)
        form.addRow("To (0: the end)", self.budget_to)
        v.addLayout(form)
        go = QPushButton("Update")
        go.clicked.connect(self.show_budget)
        v.addWidget(go)
        self.budget_note = QLabel("")
        self.budget_note.setObjectName("budget_note")
        self.budget_note.setWordWrap(True)
        self.budget_note.setMinimumHeight(2 * self.budget_note.fontMetrics().lineSpacing() + 4)  # two lines, never cut
        v.addWidget(self.budget_note)
        self.budget_table = _table(BUDGET_COLUMNS, "time_budget")
        v.addWidget(self.budget_table)
        return page

    def _coders_tab(self) -> QWidget:
        page = QWidget()
        v = QVBoxLayout(page)
        form = QFormLayout()
        self.coder_a, self.coder_b = QComboBox(), QComboBox()
        self.slice_s = QDoubleSpinBox()
        self.slice_s.setRange(0.001, 3600)
        self.slice_s.setDecimals(3)
        self.slice_s.setValue(1.0)
        self.slice_s.setSuffix(" s")
        self.tolerance = QDoubleSpinBox()
        self.tolerance.setRange(0, 3600)
        self.tolerance.setDecimals(3)
        self.tolerance.setValue(1.0)
        self.tolerance.setSuffix(" s")
        self.slice_s.setToolTip("Cohen's kappa and the Needleman-Wunsch identity compare the coders' codes every "
                                "slice")
        self.tolerance.setToolTip("two events match when their starts differ by at most this much")
        self.with_modifiers = QCheckBox("with modifiers")
        self.with_modifiers.setToolTip("a behaviour's code includes its modifiers")
        for combo in (self.coder_a, self.coder_b, self.budget_coder):
            combo.setMinimumContentsLength(8)
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        form.addRow("Coder A", self.coder_a)
        form.addRow("Coder B", self.coder_b)
        form.addRow("Slice", self.slice_s)
        form.addRow("Tolerance", self.tolerance)
        form.addRow("", self.with_modifiers)
        v.addLayout(form)
        go = QPushButton("Compare")
        go.setObjectName("compare_coders")
        go.clicked.connect(self.compare)
        v.addWidget(go)
        self.agreement_text = QPlainTextEdit()
        self.agreement_text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.agreement_text.setObjectName("agreement_text")
        self.agreement_text.setReadOnly(True)
        v.addWidget(self.agreement_text)
        return page

    # --- following the window --------------------------------------------------------------------
    def set_video(self, project: Project | None, media) -> None:  # noqa: ANN001 - a media row or None
        """Show the events of ``media`` (a video) of ``project``; anything else empties the panel."""
        if project is not self.project or media is None or self.media is None or media.id != self.media.id:
            self.agreement_text.clear()
            self.budget_table.setRowCount(0)
            self.budget_note.setText("")
        self.project = project
        self.media = media if media is not None and media.kind == "video" else None
        self.refresh()

    def refresh(self) -> None:
        """Read the events and the coders again (after an edit, an undo or another media)."""
        from fieldstudio.annotations.behaviour import behaviour_events

        self.events = []
        if self.project is not None and self.media is not None:
            self.events = behaviour_events.list_events(self.project, self.media.id)
        self._filled = False
        if self.isVisible() or not self.events:
            self._fill()

    def showEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        """The tables are filled when the dock is in front: a key press while the video plays (and the dock is
        behind another) costs only the events' read, which the lanes need anyway."""
        super().showEvent(event)
        if not self._filled:
            self._fill()

    def _fill(self) -> None:
        self._filled = True
        t = self.event_table
        t.setRowCount(len(self.events))
        for r, e in enumerate(self.events):
            stop = "running" if e.is_open else f"{e.end_frame_index}  {format_pts(e.stop_s)}"
            cells = (f"{e.frame_index}  {format_pts(e.start_s)}", "" if e.type == "point" else stop,
                     e.subject, e.behaviour, ", ".join(e.modifiers), e.coder)
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, e.id)
                t.setItem(r, c, item)
        coders = sorted({e.coder for e in self.events})
        for combo, items, index in ((self.budget_coder, [ALL_CODERS, *coders], 0), (self.coder_a, coders, 0),
                                    (self.coder_b, coders, 1)):
            keep = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(items)
            combo.setCurrentText(keep if keep in items else items[min(index, len(items) - 1)] if items else "")
            combo.blockSignals(False)
        if self.budget_table.rowCount() or self.budget_note.text():
            self.show_budget()

    def set_coding_line(self, text: str) -> None:
        """The line above the tabs: whether keys code, the current subject, the coder."""
        self.coding_label.setText(text)

    # --- events ----------------------------------------------------------------------------------
    def selected_event(self) -> BehaviourEvent | None:
        row = self.event_table.currentRow()
        return self.events[row] if 0 <= row < len(self.events) else None

    def _show_event(self, row: int, _col: int) -> None:
        if 0 <= row < len(self.events) and self.media is not None:
            self.open_frame.emit(self.media.id, self.events[row].frame_index)

    def _apply(self, edit: Edit) -> bool:
        try:
            self.apply_edit(edit)
        except FieldstudioError as exc:
            self.status.emit(str(exc))
            return False
        self.refresh()
        return True

    def edit_selected(self, *, dialog: EventEditDialog | None = None) -> None:
        """Edit… on the selected event (``dialog``: a filled one, for tests, accepted as is)."""
        from fieldstudio.annotations.behaviour import behaviour_events
        from fieldstudio.annotations.behaviour import ethogram as eth

        event = self.selected_event()
        if event is None or self.project is None:
            self.status.emit("choose an event first")
            return
        if dialog is None:
            subjects = [s.name for s in eth.load(self.project).subjects]
            dialog = EventEditDialog(event, subjects, max((self.media.frame_count or 1) - 1, 0), self)
            if dialog.exec() != QDialog.DialogCode.Accepted:
                return
        modifiers = tuple(m.strip() for m in dialog.modifiers.text().split(",") if m.strip())
        try:
            edit = behaviour_events.change_edit(
                self.project, event, frame_index=dialog.start.value(),
                end_frame_index=dialog.stop.value() if dialog.stop.isEnabled() else None,
                subject=dialog.subject.currentText(), modifiers=modifiers)
        except FieldstudioError as exc:
            self.status.emit(str(exc))
            return
        self._apply(edit)

    def delete_selected(self) -> None:
        from fieldstudio.annotations.edits import DeleteAnnotations

        event = self.selected_event()
        if event is None or self.project is None:
            self.status.emit("choose an event first")
            return
        self._apply(DeleteAnnotations(self.project, event.id, {event.id: event.version}))

    # --- time budget -----------------------------------------------------------------------------
    def show_budget(self) -> None:
        """Fill the time budget for the coder and interval chosen."""
        from fieldstudio.annotations.behaviour import observations

        self.budget_table.setRowCount(0)
        if self.project is None or self.media is None:
            self.budget_note.setText("show a video to see its time budget")
            return
        coder = self.budget_coder.currentText()
        try:
            result = observations.budget(self.project, self.media.id, start_s=self.budget_from.value() or None,
                                         end_s=self.budget_to.value() or None,
                                         coder=None if coder in ("", ALL_CODERS) else coder)
        except FieldstudioError as exc:
            self.budget_note.setText(str(exc))
            return
        self.budget_note.setText(f"observed {result.start_s:.3f} s to {result.end_s:.3f} s "
                                 f"({result.end_s - result.start_s:.3f} s)" + (f", coder {result.coder}"
                                                                               if result.coder else ", all coders"))
        self.budget_table.setRowCount(len(result.rows))
        for r, row in enumerate(result.rows):
            s, b, kind, n, total, mean, pct = row.cells()
            for c, v in enumerate((s or "-", b, kind, str(n), "" if total is None else f"{total:.3f}",
                                   "" if mean is None else f"{mean:.3f}", "" if pct is None else f"{pct:.2f}")):
                item = QTableWidgetItem(v)
                if c >= 3:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.budget_table.setItem(r, c, item)

    # --- coders ----------------------------------------------------------------------------------
    def compare(self) -> None:
        """Compare coder A with coder B on the video shown; the result's lines in the text box."""
        from fieldstudio.annotations.behaviour import observations

        if self.project is None or self.media is None:
            self.agreement_text.setPlainText("show a video coded by two coders first")
            return
        a, b = self.coder_a.currentText(), self.coder_b.currentText()
        if not a or not b or a == b:
            self.agreement_text.setPlainText("choose two different coders (each coder's events are the ones they "
                                             "recorded; import another coder's BORIS file to compare with it)")
            return
        try:
            result = observations.compare_coders(self.project, self.media.id, a, b, slice_s=self.slice_s.value(),
                                                 tolerance_s=self.tolerance.value(),
                                                 with_modifiers=self.with_modifiers.isChecked())
        except FieldstudioError as exc:
            self.agreement_text.setPlainText(str(exc))
            return
        self.agreement_text.setPlainText("\n".join(result.lines()))
