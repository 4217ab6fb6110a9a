"""Help > Show logs: open the folder that holds fieldstudio's log file in the system's file manager."""

from __future__ import annotations

import logging

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices

from fieldstudio.logs import log_path

log = logging.getLogger(__name__)


def log_folder_url() -> QUrl:
    """The ``file:`` URL of the log folder (created if missing)."""
    return QUrl.fromLocalFile(str(log_path().parent))


def show_logs() -> None:
    """Open the log folder with the desktop's file manager; the path is logged when nothing can open it."""
    url = log_folder_url()
    if not QDesktopServices.openUrl(url):
        log.warning("no application could open the log folder %s", url.toLocalFile())
