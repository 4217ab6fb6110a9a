"""The main window: library on the left, the viewer in the centre, properties and annotations on the right,
the status bar with frame index, PTS time, zoom and the pointer in image pixels.

The window builds its docks, menus and status bar and puts its parts together; it holds no logic the command
line lacks. What it shows lives in one Qt-free object, ``state`` (gui/state.py), which its parts read, set
and subscribe to: the viewer (gui/media_view.py), the annotation tools (gui/annotate.py), the side panels
(gui/side_panels.py) and the evaluation tabs (gui/workspace.py). The project's lifecycle (open, migrate,
close, the background indexing, recent and shared projects) is ``session`` (gui/project_session.py).

SQLAlchemy and the decoders are imported when a project is opened, not when this module is: ``MainWindow
(path=P)`` shows the project's name and library from plain sqlite3 reads at once and opens it on a worker
thread while the window is already on screen (the cold-start target of issue 3).
"""

from __future__ import annotations

import logging
import math
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QUndoGroup
from PySide6.QtWidgets import QDockWidget, QMainWindow

from fieldstudio.core import user_settings
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui import dialogs, opened_reads, settings, shortcuts, window_ui, workers
from fieldstudio.gui.annotate import AnnotationController
from fieldstudio.gui.behaviour_coding import BehaviourCoding
from fieldstudio.gui.dialog_focus import FocusReturn
from fieldstudio.gui.media_view import MediaView
from fieldstudio.gui.panels.library import LibraryPanel
from fieldstudio.gui.project_session import APP_TITLE, ProjectSession
from fieldstudio.gui.side_panels import SidePanels
from fieldstudio.gui.state import ViewState
from fieldstudio.gui.workspace import Workspace
from fieldstudio.store.location import is_database_url, project_ref

if TYPE_CHECKING:
    from fieldstudio.gui.viewer.canvas import Canvas
    from fieldstudio.store.project import Project

