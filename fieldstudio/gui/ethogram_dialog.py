"""Annotate ▸ Ethogram…: the project's behaviours and subjects in two tables, edited in place.

Behaviours: name, key, type (state / point), colour, exclusive group, modifiers (comma-separated); subjects: name,
key. "Import from BORIS…" fills the tables from a BORIS project file. OK stores the whole ethogram as one undoable
edit (``annotations.behaviour.ethogram.SetEthogram`` through ``apply_edit``); a table that does not hold together
(a key used twice, a bad colour) is refused with the reason and the dialog stays open.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFileDialog, QHBoxLayout, QHeaderView, QLabel,
                               QPushButton, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from fieldstudio.annotations.behaviour import ethogram as eth
from fieldstudio.core.errors import FieldstudioError

if TYPE_CHECKING:
    from fieldstudio.store.edits import Edit
    from fieldstudio.store.project import Project

BEHAVIOUR_COLUMNS = ("Name", "Key", "Type", "Colour", "Exclusive group", "Modifiers")
SUBJECT_COLUMNS = ("Name", "Key")


class EthogramDialog(QDialog):
    """The ethogram of ``project``; OK applies it with ``apply_edit`` (raising FieldstudioError to refuse)."""

    def __init__(self, project: Project, apply_edit: Callable[[Edit], None], parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Ethogram")
        self.setObjectName("ethogram_dialog")
        self.project, self.apply_edit = project, apply_edit
        self.resize(760, 480)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Behaviours: a key codes each one while the video plays or is stepped (Annotate ▸ "
                                "Code behaviours). A state lasts until its key again or an exclusive one starts."))
        self.behaviours = self._table(BEHAVIOUR_COLUMNS, "behaviours")
        self.behaviours.itemChanged.connect(lambda item: item.column() == 3 and self._paint_colour(item.row()))
        layout.addWidget(self.behaviours, 3)
        layout.addLayout(self._buttons(self.behaviours, "behaviour", self.add_behaviour_row))
        layout.addWidget(QLabel("Subjects: a subject's key makes it the one the next behaviour keys code for."))
        self.subjects = self._table(SUBJECT_COLUMNS, "subjects")
        layout.addWidget(self.subjects, 2)
        layout.addLayout(self._buttons(self.subjects, "subject", self.add_subject_row))
        self.error = QLabel("")
        self.error.setObjectName("ethogram_error")
        self.error.setStyleSheet("color: #d93025")
        self.error.setWordWrap(True)
        layout.addWidget(self.error)
        bottom = QHBoxLayout()
        boris = QPushButton("Import from BORIS…")
        boris.setToolTip("Replace the tables with the ethogram of a BORIS project file (.boris)")
        boris.clicked.connect(self.import_boris_dialog)
        bottom.addWidget(boris)
        bottom.addStretch(1)
        box = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        box.accepted.connect(self.accept)
        box.rejected.connect(self.reject)
        bottom.addWidget(box)
        layout.addLayout(bottom)
        self.show_ethogram(eth.load(project))

    # --- the tables ------------------------------------------------------------------------------
    @staticmethod
    def _table(columns: tuple[str, ...], name: str) -> QTableWidget:
        table = QTableWidget(0, len(columns))
        table.setObjectName(f"ethogram_{name}")
        table.setHorizontalHeaderLabels(columns)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        table.horizontalHeader().setStretchLastSection(True)
        table.verticalHeader().setVisible(False)
        return table

    @staticmethod
    def _buttons(table: QTableWidget, what: str, add: Callable[[], None]) -> QHBoxLayout:
        row = QHBoxLayout()
        plus = QPushButton(f"Add {what}")
        plus.clicked.connect(lambda: add())
        minus = QPushButton(f"Remove {what}")
        minus.clicked.connect(lambda: table.removeRow(table.currentRow()) if table.currentRow() >= 0 else None)
        row.addWidget(plus)
        row.addWidget(minus)
        row.addStretch(1)
        return row

    def add_behaviour_row(self, b: eth.Behaviour | None = None) -> int:
        """A row for ``b`` (an empty state behaviour with the next palette colour when None); its index."""
        n = self.behaviours.rowCount()
        b = b or eth.Behaviour("", "", eth.PALETTE[n % len(eth.PALETTE)])
        self.behaviours.insertRow(n)
        for col, text in enumerate((b.name, b.key, None, b.colour, b.group, ", ".join(b.modifiers))):
            if text is not None:
                self.behaviours.setItem(n, col, QTableWidgetItem(text))
        kind = QComboBox()
        kind.addItems(["state", "point"])
        kind.setCurrentText(b.type)
        self.behaviours.setCellWidget(n, 2, kind)
        self._paint_colour(n)
        return n

    def add_subject_row(self, s: eth.Subject | None = None) -> int:
        n = self.subjects.rowCount()
        s = s or eth.Subject("")
        self.subjects.insertRow(n)
        self.subjects.setItem(n, 0, QTableWidgetItem(s.name))
        self.subjects.setItem(n, 1, QTableWidgetItem(s.key))
        return n

    def _paint_colour(self, row: int) -> None:
        item = self.behaviours.item(row, 3)
        if item is None or not QColor(item.text()).isValid() or item.background().color() == QColor(item.text()):
            return  # setting the background is a change too: once is enough
        item.setBackground(QColor(item.text()))
        item.setForeground(QColor("#000000" if QColor(item.text()).lightness() > 128 else "#ffffff"))

    def show_ethogram(self, e: eth.Ethogram) -> None:
        """Fill the tables with ``e``."""
        self.behaviours.setRowCount(0)
        self.subjects.setRowCount(0)
        for b in e.behaviours:
            self.add_behaviour_row(b)
        for s in e.subjects:
            self.add_subject_row(s)
        # wide enough for the names, the type chooser and a whole #rrggbb; the modifiers take the rest
        for col, width in enumerate((150, 44, 84, 88, 130)):
            self.behaviours.setColumnWidth(col, width)
        self.subjects.setColumnWidth(0, 200)

    def ethogram(self) -> eth.Ethogram:
        """The ethogram the tables hold (empty rows skipped), checked. Raises EthogramError with the reason."""
        def cell(table: QTableWidget, row: int, col: int) -> str:
            item = table.item(row, col)
            return item.text().strip() if item is not None else ""

        behaviours = []
        for r in range(self.behaviours.rowCount()):
            name = cell(self.behaviours, r, 0)
            if not name:
                continue
            kind = self.behaviours.cellWidget(r, 2)
            behaviours.append(eth.Behaviour(
                name=name, key=cell(self.behaviours, r, 1), type=kind.currentText() if kind else "state",
                colour=cell(self.behaviours, r, 3) or eth.PALETTE[r % len(eth.PALETTE)],
                group=cell(self.behaviours, r, 4),
                modifiers=tuple(m.strip() for m in cell(self.behaviours, r, 5).split(",") if m.strip())))
        subjects = [eth.Subject(name=cell(self.subjects, r, 0), key=cell(self.subjects, r, 1))
                    for r in range(self.subjects.rowCount()) if cell(self.subjects, r, 0)]
        return eth.checked(eth.Ethogram(tuple(behaviours), tuple(subjects)))

    # --- actions ---------------------------------------------------------------------------------
    def import_boris(self, path: str) -> None:
        """Fill the tables from the BORIS project file ``path`` (a refusal is shown under the tables)."""
        from pathlib import Path

        from fieldstudio.annotations.behaviour.boris_project import read_boris_ethogram

        try:
            self.show_ethogram(read_boris_ethogram(Path(path)))
        except FieldstudioError as exc:
            self.error.setText(str(exc))
            return
        self.error.setText(f"read from {Path(path).name}; OK stores it")

    def import_boris_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "BORIS project", "", "BORIS projects (*.boris);;All files (*)")
        if path:
            self.import_boris(path)

    def accept(self) -> None:
        try:
            new = self.ethogram()
            if new != eth.load(self.project):
                self.apply_edit(eth.SetEthogram(self.project, new))
        except FieldstudioError as exc:
            self.error.setText(str(exc))
            return
        super().accept()


def edit_ethogram(parent: QWidget, project: Project, apply_edit: Callable[[Edit], None]) -> bool:
    """Open the dialog; True when an ethogram was stored."""
    dialog = EthogramDialog(project, apply_edit, parent)
    return dialog.exec() == QDialog.DialogCode.Accepted
