"""The label set dialog: the project's labels with colours and keys 1-9; add, rename, recolour, delete.

Every change is an undoable edit (``annotations.edits.CreateLabel`` / ``UpdateLabel`` / ``DeleteLabel``)
handed to ``apply_edit``; the rules (unique names, colours, a label in use cannot be deleted) are
``annotations.labels``'s, and its messages are shown in the dialog.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QColor, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QColorDialog, QDialog, QDialogButtonBox, QHBoxLayout,
                               QHeaderView, QLabel, QLineEdit, QPushButton, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from fieldstudio.annotations import labels
from fieldstudio.annotations.edits import CreateLabel, DeleteLabel, Edit, UpdateLabel
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui.panels.edit_support import ERROR_STYLE, OK_STYLE, ApplyEdit, do_now, swatch
from fieldstudio.store.project import Project

KEY_COL, NAME_COL, USED_COL = 0, 1, 2
LABEL_ID_ROLE = Qt.ItemDataRole.UserRole + 1


class LabelSetDialog(QDialog):
    """Lists the labels (key, colour swatch and name, number of annotations using it) and edits them.

    Signals: ``labels_changed()`` after every change made here; ``status(str)`` for the status bar.
    Call :meth:`refresh` after an undo/redo of the window's stack.
    """

    labels_changed = Signal()
    status = Signal(str)

    def __init__(self, project: Project | None = None, apply_edit: ApplyEdit | None = None,
                 parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Labels")
        self.resize(560, 420)
        self.project: Project | None = None
        self._apply: ApplyEdit = apply_edit or do_now
        self._records: list[labels.LabelRecord] = []
        self._filling = False

        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Key", "Label", "Used by"])
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                   | QAbstractItemView.EditTrigger.EditKeyPressed)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(NAME_COL, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(KEY_COL, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(USED_COL, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setToolTip("Keys 1-9 pick a label while annotating. Double-click or F2 renames.")

        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("Label name, e.g. forklift")
        self.name_edit.setMinimumWidth(180)
        self.add_button = QPushButton("Add")
        self.add_button.setToolTip("Add a label with this name (Enter in the name field)")
        self.rename_button = QPushButton("Rename")
        self.rename_button.setToolTip("Give the selected label the name typed on the left")
        self.colour_button = QPushButton("Colour…")
        self.colour_button.setToolTip("Choose the selected label's colour")
        self.delete_button = QPushButton("Delete")
        self.delete_button.setToolTip("Delete the selected label (only when no annotation uses it) (Delete)")
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setObjectName("label_set_message")
        self.colour_dialog = QColorDialog(self)
        self.colour_dialog.setOption(QColorDialog.ColorDialogOption.DontUseNativeDialog, True)
        self.colour_dialog.setWindowTitle("Label colour")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)
        for b in buttons.buttons():   # Enter in the name field adds a label; it must not close the dialog
            b.setAutoDefault(False)
            b.setDefault(False)

        row = QHBoxLayout()
        row.addWidget(self.name_edit, 1)
        for b in (self.add_button, self.rename_button, self.colour_button, self.delete_button):
            b.setAutoDefault(False)
            row.addWidget(b)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addLayout(row)
        layout.addWidget(self.message)
        layout.addWidget(buttons)

        delete_action = QAction("Delete label", self.table)
        delete_action.setShortcut(QKeySequence(Qt.Key.Key_Delete))
        delete_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        delete_action.triggered.connect(self.delete_selected)
        self.table.addAction(delete_action)

        self.add_button.clicked.connect(self.add_label)
        self.name_edit.returnPressed.connect(self.add_label)
        self.rename_button.clicked.connect(lambda: self.rename_selected(self.name_edit.text()))
        self.colour_button.clicked.connect(self.choose_colour)
        self.delete_button.clicked.connect(self.delete_selected)
        self.colour_dialog.colorSelected.connect(self._colour_chosen)
        self.table.itemChanged.connect(self._item_changed)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.set_project(project)

    # -- wiring -------------------------------------------------------------------------------------
    def set_apply_edit(self, apply_edit: ApplyEdit | None) -> None:
        """Where edits go (the window's undo stack); None does them without undo."""
        self._apply = apply_edit or do_now

    def set_project(self, project: Project | None) -> None:
        """Show ``project``'s labels (None empties the dialog)."""
        self.project = project
        self.refresh()

    def selected_label(self) -> labels.LabelRecord | None:
        """The label of the selected row, or None."""
        rows = {i.row() for i in self.table.selectedIndexes()}
        return self._records[min(rows)] if rows else None

    def refresh(self, select_id: str | None = None) -> None:
        """Re-read the labels (after an undo, or a change elsewhere), keeping the selection."""
        current = select_id or (self.selected_label().id if self.selected_label() else None)
        self._records = labels.list_labels(self.project) if self.project is not None else []
        self._filling = True
        try:
            self.table.setRowCount(len(self._records))
            for i, rec in enumerate(self._records):
                key = QTableWidgetItem(str(rec.shortcut) if rec.shortcut else "")
                key.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                key.setFlags(key.flags() & ~Qt.ItemFlag.ItemIsEditable)
                name = QTableWidgetItem(swatch(rec.color), rec.name)
                name.setData(LABEL_ID_ROLE, rec.id)
                name.setToolTip(f"{rec.name}: colour {rec.color}" + (f", key {rec.shortcut}" if rec.shortcut else ""))
                used = QTableWidgetItem(str(labels.label_use_count(self.project, rec.id)))
                used.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                used.setFlags(used.flags() & ~Qt.ItemFlag.ItemIsEditable)
                self.table.setItem(i, KEY_COL, key)
                self.table.setItem(i, NAME_COL, name)
                self.table.setItem(i, USED_COL, used)
                if rec.id == current:
                    self.table.selectRow(i)
        finally:
            self._filling = False
        self._selection_changed()

    # -- actions ------------------------------------------------------------------------------------
    def add_label(self) -> None:
        """Add a label named as typed (next palette colour, lowest free key)."""
        if self.project is None:
            return
        edit = CreateLabel(self.project, self.name_edit.text())
        if self._run(edit, f"Added label {self.name_edit.text().strip()!r}"):
            self.name_edit.clear()
            self.refresh(select_id=edit.label_id)

    def rename_selected(self, name: str) -> None:
        """Rename the selected label to ``name``."""
        rec = self.selected_label()
        if rec is None or self.project is None:
            self._say("Select a label to rename", error=True)
            return
        if name.strip() == rec.name:
            return
        self._run(UpdateLabel(self.project, rec.id, name=name), f"Renamed {rec.name!r} to {name.strip()!r}")
        self.refresh(select_id=rec.id)

    def choose_colour(self) -> None:
        """Open the colour chooser for the selected label (non-modal; ``colorSelected`` applies it)."""
        rec = self.selected_label()
        if rec is None:
            self._say("Select a label to recolour", error=True)
            return
        self.colour_dialog.setCurrentColor(QColor(rec.color[:7]))
        self.colour_dialog.open()

    def recolour_selected(self, color: str) -> None:
        """Give the selected label the colour ``#rrggbb``."""
        rec = self.selected_label()
        if rec is None or self.project is None:
            return
        self._run(UpdateLabel(self.project, rec.id, color=color), f"{rec.name!r} is now {color}")
        self.refresh(select_id=rec.id)

    def delete_selected(self) -> None:
        """Delete the selected label; refused with store.labels's message while annotations use it."""
        rec = self.selected_label()
        if rec is None or self.project is None:
            self._say("Select a label to delete", error=True)
            return
        if self._run(DeleteLabel(self.project, rec.id), f"Deleted label {rec.name!r}"):
            self.refresh()

    # -- internals ----------------------------------------------------------------------------------
    def _colour_chosen(self, colour: QColor) -> None:
        if colour.isValid():
            self.recolour_selected(colour.name())

    def _item_changed(self, item: QTableWidgetItem) -> None:
        if self._filling or item.column() != NAME_COL:
            return
        rec = self._records[item.row()]
        if item.text().strip() != rec.name:
            self.table.selectRow(item.row())
            self.rename_selected(item.text())

    def _selection_changed(self) -> None:
        rec = self.selected_label()
        for b in (self.rename_button, self.colour_button, self.delete_button):
            b.setEnabled(rec is not None)
        if rec is not None and not self.name_edit.hasFocus():
            self.name_edit.setText(rec.name)
            self.name_edit.selectAll()

    def _run(self, edit: Edit, done_text: str) -> bool:
        try:
            self._apply(edit)
        except FieldstudioError as exc:
            self._say(str(exc), error=True)
            return False
        self._say(done_text)
        self.labels_changed.emit()
        return True

    def _say(self, text: str, *, error: bool = False) -> None:
        self.message.setStyleSheet(ERROR_STYLE if error else OK_STYLE)
        self.message.setText(text)
        self.status.emit(text)
