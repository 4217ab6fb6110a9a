"""gui/first_paint.py: work a new window queues runs after the window is painted, in order, once."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QLabel, QMainWindow

from fieldstudio.gui import first_paint
from fieldstudio.gui.first_paint import after_first_paint

pytestmark = pytest.mark.gui


class PaintCount(QObject):
    def __init__(self, widget):  # noqa: ANN001 - QWidget
        super().__init__()
        self.n = 0
        widget.installEventFilter(self)

    def eventFilter(self, obj, event):  # noqa: ANN001, ANN202, N802 - Qt override
        if event.type() == QEvent.Type.Paint:
            self.n += 1
        return False


def test_calls_wait_for_a_new_windows_first_paint_and_keep_their_order(qtbot):
    w = QMainWindow()
    qtbot.addWidget(w)
    w.setCentralWidget(QLabel("x"))
    paints = PaintCount(w)
    calls = []
    # queued while the window is built, as the library's rows and the project's open are
    for k in range(3):
        after_first_paint(w.centralWidget(), lambda k=k: calls.append((k, paints.n)))
    w.show()
    qtbot.waitUntil(lambda: len(calls) == 3, timeout=5000)
    # a zero-timer queued here ran before the platform exposed the window: painted 0 times then
    assert [k for k, _ in calls] == [0, 1, 2]
    assert all(n >= 1 for _, n in calls), calls


def test_without_a_shown_window_a_call_runs_in_the_next_turn(qtbot):
    calls = []
    alone = QObject()
    after_first_paint(alone, lambda: calls.append("object"))
    hidden = QLabel("never shown")
    qtbot.addWidget(hidden)
    after_first_paint(hidden, lambda: calls.append("hidden"))
    assert calls == []  # never at once: the caller finishes what it builds first
    qtbot.waitUntil(lambda: len(calls) == 2, timeout=2000)
    assert calls == ["object", "hidden"]


def test_a_window_already_on_screen_runs_the_call_in_the_next_turn(qtbot):
    w = QLabel("on screen")
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    qtbot.wait(50)
    calls = []
    after_first_paint(w, lambda: calls.append(1))
    qtbot.waitUntil(lambda: calls == [1], timeout=1000)


def test_a_deleted_context_drops_its_call(qtbot):
    w = QMainWindow()
    qtbot.addWidget(w)
    child = QLabel("goes", w)
    calls = []
    after_first_paint(child, lambda: calls.append("child"))
    after_first_paint(w, lambda: calls.append("window"))
    w.show()
    child.deleteLater()
    qtbot.waitUntil(lambda: calls == ["window"], timeout=5000)
    qtbot.wait(50)
    assert calls == ["window"]


def test_a_window_whose_paint_never_comes_runs_the_calls_after_the_fallback(qtbot, monkeypatch):
    """A shown window the platform never exposes (minimised at start) is never painted: the calls wait
    FALLBACK_MS, not for ever (the paint is kept from the watch here, as such a platform would)."""
    monkeypatch.setattr(first_paint, "FALLBACK_MS", 200)
    monkeypatch.setattr(first_paint._FirstPaint, "eventFilter", lambda _self, _obj, _event: False)
    w = QMainWindow()
    qtbot.addWidget(w)
    calls = []
    after_first_paint(w, lambda: calls.append("late"))
    w.show()
    qtbot.wait(100)
    assert calls == []
    qtbot.waitUntil(lambda: calls == ["late"], timeout=3000)


def test_a_call_that_raises_leaves_the_later_calls_to_run(qtbot, monkeypatch):
    """Each call stays on its own as the zero-timers it replaced were: the library's rest failing to be read
    (the project file moved meanwhile) is reported, and the project's open and the log file still start."""
    errors = []
    monkeypatch.setattr("sys.excepthook", lambda kind, exc, tb: errors.append(str(exc)))
    w = QMainWindow()
    qtbot.addWidget(w)
    calls = []

    def fails():
        raise RuntimeError("the rows cannot be read")

    after_first_paint(w, fails)
    after_first_paint(w, lambda: calls.append("open"))
    after_first_paint(w, lambda: calls.append("log"))
    w.show()
    qtbot.waitUntil(lambda: calls == ["open", "log"], timeout=5000)
    assert errors == ["the rows cannot be read"]
