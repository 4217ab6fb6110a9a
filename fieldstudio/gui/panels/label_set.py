"""The label set dialog: the project's labels with colours and keys 1-9; add, rename, recolour, delete;
which kinds of mark (boxes, rulers, segments, events) each is offered for; the typed attributes of its boxes.

"Show" picks one kind's list (the keys 1-9 are per list) or every label; a label added is offered for
the kind shown (boxes when every label is shown). The colour column says the WCAG contrast ratio of the
caption text drawn on the label's colour (annotations/colours.py).

Every change is an undoable edit (``annotations.edits.CreateLabel`` / ``UpdateLabel`` / ``DeleteLabel``)
handed to ``apply_edit``; the rules (unique names, colours, a label in use cannot be deleted) are
``annotations.labels``'s, and its messages are shown in the dialog.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QColor, QKeySequence
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QColorDialog, QComboBox, QDialog, QDialogButtonBox,
                               QHBoxLayout, QHeaderView, QLabel, QLineEdit, QPushButton, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from fieldstudio.annotations import labels
from fieldstudio.annotations.colours import contrast_ratio, text_colour_for
from fieldstudio.annotations.edits import CreateLabel, DeleteLabel, Edit, UpdateLabel
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui.panels.edit_support import ERROR_STYLE, OK_STYLE, ApplyEdit, do_now, swatch
from fieldstudio.store.project import Project

KEY_COL, NAME_COL, USED_COL, KINDS_COL, ATTR_COL = 0, 1, 2, 3, 4
LABEL_ID_ROLE = Qt.ItemDataRole.UserRole + 1
KIND_NAMES = {"box": "Boxes", "ruler": "Rulers", "segment": "Segments", "event": "Events"}
TYPE_NAMES = {"bool": "yes/no", "choice": "choice", "number": "number", "text": "text"}


def describe_attributes(specs: tuple[labels.AttributeSpec, ...]) -> str:
    """``"vest (yes/no), colour (white|yellow)"`` for the table."""
    return ", ".join(f"{a.name} ({'|'.join(a.choices) if a.type == 'choice' else TYPE_NAMES[a.type]})" for a in specs)


class LabelSetDialog(QDialog):
    """Lists the labels (key, colour swatch and name, number of annotations using it) and edits them.

    ``kind`` shows that kind's list first (None: every label). Signals: ``labels_changed()`` after every
    change made here; ``status(str)`` for the status bar.
    Call :meth:`refresh` after an undo/redo of the window's stack.
    """

    labels_changed = Signal()
    status = Signal(str)

    def __init__(self, project: Project | None = None, apply_edit: ApplyEdit | None = None,
                 parent: QWidget | None = None, kind: str | None = None):
        super().__init__(parent)
        self.setWindowTitle("Labels")
        self.resize(760, 460)
        self.project: Project | None = None
        self._apply: ApplyEdit = apply_edit or do_now
        self._records: list[labels.LabelRecord] = []
        self._filling = False

        self.show_kind = QComboBox()
        self.show_kind.addItem("every label", None)
        for k, name in KIND_NAMES.items():
            self.show_kind.addItem(f"{name.lower()}' list", k)
        self.show_kind.setToolTip("Each kind of mark has its own label list and keys 1-9")
        self.table = QTableWidget(0, 5)
        self.table.setHorizontalHeaderLabels(["Key", "Label", "Used by", "Offered for", "Box attributes"])
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                   | QAbstractItemView.EditTrigger.EditKeyPressed)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(NAME_COL, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(KEY_COL, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(USED_COL, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(KINDS_COL, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(ATTR_COL, QHeaderView.ResizeMode.Stretch)
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
        self.attributes_button = QPushButton("Attributes…")
        self.attributes_button.setToolTip("Typed fields (yes/no, choice, number, text) the box editor shows "
                                          "for boxes of the selected label")
        self.kind_boxes = {k: QCheckBox(name) for k, name in KIND_NAMES.items()}
        for k, box in self.kind_boxes.items():
            box.setToolTip(f"Offer the selected label in the {KIND_NAMES[k].lower()}' list")
            box.toggled.connect(lambda _on: self._kinds_toggled())
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
        for b in (self.add_button, self.rename_button, self.colour_button, self.attributes_button,
                  self.delete_button):
            b.setAutoDefault(False)
            row.addWidget(b)
        show_row = QHBoxLayout()
        show_row.addWidget(QLabel("Show"))
        show_row.addWidget(self.show_kind)
        show_row.addStretch(1)
        kinds_row = QHBoxLayout()
        kinds_row.addWidget(QLabel("Offered for:"))
        for box in self.kind_boxes.values():
            kinds_row.addWidget(box)
        kinds_row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(show_row)
        layout.addWidget(self.table, 1)
        layout.addLayout(row)
        layout.addLayout(kinds_row)
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
        self.attributes_button.clicked.connect(self.edit_attributes)
        self.show_kind.currentIndexChanged.connect(lambda _i: self.refresh())
        self.delete_button.clicked.connect(self.delete_selected)
        self.colour_dialog.colorSelected.connect(self._colour_chosen)
        self.table.itemChanged.connect(self._item_changed)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        if kind is not None:  # opened from a tool: its list first
            self.show_kind.setCurrentIndex(max(0, self.show_kind.findData(kind)))
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
        kind = self.show_kind.currentData()
        self._records = labels.list_labels(self.project, kind) if self.project is not None else []
        self._filling = True
        try:
            self.table.setRowCount(len(self._records))
            for i, rec in enumerate(self._records):
                key = QTableWidgetItem(str(rec.shortcut) if rec.shortcut else "")
                key.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                key.setFlags(key.flags() & ~Qt.ItemFlag.ItemIsEditable)
                name = QTableWidgetItem(swatch(rec.color), rec.name)
                name.setData(LABEL_ID_ROLE, rec.id)
                ink = text_colour_for(rec.color[:7])
                name.setToolTip(f"{rec.name}: colour {rec.color}" + (f", key {rec.shortcut}" if rec.shortcut else "")
                                + f"; captions in {'black' if ink == '#000000' else 'white'} on it, contrast "
                                  f"{contrast_ratio(rec.color[:7], ink):.1f}:1 (WCAG asks 4.5:1)")
                kinds = QTableWidgetItem("every kind" if rec.kinds is None else
                                         ", ".join(KIND_NAMES.get(k, k).lower() for k in rec.kinds))
                kinds.setFlags(kinds.flags() & ~Qt.ItemFlag.ItemIsEditable)
                attrs = QTableWidgetItem(describe_attributes(rec.attributes))
                attrs.setFlags(attrs.flags() & ~Qt.ItemFlag.ItemIsEditable)
                used = QTableWidgetItem(str(labels.label_use_count(self.project, rec.id)))
                used.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                used.setFlags(used.flags() & ~Qt.ItemFlag.ItemIsEditable)
                self.table.setItem(i, KEY_COL, key)
                self.table.setItem(i, NAME_COL, name)
                self.table.setItem(i, USED_COL, used)
                self.table.setItem(i, KINDS_COL, kinds)
                self.table.setItem(i, ATTR_COL, attrs)
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
        kind = self.show_kind.currentData() or "box"
        edit = CreateLabel(self.project, self.name_edit.text(), kinds=[kind])
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

    def set_kinds(self, kinds: list[str]) -> None:
        """Offer the selected label for ``kinds`` (one at least)."""
        rec = self.selected_label()
        if rec is None or self.project is None:
            return
        if self._run(UpdateLabel(self.project, rec.id, kinds=kinds),
                     f"{rec.name!r} is offered for {', '.join(kinds) or 'nothing'}"):
            self.refresh(select_id=rec.id)
        else:
            self._selection_changed()

    def edit_attributes(self) -> None:
        """The selected label's typed box attributes, in a small table dialog."""
        rec = self.selected_label()
        if rec is None or self.project is None:
            self._say("Select a label to declare its attributes", error=True)
            return
        dialog = AttributeSpecDialog(rec, self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self.set_attributes(dialog.specs())

    def set_attributes(self, specs: list[labels.AttributeSpec]) -> None:
        """Declare ``specs`` as the selected label's box attributes."""
        rec = self.selected_label()
        if rec is None or self.project is None:
            return
        if self._run(UpdateLabel(self.project, rec.id, attributes=specs),
                     f"{rec.name!r} boxes have {len(specs)} typed attribute(s)"):
            self.refresh(select_id=rec.id)

    # -- internals ----------------------------------------------------------------------------------
    def _kinds_toggled(self) -> None:
        if self._filling:
            return
        self.set_kinds([k for k, box in self.kind_boxes.items() if box.isChecked()])

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
        for b in (self.rename_button, self.colour_button, self.attributes_button, self.delete_button,
                  *self.kind_boxes.values()):
            b.setEnabled(rec is not None)
        filling, self._filling = self._filling, True
        for kind, box in self.kind_boxes.items():
            box.setChecked(rec is not None and (rec.kinds is None or kind in rec.kinds))
        self._filling = filling
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


class AttributeSpecDialog(QDialog):
    """The typed attributes of one label's boxes: a row per attribute with its name, type and choices."""

    def __init__(self, record: labels.LabelRecord, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(f"Attributes of {record.name} boxes")
        self.resize(520, 300)
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Name", "Type", "Choices (for a choice: a | b | c)"])
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().hide()
        for spec in record.attributes:
            self.add_row(spec.name, spec.type, " | ".join(spec.choices))
        add = QPushButton("Add attribute")
        add.clicked.connect(lambda: self.add_row("", "bool", ""))
        remove = QPushButton("Remove")
        remove.clicked.connect(lambda: self.table.removeRow(self.table.currentRow()))
        self.error = QLabel("")
        self.error.setStyleSheet(ERROR_STYLE)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        row = QHBoxLayout()
        row.addWidget(add)
        row.addWidget(remove)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addLayout(row)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def add_row(self, name: str, type_: str, choices: str) -> None:
        r = self.table.rowCount()
        self.table.insertRow(r)
        self.table.setItem(r, 0, QTableWidgetItem(name))
        kind = QComboBox()
        for t, text in TYPE_NAMES.items():
            kind.addItem(text, t)
        kind.setCurrentIndex(max(0, kind.findData(type_)))
        self.table.setCellWidget(r, 1, kind)
        self.table.setItem(r, 2, QTableWidgetItem(choices))

    def specs(self) -> list[labels.AttributeSpec]:
        """The rows as checked declarations. Raises LabelError (labels.parse_attribute_specs)."""
        out = []
        for r in range(self.table.rowCount()):
            name = (self.table.item(r, 0).text() if self.table.item(r, 0) else "").strip()
            choices = self.table.item(r, 2).text() if self.table.item(r, 2) else ""
            if not name and not choices.strip():
                continue
            out.append(labels.AttributeSpec(name, self.table.cellWidget(r, 1).currentData(),
                                            tuple(c.strip() for c in choices.split("|") if c.strip())))
        return labels.parse_attribute_specs(out)

    def accept(self) -> None:
        try:
            self.specs()
        except FieldstudioError as exc:
            self.error.setText(str(exc))
            return
        super().accept()
