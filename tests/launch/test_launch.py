"""The console entry point opens the window without loading the command line, and passes the rest on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fieldstudio import launch
from fieldstudio.store.project import PROJECT_SUFFIX


def test_suffix_matches_the_store():
    assert launch.PROJECT_SUFFIX == PROJECT_SUFFIX


@pytest.mark.parametrize(("args", "expected"), [
    ([], (True, None)),
    (["site.fieldstudio"], (True, Path("site.fieldstudio"))),
    (["open"], (True, None)),
    (["open", "a b/é.fieldstudio"], (True, Path("a b/é.fieldstudio"))),
    (["open", "--help"], (False, None)),
    (["info", "site.fieldstudio"], (False, None)),
    (["site.fieldstudio", "extra"], (False, None)),
    (["version"], (False, None)),
])
def test_window_target(args, expected):
    assert launch.window_target(args) == expected


def test_open_does_not_import_the_command_line(tmp_path):
    code = ("import sys\nimport fieldstudio.gui.app as a\n"
            "a.run_gui = lambda p: print(repr(str(p)), 'fieldstudio.cli.app' in sys.modules, 'typer' in sys.modules) or 3\n"
            "from fieldstudio import launch\nlaunch.main(['open', 'x.fieldstudio'])\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 3, done.stderr
    assert done.stdout.split() == ["'x.fieldstudio'", "False", "False"]


def test_other_commands_reach_the_command_line(capsys):
    with pytest.raises(SystemExit) as exc:
        launch.main(["version"])
    assert exc.value.code in (0, None)
    assert capsys.readouterr().out.strip()


def test_collection_is_held_off_while_the_window_starts_and_back_on_once_it_is_shown(tmp_path):
    """`fieldstudio` imports the window's modules with the garbage collector off (their objects all live on),
    and the running window collects again: checked on the real window, closed after it is shown."""
    code = ("import gc, sys\nfrom PySide6.QtCore import QTimer\nimport fieldstudio.gui.app as a\n"
            "real = a.run_gui\n"
            "def run(p):\n"
            "    print('during start', gc.isenabled())\n"
            "    a.application()\n"
            "    QTimer.singleShot(300, lambda: print('shown', gc.isenabled(), flush=True))\n"
            "    return real(p)\n"
            "a.run_gui = run\n"
            "from fieldstudio import launch\nlaunch.main([])\n")
    env = {**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen", "FIELDSTUDIO_QUIT_AFTER_MS": "600",
           "FIELDSTUDIO_CONFIG_DIR": str(tmp_path / "c"), "FIELDSTUDIO_DATA_DIR": str(tmp_path / "d"),
           "FIELDSTUDIO_LOG_DIR": str(tmp_path / "l")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["during start False", "shown True"]
