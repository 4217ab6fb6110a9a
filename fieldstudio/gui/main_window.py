"""The main window: library on the left, the viewer in the centre, properties and annotations on the right,
the status bar with frame index, PTS time, zoom and the pointer in image pixels.

The window holds no logic the command line lacks: it calls the same services (media.library, media.frames,
media.documents) and shows what they return.

SQLAlchemy and the decoders (PyAV, OpenCV, numpy) are imported when a project is opened, not when this
module is: ``MainWindow(path=P)`` shows the project's name and library from plain sqlite3 reads at once,
then imports them and opens the project on a worker thread while the window is already on screen (the
cold-start target of issue 3).
"""

from __future__ import annotations

import logging
import math
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QUndoGroup
from PySide6.QtWidgets import (QDockWidget, QFileDialog, QMainWindow, QMessageBox)

from fieldstudio.core import user_settings
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui import dialogs, settings, shortcuts, window_ui, workers
from fieldstudio.gui.annotate import AnnotationController
from fieldstudio.gui.media_view import MediaView
from fieldstudio.gui.panels.library import LibraryPanel
from fieldstudio.gui.side_panels import SidePanels
from fieldstudio.gui.state import ViewState
from fieldstudio.gui.viewer.canvas import Canvas
from fieldstudio.gui.workspace import Workspace
from fieldstudio.store import library_rows
from fieldstudio.store.location import is_database_url, project_ref

if TYPE_CHECKING:
    from fieldstudio.store.project import Project

log = logging.getLogger(__name__)

APP_TITLE = "fieldstudio"


# What opening a project imports beyond this module: the store (SQLAlchemy, alembic), the decoders (PyAV,
# OpenCV, numpy), libVLC and the panels a project shows. Two seconds of imports on two loaded cores, so never
# on the GUI thread: a worker imports them while the welcome screen is shown and when a project opens.
_PROJECT_MODULES = ("sqlalchemy.dialects.sqlite", "fieldstudio.store.project", "fieldstudio.media.frames",
                    "fieldstudio.media.library", "fieldstudio.media.mp4_boxes", "av.subtitles.stream",
                    "fieldstudio.annotations.calibrations", "fieldstudio.annotations.labels",
                    "fieldstudio.annotations.annotation_records", "fieldstudio.annotations.rows", "fieldstudio.core.tracks",
                    "fieldstudio.gui.indexing", "fieldstudio.gui.shared_projects", "fieldstudio.gui.timeline",
                    "fieldstudio.gui.transport", "fieldstudio.gui.viewer.frame_loader",
                    "fieldstudio.gui.viewer.video_controller", "fieldstudio.gui.viewer.vlc_playback",
                    "fieldstudio.gui.panels.annotation_list", "fieldstudio.gui.panels.calibration",
                    "fieldstudio.gui.panels.tags")


def _import_project_modules(*, progress, cancelled) -> None:  # noqa: ANN001 - worker callables
    """Worker: import :data:`_PROJECT_MODULES` and configure the ORM mappers (which the first query of a
    project would otherwise do on the GUI thread). Safe to run more than once; cheap after the first."""
    import importlib

    for name in _PROJECT_MODULES:
        importlib.import_module(name)
    from sqlalchemy.orm import configure_mappers

    configure_mappers()


def _open_project(path: Path, *, progress, cancelled) -> Project:  # noqa: ANN001 - worker callables
    """Worker: import the store and the decoders, then open the project (ProjectError explains a bad file)."""
    from fieldstudio.store.project import Project

    _import_project_modules(progress=progress, cancelled=cancelled)
    return Project.open(path)


