"""PySide's check of every imported module's source, made a file search (gui/pyside_feature_check.py): the
same answer as PySide's own check, for modules that name PySide6, modules that do not, and modules without a
readable ``.py`` file."""

from __future__ import annotations

import json
import sqlite3
import sys
import zipfile
from types import ModuleType

from fieldstudio.gui import pyside_feature_check


def _feature() -> ModuleType:
    return sys.modules[pyside_feature_check.FEATURE_MODULE]


def test_importing_the_gui_installs_the_file_search_in_pyside():
    import fieldstudio.gui  # noqa: F401 - installs it

    check = _feature()._mod_uses_pyside
    assert getattr(check, pyside_feature_check._FAST)
    assert pyside_feature_check.install() is True
    assert _feature()._mod_uses_pyside is check  # installing again wraps nothing twice


def test_the_answer_is_pysides_own_for_modules_with_and_without_pyside(tmp_path, monkeypatch):
    import fieldstudio.gui.app
    import fieldstudio.gui.workers

    (tmp_path / "names_it_in_a_comment.py").write_text("# uses PySide6 in words only\nX = 1\n", encoding="utf-8")
    (tmp_path / "latin.py").write_bytes("# -*- coding: latin-1 -*-\nNAME = 'caf\xe9'\n".encode("latin-1"))
    with zipfile.ZipFile(tmp_path / "zipped.zip", "w") as z:
        z.writestr("zipped_pyside.py", "import PySide6\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(tmp_path / "zipped.zip"))
    import latin
    import names_it_in_a_comment
    import zipped_pyside

    original = _feature()._mod_uses_pyside.original
    modules = {fieldstudio.gui.app: True, fieldstudio.gui.workers: True, names_it_in_a_comment: True,
               zipped_pyside: True, json: False, latin: False, sqlite3: False, sys: False,
               sys.modules["_sqlite3"]: False, sys.modules["PySide6.QtCore"]: False}  # the last two: extensions
    for module, expected in modules.items():
        assert original(module) is expected, module  # PySide's own answer, as read by inspect
        assert pyside_feature_check.mentions_pyside(module, original) is expected, module
    assert not hasattr(ModuleType("no_file"), "__file__")
    assert pyside_feature_check.mentions_pyside(ModuleType("no_file"), original) is False
