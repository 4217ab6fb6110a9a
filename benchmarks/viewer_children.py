"""The child processes of ``bench_viewer.py``: a bare QMainWindow, fieldstudio's window, the release loop.

``python benchmarks/viewer_children.py bare|window PROJECT|release PROJECT`` prints one JSON line. This file
imports only what each child needs (nothing of the benchmarks' own machinery), so a cold start counts the
window's own imports and nothing else, for both windows alike.
"""

from __future__ import annotations

import json
import os
import sys
import time

# this clone's fieldstudio, not an installed one (os.path: pathlib is not imported yet in the bare window)
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# releases measured, each beside its reference: one decode swings 3x within a minute on two loaded cores, and with
# 20 the ratio of the medians ranged 1.03-2.02 over five runs at load 6-8; 40 pairs make the medians steadier
# (``BENCH_RELEASES`` sets another count, for a quick look)
RELEASES = int(os.environ.get("BENCH_RELEASES", "40"))
#: ms the playhead is held still before the release in the ``held`` measure
HOLD_MS = 300


def _on_first_paint(widget, then) -> None:  # noqa: ANN001 - QWidget
    """Call ``then(t)`` with the time (``time.time()``) ``widget``'s first paint is done: the paint of the window
    it is in and its flush to the screen (Qt paints a window's widgets and flushes them in one go, when the
    platform exposes the window, in a turn of the event loop after ``show()``). Zero-timers queued while a window
    is built run before that turn: timing one of them (as this benchmark did until this round) timed a window not
    yet painted.

    The end of the paint is a high-priority event posted at the widget's paint, handled first when the event loop
    turns after it (before the work that the window queued for after its paint, ``gui/first_paint.py``). Only
    ``widget``'s events go through Python: a filter on the application would also wrap each Qt-made widget it
    sees, whose class PySide looks up by making every QWidget subclass's Python type (60-100 ms)."""
    from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt

    done = QEvent.Type(QEvent.registerEventType())

    class Watch(QObject):
        def eventFilter(self, obj, event):  # noqa: ANN001, ANN202, N802 - Qt override
            if event.type() == QEvent.Type.Paint:
                widget.removeEventFilter(self)
                QCoreApplication.postEvent(self, QEvent(done), Qt.EventPriority.HighEventPriority.value)
            return False

        def event(self, event):  # noqa: ANN001, ANN202 - Qt override
            if event.type() == done:
                then(time.time())
                return True
            return super().event(event)

    widget._first_paint_watch = Watch()  # kept alive with the widget
    widget.installEventFilter(widget._first_paint_watch)


def child_bare() -> None:
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication(sys.argv)
    w = QMainWindow()
    w.resize(1200, 800)

    def shown(t: float) -> None:
        print(json.dumps({"shown": t}), flush=True)
        app.quit()

    _on_first_paint(w, shown)
    w.show()
    app.exec()


def child_window(project_path: str) -> None:
    """What ``fieldstudio P`` does (``gui.app.run_gui``): ``shown`` once the window is painted with the library's
    first rows (the library's list painted), ``listed`` once every row is listed, ``ready`` once the project is
    open (SQLAlchemy and the decoders imported on a worker thread)."""
    import gc

    import fieldstudio.launch  # noqa: F401 - what the `fieldstudio` command imports first

    gc.disable()  # as launch.main does until the window is on screen
    from fieldstudio.gui.app import application, install_crash_hook, start_collector
    from fieldstudio.gui.first_paint import after_first_paint
    from fieldstudio.gui.main_window import MainWindow
    from fieldstudio.logs import setup_logging

    install_crash_hook(open_log_file=False)  # as run_gui: the log file is opened once the window is shown
    app = application()
    out: dict = {}

    def shown(t: float) -> None:
        out.update(shown=t, rows_shown=w.library.model.rowCount() if w.library else 0)

    def listed() -> None:
        out.update(listed=time.time(), rows=w.library.model.rowCount())
        finish()

    def ready() -> None:
        out["ready"] = time.time()
        finish()

    def finish() -> None:
        if "ready" in out and "listed" in out:
            print(json.dumps(out), flush=True)
            app.quit()

    from pathlib import Path

    w = MainWindow(path=Path(project_path))
    if w.library is not None:
        _on_first_paint(w.library.list, shown)  # the list view: its rows are painted in the same paint
        w.library.model.all_listed.connect(listed)  # emitted after the first paint (gui/first_paint.py)
    w.project_opened.connect(ready)
    w.show()
    after_first_paint(w, start_collector)  # as run_gui
    after_first_paint(w, setup_logging)
    app.exec()


