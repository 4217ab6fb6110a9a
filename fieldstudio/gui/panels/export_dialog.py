"""Export annotations: format, output path, scope (whole project / current media), the frames as image files
(COCO and YOLO, the command line's ``--images``), CSV cells as stored (``--raw-cells``), in the background.

The work is ``annotations.exports.scope.export_annotations_scoped`` (the same exporters the
``fieldstudio export`` command runs) in a ``gui.workers.Worker`` with a cancellable progress dialog,
then a summary with the counts and the path (``annotation_export_scope.summary_text``).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QButtonGroup, QCheckBox, QComboBox, QDialog, QDialogButtonBox, QFileDialog, QFormLayout,
                               QHBoxLayout, QLabel, QLineEdit, QMessageBox, QProgressDialog, QPushButton,
                               QRadioButton, QVBoxLayout, QWidget)

from fieldstudio.annotations import rows as views
from fieldstudio.annotations.exports.scope import (FORMAT_TITLES, default_output, export_annotations_scoped,
                                                          summary_text)
from fieldstudio.annotations.exports.box_images import ExportReport
from fieldstudio.gui import workers
from fieldstudio.gui.raw_cells_choice import raw_cells_box
from fieldstudio.gui.panels.edit_support import ERROR_STYLE, OK_STYLE
from fieldstudio.store.project import Project

FOLDER_FORMATS = ("yolo", "mot", "cvat")
IMAGE_FORMATS = ("coco", "yolo")
"""Formats that can carry the frames as image files (``--images``)."""


class ExportDialog(QDialog):
    """Choose format, output and scope, then Export; the dialog stays open to show the summary.

    Signals: ``exported(ExportReport)`` after a finished (or cancelled) export; ``status(str)``.
    ``media_id``: the media shown in the viewer (None disables "Current media").
    """

    exported = Signal(object)
    status = Signal(str)

    def __init__(self, project: Project, media_id: str | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.project, self.media_id = project, media_id
        self.worker: workers.Worker | None = None
        self.progress_dialog: QProgressDialog | None = None
        self.summary_box: QMessageBox | None = None
        self.last_report: ExportReport | None = None
        self.last_error: str | None = None
        self._path_edited = False
        self.setWindowTitle("Export annotations")
        self.resize(620, 260)

        self.format = QComboBox()
        for fmt, title in FORMAT_TITLES.items():
            self.format.addItem(title, fmt)
        self.path = QLineEdit()
        self.path.setToolTip("A .json file for COCO, a .csv file for CSV, a folder for YOLO, MOT and CVAT")
        self.browse_button = QPushButton("Browse…")
        self.browse_button.setAutoDefault(False)
        self.scope_project = QRadioButton("Whole project")
        name = views.media_brief(project, media_id).file_name if media_id else None
        self.scope_media = QRadioButton(f"Current media ({name})" if name else "Current media (none shown)")
        self.scope_media.setEnabled(media_id is not None)
        self._scopes = QButtonGroup(self)
        self._scopes.addButton(self.scope_project)
        self._scopes.addButton(self.scope_media)
        self.scope_project.setChecked(True)
        self.images = QCheckBox("Also write the frames and photos as image files (images/)")
        self.images.setObjectName("export_images")
        self.images.setToolTip("COCO and YOLO: the exact upright frames each box is on, beside the labels, so a "
                               "training tool needs nothing else (fieldstudio export --images)")
        self.raw_cells = raw_cells_box()
        self.message = QLabel()
        self.message.setObjectName("export_message")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.export_button = self.buttons.addButton("Export", QDialogButtonBox.ButtonRole.ActionRole)
        self.export_button.setToolTip("Write the files (in the background; Cancel stops it)")
        self.buttons.rejected.connect(self.reject)
        for b in self.buttons.buttons():
            b.setAutoDefault(False)
        self.export_button.setDefault(True)

        path_row = QHBoxLayout()
        path_row.addWidget(self.path, 1)
        path_row.addWidget(self.browse_button)
        scope_row = QHBoxLayout()
        scope_row.addWidget(self.scope_project)
        scope_row.addWidget(self.scope_media)
        scope_row.addStretch(1)
        form = QFormLayout()
        form.addRow("Format:", self.format)
        form.addRow("Save to:", path_row)
        form.addRow("Scope:", scope_row)
        form.addRow("Images:", self.images)
        form.addRow("Cells:", self.raw_cells)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.message, 1)
        layout.addWidget(self.buttons)

        self.format.currentIndexChanged.connect(self._format_changed)
        self.path.textEdited.connect(self._mark_edited)
        self.browse_button.clicked.connect(self.browse)
        self.export_button.clicked.connect(self.start_export)
        self._format_changed()

    # -- choices ------------------------------------------------------------------------------------
    def fmt(self) -> str:
        """The chosen format: coco, yolo, mot or csv."""
        return self.format.currentData()

    def set_format(self, fmt: str) -> None:
        """Choose a format as the combo does."""
        self.format.setCurrentIndex(self.format.findData(fmt))

    def media_ids(self) -> list[str] | None:
        """None for the whole project, else the current media."""
        return [self.media_id] if self.scope_media.isChecked() and self.media_id else None

    def write_images(self) -> bool:
        """Whether the frames go along as image files: ticked, and the format can carry them."""
        return self.images.isChecked() and self.fmt() in IMAGE_FORMATS

    def write_raw_cells(self) -> bool:
        """Whether CSV cells go out as stored (``--raw-cells``): ticked, and the format is CSV."""
        return self.raw_cells.isChecked() and self.fmt() == "csv"

    def _mark_edited(self, _text: str) -> None:
        self._path_edited = True

    def _format_changed(self) -> None:
        self.images.setEnabled(self.fmt() in IMAGE_FORMATS)
        self.raw_cells.setEnabled(self.fmt() == "csv")
        if not self._path_edited:
            self.path.setText(str(default_output(self.fmt(), self.project.folder, self.project.path.stem)))

    def browse(self) -> None:
        """Choose the output file (COCO, CSV) or folder (YOLO, MOT, CVAT)."""
        fmt, start = self.fmt(), self.path.text()
        if fmt in FOLDER_FORMATS:
            chosen = QFileDialog.getExistingDirectory(self, "Export into folder", start)
        else:
            filt = "COCO JSON (*.json)" if fmt == "coco" else "CSV (*.csv)"
            chosen, _ = QFileDialog.getSaveFileName(self, "Export to file", start, filt)
        if chosen:
            self.path.setText(chosen)
            self._path_edited = True

    # -- running ------------------------------------------------------------------------------------
    def start_export(self) -> workers.Worker | None:
        """Run the export in a worker with a progress dialog (Cancel stops it); returns the worker."""
        out = self.path.text().strip()
        if not out:
            self._show_error("Choose where to save the export")
            return None
        self.last_report, self.last_error = None, None
        self.export_button.setEnabled(False)
        self.message.setStyleSheet("")
        self.message.setText("Exporting…")
        self.worker = workers.run_with_progress(self, "Exporting annotations…", export_annotations_scoped,
                                                self.project, self.fmt(), Path(out), self.media_ids(),
                                                write_image_files=self.write_images(), raw_cells=self.write_raw_cells(),
                                                title="Exporting", done=self._finished, failed=self._failed)
        self.progress_dialog = self.worker.progress_dialog
        return self.worker

    def _finished(self, report: ExportReport) -> None:
        self._close_progress()
        self.last_report = report
        text = summary_text(report)
        self.message.setStyleSheet(ERROR_STYLE if report.cancelled else OK_STYLE)
        self.message.setText(text)
        self.status.emit(text.splitlines()[0])
        self.summary_box = QMessageBox(QMessageBox.Icon.Warning if report.cancelled or report.skipped
                                       else QMessageBox.Icon.Information, "Export finished", text,
                                       QMessageBox.StandardButton.Ok, self)
        self.summary_box.setObjectName("export_summary")
        self.summary_box.open()
        self.exported.emit(report)

    def _failed(self, message: str) -> None:
        self._close_progress()
        self.last_error = message
        self._show_error(f"The export failed: {message}")
        self.summary_box = QMessageBox(QMessageBox.Icon.Critical, "Export failed", message,
                                       QMessageBox.StandardButton.Ok, self)
        self.summary_box.open()

    def _close_progress(self) -> None:
        if self.progress_dialog is not None:
            self.progress_dialog.reset()
        self.export_button.setEnabled(True)

    def _show_error(self, text: str) -> None:
        self.message.setStyleSheet(ERROR_STYLE)
        self.message.setText(text)
        self.status.emit(text)
