"""The settings registry (``core.user_settings``) and its window.ini backend (``gui/settings.py``).

Typed round trips through Qt's INI file (read back in a fresh process, where every scalar comes back as a
string), a window.ini as earlier versions wrote it, malformed values falling back to their defaults, and
the rule that no module spells a settings key or a user file outside the registry.
"""

from __future__ import annotations

import ast
import getpass
import importlib
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fieldstudio.core import user_settings as us
from fieldstudio.core.paths import config_dir
from fieldstudio.core.user_settings import Setting

ROOT = Path(__file__).resolve().parents[2]

FLAG = Setting("test", "flag", bool, False, "a bool")
COUNT = Setting("test", "count", int, 5, "an int")
RATIO = Setting("test", "ratio", float, 0.5, "a float")
NAME = Setting("test", "name", str, "", "a str")
NAMES = Setting("test", "names", list[str], [], "a list of str")
BLOB = Setting("test", "blob", bytes, b"", "bytes")
TYPED = {FLAG: True, COUNT: 12, RATIO: 0.25, NAME: "Smith, J", NAMES: ["one"], BLOB: b"\x00\x01\xd9\xd0geometry\xff"}


class _Stored(dict):
    """A backend over a dict: what an INI file holds, as the test writes it."""

    synced = 0

    def value(self, name: str) -> object | None:
        return self.get(name)

    def set_value(self, name: str, value: object) -> None:
        self[name] = value

    def sync(self) -> None:
        self.synced += 1


# ------------------------------------------------------------------ the core, without Qt
@pytest.mark.parametrize(("setting", "raw", "expected"), [
    (FLAG, "true", True), (FLAG, "false", False), (FLAG, "1", True), (FLAG, 0, False), (FLAG, True, True),
    (COUNT, "8", 8), (COUNT, " -3 ", -3), (COUNT, 8, 8),
    (RATIO, "1.5", 1.5), (RATIO, 2, 2.0),
    (NAME, "Smith, J", "Smith, J"), (NAME, ["Smith", "J"], "Smith, J"),   # an unquoted comma reads as a list
    (NAMES, "a.fieldstudio", ["a.fieldstudio"]), (NAMES, ["a", "b"], ["a", "b"]), (NAMES, "", []),
    (BLOB, b"\x00\x01", b"\x00\x01"), (BLOB, bytearray(b"\x02"), b"\x02"),
])
def test_what_an_ini_file_hands_back_reads_as_the_declared_type(setting, raw, expected):
    value = us.read(_Stored({setting.name: raw}), setting)
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize(("setting", "raw"), [
    (FLAG, "maybe"), (FLAG, 2), (COUNT, "often"), (COUNT, "5.5"), (COUNT, True), (COUNT, b"5"), (RATIO, "half"),
    (NAME, 5), (NAME, b"x"), (NAMES, [1, 2]), (NAMES, b"a"), (BLOB, "not bytes"), (BLOB, ["a"]),
])
def test_a_malformed_value_gives_the_default_and_a_log_line(setting, raw, caplog):
    with caplog.at_level(logging.WARNING, logger="fieldstudio.core.user_settings"):
        assert us.read(_Stored({setting.name: raw}), setting) == setting.default
    assert len(caplog.records) == 1
    assert setting.name in caplog.text and "using the default" in caplog.text


def test_nothing_stored_gives_the_default_and_a_list_default_is_never_shared():
    stored = _Stored()
    assert us.read(stored, COUNT) == 5 and us.read(stored, BLOB) == b""
    first = us.read(stored, NAMES)
    first.append("changed")
    assert us.read(stored, NAMES) == [] and NAMES.default == []


def test_writes_are_typed_and_synced_once():
    stored = _Stored()
    us.write_all(stored, TYPED)
    assert stored.synced == 1
    assert {s: us.read(stored, s) for s in TYPED} == TYPED
    for setting, wrong in [(COUNT, "12"), (COUNT, True), (FLAG, 1), (NAME, None), (NAMES, "a"), (NAMES, ["a", 1]),
                           (BLOB, "geometry")]:
        with pytest.raises(TypeError, match=setting.name):
            us.write(stored, setting, wrong)
    assert stored.synced == 1                     # a refused value writes nothing


def test_declarations_are_checked():
    with pytest.raises(TypeError):
        Setting("test", "x", dict, {}, "not a setting type")
    with pytest.raises(TypeError):
        Setting("test", "x", int, "5", "default of another type")
    with pytest.raises(ValueError):
        Setting("test", "a/b", str, "", "a key with a slash")
    with pytest.raises(ValueError):
        us.SHORTCUTS.setting("not an id", "")


