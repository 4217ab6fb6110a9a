"""Whether a project file has changed since a moment: SQLite's ``PRAGMA data_version`` on a watching connection.

A view computed from a project (the Compare tab's, seconds at 900 tasks x 20 sources) can be kept and shown
again while nothing in the file has changed. SQLite says exactly that: ``PRAGMA data_version`` asked twice on
one connection gives different numbers when any *other* connection committed in between — a write of this
process through ``Project.write``, the score store's own connection, or another process
(https://www.sqlite.org/pragma.html#pragma_data_version). The watching connection is read-only and never
writes, so every commit is another connection's. No rows are read through it.

PostgreSQL has no such counter: ``data_version`` returns None for a shared project (the caller recomputes).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import Protocol

from fieldstudio.store.schema_revisions import sqlite_uri


class Project(Protocol):
    """What is read of a ``store.project.Project`` (not imported: it closes its file's watch, ``forget``)."""

    path: object   # a Path; a shared project's ``location.DatabasePath``
    is_shared: bool

_lock = threading.Lock()
_watch: tuple[Path, tuple[int, int], sqlite3.Connection] | None = None
"""One watched file at a time (the project a window shows): watching another closes the first."""
_opened = 0
"""Watching connections opened so far: part of the value, since a new connection's counter starts afresh."""


def data_version(project: Project) -> tuple[int, int, int, int] | None:
    """A value that differs whenever ``project``'s file was committed to or replaced since it was last given:
    (device, inode, watching connection number, SQLite's data_version on it). None for a PostgreSQL project or
    a file that cannot be opened.

    Safe from any thread (one lock; the watching connection is only used under it)."""
    global _watch, _opened
    if project.is_shared:
        return None
    path = Path(project.path)
    try:
        st = os.stat(path)
        file = (st.st_dev, st.st_ino)    # a file replaced at the same path is another file: watched anew
        with _lock:
            if _watch is None or _watch[:2] != (path, file):
                if _watch is not None:
                    _watch[2].close()
                _watch = None
                _watch = (path, file, sqlite3.connect(sqlite_uri(path, read_only=True), uri=True,
                                                      check_same_thread=False))
                _opened += 1
            return (*file, _opened, int(_watch[2].execute("PRAGMA data_version").fetchone()[0]))
    except (OSError, sqlite3.Error):
        return None


def forget(path: Path | None = None) -> None:
    """Close the watching connection: of the file ``path`` only (``Project.close``: a project closed would keep
    its file open until another project's view was computed), or whichever file (None; for tests)."""
    global _watch
    with _lock:
        if _watch is not None and (path is None or _watch[0] == Path(path)):
            _watch[2].close()
            _watch = None


__all__ = ["data_version", "forget"]
