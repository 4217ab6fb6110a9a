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
RELEASES = 40


def child_bare() -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication(sys.argv)
    w = QMainWindow()
    w.resize(1200, 800)
    w.show()

    def shown() -> None:
        w.repaint()  # the same as the window's child: painted, not only mapped
        print(json.dumps({"shown": time.time()}), flush=True)
        app.quit()

    QTimer.singleShot(0, shown)
    app.exec()


def child_window(project_path: str) -> None:
    """What ``fieldstudio P`` does: ``shown`` once the window is painted with the library's first rows,
    ``listed`` once every row is listed, ``ready`` once the project is open (SQLAlchemy and the decoders
    imported on a worker thread)."""
    import gc

    import fieldstudio.launch  # noqa: F401 - what the `fieldstudio` command imports first

    gc.disable()  # as launch.main does until the window is on screen
    from PySide6.QtCore import QTimer

    from fieldstudio.gui.app import application, install_crash_hook
    from fieldstudio.gui.main_window import MainWindow
    from fieldstudio.logs import setup_logging

    install_crash_hook(open_log_file=False)  # as run_gui: the log file is opened once the window is shown
    app = application()
    out: dict = {}
    windows: list = []

    def shown() -> None:
        # queued before the window's own start of the background open, so this is the paint a user sees
        # first, before the worker competes for the interpreter
        w = windows[0]
        w.repaint()  # the library's visible rows and their thumbnails are drawn
        out.update(shown=time.time(), rows_shown=w.library.model.rowCount() if w.library else 0)
        if w.library is not None:
            w.library.model.all_listed.connect(listed)

    def listed() -> None:
        out.update(listed=time.time(), rows=windows[0].library.model.rowCount())
        finish()

    def ready() -> None:
        out["ready"] = time.time()
        finish()

    def finish() -> None:
        if "ready" in out and "listed" in out:
            print(json.dumps(out), flush=True)
            app.quit()

    QTimer.singleShot(0, shown)
    from pathlib import Path

    w = MainWindow(path=Path(project_path))
    windows.append(w)
    w.project_opened.connect(ready)
    w.show()
    QTimer.singleShot(0, setup_logging)  # as run_gui, after the paint measured (queued before it)
    app.exec()


def child_release(project_path: str) -> None:
    """The exact frame after a playhead release: time from the release (``timeline.released``) to the exact
    frame being shown, on ``RELEASES`` random indices of the project's first video; beside each, the reference: a lone
    ``FrameReader`` of the same clip getting the same index in this process, with the window idle (first or
    second in turn: the second decode of a frame finds warm caches). Interleaved,
    both are measured under the same load (two cores shared with other work swing a decode 2-3x within a
    minute, so a reference measured after the window, in another process, compared two different machines)."""
    import random
    from pathlib import Path

    from PySide6.QtCore import QElapsedTimer, QEventLoop, QThreadPool
    from PySide6.QtTest import QTest

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
    table = w.view.video.table
    indices = random.Random(11).sample(range(len(table)), RELEASES)
    latencies, ra = [], []

    def release(i: int) -> None:
        # wait in an event loop, not by polling: a busy main thread would take the GIL from the decoder
        loop = QEventLoop()
        conn = w.view.video.frame_shown.connect(lambda idx, _s, exact: exact and idx == i and loop.quit())
        clock = QElapsedTimer()
        clock.start()
        w.view.timeline.released.emit(i)
        loop.exec()
        latencies.append(clock.nsecsElapsed() / 1e9)
        w.view.video.frame_shown.disconnect(conn)

    def access(i: int) -> None:
        t = time.perf_counter()
        reference.get(i)
        ra.append(time.perf_counter() - t)

    for k, i in enumerate(indices):
        # every other index the reference goes first: the second decode of a frame finds the file's pages and
        # the CPU's caches warm, and neither side should always get that
        for measure in ((release, access) if k % 2 == 0 else (access, release)):
            measure(i)
    reference.close()
    print(json.dumps({"release_s": latencies, "reference_s": ra, "indices": indices}), flush=True)
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
