"""Every long job of the project's lifecycle runs off the GUI thread, with Cancel (issue 37): Open shared project…
against a closed port, a server that never answers and a real throwaway cluster; File ▸ New project; File ▸ Import
a benchmark…, done and cancelled; and what the open's worker read of a project is what the window shows.

The dialogs are the real ones, their file and text questions patched; a "gate" holds a worker at a known point so
that Cancel is pressed while it runs, whatever the machine's load.
"""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox, QProgressDialog, QPushButton

from fieldstudio.annotations import labels
from fieldstudio.gui import opened_reads
from fieldstudio.media import library
from fieldstudio.store.project import Project
from tests.conftest import SAMPLE
from tests.support.gui_support import file_menu_action, import_report, open_project_and_wait

pytestmark = pytest.mark.gui

PHOTO = "ppe_worker_hardhat_vest_warehouse_zone_frame045.png"
TASKS = SAMPLE.parent / "tasks" / "fieldstudio_sample_tasks.csv"


def _messages(monkeypatch) -> list[tuple[str, str]]:
    """(title, text) of every critical and warning box the window shows, instead of showing them."""
    shown: list[tuple[str, str]] = []
    for kind in ("critical", "warning"):
        monkeypatch.setattr(QMessageBox, kind, lambda _parent, title, text, *a, **k: shown.append((title, text)))
    return shown


def _status(window) -> str:  # noqa: ANN001 - MainWindow
    return window.statusBar().currentMessage()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens there once the socket is closed


def _ask_url(monkeypatch, url: str) -> None:
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: (url, True))


def test_a_closed_port_is_a_clear_error_and_the_project_stays(empty_window, qtbot, monkeypatch):
    w = empty_window
    before = w.state.project
    shown = _messages(monkeypatch)
    url = f"postgresql+psycopg://anna@127.0.0.1:{_closed_port()}/site"
    _ask_url(monkeypatch, url)
    file_menu_action(w, "Open s&hared project…").trigger()   # returns at once: the server is asked on a worker
    qtbot.waitUntil(lambda: bool(shown), timeout=20000)
    ((title, text),) = shown
    assert title == "Cannot open the project"
    assert text.startswith(url + ": cannot connect (") and "127.0.0.1" in text and "refused" in text, text
    assert w.state.project is before and w.session.opening is None
    # the dialog is deleted later, in a turn of the event loop that may come after the one that showed the message
    qtbot.waitUntil(lambda: w.findChild(QProgressDialog, "connecting_dialog") is None, timeout=5000)


def test_cancel_while_a_server_does_not_answer(empty_window, qtbot, monkeypatch):
    """A server that accepts the connection and never answers: the connecting dialog names it, the window keeps
    running its event loop, Cancel gives the project shown back at once, and the late failure says nothing."""
    w = empty_window
    before = w.state.project
    shown = _messages(monkeypatch)
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(4)
    url = f"postgresql+psycopg://anna@127.0.0.1:{silent.getsockname()[1]}/site"
    try:
        assert w.open_project_path(url)
        qtbot.waitUntil(lambda: w.findChild(QProgressDialog, "connecting_dialog") is not None
                        and w.findChild(QProgressDialog, "connecting_dialog").isVisible(), timeout=5000)
        dialog = w.findChild(QProgressDialog, "connecting_dialog")
        assert f"Connecting to {url}" in dialog.labelText()
        worker = w.session.opening
        beats = []
        qtbot.waitUntil(lambda: beats.append(1) or len(beats) > 5, timeout=2000)   # the event loop still turns
        (cancel,) = dialog.findChildren(QPushButton)
        qtbot.mouseClick(cancel, Qt.MouseButton.LeftButton)
        assert w.session.opening is None and worker.is_cancelled()
        assert w.state.project is before and _status(w) == "Opening cancelled"
    finally:
        silent.close()       # the worker's connection fails now instead of after libpq's 10 s
    qtbot.waitUntil(lambda: _done(worker), timeout=20000)        # its failure came, and was dropped
    qtbot.wait(100)
    assert shown == [] and w.state.project is before


def _done(worker) -> bool:  # noqa: ANN001 - workers.Worker
    """True once ``worker`` has finished (``workers.start`` keeps it until then)."""
    from fieldstudio.gui import workers

    return worker not in workers._running


def test_open_shared_project_on_a_real_server(empty_window, qtbot, monkeypatch, pg_url):
    with Project.create(pg_url, name="team site") as p:
        library.add_paths(p, [SAMPLE / "images" / PHOTO])
        labels.create_label(p, "helmet", "#ff0000")
    w = empty_window
    _ask_url(monkeypatch, pg_url)
    with qtbot.waitSignal(w.project_opened, timeout=20000):
        file_menu_action(w, "Open s&hared project…").trigger()
    assert w.state.project.is_shared and w.windowTitle().endswith("team site")
    assert w.library.model.rowCount() == 1
    names = [w.side.annotations.label_filter.itemText(i) for i in range(w.side.annotations.label_filter.count())]
    assert names == ["All labels", "Unlabelled", "helmet"]


