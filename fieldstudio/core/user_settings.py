"""Everything fieldstudio keeps per user, declared once: the settings and the files in the config folder.

Two kinds of thing live in the user's config folder (``core.paths.config_dir``, the one place that decides
where it is):

* **settings**, each a ``Setting`` (in the manner of Picard's option registry): its section and key in
  ``window.ini``, its Python type, its default and one line saying what it is. ``read`` and ``write`` go
  through a ``SettingsBackend`` (the window's is ``gui/settings.py``, Qt's INI format) and convert what an
  INI file hands back (every scalar as a string, a one-item list as a plain string, an empty list as
  nothing) to the declared type, so no caller converts. A stored value that cannot be read as its type
  gives the default and a log line, never an exception; the file keeps it until the setting is written.
  A ``SettingGroup`` declares settings that share a section and a meaning, one key per item (the keys of
  each window action).
* **files of records**, each a ``UserFile``: its name, what it holds and the function that reads it (model
  profiles, the benchmarks' located judge files, media roots). Each keeps its own JSON format, read and
  written by its owning module, which asks this registry for the file's path.

Nothing here imports Qt: the backend is anything with ``value(name)``, ``set_value(name, value)`` and
``sync()``, where ``name`` is ``section/key`` (``key`` alone in the INI's ``[General]`` section).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from fieldstudio.core.paths import config_dir

log = logging.getLogger(__name__)

T = TypeVar("T")

#: The types a setting can have; ``list[str]`` is a list of strings (Qt's INI writes it comma-separated).
TYPES: tuple[Any, ...] = (bool, int, float, str, bytes, list[str])

_KEY = re.compile(r"^[A-Za-z0-9_]+$")
_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")


def type_name(kind: Any) -> str:
    """How a setting's type is written for people: ``bool``, ``int``, ``float``, ``str``, ``bytes``, ``list[str]``."""
    return kind.__name__ if isinstance(kind, type) else str(kind)


def _type_names() -> str:
    return ", ".join(type_name(kind) for kind in TYPES)


def _is_a(kind: Any, value: object) -> bool:
    if kind == list[str]:
        return isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value)
    if kind is bytes:
        return isinstance(value, (bytes, bytearray))
    if kind in (int, float) and isinstance(value, bool):
        return False
    if kind is float:
        return isinstance(value, (int, float))
    return isinstance(value, kind)


class SettingsBackend(Protocol):
    """Where settings are stored. ``name`` is a setting's ``section/key``; ``value`` returns None when the
    name is not stored; ``set_value`` takes what ``encode`` returns (bool, int, float, str, bytes, list of str)."""

    def value(self, name: str) -> object | None: ...

    def set_value(self, name: str, value: object) -> None: ...

    def sync(self) -> None: ...


@dataclass(frozen=True)
class Setting(Generic[T]):
    """One user setting: ``section`` and ``key`` in ``window.ini`` ("" for the ``[General]`` section), its
    Python ``type`` (one of ``TYPES``), its ``default`` (given when nothing or something unreadable is
    stored) and a one-line ``description`` for the user."""

    section: str
    key: str
    type: Any
    default: T = field(hash=False)  # a list default is not hashable; section and key identify it
    description: str = field(hash=False)

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise TypeError(f"setting {self.name}: type {self.type!r} is not one of {_type_names()}")
        if not _KEY.match(self.key) or (self.section and not _KEY.match(self.section)):
            raise ValueError(f"setting {self.section}/{self.key}: section and key are letters, digits and '_'")
        if not _is_a(self.type, self.default):
            raise TypeError(f"setting {self.name}: default {self.default!r} is not a {type_name(self.type)}")

    @property
    def name(self) -> str:
        """The name the backend stores it under: ``section/key``, or ``key`` in the ``[General]`` section."""
        return f"{self.section}/{self.key}" if self.section else self.key


