"""The window's side of shared (PostgreSQL) projects, issue 22: the "Open shared project…" dialog, redrawing
other users' edits, and asking for this computer's folder of a media root the first time it is needed.

Kept here so that ``main_window`` only calls a few functions; the project itself is opened on a worker by
``gui.project_session`` (a server that does not answer never freezes the window). Passwords typed into the dialog stay in this
process (in the URL the project is opened with) and are never written to the recent list or the log; without
one, libpq reads ``PGPASSWORD`` or ``~/.pgpass`` (``store.location``).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFileDialog, QInputDialog, QLineEdit, QMessageBox, QWidget

if TYPE_CHECKING:
    from fieldstudio.store.changes import Change
    from fieldstudio.store.project import Project

log = logging.getLogger(__name__)

URL_HINT = "postgresql+psycopg://user@host:5432/database"


def ask_url(parent: QWidget, last: str = "") -> str | None:
    """The URL of a shared project, asked in a dialog (None: cancelled)."""
    text, ok = QInputDialog.getText(parent, "Open shared project",
                                    f"PostgreSQL URL of the project ({URL_HINT}).\nA password is asked for "
                                    "when the server wants one and none is in ~/.pgpass or PGPASSWORD.",
                                    QLineEdit.EchoMode.Normal, last or "postgresql+psycopg://")
    text = text.strip()
    return text if ok and text else None


def ask_password(parent: QWidget, url: str) -> str | None:
    """The server refused ``url``'s login without a password: ask for one (kept for this session only, in the
    URL returned, never written anywhere). None when cancelled or the URL cannot be read."""
    from fieldstudio.core.errors import FieldstudioError
    from fieldstudio.store.location import parse_url

    try:
        parsed = parse_url(url)
    except FieldstudioError as exc:
        QMessageBox.warning(parent, "Cannot open the project", str(exc))
        return None
    password, ok = QInputDialog.getText(parent, "Password", f"Password of {parsed.username or 'you'} on "
                                        f"{parsed.host or 'localhost'} (kept for this session only):",
                                        QLineEdit.EchoMode.Password)
    if not ok:
        return None
    return parsed.set(password=password).render_as_string(hide_password=False)


class ChangeApplier:
    """Redraws what other users' changes touch (see ``gui.live_changes``); a redraw of the marks that would
    disturb the user's own drawing waits for the next poll."""

    def __init__(self, window) -> None:  # noqa: ANN001 - MainWindow
        self.window = window
        self.marks_pending = False

    def __call__(self, changes: list[Change]) -> None:
        w = self.window
        media = w.state.media
        if media is not None and any(c.table == "annotation" and c.media_id == media.id for c in changes):
            self.marks_pending = True
        if self.marks_pending and not w.annotator.drawing.busy():
            self.marks_pending = False
            w.annotator.refresh(frame_only=True)
            w.side.refresh()
        panels = w.workspace.panels
        if any(c.table == "task" for c in changes) and "tasks" in panels and not panels["tasks"].dirty:
            panels["tasks"].reload()
        if any(c.table == "rating" for c in changes) and "agreement" in panels and panels["agreement"].isVisible():
            panels["agreement"].refresh()                  # the review tab; a rater's own queue is left alone


def ask_for_media_roots(parent: QWidget, project: Project, reload_library,  # noqa: ANN001 - callable()
                        used: list[str] | None = None) -> None:
    """For each media root the project uses that this computer has no folder for, ask for the folder, remember
    it (core.media_roots) and find files that moved inside it by SHA-256 (``library.relink``). ``used``: the
    roots in use, read already (``media.inventory.media_roots_in_use``; read here if None)."""
    from fieldstudio.core import media_roots
    from fieldstudio.media import inventory, library

    if used is None:
        used = inventory.media_roots_in_use(project)
    unmapped = [r for r in used if r not in media_roots.roots()]
    for root in unmapped:
        folder = QFileDialog.getExistingDirectory(parent, f"Where is the media root \u201c{root}\u201d on this computer?")
        if not folder:
            continue
        try:
            media_roots.set_root(root, folder)
            found = library.relink(project, folder)
        except Exception as exc:  # noqa: BLE001 - shown to the user, the project stays open
            QMessageBox.warning(parent, "Media root", str(exc))
            continue
        log.info("media root %s -> %s; %d media relinked by SHA-256", root, folder, len(found))
    if unmapped:
        reload_library()
