"""Other users' edits appearing in an open window (issue 22, item 3).

A :class:`ChangeWatcher` polls the shared project's change counter (``store.change_feed.changes_after``) every
``POLL_MS`` and emits the new changes; one indexed query that returns nothing most of the time. The window
then redraws what they touch: the marks of the media shown (unless the user is drawing or dragging, in which
case the redraw waits for the next poll), the task list when no task form has unsaved changes, the agreement
review when it is on screen. The rater's own queue is never refreshed from them: a change row carries no
verdict, and a rater's window reads no one else's ratings because of it (raters stay blind).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

if TYPE_CHECKING:
    from fieldstudio.store.project import Project

log = logging.getLogger(__name__)

POLL_MS = 700
"""Poll interval: a change shows within POLL_MS plus one redraw, inside the 2 s the issue asks for."""


class ChangeWatcher(QObject):
    """Polls ``project`` for changes committed after it started; ``changed(list[Change])`` on the GUI thread."""

    changed = Signal(list)

    def __init__(self, project: Project, parent: QObject | None = None, *, seen: int | None = None):
        """``seen``: the project's latest change, read already (``change_feed.latest_change``; read here if None)."""
        super().__init__(parent)
        from fieldstudio.store.change_feed import latest_change

        self.project = project
        self.seen = latest_change(project) if seen is None else seen
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)
        self.timer.start()

    def poll(self) -> None:
        """Read the changes after the last one seen and emit them (a failed read is logged and retried)."""
        from fieldstudio.store.change_feed import ChangeLogUnreadable, changes_after

        try:
            new = changes_after(self.project, self.seen)
        except ChangeLogUnreadable as exc:      # the server went away for a moment: try again next time
            log.warning("%s: cannot read the change log: %s", self.project.path, exc)
            return
        if new:
            self.seen = new[-1].seq
            self.changed.emit(new)

    def stop(self) -> None:
        """Stop polling (the project is being closed)."""
        self.timer.stop()
