"""A heartbeat on the GUI thread: a QTimer beating every few milliseconds, whose gaps are the stalls a user feels.

Used by the benchmarks that open a view (``bench_compare``, ``bench_large_views``): start the heartbeat before
anything of the view is imported or built, ``mark()`` before the click, run the event loop until the view is
shown (``settle`` or a ``QEventLoop`` of one's own), then ``longest_gap_ms(mark)`` is the longest time the
GUI thread did not get back to its event loop since the mark. The beat is a Python slot, so a gap also counts
the time the GUI thread waited for the interpreter lock held by a worker (what a Python model's ``data()`` waits
for when the view paints).
"""

from __future__ import annotations

BEAT_MS = 5
"""The heartbeat's interval (ms)."""


class Heartbeat:
    """A ``BEAT_MS`` QTimer on the GUI thread recording the time of every beat (the QApplication must exist)."""

    def __init__(self) -> None:
        from PySide6.QtCore import QElapsedTimer, QTimer

        self._clock = QElapsedTimer()
        self._clock.start()
        self.beats: list[int] = []
        self._timer = QTimer()
        self._timer.setInterval(BEAT_MS)
        self._timer.timeout.connect(lambda: self.beats.append(self._clock.nsecsElapsed()))
        self._timer.start()

    def mark(self) -> int:
        """Now, on the heartbeat's clock (ns): pass it to :meth:`longest_gap_ms`."""
        return self._clock.nsecsElapsed()

    def longest_gap_ms(self, since: int) -> float:
        """The longest gap between two beats (or the mark and the first beat) since ``since`` (ms)."""
        stamps = [since, *(b for b in self.beats if b > since)]
        return max((b - a for a, b in zip(stamps, stamps[1:])), default=0.0) / 1e6

    def stop(self) -> None:
        self._timer.stop()


def settle(ms: int) -> None:
    """Run the event loop for ``ms`` milliseconds (the heartbeat beats meanwhile)."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def run_until(start, timeout_ms: int = 300_000, after_ms: int = 200) -> float:  # noqa: ANN001
    """Call ``start()``, which does the click and returns the Qt signal that says the view is shown (emitted from the
    event loop, not during ``start``), run the event loop until that signal and ``after_ms`` more (its paint);
    returns the seconds from calling ``start`` to the signal. Raises SystemExit when it never comes within
    ``timeout_ms``."""
    import time

    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    done: list[float] = []

    def hear(*_args: object) -> None:
        if not done:
            done.append(time.perf_counter())
            QTimer.singleShot(after_ms, loop.quit)

    QTimer.singleShot(timeout_ms, loop.quit)   # a stuck load ends the benchmark instead of hanging it
    t0 = time.perf_counter()
    signal = start()
    signal.connect(hear)
    loop.exec()
    signal.disconnect(hear)
    if not done:
        raise SystemExit(f"no signal within {timeout_ms / 1000:.0f} s")
    return done[0] - t0
