"""Start the window: ``fieldstudio``, ``fieldstudio open P``, ``fieldstudio P`` and ``fieldstudio demo``."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.store.project import Project

log = logging.getLogger(__name__)


def application() -> QApplication:
    """The QApplication (created once), named so that settings and the window manager know it."""
    app = QApplication.instance()
    if app is None:
        QApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication(sys.argv[:1])
        app.setApplicationName("fieldstudio")
        app.setOrganizationName("fieldstudio")
    return app


def run_gui(path: Path | None = None) -> int:
    """Open the main window on ``path`` (a project file) or on the welcome screen; returns the exit code."""
    app = application()
    from fieldstudio.gui.main_window import MainWindow

    project = None
    if path is not None:
        try:
            project = Project.open(Path(path))
        except FieldstudioError as exc:
            QMessageBox.critical(None, "Cannot open the project", str(exc))
            log.error("%s", exc)
    window = MainWindow(project)
    window.show()
    return app.exec()
