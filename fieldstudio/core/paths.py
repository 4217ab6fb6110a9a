"""Where fieldstudio's own files live: resources, sample data, user config, data and logs.

Resources (prompt templates, icons) are package data in ``fieldstudio/resources/``, so one rule finds them
in a source checkout, an installed wheel and a PyInstaller bundle (whose modules report ``__file__``
inside ``sys._MEIPASS``). ``sample_data/`` is looked for in this order: ``FIELDSTUDIO_SAMPLE_DATA``, the
PyInstaller bundle (``sys._MEIPASS/sample_data``), the source checkout (next to the ``fieldstudio``
package), and a wheel's data files (``<prefix>/share/fieldstudio/sample_data``).
User folders come from platformdirs, and ``FIELDSTUDIO_CONFIG_DIR`` / ``FIELDSTUDIO_DATA_DIR`` /
``FIELDSTUDIO_LOG_DIR`` override them (tests, portable installs).
"""

from __future__ import annotations

import os
import sys
import sysconfig
from pathlib import Path

import platformdirs

APP = "fieldstudio"

_PACKAGE_DIR = Path(__file__).resolve().parents[1]


def is_frozen() -> bool:
    """True inside a PyInstaller bundle."""
    return bool(getattr(sys, "frozen", False) and getattr(sys, "_MEIPASS", None))


def install_root() -> Path:
    """The folder holding the ``fieldstudio`` package: ``sys._MEIPASS`` when frozen, else the checkout or site-packages."""
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen)
    return _PACKAGE_DIR.parent


def resources_dir() -> Path:
    """fieldstudio's icons and prompt templates (``fieldstudio/resources``, shipped as package data)."""
    return _PACKAGE_DIR / "resources"


def _data_prefixes() -> list[str]:
    """Where pip puts a wheel's data files: the environment's prefix and the user scheme's."""
    prefixes = [sysconfig.get_path("data"), sys.prefix]
    try:
        prefixes.append(sysconfig.get_path("data", sysconfig.get_preferred_scheme("user")))
    except (KeyError, AttributeError):  # no user scheme here
        pass
    return [p for p in prefixes if p]


def sample_data_candidates() -> list[Path]:
    """Every place ``sample_data/`` is looked for, first match wins (see the module docstring)."""
    found: list[Path] = []
    override = os.environ.get("FIELDSTUDIO_SAMPLE_DATA")
    if override:
        found.append(Path(override))
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        found.append(Path(frozen) / "sample_data")
    found.append(_PACKAGE_DIR.parent / "sample_data")
    for prefix in _data_prefixes():
        found.append(Path(prefix) / "share" / APP / "sample_data")
    unique: list[Path] = []
    for path in found:
        if path not in unique:
            unique.append(path)
    return unique


def sample_data_dir() -> Path:
    """The sample media, task set and rating queue that ``fieldstudio demo`` builds a project from.

    Returns the first candidate that has a ``media`` folder; when none has, the most likely one
    (so that the caller's "sample data is missing" message names a real place).
    """
    candidates = sample_data_candidates()
    for path in candidates:
        if (path / "media").is_dir():
            return path
    return candidates[0]


def config_dir() -> Path:
    """The user's fieldstudio configuration folder (model profiles, settings), created on demand."""
    path = Path(os.environ.get("FIELDSTUDIO_CONFIG_DIR") or platformdirs.user_config_dir(APP))
    path.mkdir(parents=True, exist_ok=True)
    return path


def data_dir() -> Path:
    """The user's fieldstudio data folder (the demo project by default), created on demand."""
    path = Path(os.environ.get("FIELDSTUDIO_DATA_DIR") or platformdirs.user_data_dir(APP))
    path.mkdir(parents=True, exist_ok=True)
    return path


def log_dir() -> Path:
    """The platform's log folder for fieldstudio, created on demand."""
    path = Path(os.environ.get("FIELDSTUDIO_LOG_DIR") or platformdirs.user_log_dir(APP))
    path.mkdir(parents=True, exist_ok=True)
    return path
