"""The project's long jobs in the window: the longest GUI-thread stall of each, and ``set_project``'s time on it.

Run with ``python benchmarks/bench_project_open.py``. Issue 37: "every long job reachable from the window runs off
the GUI thread with progress and Cancel", the stall target 100 ms (``bench_large_views``), and the GUI-thread part of
``ProjectSession.set_project`` (the window taking a newly opened project) under 50 ms. One window, shown offscreen
on a small project, with a 5 ms heartbeat on the GUI thread (``heartbeat``); each job is started as its menu
item starts it (the file and text questions answered by patched dialogs, message boxes recorded instead of shown),
from the event loop, and measured from then until its result is on show and 300 ms after:

- opening the demo project and a project of 5,000 small JPEGs (``bench_viewer.project_with_media``) from the recent
  list while another project is shown, three times each: the longest stall, and the median time of
  ``set_project`` on the GUI thread (target < 50 ms);
- File ▸ New project… until the new project is shown;
- File ▸ Import a benchmark… (the sample tasks CSV and photos) until its import report is shown;
- File ▸ Open shared project… on a closed port until its message; on a server that accepts the connection and
  never answers, Cancel pressed after 2 s, until the window is back (a window that blocks on the server stalls
  for libpq's 10 s connect timeout instead); on a throwaway PostgreSQL cluster (``tests/support/pg_cluster.py``)
  until the project is shown (skipped, saying why, without a server).

Beside them, the longest gap of the same heartbeat during 3 s with nothing to do (the machine's load alone).

The projects are made in a child process and the garbage collector is held off until the window is shown, then
started as ``gui.app.run_gui`` starts it (``app.start_collector``): this process has imported what the window has
when it opens its first project, and the collector's full walks are those a user's window makes.
"""

from __future__ import annotations

import os
import socket
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from benchmarks import targets, work_folders  # noqa: E402
from benchmarks.heartbeat import BEAT_MS, Heartbeat, settle  # noqa: E402

STALL_TARGET_MS = 100.0
SET_PROJECT_TARGET_MS = 50.0
IDLE_MS = 3000
AFTER_MS = 300
OPENS = 3
CANCEL_AFTER_MS = 2000
ROOT = Path(__file__).resolve().parents[1]
SAMPLE_TASKS = ROOT / "sample_data" / "tasks" / "fieldstudio_sample_tasks.csv"
SAMPLE_IMAGES = ROOT / "sample_data" / "media" / "images"


def _stall_line(what: str, gap: float, seconds: float) -> None:
    print(f"{what}: done in {seconds:.2f} s, longest GUI-thread stall {gap:.0f} ms (target <= {STALL_TARGET_MS:.0f})",
          flush=True)
    targets.declare(f"longest GUI-thread stall, {what}", gap, STALL_TARGET_MS, better=targets.LOWER,
                    reference=f"absolute ({BEAT_MS} ms heartbeat)", unit="ms", sizes_reduced=False)


def build_projects(run: Path) -> None:
    """The demo, the 5,000-media project and an empty "home" project in ``run`` (run in a child process: see main)."""
    from benchmarks.bench_viewer import N_MEDIA, project_with_media
    from fieldstudio.demo.project import build_demo
    from fieldstudio.store.project import Project

    build_demo(run / "demo.fieldstudio")
    project_with_media(run, N_MEDIA)
    Project.create(run / "home.fieldstudio", name="home").close()


