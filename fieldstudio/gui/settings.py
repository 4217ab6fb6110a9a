"""Per-user window settings (recent projects, panel layout, shortcuts) in an INI file in the config folder.

Kept out of the project file: they belong to the person and the machine, not to the work.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from fieldstudio.core.paths import config_dir
from fieldstudio.store.location import is_database_url, mask_in_text

MAX_RECENT = 10


def settings() -> QSettings:
    """The user's settings file, ``<config dir>/window.ini``."""
    return QSettings(str(config_dir() / "window.ini"), QSettings.Format.IniFormat)  # config_dir() creates it


def recent_projects() -> list[Path | str]:
    """Recently opened projects, newest first: project files that still exist (``Path``) and shared projects'
    URLs (``str``, never with a password: ``Project.location``)."""
    value = settings().value("recent", []) or []
    if isinstance(value, str):
        value = [value]
    return [p if is_database_url(p) else Path(p) for p in value if is_database_url(p) or Path(p).is_file()]


def add_recent(path: Path | str) -> None:
    """Put ``path`` (a project file, or a shared project's URL without password) first in the recent list."""
    if is_database_url(str(path)):
        key = mask_in_text(str(path))
        items = [key] + [str(p) for p in recent_projects() if str(p) != key]
    else:
        path = Path(path).resolve()
        items = [str(path)] + [str(p) for p in recent_projects() if isinstance(p, str) or p.resolve() != path]
    s = settings()
    s.setValue("recent", items[:MAX_RECENT])
    s.sync()
