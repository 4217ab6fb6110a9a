"""The Runs tab's "Record" menu: save a run's reproducibility record, export and import a run, verify a record.

Each action asks for a file and hands the work to ``fieldstudio.reproducibility`` on a worker (the services the
``fieldstudio runs`` commands call); a verification's differences are shown one per line in a list.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (QDialog, QDialogButtonBox, QFileDialog, QLabel, QListWidget, QMenu, QMessageBox,
                               QVBoxLayout, QWidget)

from fieldstudio.gui import workers
from fieldstudio.store.project import Project

RECORD_FILTER = "Run records (*.jsonl);;All files (*)"


class VerificationDialog(QDialog):
    """The result of verifying a record: what was verified, one row per difference, and the verdict."""

    def __init__(self, parent: QWidget | None, title: str, differences: list[str], summary: str):
        super().__init__(parent)
        self.setWindowTitle("Verify a record")
        self.setObjectName("verification_dialog")
        layout = QVBoxLayout(self)
        heading = QLabel(title)
        heading.setWordWrap(True)
        layout.addWidget(heading)
        self.verdict = QLabel(summary)
        self.verdict.setObjectName("verdict")
        self.verdict.setStyleSheet("font-weight: bold; color: %s" % ("#1b7f3b" if not differences else "#b3261e"))
        layout.addWidget(self.verdict)
        self.differences = QListWidget()
        self.differences.setObjectName("differences")
        self.differences.setWordWrap(True)
        self.differences.addItems(differences or ["no difference: the record matches this project and machine"])
        layout.addWidget(self.differences, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(820, 420)


class RunRecordActions(QObject):
    """The four actions of the menu, on the project and the run the Runs tab has chosen.

    ``run_of()`` gives the chosen run as (id, name) or None. Signals: ``status(str)`` for the status bar,
    ``imported()`` after a run was imported (the run list reloads). ``last_worker`` and ``last_dialog`` are kept for
    the window's tests.
    """

    status = Signal(str)
    imported = Signal()

    def __init__(self, parent: QWidget, run_of: Callable[[], tuple[str, str] | None]):
        super().__init__(parent)
        self.widget = parent
        self.run_of = run_of
        self.project: Project | None = None
        self.last_worker: workers.Worker | None = None
        self.last_dialog: QDialog | None = None
        self.menu = QMenu("Record", parent)
        self.save_action = self.menu.addAction("Save reproducibility record…", lambda: self.save_record())
        self.export_action = self.menu.addAction("Export run…", lambda: self.export_run())
        self.menu.addSeparator()
        self.import_action = self.menu.addAction("Import run…", lambda: self.import_run())
        self.verify_action = self.menu.addAction("Verify a record…", lambda: self.verify_record())
        self.menu.aboutToShow.connect(self.update_actions)

    def set_project(self, project: Project | None) -> None:
        self.project = project
        self.update_actions()

    def update_actions(self) -> None:
        """Saving and exporting need a chosen run; importing needs a project; verifying needs nothing."""
        chosen = self.project is not None and self.run_of() is not None
        self.save_action.setEnabled(chosen)
        self.export_action.setEnabled(chosen)
        self.import_action.setEnabled(self.project is not None)

    # ------------------------------------------------------------------ the actions
    def save_record(self, path: Path | None = None, *, caption: str = "Save reproducibility record") -> None:
        """Write the chosen run's record to a file chosen by the user (or ``path``)."""
        run = self.run_of()
        if self.project is None or run is None:
            return
        if path is None:
            chosen = QFileDialog.getSaveFileName(self.widget, caption, f"run-{run[0][:8]}.jsonl", RECORD_FILTER)[0]
            if not chosen:
                return
            path = Path(chosen)
        from fieldstudio.reproducibility.record import write_record

        self._run(f"Writing the record of {run[1]}", write_record, self.project, run[0], path,
                  done=lambda lines: self.status.emit(f"Wrote the record of run {run[1]!r} to {path} ({lines} lines)"))

    def export_run(self, path: Path | None = None) -> None:
        """Export the chosen run (its record: answers, frames, scores) for ``runs import`` / Import run…."""
        self.save_record(path, caption="Export run")

    def import_run(self, path: Path | None = None) -> None:
        """Import a run exported from another project into this one; the outcome is shown in a message."""
        if self.project is None:
            return
        if path is None:
            chosen = QFileDialog.getOpenFileName(self.widget, "Import run", "", RECORD_FILTER)[0]
            if not chosen:
                return
            path = Path(chosen)
        from fieldstudio.reproducibility.transfer import import_run

        def done(outcome) -> None:  # noqa: ANN001 - transfer.RunImport
            text = "\n".join([outcome.describe(), *outcome.notes])
            self.status.emit(outcome.describe())
            self._inform("Import run", text)
            self.imported.emit()

        self._run("Importing the run", import_run, self.project, path, done=done)

    def verify_record(self, path: Path | None = None) -> None:
        """Verify a record file against this project and machine; the differences are listed in a dialog."""
        if path is None:
            chosen = QFileDialog.getOpenFileName(self.widget, "Verify a record", "", RECORD_FILTER)[0]
            if not chosen:
                return
            path = Path(chosen)
        from fieldstudio.reproducibility.verify import verify_file

        def done(out) -> None:  # noqa: ANN001 - (RunRecord, Verification)
            record, result = out
            checked = ", ".join(f"{n} {kind}" for kind, n in result.checked.items()) or "nothing"
            summary = ("Identical" if result.identical else f"{len(result.differences)} difference(s)") + \
                f" (checked {checked})"
            self.status.emit(f"{path.name}: {summary}")
            self.last_dialog = VerificationDialog(self.widget, f"{path.name}: {record.describe()}",
                                                  result.differences, summary)
            self.last_dialog.show()

        self._run("Verifying the record (making every frame sent again)", verify_file, path, self.project, done=done)

    # ------------------------------------------------------------------ plumbing
    def _inform(self, title: str, text: str) -> None:
        box = QMessageBox(QMessageBox.Icon.Information, title, text, QMessageBox.StandardButton.Ok, self.widget)
        self.last_dialog = box
        box.show()

    def _run(self, label: str, fn: Callable, *args, done: Callable) -> None:
        def failed(message: str) -> None:
            self.status.emit(message)
            box = QMessageBox(QMessageBox.Icon.Warning, "Record", message, QMessageBox.StandardButton.Ok, self.widget)
            self.last_dialog = box
            box.show()

        self.last_worker = workers.run_with_progress(self.widget, label, fn, *args, done=done, failed=failed)


__all__ = ["RunRecordActions", "VerificationDialog", "RECORD_FILTER"]
