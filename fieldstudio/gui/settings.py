"""Per-user window settings (recent projects, panel layout, shortcuts) in an INI file in the config folder.

Kept out of the project file: they belong to the person and the machine, not to the work.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from fieldstudio.core.paths import config_dir

MAX_RECENT = 10


def settings() -> QSettings:
    """The user's settings file, ``<config dir>/window.ini``."""
    return QSettings(str(config_dir() / "window.ini"), QSettings.Format.IniFormat)  # config_dir() creates it


def recent_projects() -> list[Path]:
    """Recently opened project files, newest first, those that still exist."""
    value = settings().value("recent", []) or []
    if isinstance(value, str):
        value = [value]
    return [Path(p) for p in value if Path(p).is_file()]


def add_recent(path: Path) -> None:
    """Put ``path`` first in the recent projects list."""
    path = Path(path).resolve()
    items = [str(path)] + [str(p) for p in recent_projects() if p.resolve() != path]
    s = settings()
    s.setValue("recent", items[:MAX_RECENT])
    s.sync()
