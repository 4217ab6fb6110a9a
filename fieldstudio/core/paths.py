"""Where fieldstudio's own files live: resources, sample data, user config, data and logs.

In a source checkout, ``resources/`` and ``sample_data/`` sit next to the ``fieldstudio`` package; in a
PyInstaller bundle they sit in ``sys._MEIPASS``. User folders come from platformdirs, and
``FIELDSTUDIO_CONFIG_DIR`` / ``FIELDSTUDIO_DATA_DIR`` override them (tests, portable installs).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import platformdirs

APP = "fieldstudio"


def install_root() -> Path:
    """The folder holding ``resources/`` and ``sample_data/``."""
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        return Path(frozen)
    return Path(__file__).resolve().parents[2]


def resources_dir() -> Path:
    """fieldstudio's icons, style sheet and prompt templates."""
    return install_root() / "resources"


def sample_data_dir() -> Path:
    """The sample media, task set and rating queue that ``fieldstudio demo`` builds a project from."""
    return install_root() / "sample_data"


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