def test_new_project_is_made_on_a_worker(empty_window, qtbot, tmp_path, monkeypatch):
    w = empty_window
    out = tmp_path / "site survey"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    with qtbot.waitSignal(w.project_opened, timeout=20000):
        file_menu_action(w, "&New project…").trigger()
    made = out.with_name("site survey.fieldstudio")
    assert made.is_file() and w.state.project.path == made.resolve()
    assert w.windowTitle().endswith("site survey")


def _gate(monkeypatch, owner, name: str) -> threading.Event:
    """Hold ``owner.name`` (a function a worker calls) until the returned event is set."""
    gate = threading.Event()
    real = getattr(owner, name)

    def held(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        assert gate.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, held)
    return gate


def test_cancelling_a_new_project_makes_nothing(empty_window, qtbot, tmp_path, monkeypatch):
    w = empty_window
    before = w.state.project
    out = tmp_path / "cancelled.fieldstudio"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), ""))
    gate = _gate(monkeypatch, Project, "create")
    worker = w.session.new_dialog()
    worker.progress_dialog.canceled.emit()      # what its Cancel button sends (it shows after 300 ms)
    gate.set()                                   # the file is made, then the cancel is seen and it is removed
    qtbot.waitUntil(lambda: _done(worker), timeout=20000)
    qtbot.waitUntil(lambda: "no project was made" in _status(w), timeout=5000)
    assert not out.exists() and not Path(f"{out}-wal").exists()
    assert w.state.project is before


def _accept_benchmark(monkeypatch, project: Path, tasks: Path, media: Path | None) -> None:
    from fieldstudio.gui.benchmark_dialog import BenchmarkDialog

    def exec_(dialog):  # noqa: ANN001, ANN202
        dialog.set_tasks(tasks)
        if media is not None:
            dialog.media_edit.setText(str(media))
        dialog.project_edit.setText(str(project))
        return BenchmarkDialog.DialogCode.Accepted if dialog.check() else BenchmarkDialog.DialogCode.Rejected

    monkeypatch.setattr(BenchmarkDialog, "exec", exec_)


def test_import_a_benchmark_from_the_file_menu(empty_window, qtbot, tmp_path, monkeypatch):
    import csv

    w = empty_window
    with TASKS.open(encoding="utf-8", newline="") as fh:
        n_tasks = len(list(csv.DictReader(fh)))
    out = tmp_path / "bench.fieldstudio"
    _accept_benchmark(monkeypatch, out, TASKS, SAMPLE / "images")
    file_menu_action(w, "Import a &benchmark…").trigger()
    report = import_report(w, qtbot, 60000)
    assert w.state.project.path == out.resolve()
    lines = report.summary.text().splitlines()
    assert lines[0].startswith("Media: ") and lines[0].endswith(" added.")
    assert lines[1].startswith(f"Tasks: {n_tasks} created, 0 updated.")


def test_cancelling_a_benchmark_import_says_what_was_stored(empty_window, qtbot, tmp_path, monkeypatch):
    from fieldstudio.media import ingest

    w = empty_window
    out = tmp_path / "bench.fieldstudio"
    _accept_benchmark(monkeypatch, out, TASKS, SAMPLE / "images")
    gate = _gate(monkeypatch, ingest, "add_index_thumbnail")
    file_menu_action(w, "Import a &benchmark…").trigger()
    qtbot.waitUntil(lambda: w.session.benchmark_import is not None, timeout=20000)   # the project is made
    assert w.state.project.path == out.resolve()
    w.session.benchmark_import.progress_dialog.canceled.emit()
    gate.set()
    report = import_report(w, qtbot, 60000)
    text = report.summary.text()
    assert "Media: none added; adding was cancelled (the media added before stay in the project)." in text
    assert "The import was cancelled; what was saved before stays." in text
    with Project.open(out) as p:
        from fieldstudio.tasks import task_records

        assert task_records.list_tasks(p) == [] and not any(library.media_counts(p).values())


def test_the_window_shows_what_the_open_read_on_its_worker(empty_window, qtbot, tmp_path, monkeypatch):
    """A project opened in the background: the label filter, the Calibrations dock and the title come from the
    worker's reads, and the GUI thread reads none of them again while the project is handed over."""
    path = tmp_path / "other.fieldstudio"
    with Project.create(path, name="other site") as p:
        labels.create_label(p, "forklift", "#00ff00")
    asked: list[str] = []
    real = labels.list_labels

    def counted(project, kind=None):  # noqa: ANN001, ANN202
        asked.append(threading.current_thread().name)
        return real(project, kind)

    monkeypatch.setattr(labels, "list_labels", counted)
    w = empty_window
    open_project_and_wait(w, qtbot, path)
    assert w.windowTitle().endswith("other site")
    names = [w.side.annotations.label_filter.itemText(i) for i in range(w.side.annotations.label_filter.count())]
    assert names == ["All labels", "Unlabelled", "forklift"]
    assert asked and threading.main_thread().name not in asked          # read on the worker only
    assert w.state.opened_reads is None                                  # good for the hand-over only
    w.side.annotations.refresh()                                         # a later refresh reads the project
    assert asked[-1] == threading.main_thread().name


