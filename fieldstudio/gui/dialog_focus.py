"""Keyboard focus back to the window after one of its dialogs closes.

With a window manager, closing a modal dialog activates its parent window again and Qt gives the keyboard
back to the widget that had it. Without one (Xvfb, some kiosk and remote sessions) nothing is activated:
Qt has no active window, so the window's shortcuts (B, R, the arrows, Alt+2) and the canvas's keys do
nothing until the user clicks. :class:`FocusReturn` notices a dialog of the window losing the keyboard to
nothing and activates the window itself, with the focus on the canvas on the Media tab (where the viewer's
keys act) and on the widget that had it on another tab.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QGuiApplication, QWindow
from PySide6.QtWidgets import QApplication, QWidget
from shiboken6 import isValid


class FocusReturn(QObject):
    """Gives the keyboard back to ``window`` when a dialog of it closes and nothing else took it.

    ``target()`` names the widget to focus (the canvas on the Media tab), or None for the widget that had
    the focus in ``window`` before the dialog. Nothing is done when something has the keyboard after the
    dialog (a window manager gave it back, another dialog or application took it).
    """

    def __init__(self, window: QWidget, target: Callable[[], QWidget | None]):
        super().__init__(window)
        self.window, self._target = window, target
        self._watched: set[QWindow] = set()  # dialog windows of ours whose hiding is heard
        self._inside: QWidget | None = None  # the last widget of ``window`` that had the keyboard
        app = QApplication.instance()
        app.focusWindowChanged.connect(self._focus_window_changed)
        app.focusChanged.connect(self._focus_changed)

    def _focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        if new is not None and isValid(new) and new.window() is self.window:
            self._inside = new

    def _focus_window_changed(self, now: QWindow | None) -> None:
        # Qt drops the focus window of a dialog that hides without saying so (no focusWindowChanged to
        # None), so each dialog window of ours is watched for hiding while it has had the keyboard
        if now is None or not isValid(self.window) or now.transientParent() is not self.window.windowHandle():
            return
        if now not in self._watched:
            self._watched.add(now)
            now.visibleChanged.connect(self._dialog_visible)
            now.destroyed.connect(lambda _obj=None, w=now: self._watched.discard(w))

    def _dialog_visible(self, visible: bool) -> None:
        if not visible:  # after the dialog's own clean-up (exec() returns, its caller may open the next one)
            QTimer.singleShot(0, self.restore)

    def restore(self) -> None:
        """Activate the window and focus the widget the keys belong to, unless a dialog, a popup or another
        window has the keyboard by now."""
        if not isValid(self.window) or not self.window.isVisible():
            return
        # a dialog hidden without a window manager may stay Qt's focus window: hidden, it holds no keyboard
        focus = QGuiApplication.focusWindow()
        if focus is not None and focus.isVisible():
            return
        if QApplication.activeModalWidget() is not None or QApplication.activePopupWidget() is not None:
            return
        self.window.activateWindow()
        widget = self._target()
        if widget is None:
            widget = self._inside if self._inside is not None and isValid(self._inside) else None
        if widget is not None and widget.isVisible() and widget.isEnabled():
            widget.setFocus()


def give_keys_back(widget: QWidget | None) -> None:
    """After a dialog of ``widget``'s window closed that :class:`FocusReturn` does not hear (a progress dialog
    shown and hidden without ever taking the keyboard's focus-window change): let the window's FocusReturn,
    if it has one, give the keys back once the event loop runs again. Nothing for a window without one."""
    if widget is None or not isValid(widget):
        return
    watcher = widget.window().findChild(FocusReturn)
    if watcher is not None:
        QTimer.singleShot(0, watcher.restore)
