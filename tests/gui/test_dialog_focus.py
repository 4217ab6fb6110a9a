"""The keyboard works right after a modal dialog closes, with no window manager to give it back (issue 32,
item 6): Go to frame, the import report and Override. Keys are sent to the window that has the keyboard
(``QGuiApplication.focusWindow()``), as a key press of the user arrives; none there fails the test.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog

from fieldstudio.media import inventory
from tests.support.gui_support import file_menu_action, import_report, wait_idle

pytestmark = pytest.mark.gui


def press(qtbot, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:  # noqa: ANN001
    """A key press where the user's keyboard goes: the focus window (asserted to exist)."""
    qtbot.waitUntil(lambda: QGuiApplication.focusWindow() is not None, timeout=2000)
    QTest.keyClick(QGuiApplication.focusWindow(), key, modifier)


def keys_work(w, qtbot) -> None:  # noqa: ANN001 - MainWindow, QtBot
    """On the Media tab with a video: the arrow steps a frame, B and R take their tools, Alt+2 shows Tasks."""
    assert w.modes.currentIndex() == 0
    qtbot.waitUntil(lambda: QApplication.focusWidget() is w.view.canvas, timeout=2000)
    frame = w.state.frame_index
    press(qtbot, Qt.Key.Key_Right)
    qtbot.waitUntil(lambda: w.state.frame_index == frame + 1, timeout=5000)
    press(qtbot, Qt.Key.Key_B)
    assert w.state.tool == "box"
    press(qtbot, Qt.Key.Key_R)
    assert w.state.tool == "ruler"
    press(qtbot, Qt.Key.Key_Escape)
    press(qtbot, Qt.Key.Key_2, Qt.KeyboardModifier.AltModifier)
    assert w.modes.currentWidget() is w.workspace._pages["tasks"]
    w.modes.setCurrentIndex(0)


def open_video(w, qtbot, frame: int = 5) -> None:  # noqa: ANN001
    video = next(c for c in inventory.media_choices(w.state.project) if c.kind == "video")
    w.state.request_frame(video.id, frame)
    qtbot.waitUntil(lambda: w.state.media is not None and w.state.frame_index == frame, timeout=10000)
    wait_idle(w, qtbot)


def close_when_shown(qtbot, close) -> None:  # noqa: ANN001 - QtBot, callable(dialog)
    """Close the modal dialog that is about to open (exec() blocks the test until then)."""
    def later() -> None:
        dialog = QApplication.activeModalWidget()
        if dialog is None:
            QTimer.singleShot(20, later)
            return
        close(dialog)
    QTimer.singleShot(50, later)


def test_go_to_frame_gives_the_keys_back(demo_window, qtbot):
    w = demo_window
    open_video(w, qtbot)
    w.view.canvas.setFocus()
    close_when_shown(qtbot, lambda d: d.reject())
    w.actions["go_to"].trigger()
    keys_work(w, qtbot)
    # and once more after Go to frame was used to jump
    close_when_shown(qtbot, lambda d: (d.setTextValue("12"), d.accept()))
    w.actions["go_to"].trigger()
    qtbot.waitUntil(lambda: w.state.frame_index == 12, timeout=5000)
    keys_work(w, qtbot)


def test_the_import_report_gives_the_keys_back(demo_window, qtbot, tmp_path, monkeypatch):
    w = demo_window
    open_video(w, qtbot)
    tasks = tmp_path / "more.csv"
    tasks.write_text("task_id,query,answer_type,ground_truth\nx1,Is it raining?,yes_no,No\n", encoding="utf-8")
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", lambda *a, **k: ([str(tasks)], ""))
    file_menu_action(w, "Import &tasks…").trigger()
    report = import_report(w, qtbot, 30000)
    qtbot.waitUntil(lambda: QGuiApplication.focusWindow() is report.windowHandle(), timeout=5000)
    report.accept()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is w.view.canvas, timeout=2000)
    keys_work(w, qtbot)


def test_override_gives_the_keys_back_to_the_compare_grid(demo_window, qtbot):
    w = demo_window
    open_video(w, qtbot)
    compare = w.workspace.show_panel("comparison")
    qtbot.waitUntil(lambda: compare.view is not None and bool(compare.view.scorer), timeout=20000)
    table = compare.table
    model = table.model()
    cell = next(model.index(r, c) for r in range(model.rowCount()) for c in range(1, model.columnCount())
                if "·" in str(model.index(r, c).data() or ""))   # a scored answer's cell
    table.setFocus()
    table.setCurrentIndex(cell)
    qtbot.waitUntil(lambda: compare.detail.detail is not None, timeout=5000)
    dialog = compare.open_override_dialog()
    qtbot.waitUntil(lambda: QGuiApplication.focusWindow() is dialog.windowHandle(), timeout=5000)
    dialog.reject()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is table, timeout=2000)   # where the keys were
    press(qtbot, Qt.Key.Key_1, Qt.KeyboardModifier.AltModifier)
    assert w.modes.currentIndex() == 0
    w.view.canvas.setFocus()
    keys_work(w, qtbot)