def test_take_reads_when_the_worker_did_not(empty_window):
    w = empty_window
    project = w.state.project
    assert opened_reads.take(w.state, project, opened_reads.NAME, lambda: "read now") == "read now"
    w.state.opened_reads = opened_reads.OpenedReads(project, {opened_reads.NAME: "read before"})
    assert opened_reads.take(w.state, project, opened_reads.NAME, lambda: "read now") == "read before"
    assert opened_reads.take(w.state, object(), opened_reads.NAME, lambda: "read now") == "read now"
    w.state.opened_reads = None


def test_opening_another_project_clears_its_opening_message(empty_window, qtbot, tmp_path):
    """With a project open, "Opening <path>…" is said in the status bar while the next one opens; once it is on
    show the message goes (it stayed its whole 8 s, found by a fresh-eyes tester), whatever else was said is kept."""
    w = empty_window
    other = tmp_path / "other.fieldstudio"
    Project.create(other).close()
    open_project_and_wait(w, qtbot, other)
    assert w.state.project.path == other.resolve()
    assert not _status(w).startswith("Opening ")
    w.notify("something else")
    open_project_and_wait(w, qtbot, tmp_path / "p.fieldstudio")
    assert not _status(w).startswith("Opening ")



def test_the_project_modules_are_set_aside_from_the_collectors_full_walks(monkeypatch):
    """Once the project's modules are imported, every object alive is in the collector's permanent generation
    (``gc.freeze``): a full collection in a worker (the indexer, the open's reads) no longer walks them while the
    window waits for the interpreter lock. Again only once more modules were imported: the cycles of projects closed
    since are garbage."""
    import gc
    import sys

    from fieldstudio.core import garbage_collection
    from fieldstudio.gui import project_session

    monkeypatch.setattr(garbage_collection, "_set_aside", {"modules": 0})
    gc.unfreeze()
    try:
        project_session.import_project_modules(progress=lambda done, total: None, cancelled=lambda: False)
        assert gc.get_freeze_count() > 10_000
        gc.unfreeze()
        project_session.import_project_modules(progress=lambda done, total: None, cancelled=lambda: False)
        assert gc.get_freeze_count() == 0
        monkeypatch.setitem(sys.modules, "a_module_imported_since", type(sys)("a_module_imported_since"))
        assert garbage_collection.set_aside_new_modules()
        assert gc.get_freeze_count() > 10_000
    finally:
        gc.unfreeze()


GUI_THREAD_IMPORTS_PROBE = """
import json, sys, threading
from pathlib import Path
from PySide6.QtCore import QTimer
from fieldstudio.gui.app import application
from fieldstudio.gui.benchmark_dialog import describe_tasks
from fieldstudio.gui.main_window import MainWindow
imported = {"open": [], "describe": []}
phase = []
class Recorder:
    def find_spec(self, name, path=None, target=None):
        if phase and threading.current_thread() is threading.main_thread() and name.startswith("fieldstudio"):
            imported[phase[-1]].append(name)
        return None
sys.meta_path.insert(0, Recorder())
app = application()
w = MainWindow()
w.show()
def opened():
    QTimer.singleShot(300, describe)   # what the turns right after the open do too
def describe():
    phase.append("describe")
    describe_tasks(Path(sys.argv[2]))
    print(json.dumps(imported), flush=True)
    app.quit()
w.project_opened.connect(opened)
def open_it():   # once the welcome screen's warm-up is done, as a user choosing a project there finds it
    phase.append("open")
    w.open_project_path(sys.argv[1])
w.session.warmed_up.connect(lambda: QTimer.singleShot(0, open_it))
QTimer.singleShot(60000, app.quit)
app.exec()
"""


def test_opening_a_project_and_describing_a_benchmark_import_nothing_on_the_gui_thread(tmp_path):
    """From the welcome screen, opening a project (until it is shown and 300 ms after) and "Import a benchmark…"
    describing a task file import no fieldstudio module on the GUI thread: the welcome screen's warm-up imported them
    (issue 37: the Behaviour dock's modules were 60-100 ms of a 500-video project's open, the task formats 113-215 ms
    of the dialog's stall under load). In a fresh interpreter: this one has imported everything already."""
    import json
    import os
    import subprocess
    import sys

    path = tmp_path / "p.fieldstudio"
    with Project.create(path) as p:
        library.add_paths(p, [SAMPLE / PHOTO])
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, "-c", GUI_THREAD_IMPORTS_PROBE, str(path), str(TASKS)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"open": [], "describe": []}