def test_the_registry_lists_each_setting_and_file_once():
    names = [s.name for s in us.SETTINGS]
    assert len(set(names)) == len(names)
    assert not {s.section for s in us.SETTINGS} & {g.section for g in us.GROUPS}
    assert all(s.description for s in us.SETTINGS) and all(g.description for g in us.GROUPS)
    assert len({f.name for f in us.FILES}) == len(us.FILES)
    for user_file in us.FILES:
        module, function = user_file.loader.split(":")
        assert callable(getattr(importlib.import_module(module), function)), user_file


def test_each_store_of_records_uses_the_registrys_file():
    from fieldstudio.core import media_roots
    from fieldstudio.inference import profiles
    from fieldstudio.scoring.official import source

    assert profiles.profiles_path() == us.MODEL_PROFILES.path() == config_dir() / "model_profiles.json"
    assert media_roots.roots_file() == us.MEDIA_ROOTS.path() == config_dir() / "media_roots.json"
    assert source.SOURCES_FILE == "official_sources.json" == us.OFFICIAL_SOURCES.name
    assert us.WINDOW_INI.path() == config_dir() / "window.ini"


def test_the_tracking_setting_defaults_to_the_trackers_spacing():
    from fieldstudio.annotations import tracking

    assert us.TRACKING_KEYFRAME_EVERY.default == tracking.DEFAULT_EVERY