def main() -> None:  # noqa: C901, PLR0915 - one scenario after the other, as a user would
    import gc
    import subprocess

    run = work_folders.fresh_run_folder()
    # The projects are made in a child process, so that this one has imported what the window has when it opens
    # its first project (the store, SQLAlchemy and the decoders are imported by the window's workers), and its
    # garbage collector is held off during the window's imports and started once it is shown, as launch.main and
    # gui.app.run_gui do (app.start_collector): the full collections of the objects alive then are the window's.
    subprocess.run([sys.executable, __file__, "--build", str(run)], check=True)
    from benchmarks.bench_viewer import N_MEDIA

    demo, media, home = run / "demo.fieldstudio", run / f"viewer_{N_MEDIA}.fieldstudio", run / "home.fieldstudio"
    gc.disable()

    from PySide6.QtCore import QThreadPool, QTimer
    from PySide6.QtWidgets import QDialog, QFileDialog, QInputDialog, QMessageBox, QProgressDialog, QPushButton

    from fieldstudio.gui.app import application, start_collector

    app = application()
    from fieldstudio.gui.benchmark_dialog import BenchmarkDialog
    from fieldstudio.gui.main_window import MainWindow

    messages: list[str] = []
    for kind in ("critical", "warning", "information"):
        setattr(QMessageBox, kind, staticmethod(lambda _p, title, text, *a, **k: messages.append(f"{title}: {text}")))
    answers: dict[str, object] = {}
    QFileDialog.getSaveFileName = staticmethod(lambda *a, **k: (str(answers["save"]), ""))
    QInputDialog.getText = staticmethod(lambda *a, **k: (str(answers["text"]), True))

    w = MainWindow()
    w.resize(1400, 900)
    w.show()
    QTimer.singleShot(0, start_collector)
    settle(500)
    w.open_project_path(home)
    while w.state.project is None:
        settle(20)
    heart = Heartbeat()
    settle(1500)   # the window's own warm-up work ends
    mark = heart.mark()
    settle(IDLE_MS)
    idle_gap = heart.longest_gap_ms(mark)

    set_times: list[float] = []
    real_set_project = w.session.set_project

    def timed_set_project(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        t0 = time.perf_counter()
        real_set_project(*args, **kwargs)
        set_times.append((time.perf_counter() - t0) * 1000)

    w.session.set_project = timed_set_project

    def workers_done() -> None:
        while QThreadPool.globalInstance().activeThreadCount():
            settle(20)

    def measured(start: Callable[[], object], done: Callable[[], bool], timeout_s: float = 120) -> tuple[float, float]:
        """(longest stall in ms, seconds) from ``start()`` run by the event loop until ``done()`` and 300 ms."""
        workers_done()
        settle(300)
        mark = heart.mark()
        t0 = time.perf_counter()
        QTimer.singleShot(0, start)
        while not done():
            settle(5)
            if time.perf_counter() - t0 > timeout_s:
                raise SystemExit(f"not done within {timeout_s:.0f} s")
        seconds = time.perf_counter() - t0
        settle(AFTER_MS)
        return heart.longest_gap_ms(mark), seconds

    def shown(path: Path | str) -> Callable[[], bool]:
        return lambda: (w.state.project is not None and w.session.opening is None
                        and str(w.state.project.path) in (str(path), str(Path(path).resolve())))

    # -- opening from the recent list, another project on show ----------------------------------------
    for name, path in (("the demo project", demo), (f"a project of {N_MEDIA:,} media", media)):
        gaps, times = [], []
        for _ in range(OPENS):
            measured(lambda: w.open_project_path(home), shown(home))
            del set_times[:]
            gap, _s = measured(lambda path=path: w.open_project_path(path), shown(path))
            gaps.append(gap)
            times.append(set_times[-1])
        print(f"opening {name} (a project on show): set_project {statistics.median(times):.0f} ms on the GUI thread "
              f"(median of {OPENS}: {', '.join(f'{t:.0f}' for t in times)}; target < {SET_PROJECT_TARGET_MS:.0f}); "
              f"longest stall {max(gaps):.0f} ms", flush=True)
        targets.declare(f"set_project on the GUI thread, {name} (median of {OPENS})", statistics.median(times),
                        SET_PROJECT_TARGET_MS, better=targets.LOWER, reference="absolute", unit="ms",
                        sizes_reduced=False)
        _stall_line(f"opening {name} from the recent list (worst of {OPENS})", max(gaps), _s)

    # -- File ▸ New project… ----------------------------------------------------------------------------
    answers["save"] = run / "new.fieldstudio"
    gap, seconds = measured(w.session.new_dialog, shown(run / "new.fieldstudio"))
    _stall_line("File ▸ New project… until it is shown", gap, seconds)

    # -- File ▸ Import a benchmark… ---------------------------------------------------------------------
    def accept(dialog):  # noqa: ANN001, ANN202
        dialog.set_tasks(SAMPLE_TASKS)
        dialog.media_edit.setText(str(SAMPLE_IMAGES))
        dialog.project_edit.setText(str(run / "benchmark.fieldstudio"))
        return BenchmarkDialog.DialogCode.Accepted if dialog.check() else BenchmarkDialog.DialogCode.Rejected

    BenchmarkDialog.exec = accept

    def report_shown() -> bool:
        report = w.findChild(QDialog, "import_report")
        return report is not None and report.isVisible()

    gap, seconds = measured(w.import_benchmark_dialog, report_shown)
    _stall_line("File ▸ Import a benchmark… (sample tasks and photos) until its report", gap, seconds)
    w.findChild(QDialog, "import_report").close()
    w.findChild(QDialog, "import_report").deleteLater()

    # -- File ▸ Open shared project… --------------------------------------------------------------------
    def port_closed() -> str:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return f"postgresql+psycopg://anna@127.0.0.1:{s.getsockname()[1]}/site"

    del messages[:]
    gap, seconds = measured(lambda: w.open_project_path(port_closed()), lambda: bool(messages))
    print(f"  the message: {messages[-1][:160]}")
    _stall_line("Open shared project… on a closed port until its message", gap, seconds)

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(4)
    cancelled: list[bool] = []

    def press_cancel() -> None:
        """Cancel on the connecting dialog once it is on screen (again every 50 ms until it is, or a message)."""
        dialog = w.findChild(QProgressDialog, "connecting_dialog")
        if dialog is not None and dialog.isVisible():
            dialog.findChild(QPushButton).click()
            cancelled.append(True)
        elif not messages:
            QTimer.singleShot(50, press_cancel)

    def open_silent() -> None:
        QTimer.singleShot(CANCEL_AFTER_MS, press_cancel)
        w.open_project_path(f"postgresql+psycopg://anna@127.0.0.1:{silent.getsockname()[1]}/site")

    del messages[:]
    gap, seconds = measured(open_silent, lambda: bool(cancelled or messages))
    silent.close()
    print(f"  {'cancelled after 2 s' if cancelled else 'no Cancel: ' + messages[-1][:120]}")
    _stall_line("Open shared project… on a server that never answers, Cancel after 2 s", gap, seconds)

    from tests.support import pg_cluster

    base = pg_cluster.server_url()
    name = "Open shared project… on a throwaway PostgreSQL cluster until it is shown"
    if base is None:
        targets.skip(f"longest GUI-thread stall, {name}", STALL_TARGET_MS, better=targets.LOWER,
                     reference=f"absolute ({BEAT_MS} ms heartbeat)", unit="ms", why=pg_cluster.why_not())
    else:
        from fieldstudio.media import library
        from fieldstudio.store.project import Project

        url = pg_cluster.new_database_url(base)
        with Project.create(url, name="shared") as p:
            library.add_paths(p, [SAMPLE_IMAGES])
        answers["text"] = url
        gap, seconds = measured(w.session.open_shared_dialog,
                                lambda: w.state.project is not None and w.state.project.is_shared)
        _stall_line(name, gap, seconds)

    heart.stop()
    print(f"  [information] {IDLE_MS / 1000:.0f} s with nothing to do: longest gap of the heartbeat {idle_gap:.0f} ms "
          "(the machine's load alone)")
    targets.print_own_table()
    workers_done()
    w.session.set_project = real_set_project
    w.close()
    del app


if __name__ == "__main__":
    if sys.argv[1:2] == ["--build"]:
        build_projects(Path(sys.argv[2]))
    else:
        main()
