"""A project the window has closed is let go (issue 37): opening another, or going back to the welcome screen, leaves
nothing holding the old ``Project``, its two database engines, or its SQLite file open.

Every open used to leave the closed project alive (two engines more after each open, +190 MB over 21 opens, the
last stop's fresh-eyes tester). What held it: the listener that stamps changes with the project's user (SQLAlchemy
keeps a sessionmaker's listeners in a dictionary keyed weakly by its Session class, which the project itself held);
on the welcome screen, the stopped indexer kept by its status line; its file stayed open in Compare's watching
connection (``store.data_version``); and each open left the library dock's previous panel, with its rows, hidden.

The collector's set-aside (``gc.freeze``: ``core.garbage_collection``, the tabs' module import) is switched off here:
it also sets aside the cycles of whatever project is open at that moment, by design and once per batch of imports,
which would make these checks depend on which test first imported the modules concerned.
"""

from __future__ import annotations

import gc
import os
import weakref
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from fieldstudio.gui.panels.library import LibraryPanel
from fieldstudio.store import project as project_module
from tests.support.gui_support import copy_project, open_media, open_project_and_wait, wait_idle

pytestmark = pytest.mark.gui

VIDEO = "worker_zone_hardhat_vest_from_gif.mp4"  # a video of the demo project


def open_files_under(folder: Path) -> list[str]:
    """The files below ``folder`` this process holds open (Linux: /proc/self/fd)."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # the descriptor of the listing itself, closed meanwhile
            continue
        if target.startswith(str(folder)):
            found.append(target)
    return found


@pytest.fixture
def engines_made(monkeypatch) -> weakref.WeakSet:
    """The SQLite engines of the projects opened from now on, held weakly; no collector set-aside meanwhile."""
    made: weakref.WeakSet = weakref.WeakSet()
    real = project_module.make_engine

    def tracked(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        engine = real(*args, **kwargs)
        made.add(engine)
        return engine

    monkeypatch.setattr(project_module, "make_engine", tracked)
    monkeypatch.setattr(gc, "freeze", lambda: None)
    return made


def show_a_frame_and_compare(window, qtbot) -> None:  # noqa: ANN001 - MainWindow, QtBot
    open_media(window, qtbot, VIDEO)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_Right)
    wait_idle(window, qtbot)
    window.workspace.show_panel("comparison")
    qtbot.wait(300)


def test_a_project_replaced_by_another_is_let_go_with_its_engines_and_file(engines_made, demo_window, demo_file,
                                                                           qtbot, tmp_path):
    w = demo_window
    a_path = tmp_path / "a" / "a.fieldstudio"
    a_path.parent.mkdir()
    open_project_and_wait(w, qtbot, copy_project(demo_file, a_path))
    show_a_frame_and_compare(w, qtbot)
    a = w.state.project
    kept, kept_engines = weakref.ref(a), [weakref.ref(a.engine), weakref.ref(a.read_engine)]
    del a
    # A's two: the demo window's first project is let go once the workers still reading it have ended
    qtbot.waitUntil(lambda: gc.collect() >= 0 and len(engines_made) == 2, timeout=10000)

    open_project_and_wait(w, qtbot, copy_project(demo_file, tmp_path / "b.fieldstudio"))
    show_a_frame_and_compare(w, qtbot)
    # A is closed on a worker once its indexer has stopped: its file is let go then
    qtbot.waitUntil(lambda: not open_files_under(a_path.parent), timeout=10000)
    # a worker still reading A when it was closed (Compare's rows) holds it until it ends
    qtbot.waitUntil(lambda: gc.collect() >= 0 and kept() is None, timeout=10000)
    assert [e() for e in kept_engines] == [None, None]
    assert len(engines_made) == 2          # B's two
    # the library dock's panel of A (with its rows) is deleted, not kept hidden beside B's
    qtbot.waitUntil(lambda: len(w.findChildren(LibraryPanel)) == 1, timeout=5000)


def test_a_project_closed_for_the_welcome_screen_is_let_go(engines_made, demo_window, demo_file, qtbot, tmp_path):
    w = demo_window
    a_path = tmp_path / "a" / "a.fieldstudio"
    a_path.parent.mkdir()
    open_project_and_wait(w, qtbot, copy_project(demo_file, a_path))
    show_a_frame_and_compare(w, qtbot)
    kept = weakref.ref(w.state.project)

    w.show_welcome()
    qtbot.waitUntil(lambda: gc.collect() >= 0 and kept() is None, timeout=10000)
    assert len(engines_made) == 0
    assert open_files_under(a_path.parent) == []
