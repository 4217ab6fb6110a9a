"""The Behaviour dock: the coded events of the video shown, its time budget, and two coders compared.

Three tabs over the Qt-free services of ``annotations/behaviour`` (the CLI's ``fieldstudio ethogram`` calls the
same): **Events** lists the chosen coder's events (every coder's with "(all coders)" ticked; start and stop as
frame and PTS time, subject, behaviour, modifiers, coder);
double-click shows its start frame, Edit… changes its frames, subject or modifiers, Delete removes it, each one
undoable edit through ``apply_edit``. **Time budget** shows count, total and mean duration and % of the observed
time per subject and behaviour, over the video or a chosen interval, for one coder (the chosen one by default; two
coders' records are never added together), computed when the tab comes in front. **Coders** compares two
coders: Cohen's kappa per time slice and events matched within a tolerance.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from collections.abc import Iterable

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox,
                               QFormLayout, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QPlainTextEdit, QPushButton,
                               QSpinBox, QTableView, QTableWidget, QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget)

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui.panels.behaviour_event_model import EventTableModel

if TYPE_CHECKING:
    from fieldstudio.annotations.behaviour.behaviour_events import BehaviourEvent
    from fieldstudio.store.edits import Edit
    from fieldstudio.store.project import Project

BUDGET_COLUMNS = ("Subject", "Behaviour", "Type", "N", "Total s", "Mean s", "%")
BUDGET_TIPS = ("", "", "state or point event", "number of events", "total duration in seconds (state events)",
               "mean duration in seconds (state events)", "% of the observed time (state events)")
# a dock about 250 px wide: subject, behaviour, total and % come first and fit without scrolling; the type is in
# the behaviour's tooltip, its column hidden
BUDGET_VISUAL_ORDER = (0, 1, 4, 6, 3, 5, 2)
ALL_CODERS = "(all coders)"
BUDGET_IDLE_MS = 300  # the shown time budget is computed again this long after the last key press


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
    """The dock's widget. ``set_video(project, media)`` follows the media shown; ``refresh()`` re-reads every
    event, ``update_events(ids)`` only those one edit touched (a key press while coding).

    Signals: ``open_frame(media_id, frame_index)`` (double-click), ``status(str)``, ``coder_chosen(name)`` (the
    Coder chooser: a name picked or typed, Enter).
    """

    open_frame = Signal(str, int)
    status = Signal(str)
    coder_chosen = Signal(str)

    def __init__(self, apply_edit: Callable[[Edit], None], parent: QWidget | None = None):
        super().__init__(parent)
        self.apply_edit = apply_edit
        self.project: Project | None = None
        self.media = None  # the media shown (a store row), or None
        self.model = EventTableModel(self)
        self._coders: list[str] = []  # the coders of the video's events, as the choosers list them
        self._video_coders: set[str] = set()
        self._chosen = ""  # the Coder chooser's coder (``offer_coders``)
        # the time budget shown is computed again after a short idle, and only while its tab is in front
        self._budget_stale = True  # computed when its tab first comes in front
        self._budget_timer = QTimer(self)
        self._budget_timer.setSingleShot(True)
        self._budget_timer.setInterval(BUDGET_IDLE_MS)
        self._budget_timer.timeout.connect(self._budget_if_shown)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.coding_label = QLabel("")
        self.coding_label.setObjectName("coding_label")
        self.coding_label.setWordWrap(True)
        layout.addWidget(self.coding_label)
        row = QHBoxLayout()
        row.addWidget(QLabel("Coder:"))
        self.coder_choice = QComboBox()
        self.coder_choice.setObjectName("coder_chooser")
        self.coder_choice.setEditable(True)
        self.coder_choice.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)  # the window keeps the list
        self.coder_choice.setToolTip("Who the keys record events for (each event's coder): the coders chosen "
                                     "before and this video's, or type a new name and press Enter. The Coders "
                                     "tab compares this coder with another")
        self.coder_choice.activated.connect(lambda _i: self.coder_chosen.emit(self.coder_choice.currentText()))
        self.coder_choice.lineEdit().returnPressed.connect(
            lambda: self.coder_chosen.emit(self.coder_choice.currentText()))
        row.addWidget(self.coder_choice, 1)
        layout.addLayout(row)
        self.tabs = QTabWidget()
        layout.addWidget(self.tabs)
        self.tabs.addTab(self._events_tab(), "Events")
        self.tabs.addTab(self._budget_tab(), "Time budget")
        self.tabs.addTab(self._coders_tab(), "Coders")
        self.tabs.currentChanged.connect(lambda _i: self._budget_if_shown())

    # --- building --------------------------------------------------------------------------------
    def _events_tab(self) -> QWidget:
        page = QWidget()
        v = QVBoxLayout(page)
        # a model view: a key press inserts or changes one row, whatever the number of events coded
        self.event_table = QTableView()
        self.event_table.setObjectName("behaviour_events")
        self.event_table.setModel(self.model)
        self.event_table.verticalHeader().setVisible(False)
        self.event_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.event_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.event_table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.event_table.horizontalHeader()
        # widths measured once per video on the first rows, never per row inserted (ResizeToContents would measure
        # every row on each insert)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setResizeContentsPrecision(50)
        header.setStretchLastSection(True)
        # shown first (the model's order is kept): in a dock about 250 px wide who did what is seen without scrolling
        header.moveSection(header.visualIndex(2), 0)
        header.moveSection(header.visualIndex(3), 1)
        self.event_table.setWordWrap(False)  # one line per event, every row the same height
        self.event_table.doubleClicked.connect(self._show_event)
        v.addWidget(self.event_table)
        self.all_coders = QCheckBox(ALL_CODERS)
        self.all_coders.setObjectName("all_coders")
        self.all_coders.setToolTip("list every coder's events (the Coder column says whose); the lanes always show "
                                   "the chosen coder's")
        self.all_coders.toggled.connect(lambda _on: self.refresh())
        v.addWidget(self.all_coders)  # on its own line: beside the buttons it widened the dock, and so the window
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
        for c, tip in enumerate(BUDGET_TIPS):
            self.budget_table.horizontalHeaderItem(c).setToolTip(tip)
        header = self.budget_table.horizontalHeader()
        for visual, logical in enumerate(BUDGET_VISUAL_ORDER):
            header.moveSection(header.visualIndex(logical), visual)
        self.budget_table.setColumnHidden(2, True)
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
            self._budget_stale = True
        self.project = project
        self.media = media if media is not None and media.kind == "video" else None
        self.refresh()

    @property
    def events(self) -> list[BehaviourEvent]:
        """The events listed (the chosen coder's, or every coder's), in the list's order (start frame, then
        creation)."""
        return self.model.events

    @property
    def coder_events(self) -> list[BehaviourEvent]:
        """The chosen coder's events of the video shown, in the list's order: what the lanes draw."""
        return [e for e in self.model.events if e.coder == self._chosen]

    def coder_events_of(self, subjects: set[str]) -> list[BehaviourEvent]:
        """``coder_events`` of ``subjects`` only (one pass: the lanes of the subjects a key press touched)."""
        return [e for e in self.model.events if e.subject in subjects and e.coder == self._chosen]

    def choose(self, coder: str) -> None:
        """Whose events the table (unless "(all coders)"), the lanes and the time budget show; read at the next
        :meth:`refresh`."""
        self._chosen = coder

    def _shown(self, read: list[BehaviourEvent]) -> list[BehaviourEvent]:
        return read if self.all_coders.isChecked() else [e for e in read if e.coder == self._chosen]

    def refresh(self) -> None:
        """Read every event and the coders again (another media, or an edit that does not name its rows)."""
        from fieldstudio.annotations.behaviour import behaviour_events

        events = []
        self._video_coders = set()
        if self.project is not None and self.media is not None:
            everyone = self.all_coders.isChecked()
            events = behaviour_events.list_events(self.project, self.media.id,
                                                  coder=None if everyone else self._chosen)
            self._video_coders = set(behaviour_events.coders(self.project, self.media.id))
        self.model.set_events(events)
        if events:
            self.event_table.resizeColumnsToContents()
            # the first rows measured: the frame and time columns as wide as the video's last frame needs
            last = max((self.media.frame_count or 1) - 1, 0)
            widest = self.event_table.fontMetrics().horizontalAdvance(f"{last}  00:00:00.000") + 16
            table, header = self.event_table, self.event_table.horizontalHeader()
            # Start and Stop both in view beside Subject and Behaviour in a narrow dock on show: their times give
            # way (elided; the frame number comes first), then long names (elided, whole in their tooltips)
            least = table.fontMetrics().horizontalAdvance(f"{last}…") + 16
            view = table.viewport().width() if table.isVisible() else 10 ** 6
            names = header.sectionSize(2) + header.sectionSize(3)
            if view - names < 2 * least:
                for column in (2, 3):
                    table.setColumnWidth(column, max(40, header.sectionSize(column) * (view - 2 * least) // names))
                names = header.sectionSize(2) + header.sectionSize(3)
            room = (view - names) // 2
            for column in (0, 1):
                table.setColumnWidth(column, max(min(max(table.columnWidth(column), widest), room), least))
        self._follow_coders()
        self._budget_changed()

    def update_events(self, ids: Iterable[str], read: list[BehaviourEvent] | None = None) -> set[str]:
        """Read again only the events ``ids`` (those one edit created, changed or deleted: a key press, an undo)
        and change their rows; the subjects whose events changed. ``read``: those of ``ids`` that are live on the
        video, as already read back by the edit's own transaction (a key press), instead of reading them here."""
        from fieldstudio.annotations.behaviour import behaviour_events

        if self.project is None or self.media is None:
            return set()
        ids = list(ids)
        if read is None:
            read = behaviour_events.events_with_ids(self.project, self.media.id, ids)
        else:
            read = [e for e in read if e.media_id == self.media.id]
        self._video_coders |= {e.coder for e in read}
        subjects = self.model.update(ids, self._shown(read))
        if subjects or not self._video_coders <= set(self._coders):
            self._follow_coders()
            self._budget_changed()
        return subjects

    def _follow_coders(self) -> None:
        coders = sorted(self._video_coders)
        if coders == self._coders:
            return
        self._coders = coders
        for combo, items, index in ((self.budget_coder, coders, 0), (self.coder_a, coders, 0),
                                    (self.coder_b, coders, 1)):
            keep = combo.currentText()
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(items)
            combo.setCurrentText(keep if keep in items else items[min(index, len(items) - 1)] if items else "")
            combo.blockSignals(False)
        self._compare_chosen()

    def _budget_changed(self) -> None:
        """The events changed: a time budget on show is computed again once the keys pause (and its tab is in
        front); one never shown is not computed at all."""
        if self.budget_table.rowCount() or self.budget_note.text():
            self._budget_stale = True
            self._budget_timer.start()

    def _budget_if_shown(self) -> None:
        if self._budget_stale and self.isVisible() and self.tabs.currentIndex() == 1 and self.media is not None:
            self.show_budget()

    def showEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        """A time budget that went stale while the dock was behind another is computed when it comes in front."""
        super().showEvent(event)
        self._budget_if_shown()

    def offer_coders(self, names: list[str], current: str) -> None:
        """The Coder chooser lists ``names`` (recent first) with ``current`` chosen; the Coders tab compares
        ``current`` (coder A) with another coder of the video (coder B) when it has coded this video."""
        self.coder_choice.blockSignals(True)
        self.coder_choice.clear()
        self.coder_choice.addItems(names)
        self.coder_choice.setCurrentText(current)
        self.coder_choice.blockSignals(False)
        changed = current != self._chosen
        self._chosen = current
        if changed:
            self.refresh()
        self._compare_chosen()

    def _compare_chosen(self) -> None:
        """Coder A and the time budget's coder are the coder chosen (when they coded this video), coder B another
        coder."""
        if self._chosen in self._coders:
            if self.budget_coder.currentText() != self._chosen:
                self.budget_coder.setCurrentText(self._chosen)
                self._budget_stale = True
                self._budget_if_shown()
            self.coder_a.setCurrentText(self._chosen)
            if self.coder_b.currentText() == self._chosen:
                self.coder_b.setCurrentText(next((c for c in self._coders if c != self._chosen), self._chosen))

    @property
    def video_coders(self) -> list[str]:
        """The coders of the video shown's events, sorted."""
        return list(self._coders)

    def set_coding_line(self, text: str) -> None:
        """The line above the tabs: whether keys code, the current subject, the coder."""
        self.coding_label.setText(text)

    # --- events ----------------------------------------------------------------------------------
    def selected_event(self) -> BehaviourEvent | None:
        row = self.event_table.currentIndex().row()
        return self.events[row] if 0 <= row < len(self.events) else None

    def select_row(self, row: int) -> None:
        """Make ``row`` of the events the current one (as a click on it)."""
        self.event_table.setCurrentIndex(self.model.index(row, 0))

    def _show_event(self, index: QModelIndex) -> None:
        row = index.row()
        if 0 <= row < len(self.events) and self.media is not None:
            self.open_frame.emit(self.media.id, self.events[row].frame_index)

    def _apply(self, edit: Edit) -> bool:
        try:
            self.apply_edit(edit)  # the window's edits tell the panel which rows changed (update_events)
        except FieldstudioError as exc:
            self.status.emit(str(exc))
            return False
        return True

    def edit_selected(self, *, dialog: EventEditDialog | None = None) -> None:
        """Edit… on the selected event (``dialog``: a filled one, for tests, accepted as is)."""
        from fieldstudio.annotations.behaviour import ethogram as eth
        from fieldstudio.annotations.behaviour import state_overlap

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
            edit = state_overlap.change_edit(
                self.project, eth.load(self.project), event, frame_index=dialog.start.value(),
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

        self._budget_stale = False
        self.budget_table.setRowCount(0)
        if self.project is None or self.media is None:
            self.budget_note.setText("show a video to see its time budget")
            return
        coder = self.budget_coder.currentText()
        try:
            result = observations.budget(self.project, self.media.id, start_s=self.budget_from.value() or None,
                                         end_s=self.budget_to.value() or None,
                                         coder=coder or None)
        except FieldstudioError as exc:
            self.budget_note.setText(str(exc))
            return
        self.budget_note.setText(f"observed {result.start_s:.3f} s to {result.end_s:.3f} s "
                                 f"({result.end_s - result.start_s:.3f} s)" + (f", coder {result.coder}"
                                                                               if result.coder else ", no events"))
        self.budget_table.setRowCount(len(result.rows))
        for r, row in enumerate(result.rows):
            s, b, kind, n, total, mean, pct = row.cells()
            for c, v in enumerate((s or "-", b, kind, str(n), "" if total is None else f"{total:.3f}",
                                   "" if mean is None else f"{mean:.3f}", "" if pct is None else f"{pct:.2f}")):
                item = QTableWidgetItem(v)
                if c >= 3:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                elif c == 1:
                    item.setToolTip(f"{v}: {kind} event")
                elif c == 0:
                    item.setToolTip(v)
                self.budget_table.setItem(r, c, item)
        self._fit_budget_names()

    def _fit_budget_names(self) -> None:
        """Long subject or behaviour names are elided (whole in their tooltips) so that Total and % stay in
        view without scrolling the dock sideways."""
        table, header = self.budget_table, self.budget_table.horizontalHeader()
        for c in (0, 1):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        table.resizeColumnsToContents()
        room = table.viewport().width() - header.sectionSize(4) - header.sectionSize(6)
        names = header.sectionSize(0) + header.sectionSize(1)
        if names <= room:
            return
        for c in (0, 1):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.Interactive)
            table.setColumnWidth(c, max(40, header.sectionSize(c) * room // names))

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
