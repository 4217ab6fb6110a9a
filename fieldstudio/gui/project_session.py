"""The project's lifecycle in the window: open (a file, a shared project's URL, the demo, a recent one),
migrate, create, close, the background indexing of its videos and the changes other users make to a
shared project.

:class:`ProjectSession` sets ``ViewState.project`` (gui/state.py), and the window's parts follow that field:
the viewer, the annotation tools, the side panels and the evaluation tabs subscribe to it, so opening or
closing a project here is all it takes for them to show it or let it go. ``Project.open`` migrates an older
project after copying the file aside.

SQLAlchemy and the decoders (PyAV, OpenCV, numpy) are imported when a project is opened, not when this
module is: :meth:`ProjectSession.open_in_background` shows the project's name and library from plain
sqlite3 reads at once (``previewing``), then imports them and opens the project on a worker thread while
the window is already on screen (the cold-start target of issue 3).
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QWidget

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui import settings, workers
from fieldstudio.gui.first_paint import after_first_paint
from fieldstudio.store import library_rows
from fieldstudio.store.location import is_database_url

if TYPE_CHECKING:
    from collections.abc import Callable

    from PySide6.QtWidgets import QMenu, QProgressDialog

    from fieldstudio.gui.opened_reads import OpenedReads
    from fieldstudio.gui.state import ViewState
    from fieldstudio.store.project import Project

log = logging.getLogger(__name__)

APP_TITLE = "fieldstudio"

# What opening a project imports beyond the window: the store (SQLAlchemy, alembic), the decoders (PyAV,
# OpenCV, numpy), libVLC and the panels a project shows. Two seconds of imports on two loaded cores, so never
# on the GUI thread: a worker imports them while the welcome screen is shown and when a project opens.
_PROJECT_MODULES = ("fieldstudio.store.project", "fieldstudio.media.frames",
                    "fieldstudio.media.library", "fieldstudio.media.mp4_boxes", "av.subtitles.stream",
                    "fieldstudio.annotations.calibrations", "fieldstudio.annotations.labels",
                    "fieldstudio.annotations.annotation_records", "fieldstudio.annotations.rows", "fieldstudio.core.tracks",
                    "fieldstudio.gui.indexing", "fieldstudio.gui.shared_projects", "fieldstudio.gui.timeline",
                    "fieldstudio.gui.transport", "fieldstudio.gui.viewer.frame_loader",
                    "fieldstudio.gui.viewer.video_controller", "fieldstudio.gui.viewer.vlc_playback",
                    "fieldstudio.gui.panels.annotation_list", "fieldstudio.gui.panels.calibration",
                    "fieldstudio.gui.panels.tags")
# Imported by the welcome screen's warm-up only, not by the open itself: the Behaviour dock's panel and what it reads
# with, built (in the turn after a project is shown, even with no video on show) and, imported then on the GUI thread,
# 60-100 ms of a 500-video project's open from the welcome screen (issue 37); the task formats and the task import,
# which "Import a benchmark…" needs to describe the chosen tasks (40-50 ms quiet, 113-215 ms of stall at load 4-9).
# In the open's own worker they were ~60 ms more CPU before a project opened with the window (the cold start); a
# project opened so imports the dock's in the dock's own turn, after it is shown.
_WELCOME_MODULES = ("fieldstudio.gui.panels.behaviour_panel", "fieldstudio.annotations.behaviour.behaviour_events",
                    "fieldstudio.annotations.edits", "fieldstudio.tasks.formats", "fieldstudio.tasks.importing")


def import_project_modules(*, progress, cancelled, welcome: bool = False) -> None:  # noqa: ANN001 - worker callables
    """Worker: import :data:`_PROJECT_MODULES` and make the ORM ready (``store.opening.prepare_orm``), which
    the first query of a project would otherwise do on the GUI thread; then set every object alive aside from the
    garbage collector's full passes (``core.garbage_collection.set_aside_new_modules``: these modules and the ORM's
    mappers are ~66,000 objects that live for the whole session; a full pass over them in a worker left the GUI
    thread waiting for the interpreter lock 0.3-1.9 s while a project opened, at load 5-9). Safe to run more than
    once; cheap after the first. ``welcome``: :data:`_WELCOME_MODULES` too (the welcome screen's warm-up)."""
    import importlib

    from fieldstudio.core.garbage_collection import set_aside_new_modules
    from fieldstudio.store.opening import prepare_orm

    prepare_orm()
    for name in (*_PROJECT_MODULES, *(_WELCOME_MODULES if welcome else ())):
        importlib.import_module(name)
    set_aside_new_modules()


def _open_project(path: Path | str, *, progress, cancelled) -> OpenedReads:  # noqa: ANN001 - worker callables
    """Worker: import the store and the decoders, open the project (ProjectError explains a bad file or a server
    that cannot be reached), then read what the window's parts show of it first (gui/opened_reads.py)."""
    from fieldstudio.gui.opened_reads import read_opened
    from fieldstudio.store.project import Project

    import_project_modules(progress=progress, cancelled=cancelled)
    project = Project.open(path)
    reads = read_opened(project, cancelled=cancelled)
    if not cancelled():
        settings.add_recent(project.location)  # QSettings: one object per thread is safe; the file is locked
    return reads


def _create_project(path: Path, *, progress, cancelled) -> OpenedReads | None:  # noqa: ANN001 - worker callables
    """Worker of File ▸ New project and "Import a benchmark…": create the project file (its schema made by the
    migrations, a large part of a second) and read what the window shows of it first. Cancelled once the file is
    made: the file is removed again and None returned (nothing was created)."""
    from fieldstudio.gui.opened_reads import read_opened
    from fieldstudio.store.project import Project

    import_project_modules(progress=progress, cancelled=cancelled)
    project = Project.create(path)
    if cancelled():
        discard_created(project)
        return None
    reads = read_opened(project, cancelled=cancelled)
    settings.add_recent(project.location)
    return reads


def _close_when_idle(project: Project, indexer_idle: threading.Event | None, *,
                     progress, cancelled) -> None:  # noqa: ANN001 - worker callables
    """Worker: close ``project``, replaced in the window, once its background indexer has let go of it."""
    if indexer_idle is not None and not indexer_idle.wait(INDEXER_STOP_S):
        log.warning("background indexing of %s did not stop within %.0f s", project.location, INDEXER_STOP_S)
    project.close()


def discard_created(project: Project) -> None:
    """Close ``project``, made a moment ago by a creation the user cancelled, and remove its file (with the
    write-ahead log SQLite may leave beside it)."""
    project.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{project.path}{suffix}").unlink(missing_ok=True)


INDEXER_STOP_S = 15.0
"""Longest a replaced project's close waits for its background indexer to let go of it."""
CONNECTING_SHOWN_AFTER_MS = 300
"""A shared project's "Connecting to …" dialog appears when its server has not answered within this long."""


def _connecting_dialog(parent: QWidget, url: str, cancel: Callable[[], None]) -> QProgressDialog:
    """The busy dialog over the window while a shared project's server is asked, naming it (without password)."""
    from PySide6.QtWidgets import QProgressDialog

    from fieldstudio.store.location import mask_in_text

    label = f"Connecting to {mask_in_text(url)}…\n(the server is given 10 s to answer)"
    dialog = QProgressDialog(label, "Cancel", 0, 0, parent)
    dialog.setObjectName("connecting_dialog")
    dialog.setWindowTitle("Open shared project")
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(CONNECTING_SHOWN_AFTER_MS)
    dialog.canceled.connect(cancel)
    return dialog


class ProjectSession(QObject):
    """Opens and closes the project ``state`` shows, for the window ``parent`` (also the parent of its dialogs).

    ``notify(message)`` writes to the status bar; ``may_leave()`` is asked before another project (or none)
    replaces the open one (an unsaved task form, open segments) and may refuse.

    Signals: ``previewing(path, shown_name, project_name)`` while a project opens in the background
    (``project_name`` None when its file cannot be previewed); ``opened()`` once a project is open and
    everything that follows it has started; ``open_failed(message)`` when the background open failed;
    ``indexing(indexer)`` with the gui/indexing.py BackgroundIndexer of the project just opened;
    ``media_changed()`` when media were added or found again (the library reads them again);
    ``tasks_imported()`` after a benchmark's tasks were imported; ``warmed_up()`` once the project modules
    are imported (the welcome screen warms them up).
    """

    previewing = Signal(object, str, object)
    opened = Signal()
    open_failed = Signal(str)
    indexing = Signal(object)
    media_changed = Signal()
    tasks_imported = Signal()
    warmed_up = Signal()

    def __init__(self, state: ViewState, parent: QWidget, *, notify: Callable[[str], None],
                 may_leave: Callable[[], bool]):
        super().__init__(parent)
        self.state, self.window = state, parent
        self._notify, self._may_leave = notify, may_leave
        self.opening: workers.Worker | None = None  # the background open of open_in_background
        self.indexer = None  # gui/indexing.py BackgroundIndexer of the open project
        self._watcher = None  # gui/live_changes.py ChangeWatcher of a shared project
        self._warm_up: workers.Worker | None = None
        self._connecting: QProgressDialog | None = None  # "Connecting to …" while a shared project opens
        self._opening_said: str | None = None  # the status bar's "Opening …" of the open under way, if said
        self.benchmark_import: workers.Worker | None = None  # the last "Import a benchmark…"'s import
        self.closed = False  # the window closed: results of background work are dropped

    # --- opening ---------------------------------------------------------------------------------
    def set_project(self, project: Project, reads: OpenedReads | None = None) -> None:
        """Show ``project`` (the open one is closed first); index its videos, watch a shared one for other
        users' changes, remember it in the recent projects. ``reads``: what the worker that opened it read of it
        (gui/opened_reads.py), which the window's parts take instead of reading it on the GUI thread; that worker
        also put it first in the recent projects (``settings.add_recent``, a write of the settings file)."""
        self.close(wait=False)
        self.opening = None  # a background open still running is superseded: its result is dropped
        self._end_connecting()
        self.state.opened_reads = reads
        try:
            self.state.project = project  # the window's parts follow it
        finally:
            self.state.opened_reads = None  # good for the hand-over only: later refreshes read the project
        self._start_indexing(project)
        if reads is None:
            settings.add_recent(project.location)
        from fieldstudio.gui.opened_reads import LATEST_CHANGE, MEDIA_ROOTS_IN_USE

        read = {} if reads is None else reads.values
        if project.is_shared:
            from fieldstudio.gui import live_changes, shared_projects

            self._watcher = live_changes.ChangeWatcher(project, self, seen=read.get(LATEST_CHANGE))
            self._watcher.changed.connect(shared_projects.ChangeApplier(self.window))
        QTimer.singleShot(0, lambda: self._ask_for_media_roots(project, read.get(MEDIA_ROOTS_IN_USE)))
        if project.read_only:
            self._notify(f"{project.path.name} is read-only: you can look, but changes cannot be saved")
        self.opened.emit()

    def open_path(self, path: Path | str) -> bool:
        """Open a project file or shared project URL chosen in the window (the recent list, File ▸ Open, a drop).

        Both open in the background (:meth:`open_in_background`): True means the open has started, and
        ``opened`` follows, or ``open_failed(message)`` with the project shown before still open (or the welcome
        screen). False when ``may_leave`` refused."""
        if not self._may_leave():
            return False
        self.state.requested = None  # a media chosen in the library of a project still opening is dropped
        self.open_in_background(path if is_database_url(path) else Path(path))
        return True

    def open_in_background(self, path: Path | str, *, password_asked: bool = False) -> None:
        """Open ``path`` (a file or a shared project's URL) on a worker once the event loop runs. A file's name and
        library are shown from plain reads now (``previewing``); a media chosen in the library meanwhile
        (``state.requested``) is shown once it is open.

        A shared project's server is never asked on the GUI thread: a dialog says which server is being
        connected to, with Cancel (libpq gives up after ``connect_timeout``, 10 s); a server that wants a
        password it was not given has it asked once (``password_asked``), then the open starts again.

        With a project open, it stays on show (no preview) until the new one is open: a file or a server that
        cannot be opened leaves it there. A later open (or ``set_project``) supersedes this one, whose result is
        dropped."""
        shared = is_database_url(path)
        if shared:
            self._end_connecting()
            self._connecting = _connecting_dialog(self.window, path, self.cancel_opening)
        elif self.state.project is None:
            self._preview(path)
        else:
            self._opening_said = f"Opening {path}…"
            self._notify(self._opening_said)
        worker = workers.Worker(_open_project, path)
        worker.signals.result.connect(lambda reads: self._opened_in_background(reads, worker))
        worker.signals.error.connect(lambda message: self._open_failed(message, worker, shared_url=(
            str(path) if shared and not password_asked else None)))
        self.opening = worker
        after_first_paint(self.window, lambda: self._start_opening(worker))  # a new window is on screen first

    def cancel_opening(self) -> None:
        """Drop the open under way (the Cancel of the connecting dialog): the window keeps what it shows; the
        worker's late result is closed unseen, and libpq gives up by itself after its connect timeout."""
        worker, self.opening = self.opening, None
        self._end_connecting()
        if worker is not None:
            worker.cancel()
            self.state.requested = None
            self._notify("Opening cancelled")

    def _end_connecting(self) -> None:
        dialog, self._connecting = self._connecting, None
        if dialog is not None:
            dialog.canceled.disconnect()
            dialog.reset()
            dialog.deleteLater()

    def _preview(self, path: Path | str) -> None:
        shown = path.rsplit("/", 1)[-1] if isinstance(path, str) else path.stem
        name = None
        try:
            if library_rows.is_current(path):  # an older schema is migrated first, by Project.open
                name = library_rows.project_name(path)
        except FieldstudioError as exc:
            log.info("the window opens %s without a preview: %s", path, exc)
        self.previewing.emit(path, shown, name)

    def _start_opening(self, worker: workers.Worker) -> None:
        if self.closed or worker is not self.opening:  # superseded before it started: never started
            return
        if self.window.isVisible():  # paint the preview before the import thread competes for the interpreter
            self.window.repaint()
        workers.start(worker)

    def _opened_in_background(self, reads: OpenedReads, worker: workers.Worker) -> None:
        project = reads.project
        if self.closed or worker is not self.opening:  # closed, cancelled, or another project was opened meanwhile
            project.close()
            return
        self.opening = None
        self._end_connecting()
        from fieldstudio.store.opening import DAMAGED_DATABASE_ERRORS

        try:
            self.set_project(project, reads)
            if self._opening_said is not None and self.window.statusBar().currentMessage() == self._opening_said:
                self.window.statusBar().clearMessage()   # "Opening …" would outlive the open by its 8 s
        except (FieldstudioError, *DAMAGED_DATABASE_ERRORS) as exc:  # a damaged page, read late
            log.error("%s: cannot be read: %s", project.path, exc)
            try:
                self.close()
            except DAMAGED_DATABASE_ERRORS:
                log.exception("closing the damaged project")
                self.state.project = None
            self._open_failed(f"{project.path}: cannot be read; the file is damaged ({exc})")

    def _open_failed(self, message: str, worker: workers.Worker | None = None, *,
                     shared_url: str | None = None) -> None:
        if worker is not None and worker is not self.opening:  # superseded or cancelled: nothing to say
            return
        self.opening = None
        self._end_connecting()
        if shared_url is not None and "password" in message.lower():
            from fieldstudio.gui import shared_projects

            with_password = shared_projects.ask_password(self.window, shared_url)
            if with_password is not None:
                self.open_in_background(with_password, password_asked=True)
                return
        self.state.requested = None
        self.open_failed.emit(message)

    def warm_up(self) -> None:
        """Import the project modules on a worker while the welcome screen is shown, so that a project opened
        from it opens at once; ``warmed_up`` when done."""
        self._warm_up = workers.Worker(import_project_modules, welcome=True)
        self._warm_up.signals.result.connect(lambda _r: not self.closed and self.warmed_up.emit())
        after_first_paint(self.window, lambda: workers.start(self._warm_up))

    # --- the open project ------------------------------------------------------------------------
    def _start_indexing(self, project: Project) -> None:
        """Frame indexing of the project's videos in the background, one at a time (gui/indexing.py)."""
        from fieldstudio.gui.indexing import BackgroundIndexer

        self.indexer = BackgroundIndexer(project, self)
        self.indexing.emit(self.indexer)
        self.indexer.start()

    def index_new_videos(self) -> None:
        """New videos were added: the background indexer takes them up (a no-op while it runs or is paused)."""
        if self.indexer is not None:
            self.indexer.start()

    def _ask_for_media_roots(self, project: Project, used: list[str] | None = None) -> None:
        if project is self.state.project and not self.closed:
            from fieldstudio.gui import shared_projects

            shared_projects.ask_for_media_roots(self.window, project, self.media_changed.emit, used)

    def need_project(self) -> bool:
        """True with a project open; else says why nothing can be done yet (opening, or none) and is False."""
        from PySide6.QtWidgets import QMessageBox

        if self.state.project is None:
            QMessageBox.information(self.window, APP_TITLE, "The project is still opening: try again in a moment."
                                    if self.opening is not None else "Open or create a project first.")
            return False
        return True

    # --- closing ---------------------------------------------------------------------------------
    def close(self, *, wait: bool = True) -> None:
        """Close the open project (if any): stop its indexer and watcher; the window's parts let it go.

        ``wait`` False (another project replaces it): the project is closed on a worker once its indexer has let
        go of it (the wait for the indexer and the checkpoint of the project's log took 30-400 ms on the GUI thread)."""
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
        indexer, self.indexer = self.indexer, None
        indexer_idle = None if indexer is None else indexer.stop(wait=wait)
        project = self.state.project
        if project is not None:
            self.state.requested = None  # a frame asked of the project closed means nothing in the next one
            self.state.project = None
        if wait or project is None:
            if project is not None:
                project.close()
            if indexer is not None:
                indexer.deleteLater()
            return
        closer = workers.Worker(_close_when_idle, project, indexer_idle)
        if indexer is not None:
            # deleted once its work has ended: its thread pool's destructor waits for that thread, on the GUI thread
            # (1.2-1.4 s while the thumbnails of 5,000 photos were being made)
            closer.signals.finished.connect(indexer.deleteLater)
        workers.start(closer)

    def shut_down(self) -> None:
        """The window closes: close the project and drop what background work still brings."""
        self.close()
        self.closed = True

    # --- the File menu's and the welcome screen's projects ---------------------------------------
    def open_dialog(self) -> None:
        from PySide6.QtWidgets import QFileDialog

        path, _ = QFileDialog.getOpenFileName(self.window, "Open project", "", "fieldstudio projects (*.fieldstudio)")
        if path:
            self.open_path(path)

    def open_shared_dialog(self) -> None:
        """Ask for a PostgreSQL URL and open the shared project there."""
        from fieldstudio.gui import shared_projects

        last = next((str(p) for p in settings.recent_projects() if is_database_url(str(p))), "")
        url = shared_projects.ask_url(self.window, last)
        if url:
            self.open_path(url)

    def new_dialog(self) -> workers.Worker | None:
        """File ▸ New project: a file chosen, then created on a worker (:meth:`create_in_background`) and opened."""
        from PySide6.QtWidgets import QFileDialog

        path, _ = QFileDialog.getSaveFileName(self.window, "New project", "untitled.fieldstudio",
                                              "fieldstudio projects (*.fieldstudio)")
        if not path:
            return None
        path = Path(path) if path.endswith(".fieldstudio") else Path(path + ".fieldstudio")
        if not self._may_leave():
            return None
        return self.create_in_background(path)

    def create_in_background(self, path: Path, then: Callable[[Project], None] | None = None) -> workers.Worker:
        """Create the project file ``path`` on a worker behind a progress dialog with Cancel (shown after 300 ms),
        then show it (``opened``) and call ``then(project)``. The project shown meanwhile stays until then; a
        failure is explained in a message box and leaves it there. A cancel removes the file if it was made
        (nothing is created) and says so in the status bar."""
        from PySide6.QtWidgets import QMessageBox

        worker: list[workers.Worker] = []

        def done(reads: OpenedReads | None) -> None:
            if reads is None or worker[0].is_cancelled() or self.closed:  # cancelled: nothing stays of it
                if reads is not None:
                    discard_created(reads.project)
                self._notify(f"Creating {path.name} was cancelled; no project was made")
                return
            self.set_project(reads.project, reads)
            if then is not None:
                then(reads.project)

        worker.append(workers.run_with_progress(
            self.window, f"Creating {path.name}…", _create_project, path, title="New project", done=done,
            failed=lambda message: QMessageBox.warning(self.window, "Cannot create the project", message)))
        return worker[0]

    def import_benchmark_dialog(self) -> workers.Worker | None:
        """"Import a benchmark…": a new project made on a worker, then its media folder and task files on another
        worker with the import report after (gui/benchmark_dialog.py, gui/file_menu.py); ``tasks_imported`` when
        done. Returns the worker that creates the project (None: the dialog was cancelled); the import's worker
        is ``benchmark_import`` once it has started."""
        from fieldstudio.gui import file_menu
        from fieldstudio.gui.benchmark_dialog import BenchmarkDialog

        dialog = BenchmarkDialog(self.window)
        if dialog.exec() != BenchmarkDialog.DialogCode.Accepted or not self._may_leave():
            return None
        path, tasks, media = dialog.values()

        def import_into(project: Project) -> None:
            self.benchmark_import = file_menu.import_benchmark(self.window, project, tasks, media,
                                                               self.tasks_imported.emit)

        return self.create_in_background(path, then=import_into)

    def open_demo(self) -> None:
        """Build the demo project in the user data folder (with a progress dialog) and open it."""
        from PySide6.QtWidgets import QMessageBox

        from fieldstudio.demo.project import build_demo, default_demo_path

        path = default_demo_path()
        if path.is_file():
            self.open_path(path)
            return
        if not self._may_leave():
            return
        workers.run_with_progress(self.window, "Building the demo project…", build_demo, path, show_after_ms=4000,
                                  done=lambda _r: self.open_path(path),
                                  failed=lambda msg: QMessageBox.warning(self.window, "Cannot build the demo", msg))

    def fill_recent_menu(self, menu: QMenu) -> None:
        """File ▸ Open recent: the recent projects, each opened when chosen."""
        menu.clear()
        for p in settings.recent_projects():
            act = menu.addAction(str(p))
            act.triggered.connect(lambda _=False, p=p: self.open_path(p))
        if menu.isEmpty():
            menu.addAction("(none yet)").setEnabled(False)

    def connect_welcome(self, welcome) -> None:  # noqa: ANN001 - gui.welcome.WelcomePage
        """The welcome page's buttons and recent list to the lifecycle they ask for."""
        welcome.open_demo.connect(self.open_demo)
        welcome.new_project.connect(self.new_dialog)
        welcome.open_project.connect(self.open_dialog)
        welcome.open_shared.connect(self.open_shared_dialog)
        welcome.import_benchmark.connect(self.import_benchmark_dialog)
        welcome.open_path.connect(self.open_path)
