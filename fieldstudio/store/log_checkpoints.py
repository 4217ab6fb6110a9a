"""Folding project files' write-ahead logs back once their writes pause, on one thread for the whole process.

A project file keeps one idle connection while it is open (``Project._hold_log_open``), so SQLite no longer folds
the log back into the file at the end of every write (which cost a key press an fsync). :func:`after_write` is
called after each write's commit; ``quiet_s`` seconds after a project's last write, this module's thread calls its
``fold_log_back()`` (a passive checkpoint). A write costs a clock read and a notify, never a thread start. Projects
are held weakly: one dropped without ``close()`` is forgotten.
"""

from __future__ import annotations

import threading
import time
import weakref
from typing import Protocol


class FoldsLogBack(Protocol):
    def fold_log_back(self) -> None: ...


_due: dict[weakref.ref, float] = {}      # project -> when to fold its log back (time.monotonic)
_changed = threading.Condition()
_thread: threading.Thread | None = None


def after_write(project: FoldsLogBack, quiet_s: float) -> None:
    """Fold ``project``'s log back ``quiet_s`` seconds from now, unless it writes again before (then from then)."""
    global _thread
    with _changed:
        _due[weakref.ref(project)] = time.monotonic() + quiet_s
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_fold_when_due, name="fieldstudio-log-checkpoints", daemon=True)
            _thread.start()
        _changed.notify()


def forget(project: FoldsLogBack) -> None:
    """No fold for ``project`` (it is being closed, which folds its log back itself)."""
    with _changed:
        _due.pop(weakref.ref(project), None)


def _fold_when_due() -> None:
    while True:
        with _changed:
            while True:
                now = time.monotonic()
                due = [ref for ref, at in _due.items() if at <= now]
                if due:
                    for ref in due:
                        del _due[ref]
                    break
                _changed.wait(None if not _due else min(_due.values()) - now)
        for ref in due:
            project = ref()
            if project is not None:
                project.fold_log_back()
