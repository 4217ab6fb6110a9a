"""The window's side of the command line's ``--raw-cells``: a checkbox on every dialog that writes a CSV.

By default a CSV cell a spreadsheet would run as a formula is written with a leading apostrophe
(``core.spreadsheet_cells``); ticking the box writes the cells exactly as stored, as ``--raw-cells`` does. The box
is off whenever a dialog opens: the protection is never carried over from one export to the next by accident.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtWidgets import QCheckBox, QDialog, QFileDialog, QGridLayout, QWidget

RAW_CELLS_TEXT = "Write cells starting with = + - @ as they are (a spreadsheet may run them as formulas)"
RAW_CELLS_TIP = ("CSV only. Off: a cell starting with =, +, -, @ (a question, an answer, a label, a rater) gets a "
                 "leading ' so a spreadsheet shows it as text instead of running it as a formula "
                 "(fieldstudio's own imports take the ' off again). On: the cells are written exactly as stored, "
                 "as the command line's --raw-cells does.")


def raw_cells_box(parent: QWidget | None = None) -> QCheckBox:
    """The unticked "write cells as they are" checkbox (object name ``raw_cells``), its tooltip set."""
    box = QCheckBox(RAW_CELLS_TEXT, parent)
    box.setObjectName("raw_cells")
    box.setToolTip(RAW_CELLS_TIP)
    box.setChecked(False)
    return box


@dataclass(frozen=True)
class SaveChoice:
    """What a save dialog with the raw-cells box returned: the path, the name filter chosen, the box's state."""

    path: str
    name_filter: str
    raw_cells: bool


def save_dialog(parent: QWidget | None, caption: str, start: str, name_filter: str) -> QFileDialog:
    """A "save as" file dialog (Qt's own widgets, so that it can hold the box) with the raw-cells checkbox under
    its file list; the box is its ``raw_cells`` attribute. Shown by :func:`ask_save_path`; built apart so that a
    test can drive it."""
    dialog = QFileDialog(parent, caption, start, name_filter)
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    dialog.setFileMode(QFileDialog.FileMode.AnyFile)
    dialog.raw_cells = raw_cells_box(dialog)
    layout = dialog.layout()
    if isinstance(layout, QGridLayout):     # Qt's widget dialog is a grid; the box takes a full row under it
        layout.addWidget(dialog.raw_cells, layout.rowCount(), 0, 1, layout.columnCount())
    elif layout is not None:
        layout.addWidget(dialog.raw_cells)
    return dialog


def chosen(dialog: QFileDialog) -> SaveChoice | None:
    """The choice of an accepted :func:`save_dialog` (None when it was cancelled or named no file)."""
    files = dialog.selectedFiles()
    if dialog.result() != QDialog.DialogCode.Accepted or not files or not files[0]:
        return None
    return SaveChoice(files[0], dialog.selectedNameFilter(), dialog.raw_cells.isChecked())


def ask_save_path(parent: QWidget | None, caption: str, start: str, name_filter: str) -> SaveChoice | None:
    """Ask where to save a file that may be a CSV, with the raw-cells box (unticked); None when cancelled."""
    dialog = save_dialog(parent, caption, start, name_filter)
    dialog.exec()
    return chosen(dialog)
