"""The window's background workers (``gui.workers``): a finished worker lets go of what it was given."""

from __future__ import annotations

import gc
import weakref

from PySide6.QtCore import QThreadPool

from fieldstudio.gui import workers


class _Payload:
    """Stands for a project a worker was given (it held its two database engines)."""


def _touch(payload: _Payload, *, progress, cancelled) -> int:  # noqa: ANN001
    return 7


def test_a_finished_worker_lets_go_of_its_arguments_and_of_slots_that_name_it(qtbot):
    payload = _Payload()
    worker = workers.Worker(_touch, payload)
    results: list[int] = []
    # a slot that names its worker, as the project session's do: a cycle through Qt's connection
    worker.signals.result.connect(lambda r, w=worker: results.append(r if w.args else -1))
    kept = weakref.ref(payload)
    with qtbot.waitSignal(worker.signals.finished, timeout=10000):
        workers.start(worker)
    assert results == [7]                       # the result came while the worker still held its arguments
    del payload, worker
    qtbot.waitUntil(lambda: gc.collect() >= 0 and kept() is None, timeout=5000)


def test_run_with_progress_calls_ended_for_a_job_that_finished_before_it_returned(qtbot):
    calls: list[object] = []
    worker = workers.run_with_progress(None, "Touching…", _touch, _Payload(), done=lambda r: calls.append(r),
                                       failed=lambda message: calls.append(message),
                                       ended=lambda: calls.append("ended"))
    # the job is over before anything else is connected: a slot connected now never hears of it
    assert QThreadPool.globalInstance().waitForDone(10000)
    late: list[int] = []
    worker.signals.finished.connect(lambda: late.append(1))
    qtbot.waitUntil(lambda: calls == [7, "ended"], timeout=5000)
    assert late == []
