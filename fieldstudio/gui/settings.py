"""The window's settings file: ``window.ini`` (Qt's INI format) as the backend of ``core.user_settings``.

The settings themselves (section, key, type, default, what each is) are declared in ``core.user_settings``;
this module stores them with QSettings and keeps the recent-projects rule. Kept out of the project file:
they belong to the person and the machine, not to the work.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import QByteArray, QSettings

from fieldstudio.core import user_settings
from fieldstudio.core.user_settings import Setting
from fieldstudio.store.location import is_database_url, mask_in_text

T = TypeVar("T")

MAX_RECENT = 10


def settings() -> QSettings:
    """The raw settings file, ``<config dir>/window.ini``; read and write through ``get`` and ``set``."""
    return QSettings(str(user_settings.WINDOW_INI.path()), QSettings.Format.IniFormat)


class _IniBackend:
    """``window.ini`` through QSettings: bytes are stored as QByteArray (``@ByteArray(...)``) and read back as
    bytes; everything else goes as it is."""

    def __init__(self) -> None:
        self._qsettings = settings()

    def value(self, name: str) -> object | None:
        raw = self._qsettings.value(name)
        return raw.data() if isinstance(raw, QByteArray) else raw

    def set_value(self, name: str, value: object) -> None:
        self._qsettings.setValue(name, QByteArray(value) if isinstance(value, bytes) else value)

    def sync(self) -> None:
        self._qsettings.sync()


# (path, its stat, the file read) per thread: QSettings is reentrant, not thread-safe, and a project's open reads the
# recent list on its worker (gui/project_session.py) while the window reads settings on its own thread
_kept = threading.local()


def _stat(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


def _reader() -> _IniBackend:
    """The settings file as this thread read it last, read again when it is another file (another config folder)
    or it changed on disk since (its modification time, size or inode: another window or process wrote it)."""
    path = str(user_settings.WINDOW_INI.path())
    stat = _stat(path)
    kept = getattr(_kept, "file", None)
    if kept is None or kept[0] != path or kept[1] != stat:
        kept = _kept.file = (path, stat, _IniBackend())
    return kept[2]


def _written() -> None:
    """This process wrote the file: this thread's next read opens it again (its stat changed; Qt merged the
    write), as another thread's does, by the stat."""
    _kept.file = None


def get(setting: Setting[T]) -> T:
    """The user's value of ``setting`` as its declared type (its default when unset or unreadable). The file is
    opened once and kept while it is unchanged on disk (a ``stat`` per call, not a parse)."""
    return user_settings.read(_reader(), setting)


def get_all(settings_to_read: Iterable[Setting[Any]]) -> list[Any]:
    """The user's values of several settings, in the given order, from one read of the file."""
    backend = _reader()
    return [user_settings.read(backend, s) for s in settings_to_read]


def set(setting: Setting[T], value: T) -> None:  # noqa: A001 - the registry's verb, read as settings.set
    """Store ``value`` for ``setting`` at once. Raises TypeError when it is not of the setting's type."""
    user_settings.write(_IniBackend(), setting, value)
    _written()


def set_all(values: Mapping[Setting[Any], Any]) -> None:
    """Store several settings with one write of the file. Raises TypeError as ``set`` does."""
    user_settings.write_all(_IniBackend(), values)
    _written()


def recent_projects() -> list[Path | str]:
    """Recently opened projects, newest first: project files that still exist (``Path``) and shared projects'
    URLs (``str``, never with a password: ``Project.location``)."""
    return [p if is_database_url(p) else Path(p) for p in get(user_settings.RECENT_PROJECTS)
            if is_database_url(p) or Path(p).is_file()]


def add_recent(path: Path | str) -> None:
    """Put ``path`` (a project file, or a shared project's URL without password) first in the recent list."""
    if is_database_url(str(path)):
        key = mask_in_text(str(path))
        items = [key] + [str(p) for p in recent_projects() if str(p) != key]
    else:
        path = Path(path).resolve()
        items = [str(path)] + [str(p) for p in recent_projects() if isinstance(p, str) or p.resolve() != path]
    set(user_settings.RECENT_PROJECTS, items[:MAX_RECENT])
