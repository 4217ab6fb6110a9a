"""Background work for the window: services run on the global QThreadPool and report through signals.

A worker never touches a widget; Qt queues its signals to the GUI thread (STYLE.md §1, the Picard
pattern).
"""

from __future__ import annotations

import logging
import threading
import warnings
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, QTimer, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget
from shiboken6 import isValid

from fieldstudio.core.garbage_collection import set_aside_new_modules
from fieldstudio.gui.dialog_focus import give_keys_back

log = logging.getLogger(__name__)


class WorkerSignals(QObject):
    """progress(done, total), result(object), error(str), finished()."""

    progress = Signal(int, int)
    result = Signal(object)
    error = Signal(str)
    finished = Signal()


class Worker(QRunnable):
    """Runs ``fn(*args, progress=..., cancelled=..., **kwargs)`` off the GUI thread.

    ``fn`` is a headless service (STYLE.md §1). Exceptions are logged with their traceback and sent to
    ``signals.error`` as a one-line message for the user.
    """

    def __init__(self, fn: Callable, *args, **kwargs):
        super().__init__()
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.signals = WorkerSignals()
        self._cancel = threading.Event()
        self.setAutoDelete(False)  # the owner keeps it until finished so its signals stay alive

    def cancel(self) -> None:
        """Ask the service to stop at its next check of ``cancelled()``."""
        self._cancel.set()

    def is_cancelled(self) -> bool:
        """True once :meth:`cancel` was called (a result that comes after it may be dropped by its receiver)."""
        return self._cancel.is_set()

    def run(self) -> None:
        try:
            out = self.fn(*self.args, progress=self._progress, cancelled=self._cancel.is_set, **self.kwargs)
        except Exception as exc:  # noqa: BLE001 - shown to the user; the traceback goes to the log
            log.exception("worker %s failed", getattr(self.fn, "__name__", self.fn))
            self._emit(self.signals.error, str(exc) or type(exc).__name__)
        else:
            self._emit(self.signals.result, out)
        finally:
            # services import their modules when first used, here: set them aside from the collector's full passes,
            # which walked them holding the interpreter lock while the window's thread waited (issue 37)
            set_aside_new_modules()
            self._emit(self.signals.finished)

    def _progress(self, done: int, total: int) -> None:
        self._emit(self.signals.progress, done, total)

    @staticmethod
    def _emit(signal, *args) -> None:  # noqa: ANN001 - SignalInstance
        # When the application quits while work is still running, Qt deletes the signals' C++ object
        # first; the result then has nobody to go to, which is not an error worth a traceback.
        try:
            signal.emit(*args)
        except RuntimeError:
            log.debug("worker finished after its receiver was deleted")


_running: set[Worker] = set()


def start(worker: Worker, pool: QThreadPool | None = None) -> Worker:
    """Start ``worker`` on ``pool`` (default the global one) and keep a reference until it has finished; once every
    slot of its ``finished`` has run, let go of what it was given and of its signals' connections (``_release``)."""
    _running.add(worker)
    worker.signals.finished.connect(lambda: _finished(worker))
    (pool or QThreadPool.globalInstance()).start(worker)
    return worker


def _finished(worker: Worker) -> None:
    _running.discard(worker)
    # connected first, this runs before the other slots of the same signal: the release waits for the next turn
    QTimer.singleShot(0, lambda: _release(worker))


def _release(worker: Worker) -> None:
    """Drop a finished worker's function, arguments and signal connections.

    PySide keeps a QRunnable given to ``QThreadPool.start`` alive for the process's life, and a slot that names its
    worker (``lambda reads: self._opened(reads, worker)``) makes a cycle through Qt's connection: each worker kept
    what it was given (a project, a comparison view) as long as the process ran. What is left of a finished worker
    is its empty shell, a few hundred bytes."""
    worker.fn, worker.args, worker.kwargs = None, (), {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # "Failed to disconnect": a signal nothing was connected to
        for signal in (worker.signals.progress, worker.signals.result, worker.signals.error, worker.signals.finished):
            try:
                signal.disconnect()
            except (RuntimeError, TypeError):  # its QObject already deleted (the application quitting)
                pass


def run_with_progress(parent: QWidget | None, label: str, fn: Callable, *args, done: Callable[[Any], None],
                      failed: Callable[[str], None], title: str | None = None, show_after_ms: int = 300,
                      ended: Callable[[], None] | None = None, **kwargs) -> Worker:
    """Run ``fn(*args, **kwargs)`` in a worker behind a window-modal progress dialog whose Cancel cancels it.

    The dialog appears only if the work lasts longer than ``show_after_ms`` and is closed before
    ``done(result)`` or ``failed(message)`` is called. The dialog is ``worker.progress_dialog``. ``ended()`` runs
    after either, once the worker has finished. The worker is started when this returns: a slot connected to its
    signals afterwards may miss them (a short job can finish first), so pass what must run at its end as ``ended``.
    """
    dialog = QProgressDialog(label, "Cancel", 0, 100, parent)
    if title:
        dialog.setWindowTitle(title)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(show_after_ms)
    worker = Worker(fn, *args, **kwargs)
    worker.progress_dialog = dialog

    def on_progress(d: int, t: int) -> None:
        dialog.setMaximum(max(t, 1))
        dialog.setValue(min(d, max(t, 1)))

    worker.signals.progress.connect(on_progress)
    def finish(then: Callable[[Any], None], value: Any) -> None:
        if not isValid(dialog):  # its window was closed while the work ran: nothing is left to show it in
            return
        dialog.reset()
        give_keys_back(parent)  # every progress dialog gives the keys back (no window manager may do it)
        then(value)

    worker.signals.result.connect(lambda out: finish(done, out))
    worker.signals.error.connect(lambda message: finish(failed, message))
    dialog.canceled.connect(worker.cancel)
    if ended is not None:
        worker.signals.finished.connect(ended)
    return start(worker)