def child_release(project_path: str) -> None:
    """The exact frame after a playhead release, on ``RELEASES`` random playhead positions of the project's first
    video, each measured twice beside its reference:

    - ``release``: a release with no drag before it (``timeline.released`` emitted alone): nothing was decoded
      ahead, the worst case;
    - ``drag``: the playhead pressed a third of the timeline away, dragged to the position in 10 moves 16 ms
      apart (a 60 Hz mouse) and released there at once, as a user lets go: the previews and the decode of the
      frame under the playhead (``FrameLoader._decode_ahead``) had those 160 ms;
    - ``held``: the same drag, the playhead then held still for ``HOLD_MS`` before the release, as a user placing it
      on a frame does;
    - ``goto``: the window's own random access, Go to frame (``MainWindow.go_to``, what Ctrl+G's dialog calls on
      OK) with the frame's number, its cache cleared as for the others: the user-visible reference, with the same thread hand-offs,
      picture and paint as a release.

    Each is timed from the release (or the jump) to the exact frame painted: the end of the pass that paints the
    canvas's viewport after ``frame_shown`` with ``exact``, and flushes it to the screen, taken as ``_on_first_paint``
    takes a window's first paint (a high-priority event posted at that paint, handled first when the event loop
    turns after it). Until this round a zero-timer posted at the paint stopped the clock, and it ran after the
    other work queued in that turn, such as the read-out (status bar, timeline, transport) that the window now
    updates in the turn after the picture's paint. The time to ``frame_shown`` itself is kept too. The reference: a lone
    ``FrameReader`` of the same clip getting the same index in this process with the window idle (first or last
    in turn: the second decode of a frame finds warm caches). Interleaved, all are measured under the same load
    (two cores shared with other work swing a decode 2-3x within a minute, so a reference measured after the
    window, in another process, compared two different machines)."""
    import random
    from pathlib import Path

    from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop, QObject, QPoint, QPointF, Qt, QThreadPool, QTimer
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from fieldstudio.gui.app import application
    from fieldstudio.gui.main_window import MainWindow
    from fieldstudio.media import decoded_table, frame_reader, library
    from fieldstudio.store.project import Project

    application()
    w = MainWindow(Project.open(Path(project_path)))
    w.resize(1400, 900)
    w.show()
    mid = w.library.visible_ids()[0]
    w.library.select(mid)
    while w.view.video is None or not w.view.loader.idle():
        QTest.qWait(50)
    # the timeline's thumbnail strip decodes in the background after opening: measure after it, as the
    # reference has the machine to itself
    while QThreadPool.globalInstance().activeThreadCount():
        QTest.qWait(50)
    QTest.qWait(300)

    clip = library.require_file(w.view.loader.source.project, w.view.video.media)
    reference = frame_reader.FrameReader(clip, decoded_table.build_frame_table(clip))
    tl = w.view.timeline
    y = tl.height() - 10
    xs = random.Random(11).sample(range(tl.width() // 3, tl.width() - 2), RELEASES)
    times: dict[str, list[float]] = {f"{key}{part}_s": [] for key in ("release", "drag", "held", "goto")
                                     for part in ("", "_shown")}
    times["reference_s"] = []
    viewport = w.view.canvas.viewport()

    done = QEvent.Type(QEvent.registerEventType())

    class Painted(QObject):
        """Quits ``loop`` once the viewport has painted after the exact frame was shown, ``at`` the end of that pass
        (``time.perf_counter``; see the docstring)."""
        loop: QEventLoop | None = None
        shown = False
        at = 0.0

        def eventFilter(self, obj, event):  # noqa: ANN001, ANN201, N802 - Qt override
            if self.shown and self.loop is not None and event.type() == QEvent.Type.Paint:
                self.shown = False
                QCoreApplication.postEvent(self, QEvent(done), Qt.EventPriority.HighEventPriority.value)
            return False

        def event(self, event):  # noqa: ANN001, ANN201 - Qt override
            if event.type() == done:
                self.at = time.perf_counter()
                loop, self.loop = self.loop, None
                loop.quit()
                return True
            return super().event(event)

    painted = Painted()
    viewport.installEventFilter(painted)

    def mouse(kind: QEvent.Type, x: int) -> None:
        buttons = Qt.MouseButton.NoButton if kind == QEvent.Type.MouseButtonRelease else Qt.MouseButton.LeftButton
        pos = QPointF(x, y)
        QApplication.sendEvent(tl, QMouseEvent(kind, pos, tl.mapToGlobal(pos), Qt.MouseButton.LeftButton, buttons,
                                               Qt.KeyboardModifier.NoModifier))

    def wait(ms: int) -> None:
        # in an event loop, not QTest.qWait: that keeps the interpreter lock while it sleeps
        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    def measured(index: int, key: str, let_go) -> None:  # noqa: ANN001 - the call that releases the playhead
        loop = QEventLoop()
        shown_at: list[float] = []

        def on_shown(idx: int, _s: float, exact: bool) -> None:
            if exact and idx == index and not shown_at:
                shown_at.append(time.perf_counter() - start)
                painted.shown = True

        conn = w.view.video.frame_shown.connect(on_shown)
        painted.loop, painted.shown = loop, False
        start = time.perf_counter()
        let_go()
        loop.exec()
        times[key + "_s"].append(painted.at - start)
        times[key + "_shown_s"].append(shown_at[0])
        w.view.video.frame_shown.disconnect(conn)
        while not w.view.loader.idle():
            wait(5)

    def release(x: int) -> None:
        measured(tl.index_at_x(x), "release", lambda: tl.released.emit(tl.index_at_x(x)))

    def drag(x: int, key: str = "drag", hold_ms: int = 0) -> None:
        start = max(0, x - tl.width() // 3)
        mouse(QEvent.Type.MouseButtonPress, start)
        for k in range(1, 11):
            wait(16)
            mouse(QEvent.Type.MouseMove, start + (x - start) * k // 10)
        if hold_ms:
            wait(hold_ms)
        measured(tl.index_at_x(x), key, lambda: mouse(QEvent.Type.MouseButtonRelease, x))

    def drag_and_hold(x: int) -> None:
        drag(x, "held", HOLD_MS)

    def go_to(x: int) -> None:
        # from where the measure before left the decoder, as the releases are (not from frame 0 each time: showing
        # frame 0 reopens the decoder, and the first seek of a fresh one cost ~70 ms more at load 8)
        index = tl.index_at_x(x)
        measured(index, "goto", lambda: w.go_to(str(index)))  # Ctrl+G's dialog accepted with that frame number

    def access(x: int) -> None:
        t = time.perf_counter()
        reference.get(tl.index_at_x(x))
        times["reference_s"].append(time.perf_counter() - t)

    window_reader = w.view.loader.source.reader(w.view.video.media)

    def forget(reader: frame_reader.FrameReader) -> None:
        # no frame of this position decoded before by either side (the release and the drag ask for the same
        # frame); the decoders stay open, as in a session
        reader._cache.clear()
        reader._rgb.clear()

    for k, x in enumerate(xs):
        w.view.video.show_index(0)  # from elsewhere each time, as a user's next release is
        while not w.view.loader.idle():
            wait(5)
        # every other position the reference goes first: the second decode of a frame finds the file's pages and
        # the CPU's caches warm, and neither side should always get that
        for measure in ((release, drag, drag_and_hold, go_to, access) if k % 2 == 0
                        else (access, go_to, drag_and_hold, drag, release)):
            forget(reference if measure is access else window_reader)
            measure(x)
    reference.close()
    print(json.dumps({**times, "indices": [tl.index_at_x(x) for x in xs]}), flush=True)
    w.close()


def main() -> None:
    kind, *rest = sys.argv[1:]
    if kind == "bare":
        child_bare()
    elif kind == "window":
        child_window(rest[0])
    else:
        child_release(rest[0])


if __name__ == "__main__":
    main()