@dataclass(frozen=True)
class SettingGroup:
    """Settings that share a section, a type and a meaning, one key per item (e.g. one per window action);
    the items and their defaults are known to the code that owns them (``gui/shortcuts.DEFAULTS``)."""

    section: str
    type: Any
    description: str

    def setting(self, key: str, default: Any) -> Setting[Any]:
        """The group's setting for item ``key`` with that item's default. Raises ValueError for a key that
        is not letters, digits and '_', TypeError for a default not of the group's type."""
        return Setting(self.section, key, self.type, default, f"{self.description} ({key})")


@dataclass(frozen=True)
class UserFile:
    """A file of records in the user's config folder, kept in its own format by its owning module.

    ``name`` is the file's name, ``holds`` says what it holds, ``loader`` names the function that reads it
    (``module:function``; named, not imported, since the owners sit above ``core``)."""

    name: str
    holds: str
    loader: str

    def path(self) -> Path:
        """The file in the user's config folder (the folder is created; the file may not exist yet)."""
        return config_dir() / self.name


# ------------------------------------------------------------------ the registry
WINDOW_INI = UserFile("window.ini", "the settings below (Qt's INI format)", "fieldstudio.gui.settings:get")
MODEL_PROFILES = UserFile("model_profiles.json", "model profiles: endpoint, model id, prices, limits (never "
                          "an API key)", "fieldstudio.inference.profiles:load_profiles")
OFFICIAL_SOURCES = UserFile("official_sources.json", "the folder of each benchmark's own judge files "
                            "(`fieldstudio benchmarks locate`)", "fieldstudio.scoring.official.source:located_folders")
MEDIA_ROOTS = UserFile("media_roots.json", "this computer's folder of each named media root "
                       "(`fieldstudio media-root`)", "fieldstudio.core.media_roots:roots")

RECENT_PROJECTS: Setting[list[str]] = Setting(
    "", "recent", list[str], [],
    "Recently opened projects, newest first: project files and shared projects' URLs (never with a password)")
WINDOW_GEOMETRY: Setting[bytes] = Setting(
    "window", "geometry", bytes, b"", "The main window's size and place on the screen (Qt's saveGeometry)")
WINDOW_STATE: Setting[bytes] = Setting(
    "window", "state", bytes, b"", "Which panels are shown and where they are docked (Qt's saveState)")
TRACKING_KEYFRAME_EVERY: Setting[int] = Setting(
    "tracking", "keyframe_every", int, 5, "Tracking a box (T, Shift+T) stores a keyframe every this many frames")
ASK_LABEL: Setting[bool] = Setting(
    "annotate", "ask_label", bool, True,
    "A new box asks for its label in a chooser at the pointer (Enter keeps the current one; keys 1-9 pick)")
RATER: Setting[str] = Setting(
    "rating", "rater", str, "", "The rater name used last in Rate (empty: the operating system's user name)")
CODERS: Setting[list[str]] = Setting(
    "behaviour", "coders", list[str], [],
    "The coders chosen in the Behaviour dock's Coder chooser, newest first (empty: the operating system's user name)")
LAST_JUDGE: Setting[str] = Setting(
    "scoring", "last_judge", str, "", "The model profile the Score dialog last scored with as judge")
SHORTCUTS = SettingGroup(
    "shortcuts", str, "The keys of a window action in Qt's portable text, e.g. Ctrl+Shift+Z (empty: none)")

#: Every setting, every group of settings and every file, in the order a listing would show them.
SETTINGS: tuple[Setting[Any], ...] = (RECENT_PROJECTS, WINDOW_GEOMETRY, WINDOW_STATE, TRACKING_KEYFRAME_EVERY,
                                      ASK_LABEL, RATER, CODERS, LAST_JUDGE)
GROUPS: tuple[SettingGroup, ...] = (SHORTCUTS,)
FILES: tuple[UserFile, ...] = (WINDOW_INI, MODEL_PROFILES, OFFICIAL_SOURCES, MEDIA_ROOTS)