# ------------------------------------------------------------------ window.ini through QSettings
def _read_in_a_fresh_process(settings: list[str]) -> dict[str, object]:
    """``gui.settings.get`` of the named test settings in a new interpreter (no QSettings cache)."""
    code = ("import sys; from tests.core import test_user_settings as t; from fieldstudio.gui import settings; "
            "print(repr({n: settings.get(getattr(t, n)) for n in sys.argv[1:]}))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code, *settings], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=120, check=True)
    return ast.literal_eval(done.stdout.strip().splitlines()[-1])


def test_typed_values_round_trip_through_window_ini():
    from fieldstudio.gui import settings

    settings.set_all(TYPED)
    assert {s: settings.get(s) for s in TYPED} == TYPED              # this process: QSettings' cache
    text = us.WINDOW_INI.path().read_text()
    assert "flag=true" in text and "count=12" in text and 'name="Smith, J"' in text and "names=one" in text
    assert "blob=@ByteArray(" in text
    again = _read_in_a_fresh_process(["FLAG", "COUNT", "RATIO", "NAME", "NAMES", "BLOB"])
    assert again == {"FLAG": True, "COUNT": 12, "RATIO": 0.25, "NAME": "Smith, J", "NAMES": ["one"],
                     "BLOB": b"\x00\x01\xd9\xd0geometry\xff"}


def test_window_ini_is_read_once_while_unchanged_and_again_when_written_or_changed_on_disk(monkeypatch):
    from fieldstudio.gui import settings

    opened = []
    real = settings.settings
    monkeypatch.setattr(settings, "settings", lambda: opened.append(1) or real())
    settings.set(COUNT, 7)
    opened.clear()
    assert [settings.get(COUNT) for _ in range(5)] == [7] * 5 and settings.get_all([COUNT, NAME]) == [7, ""]
    assert len(opened) == 1  # one read for all of them: the file did not change
    settings.set(COUNT, 8)  # this process's write: read again
    assert settings.get(COUNT) == 8
    path = us.WINDOW_INI.path()
    text = path.read_text().replace("count=8", "count=9")  # another process's write
    path.write_text(text)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # a clock too coarse would hide it
    before = len(opened)
    assert settings.get(COUNT) == 9 and len(opened) == before + 1


#: window.ini as fieldstudio wrote it before the registry (QSettings.setValue with these keys).
EARLIER_WINDOW_INI = r"""[General]
recent=/site/a.fieldstudio, postgresql://ana@db.example:5432/yard

[rating]
rater="Smith, J"

[scoring]
last_judge=judge-4o

[shortcuts]
next_frame="Ctrl+,"
quit=

[tracking]
keyframe_every=8

[window]
geometry=@ByteArray(\x1\xd9\xd0\xcb\0\x3\0\0)
"""


def test_a_window_ini_written_by_an_earlier_version_reads_the_same():
    from fieldstudio.gui import settings, shortcuts

    us.WINDOW_INI.path().write_text(EARLIER_WINDOW_INI)
    assert settings.get(us.RECENT_PROJECTS) == ["/site/a.fieldstudio", "postgresql://ana@db.example:5432/yard"]
    assert settings.get(us.RATER) == "Smith, J" and settings.get(us.LAST_JUDGE) == "judge-4o"
    assert settings.get(us.TRACKING_KEYFRAME_EVERY) == 8
    assert settings.get(us.WINDOW_GEOMETRY) == b"\x01\xd9\xd0\xcb\x00\x03\x00\x00"
    assert settings.get(us.WINDOW_STATE) == b""
    assert shortcuts.key_for("next_frame") == "Ctrl+," and shortcuts.key_for("quit") == ""
    assert shortcuts.key_for("undo") == "Ctrl+Z"


def test_what_the_window_writes_is_what_earlier_versions_wrote():
    from fieldstudio.gui import settings

    settings.set_all({us.RECENT_PROJECTS: ["/site/a.fieldstudio", "postgresql://ana@db.example:5432/yard"],
                      us.RATER: "Smith, J", us.LAST_JUDGE: "judge-4o", us.TRACKING_KEYFRAME_EVERY: 8,
                      us.WINDOW_GEOMETRY: b"\x01\xd9\xd0\xcb\x00\x03\x00\x00",
                      us.SHORTCUTS.setting("next_frame", "Right"): "Ctrl+,",
                      us.SHORTCUTS.setting("quit", "Ctrl+Q"): ""})
    assert us.WINDOW_INI.path().read_text() == EARLIER_WINDOW_INI


def test_malformed_values_in_window_ini_give_defaults(caplog):
    from fieldstudio.gui import settings, shortcuts
    from fieldstudio.gui.panels.rating import default_rater

    us.WINDOW_INI.path().write_text("[General]\nrecent=@Invalid()\n\n[tracking]\nkeyframe_every=often\n\n"
                                    "[window]\ngeometry=not a geometry\nstate=@ByteArray(\\x1\\x2)\n\n"
                                    "[rating]\nrater=@ByteArray(\\x1)\n")
    with caplog.at_level(logging.WARNING, logger="fieldstudio.core.user_settings"):
        assert settings.get(us.RECENT_PROJECTS) == [] and settings.recent_projects() == []
        assert settings.get(us.TRACKING_KEYFRAME_EVERY) == 5
        assert settings.get(us.WINDOW_GEOMETRY) == b"" and settings.get(us.WINDOW_STATE) == b"\x01\x02"
        assert default_rater() == getpass.getuser()
        assert shortcuts.key_for("quit") == "Ctrl+Q"
    logged = {r.getMessage().split(":")[0] for r in caplog.records}
    assert logged == {"setting tracking/keyframe_every", "setting window/geometry", "setting rating/rater"}


# ------------------------------------------------------------------ no key outside the registry
_SETTINGS_CALLS = {"value", "setValue"}
_REGISTRY = ROOT / "fieldstudio" / "core" / "user_settings.py"
_BACKEND = ROOT / "fieldstudio" / "gui" / "settings.py"


def _is_text(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or isinstance(node, ast.Constant) and isinstance(node.value, str)


def _key_literals(source: str) -> list[tuple[int, str]]:
    """(line, what) for each ``.value(``/``.setValue(`` call whose key is a string literal, an f-string or a
    module constant holding a string, each ``QSettings(...)`` construction and each ``config_dir()`` call."""
    tree = ast.parse(source)
    text_constants = {target.id for node in tree.body if isinstance(node, ast.Assign) and _is_text(node.value)
                      for target in node.targets if isinstance(target, ast.Name)}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name in _SETTINGS_CALLS and isinstance(func, ast.Attribute) and node.args and (
                _is_text(node.args[0]) or isinstance(node.args[0], ast.Name) and node.args[0].id in text_constants):
            found.append((node.lineno, f".{name}({ast.unparse(node.args[0])}, ...)"))
        elif name in ("QSettings", "config_dir"):
            found.append((node.lineno, f"{name}(...)"))
    return found


def test_the_scan_finds_a_key_literal():
    snippet = ('s = settings()\nx = s.value("rating/rater")\ns.setValue(f"shortcuts/{aid}", keys)\n'
               'q = QSettings(str(config_dir() / "window.ini"), fmt)\nbar.setValue(3)\nn = spin.value()\n'
               'KEY = "scoring/last_judge"\ns.setValue(KEY, judge)\nm = spin.value(STEP)\n')
    assert sorted(line for line, _what in _key_literals(snippet)) == [2, 3, 4, 4, 8]


def test_no_settings_key_or_config_file_is_spelled_outside_the_registry():
    allowed = {_REGISTRY: {"config_dir(...)"}, _BACKEND: {"QSettings(...)"},
               ROOT / "fieldstudio" / "core" / "paths.py": set()}
    stray = []
    for folder in ("fieldstudio", "benchmarks", "docs", "installers"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for line, what in _key_literals(path.read_text(encoding="utf-8")):
                if what not in allowed.get(path, set()):
                    stray.append(f"{path.relative_to(ROOT)}:{line}: {what}")
    assert not stray, "declare the setting in fieldstudio/core/user_settings.py and use it:\n" + "\n".join(stray)