log = logging.getLogger(__name__)


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
        self.indexing_status = None  # the status bar's line of the project's background indexer
        self._docks_hidden_for_tab: list[QDockWidget] | None = None
        self.setAcceptDrops(True)
        self.resize(1400, 860)

        self.actions = shortcuts.make_actions(self)
        self.view = MediaView(self.state, self.actions, self)
        window_ui.build_central(self)
        window_ui.build_docks(self)
        window_ui.build_status(self)
        self.annotator = AnnotationController(self.state, self.view.canvas, self.notify, self.statusBar(), self)
        self.side = SidePanels(self.state, self.annotator, (self.annotations_dock, self.tags_dock,
                               self.calibrations_dock), notify=self.notify, parent=self)
        self.undo_group = QUndoGroup(self)
        self.undo_group.addStack(self.annotator.undo_stack)
        self.undo_group.setActiveStack(self.annotator.undo_stack)
        self.workspace = Workspace(self, self.modes, self.undo_group, self.annotator.undo_stack, self.state,
                                   notify=self.notify, set_viewer_mode=self.set_viewer_mode)
        self.session = ProjectSession(self.state, self, notify=self.notify, may_leave=self._leave_project)
        # after Go to frame, an import report or Override, the keys work again without a click on the canvas
        self.focus_return = FocusReturn(self, lambda: self.view.active_canvas() if self.modes.currentIndex() == 0
                                        else None)
        self._wire()
        window_ui.build_menus(self)
        self.behaviour = BehaviourCoding(self)
        self._connect_actions()
        self._restore_layout()
        if project is not None:
            self.set_project(project)
        elif path is not None:
            self.session.open_in_background(project_ref(path))
        else:
            self.show_welcome()
            self.session.warm_up()  # a project opened from the welcome screen opens at once

    def _wire(self) -> None:
        """The parts' signals to the status bar and to each other's public slots; the library selects the row
        of the media shown (the overlay, the side panels and the task editor subscribe to the state)."""
        v, st, s = self.view, self.state, self.session
        v.notice.connect(self.notify)
        v.position_text.connect(lambda f, t: (self.frame_label.setText(f), self.time_label.setText(t)))
        v.media_shown.connect(self.properties.show_media)
        self.properties.mark.follow(self.state, self.annotator.apply, self.annotator.changed)
        # a new mark's label and attributes are edited next: its Properties in front of the Behaviour dock's tab
        self.annotator.marks.mark_drawn.connect(lambda _id: self.properties_dock.raise_())
        v.pointer_moved.connect(self._show_pointer)
        v.zoom_changed.connect(self._show_zoom)
        v.segment_end_moved.connect(self.annotator.move_segment_end)
        self.annotator.marks.markers_changed.connect(lambda segments, events: v.timeline.set_markers(segments, events))
        self.annotator.labels.label_shown.connect(self.label_label.setText)
        self.annotator.changed.connect(self.workspace.annotations_changed)
        st.events.media.connect(lambda m: m is not None and self.library is not None and self.library.show_media(m.id))
        # a message about the media left (or another tab) is stale once another media is shown
        st.events.media.connect(lambda _m: self.statusBar().clearMessage())
        st.events.project.connect(self._project_shown)
        s.previewing.connect(self._show_opening)
        s.opened.connect(self._opened)
        s.open_failed.connect(self._open_failed)
        s.indexing.connect(self._show_indexing)
        s.media_changed.connect(self._reload_library)
        s.tasks_imported.connect(self._reload_tasks_and_library)
        s.warmed_up.connect(self.side.built)  # the side panels' widgets, built in a turn of their own
        v.welcome_made.connect(s.connect_welcome)

    def _connect_actions(self) -> None:
        a, v = self.actions, self.view
        for aid, slot in (("new_project", self.session.new_dialog), ("open_project", self.session.open_dialog),
                          ("open_shared", self.session.open_shared_dialog), ("add_media", self.add_media_dialog),
                          ("add_folder", self.add_folder_dialog), ("quit", self.close),
                          ("zoom_in", lambda: v.active_canvas().zoom_in()),
                          ("zoom_out", lambda: v.active_canvas().zoom_out()),
                          ("zoom_fit", lambda: v.active_canvas().fit()),
                          ("zoom_1to1", lambda: v.active_canvas().one_to_one()),
                          ("timeline_zoom_in", lambda: v.timeline.zoom(2.0)),
                          ("timeline_zoom_out", lambda: v.timeline.zoom(0.5)),
                          ("next_media", lambda: self._step_media(1)), ("prev_media", lambda: self._step_media(-1)),
                          ("find", self._find), ("shortcuts", self.show_shortcuts), ("labels", self.labels_dialog),
                          ("read_text", self.read_text_here), ("detect_people", self.detect_people),
                          ("export_annotations", self.export_dialog),
                          ("import_annotations", self.import_annotations_dialog)):
            a[aid].triggered.connect(slot)
        self._connect_edit_actions()
        self.annotator.connect_actions(a)
        v.connect_actions(a)

    def go_to(self, text: str) -> None:
        """Jump to the frame number or time ``text`` names (Ctrl+G)."""
        self.view.go_to(text)

    # --- the project (gui/project_session.py opens and closes it) --------------------------------
    def set_project(self, project: Project) -> None:
        """Show ``project`` (the open one is closed first) and remember it in the recent projects."""
        self.session.set_project(project)

    def open_project_path(self, path: Path | str) -> bool:
        """Open a project file or a shared project URL in the background: ``project_opened`` follows, or one
        message with the current project kept; False when the user stayed (see ``ProjectSession.open_path``)."""
        return self.session.open_path(path)

    def import_benchmark_dialog(self) -> workers.Worker | None:
        """File ▸ Import a benchmark…: a new project with a benchmark's tasks and media folder."""
        return self.session.import_benchmark_dialog()

    def _project_shown(self, project: Project | None) -> None:
        """``state.project`` changed: the title, the library, the panels and the tabs follow."""
        if project is None:
            # nothing of the project closed may stay on show in the next one (a new project is empty)
            self.properties.show_media(None)
            for label in self.viewer_readouts:
                label.setText("")
            return
        name = opened_reads.take(self.state, project, opened_reads.NAME, lambda: project.name)
        self.setWindowTitle(f"{APP_TITLE} — {name}")
        self._set_library(project.path, opened_reads.take(self.state, project, opened_reads.LIBRARY_ROWS, lambda: None))
        if self._welcome_hid_docks:
            self._welcome_hid_docks = False
            for dock in self._docks():
                dock.show()
            self._restore_layout(geometry=False)
        self.modes.tabBar().setVisible(True)

    def _opened(self) -> None:
        self.view.serve_request()  # a media chosen in the library while the project was opening
        self.project_opened.emit()

    def _show_opening(self, path: Path | str, shown: str, name: str | None) -> None:
        """While ``path`` opens in the background: its name and library from plain reads (``name`` None: none)."""
        self.view.stack.setCurrentWidget(self.view.empty)
        self.view.empty.setText(f"Opening {shown}…")
        self.setWindowTitle(f"{APP_TITLE} — {name or shown}")
        if name is not None:
            try:
                self._set_library(path)
            except FieldstudioError as exc:
                log.info("the window opens %s without a preview: %s", path, exc)

    def _open_failed(self, message: str) -> None:
        from PySide6.QtWidgets import QMessageBox

        if self.state.project is None:
            self.library = None
            self.show_welcome()
        QMessageBox.critical(self, "Cannot open the project", message)

    def _set_library(self, path: Path | str, rows: list | None = None) -> None:
        """The library of the project at ``path`` (``rows``: its ``library_rows.media_rows``, read already)."""
        path = str(path) if is_database_url(path) else path.resolve()   # a shared project: its URL
        if self.library is not None and self.library.path == path:
            return
        shown = self.library_dock.widget()
        self.library = LibraryPanel(path, rows=rows)
        self.library.media_activated.connect(self.state.request_frame)
        self.library_dock.setWidget(self.library)
        if shown is not None:   # the dock does not delete the panel it replaces: it stayed, with its rows, per open
            shown.deleteLater()

    def _show_indexing(self, indexer) -> None:  # noqa: ANN001 - gui.indexing.BackgroundIndexer
        """The project's background indexer: its line in the status bar; the viewer follows a new index."""
        from fieldstudio.gui.indexing import IndexingStatus

        indexer.indexed.connect(self.view.index_changed)
        # the rows of the new thumbnails only: a reload re-read and re-filtered 5,000 rows on the GUI thread
        indexer.thumbnails_made.connect(lambda made: self.library is not None
                                        and self.library.thumbnails_changed(made.media_ids))
        indexer.page_read.connect(self.view.ocr_page_read)
        indexer.page_read.connect(lambda _m: self.library is not None and self.library.reload())
        if self.indexing_status is not None:
            self.statusBar().removeWidget(self.indexing_status)
            self.indexing_status.deleteLater()
        self.indexing_status = IndexingStatus(indexer)
        self.statusBar().insertPermanentWidget(0, self.indexing_status)

    def show_welcome(self) -> None:
        """The welcome screen: recent projects and the demo one click away."""
        self.session.close()
        self.setWindowTitle(APP_TITLE)
        self.view.welcome.set_recent(settings.recent_projects())
        self.view.stack.setCurrentWidget(self.view.welcome)
        self.modes.setCurrentIndex(0)
        self.modes.tabBar().setVisible(False)
        if not self._welcome_hid_docks:
            self._save_layout()
        for dock in self._docks():
            dock.hide()
        self._welcome_hid_docks = True

    def _leave_project(self) -> bool:
        """Before another project or the welcome screen replaces this one: unsaved task form, open segments."""
        if self.state.project is None:
            return True
        return self.workspace.save_forms() and self.annotator.confirm_open_segments()

    # --- adding media ----------------------------------------------------------------------------
    def add_media_dialog(self) -> None:
        from PySide6.QtWidgets import QFileDialog

        if self.session.need_project():
            files, _ = QFileDialog.getOpenFileNames(self, "Add media")
            if files:
                self.import_paths([Path(f) for f in files])

    def add_folder_dialog(self) -> None:
        from PySide6.QtWidgets import QFileDialog

        if self.session.need_project():
            folder = QFileDialog.getExistingDirectory(self, "Add a folder of media")
            if folder:
                self.import_paths([Path(folder)])

    def import_paths(self, paths: list[Path]) -> workers.Worker | None:
        """Add files and folders in the background; the library refreshes when done."""
        from fieldstudio.gui import add_media

        if not self.session.need_project():
            return None
        return add_media.start_import(self, self.state.project, paths,
                                      lambda _r: (self.library.reload(), self.session.index_new_videos()))

    def dragEnterEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: ANN001, N802 - Qt override
        paths = [Path(u.toLocalFile()) for u in event.mimeData().urls() if u.isLocalFile()]
        projects = [p for p in paths if p.suffix == ".fieldstudio"]
        if projects:
            self.session.open_path(projects[0])
        elif paths and self.session.need_project():
            from fieldstudio.gui import file_menu

            tasks, media = file_menu.split_task_files(paths)  # benchmark task files import as tasks
            if tasks:  # the media dropped with them are added first, so the tasks find their inputs
                file_menu.import_task_paths(self, self.state.project, tasks, media, self._reload_tasks_and_library)
            else:
                self.import_paths(media)
        event.acceptProposedAction()

    def _reload_library(self) -> None:
        if self.library is not None:
            self.library.reload()

    def _reload_tasks_and_library(self) -> None:
        """After an import: the tabs that show tasks and answers, and the library (media may have been added)."""
        self.workspace.tasks_imported()
        self._reload_library()

    def _step_media(self, step: int) -> None:
        if self.library is None:
            return
        ids = self.library.visible_ids()
        if not ids:
            return
        media, requested = self.state.media, self.state.requested  # requested: chosen while the project opens
        shown = media.id if media is not None else requested.media_id if requested is not None else None
        current = ids.index(shown) if shown in ids else -1
        self.library.select(ids[(current + step) % len(ids)])

    def read_text_here(self) -> None:
        """Annotate ▸ Read text here: OCR of the selected box or the frame on screen (gui/read_text.py)."""
        from fieldstudio.gui.read_text import read_text_here

        read_text_here(self)

    def detect_people(self) -> None:
        """Annotate ▸ Detect people…: proposals of the HOG people detector to accept or reject (gui/people_dialog.py)."""
        from fieldstudio.gui.people_dialog import detect_people_dialog

        detect_people_dialog(self)

    def _find(self) -> None:
        if self.view.showing_document():
            self.view.document.search.setFocus()
            self.view.document.search.selectAll()

    # --- annotation and evaluation ---------------------------------------------------------------
    def _connect_edit_actions(self) -> None:
        a, group = self.actions, self.undo_group
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
        a["toggle_grid"].toggled.connect(self._set_grid)
        # Delete acts on the canvas's selection only: the annotation list and tag tables have their own
        self.removeAction(a["delete_marks"])
        a["delete_marks"].setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.view.canvas.addAction(a["delete_marks"])

    def _undo_text(self, text: str) -> None:
        self.actions["undo"].setText(f"&Undo {text}".strip())

    def _redo_text(self, text: str) -> None:
        self.actions["redo"].setText(f"&Redo {text}".strip())

    def _set_grid(self, on: bool) -> None:
        self.annotator.marks.show_grid = on
        self.annotator.refresh()

    def labels_dialog(self) -> None:
        if self.session.need_project():
            dialogs.edit_labels(self, self.state.project, self.annotator.apply_or_raise, self.notify,
                                self.state.mark_kind)
            self.annotator.refresh()

    def export_dialog(self) -> None:
        if self.session.need_project():
            media = self.state.media
            dialogs.export_annotations(self, self.state.project, media.id if media is not None else None)

    def import_annotations_dialog(self) -> workers.Worker | None:
        """File ▸ Import annotations… (gui/annotation_import.py); the import is one edit of the viewer's stack."""
        from fieldstudio.gui import annotation_import

        if not self.session.need_project():
            return None

        def reload() -> None:
            self.annotator.refresh()
            self.workspace.annotations_changed()

        return annotation_import.import_annotations(self, self.state.project, self.annotator.push_done, reload)

    def relink_dialog(self) -> None:
        """File ▸ Relink media: search a folder for the files of missing media (matched by content)."""
        if self.session.need_project():
            dialogs.relink_media(self, self.state.project, self.notify, self._relinked)

    def task_file_dialog(self, dialog: str, folder: bool = False) -> workers.Worker | None:
        """File ▸ Import tasks / answers (files or a ``folder``), Export tasks / report (gui/file_menu.py)."""
        from fieldstudio.gui import file_menu

        if not self.session.need_project():
            return None
        return file_menu.open_dialog(dialog, self, self.state.project, self._reload_tasks_and_library,
                                     folder=folder, scorer=self.workspace.current_scorer())  # what Compare shows

    def _relinked(self, found: dict) -> None:
        self._reload_library()
        media = self.state.media
        if found and media is not None and media.id in found:
            self.state.request_frame(media.id)

    def what_left_dialog(self):  # noqa: ANN201 - gui.sent_dialog.SentDialog or None
        """File ▸ What left this machine: per endpoint and day, what the project's model runs sent."""
        if self.session.need_project():
            from fieldstudio.gui.sent_dialog import show_sent

            self._sent_dialog = show_sent(self, self.state.project)
            return self._sent_dialog
        return None

    def redact_dialog(self):  # noqa: ANN201 - gui.workers.Worker or None
        """File ▸ Redact media for sharing: blurred copies of files chosen on disk (no project needed)."""
        from fieldstudio.gui.redact_dialog import redact_dialog

        return redact_dialog(self)

    def skeleton_template_dialog(self) -> None:
        """Annotate ▸ Skeleton template of a label…, on the skeleton tool's current label; redraws the frame after."""
        if self.session.need_project():
            from fieldstudio.gui.skeleton_template_dialog import edit_skeleton_template

            if edit_skeleton_template(self, self.state.project, self.annotator.apply_or_raise,
                                      self.annotator.labels.label_of("skeleton")):
                self.annotator.refresh()

    def export_rating_package(self) -> None:
        if self.session.need_project():
            from fieldstudio.gui import rating_exchange

            rating_exchange.export_dialog(self, self.state.project)

    def import_rating_package(self) -> None:
        if self.session.need_project():
            from fieldstudio.gui import rating_exchange

            rating_exchange.import_dialog(self, self.state.project, self.workspace.ratings_imported)

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
        docks = [self.library_dock, self.properties_dock, self.annotations_dock, self.tags_dock,
                 self.calibrations_dock]
        behaviour = getattr(self, "behaviour", None)  # made after the menus (gui/behaviour_coding.py)
        return docks + ([behaviour.dock] if behaviour is not None else [])

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
        self.session.shut_down()
        super().closeEvent(event)
