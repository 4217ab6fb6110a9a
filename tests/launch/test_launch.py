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
