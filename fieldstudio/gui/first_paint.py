"""Work that waits for a window's first paint: what a new window queues while it is built runs after a user sees it.

A window shown by ``show()`` is painted when the platform exposes it, in a later turn of the event loop than the
zero-timers queued while the window was built: those ran first, before anything was on screen (the library's
other 4,900 rows, 30-40 ms; the start of the project's open on a worker, whose imports then held the interpreter
while the window waited to be painted: the first paint came 40-90 ms after the window was ready, issue 37).
:func:`after_first_paint` puts such work after that paint.
"""

from __future__ import annotations

from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QWidget

#: ms a shown window that is not exposed (minimised at start, a platform that never exposes it) holds the work back
FALLBACK_MS = 300


def after_first_paint(context: QObject, fn: Callable[[], None]) -> None:
    """Call ``fn()`` in the turn of the event loop after the first paint of ``context``'s window.

    ``context``: a widget, or a QObject whose parents lead to one; its window is looked up when the event loop
    next turns (a widget is often put in its window after it is made). Without a window, or with a window that is
    not shown or already exposed (painted, or painted in this same turn), ``fn`` runs in that next turn, as a
    zero-timer would. A shown window that is not exposed within :data:`FALLBACK_MS` ms runs it then.
    ``fn`` is dropped when ``context`` is deleted first. Raises nothing itself: an ``fn`` that raises is reported as
    a zero-timer's error is (``sys.excepthook``), and the calls queued after it still run.
    """
    QTimer.singleShot(0, context, lambda: _when_painted(context, fn))


def _when_painted(context: QObject, fn: Callable[[], None]) -> None:
    window = _window_of(context)
    handle = window.windowHandle() if window is not None else None
    if window is None or not window.isVisible() or handle is None or handle.isExposed():
        fn()
        return
    watch = window.findChild(_FirstPaint, "", Qt.FindChildOption.FindDirectChildrenOnly)
    (watch or _FirstPaint(window)).add(context, fn)


def _window_of(obj: QObject) -> QWidget | None:
    while obj is not None and not isinstance(obj, QWidget):
        obj = obj.parent()
    return obj.window() if obj is not None else None


class _FirstPaint(QObject):
    """Watches one window's events until its first paint, then makes the calls it was given, in their order, in the
    next turn of the event loop (an event filter per call would make them in the reverse order)."""

    def __init__(self, window: QWidget):
        super().__init__(window)
        self._window = window
        self._calls: list[tuple[QObject, Callable[[], None]]] = []
        window.installEventFilter(self)
        QTimer.singleShot(FALLBACK_MS, self, self._run)

    def add(self, context: QObject, fn: Callable[[], None]) -> None:
        self._calls.append((context, fn))

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Paint:
            self._window.removeEventFilter(self)  # every later event of the window stays out of Python
            QTimer.singleShot(0, self, self._run)  # after this paint and its children's, flushed together
        return False

    def _run(self) -> None:
        calls, self._calls = self._calls, []
        self._window.removeEventFilter(self)
        self.setParent(None)  # a later call on this window (not exposed again) gets a watch of its own
        self.deleteLater()
        _call_each(calls)


def _call_each(calls: list[tuple[QObject, Callable[[], None]]]) -> None:
    """Make ``calls`` in their order. One that raises is reported as a zero-timer's error is (``sys.excepthook``,
    when it leaves this function) and the calls after it run in the next turn: each stays on its own, as the
    zero-timers they replaced were (the library's rest failing to be read must not keep the project from opening)."""
    for k, (context, fn) in enumerate(calls):
        if not shiboken6.isValid(context):  # a context deleted meanwhile drops its call
            continue
        try:
            fn()
        except BaseException:
            rest = calls[k + 1:]
            if rest:
                QTimer.singleShot(0, lambda: _call_each(rest))
            raise