# ------------------------------------------------------------------ typed reads and writes
def read(backend: SettingsBackend, setting: Setting[T]) -> T:
    """The stored value of ``setting`` as its declared type; its default when nothing is stored or the
    stored value cannot be read as that type (logged as a warning). Never raises for a stored value."""
    raw = backend.value(setting.name)
    if raw is None:
        return _copy(setting.default)
    try:
        return decode(setting, raw)
    except ValueError as exc:
        log.warning("setting %s: %s; using the default %r", setting.name, exc, setting.default)
        return _copy(setting.default)


def write(backend: SettingsBackend, setting: Setting[T], value: T) -> None:
    """Store ``value`` under ``setting`` and sync. Raises TypeError when it is not of the setting's type."""
    write_all(backend, {setting: value})


def write_all(backend: SettingsBackend, values: Mapping[Setting[Any], Any]) -> None:
    """Store several settings and sync once. Raises TypeError (storing none of them) when a value is not of
    its setting's type."""
    encoded = [(setting.name, encode(setting, value)) for setting, value in values.items()]
    for name, raw in encoded:
        backend.set_value(name, raw)
    backend.sync()


def decode(setting: Setting[T], raw: object) -> T:
    """``raw`` (what a backend returned for ``setting``, not None) as the setting's type.

    An INI file gives strings: "true"/"false" for a bool, digits for an int, a plain string for a one-item
    list, and a list for a string that held an unquoted comma (joined again with ", "). Raises ValueError
    saying what was stored when it cannot be read as the type."""
    kind = setting.type
    if kind is bool:
        if isinstance(raw, bool):
            return raw  # type: ignore[return-value]
        word = str(raw).strip().lower() if isinstance(raw, (str, int)) else None
        if word in _TRUE or word in _FALSE:
            return (word in _TRUE)  # type: ignore[return-value]
    elif kind is int:
        if isinstance(raw, int) and not isinstance(raw, bool):
            return raw  # type: ignore[return-value]
        if isinstance(raw, str) and re.fullmatch(r"\s*[-+]?\d+\s*", raw):
            return int(raw)  # type: ignore[return-value]
    elif kind is float:
        if isinstance(raw, (int, float)) and not isinstance(raw, bool):
            return float(raw)  # type: ignore[return-value]
        if isinstance(raw, str):
            try:
                return float(raw)  # type: ignore[return-value]
            except ValueError:
                pass
    elif kind is str:
        if isinstance(raw, str):
            return raw  # type: ignore[return-value]
        if isinstance(raw, list) and all(isinstance(item, str) for item in raw):
            return ", ".join(raw)  # type: ignore[return-value]
    elif kind is bytes:
        if isinstance(raw, (bytes, bytearray)):
            return bytes(raw)  # type: ignore[return-value]
    elif kind == list[str]:
        if isinstance(raw, str):
            return ([raw] if raw else [])  # type: ignore[return-value]
        if isinstance(raw, (list, tuple)) and all(isinstance(item, str) for item in raw):
            return list(raw)  # type: ignore[return-value]
    raise ValueError(f"the stored {_shown(raw)} is not a {type_name(kind)}")


def encode(setting: Setting[T], value: T) -> object:
    """``value`` as handed to the backend (a list becomes a new list of str). Raises TypeError when it is not
    of the setting's type."""
    if not _is_a(setting.type, value):
        raise TypeError(f"setting {setting.name} is a {type_name(setting.type)}, not {_shown(value)}")
    if setting.type == list[str]:
        return list(value)  # type: ignore[call-overload]
    if setting.type is bytes:
        return bytes(value)  # type: ignore[call-overload]
    return value


def _copy(value: T) -> T:
    return list(value) if isinstance(value, list) else value  # type: ignore[return-value]


def _shown(value: object) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:60] + '…' if len(text) > 60 else text}"