class MainWindow(QMainWindow):
    """The window on one project, or the welcome screen when ``project`` and ``path`` are None.

    With ``path`` (a project file) the window shows the project's name and library at once and opens
    the project in the background once the event loop runs: ``project_opened`` is emitted when it is
    open (also after ``set_project``); a file that cannot be opened is explained in a message box over
    the welcome screen. A media chosen in the library meanwhile is shown when the project is open.
    """

    project_opened = Signal()

    def __init__(self, project: Project | None = None, *, path: Path | None = None):
        super().__init__()
        self.setObjectName("MainWindow")
        self.state = ViewState()
        self._welcome_hid_docks = False
        self._opening: workers.Worker | None = None  # the background open of MainWindow(path=...)
        self._closed = False
        self.indexer = None  # gui/indexing.py BackgroundIndexer of the open project
        self.indexing_status = None  # its line in the status bar
        self._docks_hidden_for_tab: list[QDockWidget] | None = None
        self.setAcceptDrops(True)
        self.resize(1400, 860)

        self.actions = {aid: shortcuts.make_action(aid, self) for aid in shortcuts.DEFAULTS}
        self.view = MediaView(self.state, self.actions, self)
        self._build_central()
        self._build_docks()
        self._build_status()
        self.annotator = AnnotationController(self.state, self.canvas, self.notify, self.statusBar(), self)
        self.side = SidePanels(self.state, self.annotator, (self.annotations_dock, self.tags_dock,
                               self.calibrations_dock), notify=self.notify, parent=self)
        self.undo_group = QUndoGroup(self)
        self.undo_group.addStack(self.annotator.undo_stack)
        self.undo_group.setActiveStack(self.annotator.undo_stack)
        self.workspace = Workspace(self, self.modes, self.undo_group, self.annotator.undo_stack, self.state,
                                   notify=self.notify, set_viewer_mode=self.set_viewer_mode)
        self._wire_view()
        self._build_menus()
        self._connect_actions()
        self._restore_layout()
        if project is not None:
            self.set_project(project)
        elif path is not None:
            self._show_opening(project_ref(path))
        else:
            self.show_welcome()
            self._warm_up = workers.Worker(_import_project_modules)
            self._warm_up.signals.result.connect(self._warmed_up)
            QTimer.singleShot(0, lambda: workers.start(self._warm_up))  # a project opened from it opens at once

    def _warmed_up(self, _result: None) -> None:
        # the side panels' widgets, built in a turn of their own rather than inside the open of a project
        if not self._closed:
            self.side.built()

    # --- construction ----------------------------------------------------------------------------
    def _build_central(self) -> None:
        window_ui.build_central(self)

    def _build_docks(self) -> None:
        window_ui.build_docks(self)

    def _build_status(self) -> None:
        window_ui.build_status(self)

    def _build_menus(self) -> None:
        window_ui.build_menus(self)

    def _connect_actions(self) -> None:
        a = self.actions
        a["new_project"].triggered.connect(self.new_project_dialog)
        a["open_project"].triggered.connect(self.open_project_dialog)
        a["open_shared"].triggered.connect(self.open_shared_dialog)
        a["add_media"].triggered.connect(self.add_media_dialog)
        a["add_folder"].triggered.connect(self.add_folder_dialog)
        a["quit"].triggered.connect(self.close)
        a["zoom_in"].triggered.connect(lambda: self.view.active_canvas().zoom_in())
        a["zoom_out"].triggered.connect(lambda: self.view.active_canvas().zoom_out())
        a["zoom_fit"].triggered.connect(lambda: self.view.active_canvas().fit())
        a["zoom_1to1"].triggered.connect(lambda: self.view.active_canvas().one_to_one())
        a["timeline_zoom_in"].triggered.connect(lambda: self.timeline.zoom(2.0))
        a["timeline_zoom_out"].triggered.connect(lambda: self.timeline.zoom(0.5))
        a["next_media"].triggered.connect(lambda: self._step_media(1))
        a["prev_media"].triggered.connect(lambda: self._step_media(-1))
        a["find"].triggered.connect(self._find)
        a["shortcuts"].triggered.connect(self.show_shortcuts)
        self._connect_annotation_actions()
        self.view.connect_actions(a)
        self.annotator.changed.connect(self._annotations_changed)
        self.welcome.open_demo.connect(self.open_demo)
        self.welcome.new_project.connect(self.new_project_dialog)
        self.welcome.open_project.connect(self.open_project_dialog)
        self.welcome.open_shared.connect(self.open_shared_dialog)
        self.welcome.import_benchmark.connect(self.import_benchmark_dialog)
        self.welcome.open_path.connect(self.open_project_path)

    # --- lazily built views ----------------------------------------------------------------------
    # --- what the Media tab shows (gui/media_view.py) ---------------------------------------------
    project = property(lambda self: self.state.project, lambda self, p: setattr(self.state, "project", p),
                       doc="The open project (None on the welcome screen).")
    media = property(lambda self: self.state.media, lambda self, m: setattr(self.state, "media", m),
                     doc="The media shown in the viewer.")
    shown_index = property(lambda self: self.state.frame_index, doc="The video frame on screen: what marks attach to.")
    canvas = property(lambda self: self.view.canvas, doc="The photo and video canvas.")
    stack = property(lambda self: self.view.stack, doc="The Media tab's pages: welcome, empty, media, document.")
    empty = property(lambda self: self.view.empty)
    welcome = property(lambda self: self.view.welcome)
    media_page = property(lambda self: self.view.media_page)
    transport = property(lambda self: self.view.transport, doc="Play, speed, mute and loop buttons.")
    timeline = property(lambda self: self.view.timeline, doc="Thumbnails, playhead, segments and events.")
    document = property(lambda self: self.view.document, doc="The PDF and text view.")
    loader = property(lambda self: self.view.loader, doc="The frame loader of the open project.")
    video = property(lambda self: self.view.video, doc="The video controller of the open project.")

    def open_media(self, media_id: str) -> None:
        """Show one media from its start (a request to the state; one made while the project opens is served
        once it is open)."""
        self.state.request_frame(media_id)

    def go_to(self, text: str) -> None:
        """Jump to the frame number or time ``text`` names (Ctrl+G)."""
        self.view.go_to(text)

    def _wire_view(self) -> None:
        """The view's signals to the status bar and the annotation controller; the library selects the row of
        the media shown (the overlay, the side panels and the task editor subscribe to the state themselves)."""
        v, st = self.view, self.state
        v.notice.connect(self.notify)
        v.position_text.connect(lambda f, t: (self.frame_label.setText(f), self.time_label.setText(t)))
        v.media_shown.connect(self.properties.show_media)
        v.pointer_moved.connect(self._show_pointer)
        v.zoom_changed.connect(self._show_zoom)
        v.segment_end_moved.connect(self.annotator.move_segment_end)
        self.annotator.marks.markers_changed.connect(lambda segments, events: self.timeline.set_markers(segments, events))
        self.annotator.labels.label_shown.connect(self.label_label.setText)
        st.events.media.connect(lambda m: m is not None and self.library is not None and self.library.show_media(m.id))
        # a message about the media left (or another tab) is stale once another media is shown
        st.events.media.connect(lambda _m: self.statusBar().clearMessage())

    annotations = property(lambda self: self.side.annotations, doc="The annotation list panel.")
    tags = property(lambda self: self.side.tags, doc="The tags panel of the media and frame shown.")
    calibrations = property(lambda self: self.side.calibrations, doc="The calibrations panel.")

    # --- project ---------------------------------------------------------------------------------
    def _show_opening(self, path: Path | str) -> None:
        """Name and library of ``path`` (a file or a shared project's URL) from plain reads now; the project
        itself in the background."""
        self.stack.setCurrentWidget(self.empty)
        shown = path.rsplit("/", 1)[-1] if isinstance(path, str) else path.stem
        self.empty.setText(f"Opening {shown}…")
        self.setWindowTitle(f"{APP_TITLE} — {shown}")
        try:
            if library_rows.is_current(path):  # an older schema is migrated first, by Project.open
                self.setWindowTitle(f"{APP_TITLE} — {library_rows.project_name(path)}")
                self._set_library(path)
        except FieldstudioError as exc:
            log.info("the window opens %s without a preview: %s", path, exc)
        self._opening = workers.Worker(_open_project, path)
        self._opening.signals.result.connect(self._opened_in_background)
        self._opening.signals.error.connect(self._open_failed)
        QTimer.singleShot(0, self._start_opening)

    def _start_opening(self) -> None:
        if self._closed:
            return
        if self.isVisible():  # paint the preview before the import thread competes for the interpreter
            self.repaint()
        workers.start(self._opening)

    def _opened_in_background(self, project: Project) -> None:
        self._opening = None
        if self._closed or self.project is not None:  # closed, or another project was opened meanwhile
            project.close()
            return
        from sqlalchemy.exc import DatabaseError

        try:
            self.set_project(project)
        except (FieldstudioError, DatabaseError, sqlite3.DatabaseError) as exc:  # a damaged page, read late
            log.error("%s: cannot be read: %s", project.path, exc)
            try:
                self._close_project()
            except (DatabaseError, sqlite3.DatabaseError):
                log.exception("closing the damaged project")
                self.project = None
            self._open_failed(f"{project.path}: cannot be read; the file is damaged ({exc})")

    def _open_failed(self, message: str) -> None:
        self._opening = None
        self.state.requested = None
        if self.project is None:
            self.library = None
            self.show_welcome()
        QMessageBox.critical(self, "Cannot open the project", message)

    def _set_library(self, path: Path | str) -> None:
        path = str(path) if is_database_url(path) else path.resolve()   # a shared project: its URL
        if self.library is not None and self.library.path == path:
            return
        self.library = LibraryPanel(path)
        self.library.media_activated.connect(self.state.request_frame)
        self.library_dock.setWidget(self.library)

    def set_project(self, project: Project) -> None:
        """Show ``project``: its library, the first media; remember it in the recent projects."""
        self._close_project()
        self.project = project
        self.setWindowTitle(f"{APP_TITLE} — {project.name}")
        self.view.set_project(project)
        self._set_library(project.path)
        if self._welcome_hid_docks:
            self._welcome_hid_docks = False
            for dock in self._docks():
                dock.show()
            self._restore_layout(geometry=False)
        self.modes.tabBar().setVisible(True)
        self.workspace.set_project(project)
        self.side.set_project(project)
        self._start_indexing(project)
        settings.add_recent(project.location)
        if project.is_shared:
            from fieldstudio.gui import live_changes, shared_projects

            self._watcher = live_changes.ChangeWatcher(project, self)
            self._watcher.changed.connect(shared_projects.ChangeApplier(self))
        QTimer.singleShot(0, lambda: self._ask_for_media_roots(project))
        if project.read_only:
            self.notify(f"{project.path.name} is read-only: you can look, but changes cannot be saved")
        self.view.serve_request()  # a media chosen in the library while the project was opening
        self.project_opened.emit()

    def show_welcome(self) -> None:
        """The welcome screen: recent projects and the demo one click away."""
        self._close_project()
        self.setWindowTitle(APP_TITLE)
        self.welcome.set_recent(settings.recent_projects())
        self.stack.setCurrentWidget(self.welcome)
        self.modes.setCurrentIndex(0)
        self.modes.tabBar().setVisible(False)
        if not self._welcome_hid_docks:
            self._save_layout()
        for dock in self._docks():
            dock.hide()
        self._welcome_hid_docks = True

    _watcher = None  # gui.live_changes.ChangeWatcher of a shared project

    def _ask_for_media_roots(self, project: Project) -> None:
        if project is self.project and not self._closed:
            from fieldstudio.gui import shared_projects

            shared_projects.ask_for_media_roots(self, project, lambda: self.library and self.library.reload())

    def _start_indexing(self, project: Project) -> None:
        """Frame indexing of the project's videos in the background, one at a time (gui/indexing.py)."""
        from fieldstudio.gui.indexing import BackgroundIndexer, IndexingStatus

        self.indexer = BackgroundIndexer(project, self)
        self.indexer.indexed.connect(self.view.index_changed)
        if self.indexing_status is not None:
            self.statusBar().removeWidget(self.indexing_status)
            self.indexing_status.deleteLater()
        self.indexing_status = IndexingStatus(self.indexer)
        self.statusBar().insertPermanentWidget(0, self.indexing_status)
        self.indexer.start()

    def index_new_videos(self) -> None:
        """New videos were added: the background indexer takes them up (a no-op while it runs or is paused)."""
        if self.indexer is not None:
            self.indexer.start()

    def _close_project(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
        if self.indexer is not None:
            self.indexer.stop()
            self.indexer.deleteLater()
            self.indexer = None
        self.workspace.set_project(None)
        self.side.set_project(None)
        self.view.close_project()
        # nothing of the project closed may stay on show in the next one (a new project is empty)
        self.properties.show_media(None)
        for label in self.viewer_readouts:
            label.setText("")
        if self.project is not None:
            self.state.requested = None  # a frame asked of the project closed means nothing in the next one
            self.project.close()
            self.project = None

    def open_project_path(self, path: Path | str) -> bool:
        """Open a project file or shared project URL; a clear message (and the current project kept) when it
        cannot be opened."""
        from fieldstudio.store.project import Project

        if not self._leave_project():
            return False
        self.state.requested = None  # a media chosen in the library of a project still opening is dropped
        if is_database_url(path):
            from fieldstudio.gui import shared_projects

            project = shared_projects.open_shared(self, str(path))
            if project is None:
                return False
            self.set_project(project)
            return True
        try:
            project = Project.open(Path(path))
        except FieldstudioError as exc:
            QMessageBox.warning(self, "Cannot open the project", str(exc))
            return False
        self.set_project(project)
        return True

    def open_project_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Open project", "", "fieldstudio projects (*.fieldstudio)")
        if path:
            self.open_project_path(path)

    def open_shared_dialog(self) -> None:
        """Ask for a PostgreSQL URL and open the shared project there."""
        from fieldstudio.gui import shared_projects

        last = next((str(p) for p in settings.recent_projects() if is_database_url(str(p))), "")
        url = shared_projects.ask_url(self, last)
        if url:
            self.open_project_path(url)

    def new_project_dialog(self) -> None:
        from fieldstudio.store.project import Project

        path, _ = QFileDialog.getSaveFileName(self, "New project", "untitled.fieldstudio",
                                              "fieldstudio projects (*.fieldstudio)")
        if not path:
            return
        path = Path(path) if path.endswith(".fieldstudio") else Path(path + ".fieldstudio")
        if not self._leave_project():
            return
        try:
            project = Project.create(path)
        except FieldstudioError as exc:
            QMessageBox.warning(self, "Cannot create the project", str(exc))
            return
        self.set_project(project)

    def import_benchmark_dialog(self) -> workers.Worker | None:
        """"Import a benchmark…": a new project, then its media folder and task files on a worker with the
        import report after (gui/benchmark_dialog.py, gui/file_menu.py)."""
        from fieldstudio.gui import file_menu
        from fieldstudio.gui.benchmark_dialog import BenchmarkDialog
        from fieldstudio.store.project import Project

        dialog = BenchmarkDialog(self)
        if dialog.exec() != BenchmarkDialog.DialogCode.Accepted or not self._leave_project():
            return None
        path, tasks, media = dialog.values()
        try:
            project = Project.create(path)
        except FieldstudioError as exc:
            QMessageBox.warning(self, "Cannot create the project", str(exc))
            return None
        self.set_project(project)
        return file_menu.import_benchmark(self, project, tasks, media, self._reload_tasks_and_library)

    def _reload_tasks_and_library(self) -> None:
        """After an import: the Tasks and Compare tabs, and the library (media may have been added)."""
        self.workspace.tasks_imported()
        if self.library is not None:
            self.library.reload()

    def open_demo(self) -> None:
        """Build the demo project in the user data folder (with a progress dialog) and open it."""
        from fieldstudio.demo.project import build_demo, default_demo_path

        path = default_demo_path()
        if path.is_file():
            self.open_project_path(path)
            return
        if not self._leave_project():
            return
        workers.run_with_progress(self, "Building the demo project…", build_demo, path, show_after_ms=4000,
                                  done=lambda _r: self.open_project_path(path),
                                  failed=lambda msg: QMessageBox.warning(self, "Cannot build the demo", msg))

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for p in settings.recent_projects():
            act = self.recent_menu.addAction(str(p))
            act.triggered.connect(lambda _=False, p=p: self.open_project_path(p))
        if self.recent_menu.isEmpty():
            self.recent_menu.addAction("(none yet)").setEnabled(False)

    # --- adding media ----------------------------------------------------------------------------
    def add_media_dialog(self) -> None:
        if self._need_project():
            files, _ = QFileDialog.getOpenFileNames(self, "Add media")
            if files:
                self.import_paths([Path(f) for f in files])

    def add_folder_dialog(self) -> None:
        if self._need_project():
            folder = QFileDialog.getExistingDirectory(self, "Add a folder of media")
            if folder:
                self.import_paths([Path(folder)])

    def import_paths(self, paths: list[Path]) -> workers.Worker | None:
        """Add files and folders in the background; the library refreshes when done."""
        from fieldstudio.gui import add_media

        if not self._need_project():
            return None
        return add_media.start_import(self, self.project, paths,
                                      lambda _r: (self.library.reload(), self.index_new_videos()))

    def _need_project(self) -> bool:
        if self.project is None:
            QMessageBox.information(self, APP_TITLE, "The project is still opening: try again in a moment."
                                    if self._opening is not None else "Open or create a project first.")
            return False
        return True

    def dragEnterEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        paths = [Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()]
        projects = [p for p in paths if p.suffix == ".fieldstudio"]
        if projects:
            self.open_project_path(projects[0])
        elif paths and self._need_project():
            from fieldstudio.gui import file_menu

            tasks, media = file_menu.split_task_files(paths)  # benchmark task files import as tasks
            if tasks:  # the media dropped with them are added first, so the tasks find their inputs
                file_menu.import_task_paths(self, self.project, tasks, media, self._reload_tasks_and_library)
            else:
                self.import_paths(media)
        event.acceptProposedAction()

    def _step_media(self, step: int) -> None:
        if self.library is None:
            return
        ids = self.library.visible_ids()
        if not ids:
            return
        requested = self.state.requested  # chosen while the project opens
        shown = self.media.id if self.media is not None else requested.media_id if requested else None
        current = ids.index(shown) if shown in ids else -1
        self.library.select(ids[(current + step) % len(ids)])

    def _find(self) -> None:
        if self.view.showing_document():
            self.document.search.setFocus()
            self.document.search.selectAll()

    # --- annotation and evaluation ---------------------------------------------------------------
    def _connect_annotation_actions(self) -> None:
        a, ctl, group = self.actions, self.annotator, self.undo_group
        # Edit ▸ Undo / Redo act on the stack of the tab in front (the workspace sets the group's active stack)
        a["undo"].triggered.connect(group.undo)
        a["redo"].triggered.connect(group.redo)
        a["undo"].setEnabled(False)
        a["redo"].setEnabled(False)
        self._undo_keys = {aid: a[aid].shortcuts() for aid in ("undo", "redo")}
        group.canUndoChanged.connect(a["undo"].setEnabled)  # slots of the actions: dropped with them
        group.canRedoChanged.connect(a["redo"].setEnabled)
        # bound methods, not lambdas: Qt drops them with the window, the group may outlive it briefly
        group.undoTextChanged.connect(self._undo_text)
        group.redoTextChanged.connect(self._redo_text)
        ctl.connect_actions(a)
        a["toggle_grid"].toggled.connect(self._set_grid)
        # Delete acts on the canvas's selection only: the annotation list and tag tables have their own
        self.removeAction(a["delete_marks"])
        a["delete_marks"].setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.canvas.addAction(a["delete_marks"])
        a["labels"].triggered.connect(self.labels_dialog)
        a["export_annotations"].triggered.connect(self.export_dialog)
        a["import_annotations"].triggered.connect(self.import_annotations_dialog)

    def _leave_project(self) -> bool:
        """Before another project or the welcome screen replaces this one: open segments, unsaved task form."""
        if self.project is None:
            return True
        return self.workspace.save_forms() and self.annotator.confirm_open_segments()

    def _undo_text(self, text: str) -> None:
        self.actions["undo"].setText(f"&Undo {text}".strip())

    def _redo_text(self, text: str) -> None:
        self.actions["redo"].setText(f"&Redo {text}".strip())

    def _set_grid(self, on: bool) -> None:
        self.annotator.marks.show_grid = on
        self.annotator.refresh()

    def _annotations_changed(self) -> None:
        self.workspace.annotations_changed()

    def labels_dialog(self) -> None:
        if self._need_project():
            dialogs.edit_labels(self, self.project, self.annotator.apply_or_raise, self.notify,
                                self.state.mark_kind)
            self.annotator.refresh()

    def export_dialog(self) -> None:
        if self._need_project():
            dialogs.export_annotations(self, self.project, self.media.id if self.media is not None else None)

    def import_annotations_dialog(self) -> workers.Worker | None:
        """File ▸ Import annotations… (gui/annotation_import.py); the import is one edit of the viewer's stack."""
        from fieldstudio.gui import annotation_import

        if not self._need_project():
            return None

        def reload() -> None:
            self.annotator.refresh()
            self._annotations_changed()

        return annotation_import.import_annotations(self, self.project, self.annotator.apply_or_raise, reload)

    def relink_dialog(self) -> None:
        """File ▸ Relink media: search a folder for the files of missing media (matched by content)."""
        if self._need_project():
            dialogs.relink_media(self, self.project, self.notify, self._relinked)

    def task_file_dialog(self, dialog: str, folder: bool = False) -> workers.Worker | None:
        """File ▸ Import tasks / answers (files or a ``folder``), Export tasks / report (gui/file_menu.py)."""
        from fieldstudio.gui import file_menu

        if not self._need_project():
            return None
        return file_menu.open_dialog(dialog, self, self.project, self._reload_tasks_and_library, folder=folder,
                                      scorer=self.workspace.current_scorer())  # the report of what Compare shows

    def _relinked(self, found: dict) -> None:
        if self.library is not None:
            self.library.reload()
        if found and self.media is not None and self.media.id in found:
            self.state.request_frame(self.media.id)

    def export_rating_package(self) -> None:
        if self._need_project():
            from fieldstudio.gui import rating_exchange

            rating_exchange.export_dialog(self, self.project)

    def import_rating_package(self) -> None:
        if self._need_project():
            from fieldstudio.gui import rating_exchange

            rating_exchange.import_dialog(self, self.project, self.workspace.ratings_imported)

    def set_viewer_mode(self, on: bool) -> None:
        """Media tab shown (True) or another tab: the side panels and the viewer's keys follow it.

        The evaluation tabs need the width, so the library and properties panels are hidden while they
        show and come back as they were.
        """
        if not on:
            self.annotator.set_tool("select")  # the tools' keys are off there: their hint must not stay shown
        # no marks are made on the other tabs, so "the label the next mark gets" means nothing there, and the
        # viewer's frame, time, zoom and pointer read-outs ("page 1 / 2" beside the Compare grid) neither
        for w in (self.label_label, *self.viewer_readouts):
            w.setVisible(on)
        self.set_viewer_keys_enabled(on)
        if self._welcome_hid_docks:
            return
        if not on and self._docks_hidden_for_tab is None:
            self._docks_hidden_for_tab = [d for d in self._docks() if d.isVisible()]
            for d in self._docks_hidden_for_tab:
                d.hide()
        elif on and self._docks_hidden_for_tab is not None:
            for d in self._docks_hidden_for_tab:
                d.show()
            self._docks_hidden_for_tab = None

    def set_viewer_keys_enabled(self, enabled: bool) -> None:
        """Turn the viewer's and annotation tools' keys on or off (off while another tab has the keyboard)."""
        keep = {"new_project", "open_project", "open_shared", "add_media", "add_folder", "quit", "shortcuts",
                "next_media", "prev_media", "labels", "export_annotations", "import_annotations"}
        for aid, action in self.actions.items():
            if aid in ("undo", "redo"):
                # Edit ▸ Undo / Redo follow the tab in front (the undo group); on the Tasks and Rate tabs
                # the panel's own Ctrl+Z takes the key, so the window's action gives its shortcut up there
                action.setEnabled(self.undo_group.canUndo() if aid == "undo" else self.undo_group.canRedo())
                action.setShortcuts(self._undo_keys[aid] if enabled else [])
            elif aid not in keep:
                action.setEnabled(enabled)

    def _docks(self) -> list[QDockWidget]:
        return [self.library_dock, self.properties_dock, self.annotations_dock, self.tags_dock,
                self.calibrations_dock]

    def _show_logs(self) -> None:
        from fieldstudio.gui.logs_menu import show_logs

        show_logs()

    # --- status ----------------------------------------------------------------------------------
    def _show_pointer(self, x: float, y: float) -> None:
        self.pointer_label.setText("" if math.isnan(x) else f"x {x:.1f}  y {y:.1f} px")

    def _show_zoom(self, canvas: Canvas, zoom: float) -> None:
        if canvas is self.view.active_canvas():
            self.zoom_label.setText(f"zoom {zoom * 100:.0f} %")

    def notify(self, message: str) -> None:
        """A one-line message in the status bar for 8 seconds (and the log)."""
        log.info("%s", message)
        self.statusBar().showMessage(message, 8000)

    def show_shortcuts(self) -> None:
        shortcuts.ShortcutsDialog(self.actions, self).exec()

    def _about(self) -> None:
        dialogs.about(self)

    # --- layout ----------------------------------------------------------------------------------
    def _restore_layout(self, geometry: bool = True) -> None:
        state = settings.get(user_settings.WINDOW_STATE)
        if geometry and (saved_geometry := settings.get(user_settings.WINDOW_GEOMETRY)):
            self.restoreGeometry(saved_geometry)
        if state:
            self.restoreState(state)

    def _save_layout(self) -> None:
        if self._docks_hidden_for_tab is not None:  # the panels hidden for a tab are still the user's layout
            self.modes.setCurrentIndex(0)
        layout = {user_settings.WINDOW_GEOMETRY: self.saveGeometry().data()}
        if not self._welcome_hid_docks:  # the welcome screen's hidden panels are not the user's layout
            layout[user_settings.WINDOW_STATE] = self.saveState().data()
        settings.set_all(layout)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        if not self._leave_project():
            event.ignore()
            return
        self._save_layout()
        self._close_project()
        self._closed = True
        super().closeEvent(event)
