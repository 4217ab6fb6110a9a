"""File ▸ Import annotations…: COCO, YOLO, MOT or CVAT files made elsewhere, into the project as one undoable edit.

The dialog asks for the format, then the file or folder, then runs
``annotations.imports.importing.store_import`` (the service ``fieldstudio annotations import`` runs) on a
``gui.workers`` worker behind a progress dialog with Cancel: the worker reads the file and stores its boxes (a
million boxes take tens of seconds); the done edit then goes on the viewer's undo stack (so Edit ▸ Undo removes
the whole import), and the report —
what matched which media, what did not and why — is shown in ``ImportAnnotationsReport``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QFileDialog, QInputDialog, QMessageBox, QPlainTextEdit,
                               QVBoxLayout, QWidget)

from fieldstudio.gui import workers

if TYPE_CHECKING:
    from fieldstudio.store.edits import Edit
    from fieldstudio.store.project import Project

#: format -> (what the user picks, file filter or None for a folder)
CHOICES = {
    "coco": ("COCO JSON (boxes on photos and frames)", "COCO JSON (*.json);;All files (*)"),
    "yolo": ("YOLO folder (classes.txt or data.yaml, labels/)", None),
    "mot": ("MOT Challenge folder (sequences with gt/gt.txt)", None),
    "cvat": ("CVAT 1.1 XML, for video (tracks) or for images (photos)", "CVAT XML (*.xml);;All files (*)"),
}


class ImportAnnotationsReport(QDialog):
    """The import's report lines (``text``) in a read-only box."""

    def __init__(self, lines: list[str], parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("annotation_import_report")
        self.setWindowTitle("Annotations imported")
        self.text = QPlainTextEdit("\n".join(lines))
        self.text.setReadOnly(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(buttons)
        self.resize(720, 420)


def import_annotations(parent: QWidget, project: Project, push: Callable[[Edit], None],
                       reload: Callable[[], None]) -> workers.Worker | None:
    """Ask for a format and a file or folder, import it on a worker; None when the user cancels.

    The worker reads and stores (``importing.store_import``: 10^6 boxes take tens of seconds, never on the GUI
    thread); ``push(edit)`` puts the done edit on the viewer's undo stack; ``reload()`` refreshes what shows marks
    and labels.
    """
    from fieldstudio.annotations.imports.importing import store_import

    if project.read_only:
        QMessageBox.critical(parent, "Import annotations", f"{project.path.name} is read-only: nothing was imported")
        return None
    titles = [title for title, _filter in CHOICES.values()]
    chosen, ok = QInputDialog.getItem(parent, "Import annotations", "Format:", titles, 0, False)
    if not ok:
        return None
    fmt = next(f for f, (title, _filter) in CHOICES.items() if title == chosen)
    file_filter = CHOICES[fmt][1]
    if file_filter is None:
        picked = QFileDialog.getExistingDirectory(parent, f"Import {fmt.upper()} annotations from a folder")
    else:
        picked = QFileDialog.getOpenFileName(parent, f"Import {fmt.upper()} annotations", "", file_filter)[0]
    if not picked:
        return None

    def done(result) -> None:  # noqa: ANN001 - (ImportAnnotations | None, AnnotationImportReport)
        edit, report = result
        if edit is not None:
            push(edit)
        reload()
        dialog = ImportAnnotationsReport(report.lines(), parent)
        dialog.open()

    def failed(message: str) -> None:
        QMessageBox.critical(parent, "Import annotations: failed", f"Nothing was stored: {message}")

    return workers.run_with_progress(parent, f"Importing {Path(picked).name}…", store_import, project, Path(picked),
                                     fmt, title="Import annotations", done=done, failed=failed)
