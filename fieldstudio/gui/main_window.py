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

from PySide6.QtCore import QByteArray, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QImage
from PySide6.QtWidgets import (QDockWidget, QFileDialog, QInputDialog, QLabel, QMainWindow, QMessageBox, QStackedWidget,
                               QTabWidget, QVBoxLayout, QWidget)

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.gui import settings, shortcuts, workers
from fieldstudio.gui.annotate import AnnotationController
from fieldstudio.gui.imaging import format_pts, parse_time_or_frame, qimage_from_rgb
from fieldstudio.gui.panels.library import LibraryPanel
from fieldstudio.gui.panels.properties import PropertiesPanel
from fieldstudio.gui.viewer.canvas import Canvas
from fieldstudio.gui.welcome import WelcomePage
from fieldstudio.gui.workspace import Workspace
from fieldstudio.store import library_rows

if TYPE_CHECKING:
    from fieldstudio.gui.panels.annotation_list import AnnotationListPanel
    from fieldstudio.gui.panels.calibration import CalibrationListPanel
    from fieldstudio.gui.panels.tags import TagsPanel
    from fieldstudio.gui.timeline import Timeline
    from fieldstudio.gui.transport import TransportBar
    from fieldstudio.gui.viewer.document_view import DocumentView
    from fieldstudio.gui.viewer.frame_loader import FrameLoader
    from fieldstudio.gui.viewer.video_controller import VideoController
    from fieldstudio.store.models import Media
    from fieldstudio.store.project import Project

log = logging.getLogger(__name__)

#: Decoded frames kept for stepping: about 40 frames of 1080p (one 2 s GOP at 20 fps), which keeps
#: stepping backward cheap within a GOP while the window stays under 600 MB playing 1080p.
VIEWER_CACHE_BYTES = 128 * 1024 * 1024

APP_TITLE = "fieldstudio"
EMPTY_TEXT = "Choose a photo, video or document in the library,\nor drop files and folders here."


def _open_project(path: Path, *, progress, cancelled) -> Project:  # noqa: ANN001 - worker callables
    """Worker: import the store and the decoders, then open the project (ProjectError explains a bad file)."""
    import importlib

    from fieldstudio.store.project import Project

    for name in ("fieldstudio.media.frames", "fieldstudio.media.library"):  # the decoders: not on the GUI thread
        importlib.import_module(name)

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
        self.project: Project | None = None
        self.media: Media | None = None
        self.loader: FrameLoader | None = None
        self.video: VideoController | None = None
        self._strip_worker: workers.Worker | None = None
        self._welcome_hid_docks = False
        self._pending_frame: tuple[str, int] | None = None
        self._opening: workers.Worker | None = None  # the background open of MainWindow(path=...)
        self._pending_media: str | None = None  # chosen in the library while the project was opening
        self._closed = False
        self.shown_index = 0  # the video frame on screen: what marks attach to
        self._docks_hidden_for_tab: list[QDockWidget] | None = None
        self.setAcceptDrops(True)
        self.resize(1400, 860)

        self.actions = {aid: shortcuts.make_action(aid, self) for aid in shortcuts.DEFAULTS}
        self._build_central()
        self._build_docks()
        self.workspace = Workspace(self, self.modes)
        self.annotator = AnnotationController(self)
        self._build_status()
        self._build_menus()
        self._connect_actions()
        self._restore_layout()
        if project is not None:
            self.set_project(project)
        elif path is not None:
            self._show_opening(Path(path))
        else:
            self.show_welcome()

    # --- construction ----------------------------------------------------------------------------
    def _build_central(self) -> None:
        self.canvas = Canvas()
        self.media_page = QWidget()
        lay = QVBoxLayout(self.media_page)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.canvas, 1)
        # the transport bar and the timeline follow under the canvas with the first project (``_controls``)
        self._controls: tuple[TransportBar, Timeline] | None = None
        self._document: DocumentView | None = None  # built on the first document shown (``document``)
        self.empty = QLabel(EMPTY_TEXT)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.welcome = WelcomePage()
        self.stack = QStackedWidget()
        for w in (self.welcome, self.empty, self.media_page):
            self.stack.addWidget(w)
        self.modes = QTabWidget()
        self.modes.setObjectName("modes")
        self.modes.setDocumentMode(True)
        self.modes.addTab(self.stack, "Media")
        self.modes.setTabToolTip(0, "The viewer: library, photos, video frames and documents (Alt+1)")
        self.setCentralWidget(self.modes)

    def _build_docks(self) -> None:
        self.library_dock = QDockWidget("Library", self)
        self.library_dock.setObjectName("library_dock")
        self.properties = PropertiesPanel()
        self.properties_dock = QDockWidget("Properties", self)
        self.properties_dock.setObjectName("properties_dock")
        self.properties_dock.setWidget(self.properties)
        # the annotation, tag and calibration lists are built with the first project (``_side_panels``):
        # their docks are tabbed behind Properties, and building them is part of a cold start otherwise
        self._side: tuple[AnnotationListPanel, TagsPanel, CalibrationListPanel] | None = None
        self.annotations_dock = QDockWidget("Annotations", self)
        self.annotations_dock.setObjectName("annotations_dock")
        self.tags_dock = QDockWidget("Tags", self)
        self.tags_dock.setObjectName("tags_dock")
        self.calibrations_dock = QDockWidget("Calibrations", self)
        self.calibrations_dock.setObjectName("calibrations_dock")
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.library_dock)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.properties_dock)
        for dock in (self.annotations_dock, self.tags_dock, self.calibrations_dock):
            self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
            self.tabifyDockWidget(self.properties_dock, dock)
        self.properties_dock.raise_()
        self.resizeDocks([self.library_dock, self.properties_dock], [300, 300], Qt.Orientation.Horizontal)
        self.library: LibraryPanel | None = None

    def _build_status(self) -> None:
        bar = self.statusBar()
        self.frame_label = QLabel("")
        self.frame_label.setObjectName("frame_label")
        self.frame_label.setToolTip("Index of the frame shown (0-based) / last index")
        self.time_label = QLabel("")
        self.time_label.setObjectName("time_label")
        self.time_label.setToolTip("PTS time of the frame shown (HH:MM:SS.mmm)")
        self.zoom_label = QLabel("")
        self.zoom_label.setObjectName("zoom_label")
        self.zoom_label.setToolTip("Zoom: 100 % is one image pixel per screen pixel")
        self.pointer_label = QLabel("")
        self.pointer_label.setObjectName("pointer_label")
        self.pointer_label.setToolTip("Pointer position in image pixels")
        for w in (self.frame_label, self.time_label, self.zoom_label, self.pointer_label):
            w.setMinimumWidth(190 if w is self.pointer_label else 120)
            bar.addPermanentWidget(w)

    def _build_menus(self) -> None:
        a = self.actions
        m = self.menuBar().addMenu("&File")
        for aid in ("new_project", "open_project"):
            m.addAction(a[aid])
        self.recent_menu = m.addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.demo_action = QAction("Open the &demo project", self)
        self.demo_action.triggered.connect(self.open_demo)
        m.addAction(self.demo_action)
        m.addSeparator()
        for aid in ("add_media", "add_folder"):
            m.addAction(a[aid])
        relink = m.addAction("&Relink media…")
        relink.setToolTip("Find moved media files in a folder by their SHA-256 and update their paths")
        relink.triggered.connect(self.relink_dialog)
        m.addSeparator()
        m.addAction(a["export_annotations"])
        packages = m.addMenu("Rating &packages")
        export_pkg = packages.addAction("&Export a rating set…")
        export_pkg.setToolTip("Send a rating set to a rater who works offline (a .zip with the photos and frames)")
        export_pkg.triggered.connect(self.export_rating_package)
        import_pkg = packages.addAction("&Import a rater's package…")
        import_pkg.setToolTip("Merge ratings sent back by a rater; importing twice changes nothing")
        import_pkg.triggered.connect(self.import_rating_package)
        m.addSeparator()
        m.addAction(a["quit"])
        m = self.menuBar().addMenu("&Edit")
        m.addAction(a["undo"])
        m.addAction(a["redo"])
        m = self.menuBar().addMenu("&Annotate")
        for aid in ("select_tool", "box_tool", "ruler_tool", "calibrate", "toggle_grid", None, "edit_mark",
                    "delete_marks", "copy_next", "make_keyframe", None, "segment_start", "segment_end", "event",
                    None, "labels"):
            if aid is None:
                m.addSeparator()
            else:
                m.addAction(a[aid])
        labels_menu = m.addMenu("Use &label")
        for k in range(1, 10):
            labels_menu.addAction(a[f"label_{k}"])
        a["toggle_grid"].setCheckable(True)
        a["toggle_grid"].setChecked(True)
        m = self.menuBar().addMenu("&View")
        for aid in ("zoom_in", "zoom_out", "zoom_fit", "zoom_1to1"):
            m.addAction(a[aid])
        m.addSeparator()
        for aid in ("timeline_zoom_in", "timeline_zoom_out", "next_media", "prev_media", "find"):
            m.addAction(a[aid])
        m.addSeparator()
        for dock in self._docks():
            m.addAction(dock.toggleViewAction())
        m.addSeparator()
        for action in self.workspace.tab_actions:
            m.addAction(action)
        m = self.menuBar().addMenu("&Video")
        for aid in ("play", "next_frame", "prev_frame", "next_second", "prev_second", "next_10s", "prev_10s",
                    "shuttle_back", "shuttle_stop", "shuttle_fwd", "go_to", "loop_start", "loop_end",
                    "loop_toggle", "mute"):
            m.addAction(a[aid])
        a["mute"].setCheckable(True)
        a["loop_toggle"].setCheckable(True)
        m = self.menuBar().addMenu("&Help")
        m.addAction(a["shortcuts"])
        show_logs = QAction("Show &logs", self)
        show_logs.setToolTip("Open the folder with fieldstudio's log files (attach them to a bug report)")
        show_logs.triggered.connect(self._show_logs)
        m.addAction(show_logs)
        about = QAction("&About fieldstudio", self)
        about.triggered.connect(self._about)
        m.addAction(about)

    def _connect_actions(self) -> None:
        a = self.actions
        a["new_project"].triggered.connect(self.new_project_dialog)
        a["open_project"].triggered.connect(self.open_project_dialog)
        a["add_media"].triggered.connect(self.add_media_dialog)
        a["add_folder"].triggered.connect(self.add_folder_dialog)
        a["quit"].triggered.connect(self.close)
        a["zoom_in"].triggered.connect(lambda: self._active_canvas().zoom_in())
        a["zoom_out"].triggered.connect(lambda: self._active_canvas().zoom_out())
        a["zoom_fit"].triggered.connect(lambda: self._active_canvas().fit())
        a["zoom_1to1"].triggered.connect(lambda: self._active_canvas().one_to_one())
        a["timeline_zoom_in"].triggered.connect(lambda: self.timeline.zoom(2.0))
        a["timeline_zoom_out"].triggered.connect(lambda: self.timeline.zoom(0.5))
        a["next_media"].triggered.connect(lambda: self._step_media(1))
        a["prev_media"].triggered.connect(lambda: self._step_media(-1))
        a["find"].triggered.connect(self._find)
        a["shortcuts"].triggered.connect(self.show_shortcuts)
        self._connect_annotation_actions()
        video = {
            "play": lambda v: v.toggle_play(),
            "next_frame": lambda v: v.step(1), "prev_frame": lambda v: v.step(-1),
            "next_second": lambda v: v.step_seconds(1.0), "prev_second": lambda v: v.step_seconds(-1.0),
            "next_10s": lambda v: v.step_seconds(10.0), "prev_10s": lambda v: v.step_seconds(-10.0),
            "shuttle_back": lambda v: v.shuttle("j"), "shuttle_stop": lambda v: v.shuttle("k"),
            "shuttle_fwd": lambda v: v.shuttle("l"),
            "loop_start": lambda v: v.set_loop_start(), "loop_end": lambda v: v.set_loop_end(),
            "loop_toggle": lambda v: v.toggle_loop(),
            "mute": lambda v: v.set_muted(self.actions["mute"].isChecked()),
            "go_to": lambda v: self.go_to_dialog(),
        }
        for aid, fn in video.items():
            a[aid].triggered.connect(lambda _=False, fn=fn: self._on_video(fn))
        self.canvas.pointer_moved.connect(self._show_pointer)
        self.canvas.zoom_changed.connect(lambda z: self._show_zoom(self.canvas, z))
        self.annotator.undo_stack.indexChanged.connect(self._side_panels_refresh)
        self.annotator.changed.connect(self._annotations_changed)
        self.welcome.open_demo.connect(self.open_demo)
        self.welcome.new_project.connect(self.new_project_dialog)
        self.welcome.open_project.connect(self.open_project_dialog)
        self.welcome.open_path.connect(self.open_project_path)

    # --- lazily built views ----------------------------------------------------------------------
    def _media_controls(self) -> tuple[TransportBar, Timeline]:
        """The transport bar and the timeline under the canvas, built and wired on first use."""
        if self._controls is None:
            from fieldstudio.gui.timeline import Timeline
            from fieldstudio.gui.transport import TransportBar

            transport, timeline = self._controls = (TransportBar(self.actions), Timeline())
            self.media_page.layout().addWidget(transport)
            self.media_page.layout().addWidget(timeline)
            timeline.scrubbed.connect(lambda i: self.video and self.video.preview_index(i))
            timeline.released.connect(lambda i: self.video and self.video.show_index(i))
            timeline.segment_end_moved.connect(self.annotator.move_segment_end)
            transport.speed_chosen.connect(lambda r: self.video and self.video.set_rate(r))
        return self._controls

    @property
    def transport(self) -> TransportBar:
        """Play, speed, mute and loop buttons with the position read-out."""
        return self._media_controls()[0]

    @property
    def timeline(self) -> Timeline:
        """The timeline: thumbnails, playhead, segments and events."""
        return self._media_controls()[1]

    @property
    def document(self) -> DocumentView:
        """The PDF and text view (pages, zoom, search), built and wired on first use."""
        if self._document is None:
            from fieldstudio.gui.viewer.document_view import DocumentView

            doc = self._document = DocumentView()
            self.stack.addWidget(doc)
            doc.canvas.pointer_moved.connect(self._show_pointer)
            doc.canvas.zoom_changed.connect(lambda z: self._show_zoom(doc.canvas, z))
            doc.notice.connect(self.notify)
            doc.page_shown.connect(
                lambda p, n: (self.frame_label.setText(f"page {p + 1} / {n}"), self.time_label.setText("")))
        return self._document

    def _side_panels(self) -> tuple[AnnotationListPanel, TagsPanel, CalibrationListPanel]:
        """The annotation list, tags and calibrations panels, built and wired on first use."""
        if self._side is None:
            from fieldstudio.gui.panels.annotation_list import AnnotationListPanel
            from fieldstudio.gui.panels.calibration import CalibrationListPanel
            from fieldstudio.gui.panels.tags import TagsPanel

            self._side = (AnnotationListPanel(), TagsPanel(), CalibrationListPanel())
            for dock, panel in zip((self.annotations_dock, self.tags_dock, self.calibrations_dock), self._side):
                dock.setWidget(panel)
                panel.set_apply_edit(self.annotator.apply_or_raise)
                panel.status.connect(self.notify)
            self._side[0].jump.connect(self._jump_to_annotation)
            self._side[2].calibration_changed.connect(lambda _m: self.annotator.refresh())
        return self._side

    @property
    def annotations(self) -> AnnotationListPanel:
        """The annotation list panel (filters, jump to a mark, delete)."""
        return self._side_panels()[0]

    @property
    def tags(self) -> TagsPanel:
        """The tags panel of the media and frame shown."""
        return self._side_panels()[1]

    @property
    def calibrations(self) -> CalibrationListPanel:
        """The calibrations panel."""
        return self._side_panels()[2]

    # --- project ---------------------------------------------------------------------------------
    def _show_opening(self, path: Path) -> None:
        """Name and library of ``path`` from plain reads now; the project itself in the background."""
        self.stack.setCurrentWidget(self.empty)
        self.empty.setText(f"Opening {path.name}…")
        self.setWindowTitle(f"{APP_TITLE} — {path.stem}")
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
            return
        pending, self._pending_media = self._pending_media, None
        if pending is not None:
            self.open_media(pending)

    def _open_failed(self, message: str) -> None:
        self._opening = None
        self._pending_media = None
        if self.project is None:
            self.library = None
            self.show_welcome()
        QMessageBox.critical(self, "Cannot open the project", message)

    def _set_library(self, path: Path) -> None:
        if self.library is not None and self.library.path == path.resolve():
            return
        self.library = LibraryPanel(path.resolve())
        self.library.media_activated.connect(self.open_media)
        self.library_dock.setWidget(self.library)

    def set_project(self, project: Project) -> None:
        """Show ``project``: its library, the first media; remember it in the recent projects."""
        from fieldstudio.gui.viewer.frame_loader import FrameLoader
        from fieldstudio.gui.viewer.video_controller import VideoController
        from fieldstudio.media.frames import FrameSource

        self._close_project()
        self.project = project
        self.setWindowTitle(f"{APP_TITLE} — {project.name}")
        self.loader = FrameLoader(FrameSource(project, cache_bytes=VIEWER_CACHE_BYTES), self)
        self.video = VideoController(self.canvas, self.loader, self)
        self.video.frame_shown.connect(self._on_frame_shown)
        self.video.playing_changed.connect(self.transport.set_playing)
        self.video.notice.connect(self.notify)
        self.video.media_changed.connect(lambda: self.transport.set_speed(self.video.rate))
        self.loader.frame_ready.connect(self._on_image_ready)
        self.loader.failed.connect(self._frame_failed)
        self._set_library(project.path)
        if self._welcome_hid_docks:
            self._welcome_hid_docks = False
            for dock in self._docks():
                dock.show()
            self._restore_layout(geometry=False)
        self.stack.setCurrentWidget(self.empty)
        self.modes.tabBar().setVisible(True)
        self.workspace.set_project(project)
        self.annotator.project_changed()
        for panel in self._side_panels():
            panel.set_project(project)
        settings.add_recent(project.path)
        if project.read_only:
            self.notify(f"{project.path.name} is read-only: you can look, but changes cannot be saved")
        self.empty.setText(EMPTY_TEXT)
        self.project_opened.emit()

    def show_welcome(self) -> None:
        """The welcome screen: recent projects and the demo one click away."""
        self._close_project()
        for label in (self.frame_label, self.time_label, self.zoom_label, self.pointer_label):
            label.setText("")
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

    def _close_project(self) -> None:
        self.annotator.clear()
        self.workspace.set_project(None)
        for panel in self._side or ():
            panel.set_project(None)
        if self.video is not None:
            self.video.close()
            self.video.deleteLater()
            self.video = None
        if self.loader is not None:
            self.loader.stop()
            self.loader.deleteLater()
            self.loader = None
        if self.project is not None:
            self.project.close()
            self.project = None
        self.media = None
        self.canvas.clear_image()
        if self._controls is not None:
            self.timeline.clear()

    def open_project_path(self, path: Path | str) -> bool:
        """Open a project file; a clear message (and the current project kept) when it cannot be opened."""
        from fieldstudio.store.project import Project

        if not self._leave_project():
            return False
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
        from fieldstudio.gui import importing

        if not self._need_project():
            return None
        return importing.start_import(self, self.project, paths, lambda _r: self.library.reload())

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
        elif paths:
            self.import_paths(paths)
        event.acceptProposedAction()

    # --- showing media ---------------------------------------------------------------------------
    def open_media(self, media_id: str) -> None:
        """Show one media: a video at frame 0, a photo fitted, a document at page 1."""
        if self.project is None:
            if self._opening is not None:
                self._pending_media = media_id
            return
        from fieldstudio.media import library

        try:
            media = library.find_media(self.project, media_id)
        except FieldstudioError as exc:
            self.notify(str(exc))
            return
        if self.video is not None and self.video.media is not None:
            self.video.close()
        self.annotator.media_changed()
        self.media = media
        self.shown_index = 0
        path = library.media_path(self.project, media)
        missing = not path.is_file()
        self.properties.show_media(media, missing)
        self.annotations.set_media(media.id)
        self.tags.set_position(media.id, None if media.kind != "video" else 0)
        self.canvas.clear_highlights()
        if media.status != "ok" or missing:
            reason = "is missing (moved or deleted); File ▸ Relink media… finds it again" if missing else media.error
            self.empty.setText(f"{media.file_name}\n{reason}")
            self.stack.setCurrentWidget(self.empty)
            self.frame_label.setText("")
            self.time_label.setText("")
            return
        if media.kind == "document":
            self.stack.setCurrentWidget(self.document)
            try:
                self.document.open(path, media.page_count)
            except FieldstudioError as exc:
                self.notify(str(exc))
            return
        self.stack.setCurrentWidget(self.media_page)
        if media.kind == "image":
            self.timeline.clear()
            self.transport.setEnabled(False)
            self.frame_label.setText("photo")
            self.time_label.setText(f"{media.width} × {media.height} px")
            self.loader.request(media.id, 0)
            return
        self.transport.setEnabled(True)
        table = library.load_frame_table(self.project, media)
        if table is None:
            self.notify(f"indexing the frames of {media.file_name}…")
            worker = workers.Worker(self._index_one, media.id)
            worker.signals.result.connect(lambda _r, mid=media.id: self._opened_after_index(mid))
            worker.signals.error.connect(self.notify)
            workers.start(worker)
            return
        self._open_video(media, table)

    def _index_one(self, media_id: str, *, progress, cancelled):  # noqa: ANN001, ANN202 - worker fn
        from fieldstudio.media import library

        return library.index_videos(self.project, [media_id], progress=progress, cancelled=cancelled)

    def _opened_after_index(self, media_id: str) -> None:
        if self.media is not None and self.media.id == media_id:
            self.open_media(media_id)

    def _open_video(self, media: Media, table) -> None:  # noqa: ANN001 - FrameTable
        self.timeline.set_video(table.seconds_array())
        start = 0
        if self._pending_frame is not None and self._pending_frame[0] == media.id:
            start = min(max(self._pending_frame[1], 0), len(table) - 1)
        self._pending_frame = None
        self.video.open(media, table, start)
        self.transport.set_position(0, len(table), table.seconds(0), media.duration_s)
        self._start_strip(media.id)

    def _start_strip(self, media_id: str) -> None:
        from fieldstudio.media import thumbnails

        if self._strip_worker is not None:
            self._strip_worker.cancel()
        worker = workers.Worker(thumbnails.timeline_strip, self.project, media_id)
        worker.signals.result.connect(lambda strip, mid=media_id: self._on_strip(mid, strip))
        worker.signals.error.connect(lambda msg: log.warning("timeline strip: %s", msg))
        self._strip_worker = workers.start(worker)

    def _on_strip(self, media_id: str, strip: list) -> None:
        if self.media is not None and self.media.id == media_id:
            self.timeline.set_thumbnails([(i, qimage_from_rgb(rgb)) for i, rgb in strip])

    def _on_image_ready(self, _token: int, media_id: str, _index: int, _exact: bool, image: QImage) -> None:
        if self.media is not None and self.media.id == media_id and self.media.kind == "image":
            self.canvas.set_image(image, (self.media.width or image.width(), self.media.height or image.height()))
            self.annotator.refresh()
            self.workspace.position_changed(self.media.id, None)

    def _on_frame_shown(self, index: int, seconds: float, exact: bool) -> None:
        self.shown_index = index
        n = self.video.frame_count
        self.frame_label.setText(f"frame {index} / {n - 1}" + ("" if exact else " ~"))
        self.time_label.setText(format_pts(seconds))
        self.timeline.set_index(index)
        self.timeline.set_loop(self.video.loop if self.video.loop_enabled else None)
        self.transport.set_position(index, n, seconds, self.media.duration_s if self.media else None)
        self.annotator.frame_changed()
        if exact and self.media is not None:
            self.workspace.position_changed(self.media.id, index)
            self.tags.set_position(self.media.id, index)

    def _on_video(self, fn) -> None:  # noqa: ANN001 - callable(VideoController)
        if self.video is not None and self.video.media is not None and self.stack.currentWidget() is self.media_page:
            fn(self.video)

    def _showing_document(self) -> bool:
        return self._document is not None and self.stack.currentWidget() is self._document

    def _active_canvas(self) -> Canvas:
        return self.document.canvas if self._showing_document() else self.canvas

    def _step_media(self, step: int) -> None:
        if self.library is None:
            return
        ids = self.library.visible_ids()
        if not ids:
            return
        shown = self.media.id if self.media is not None else self._pending_media  # chosen while opening
        current = ids.index(shown) if shown in ids else -1
        self.library.select(ids[(current + step) % len(ids)])

    def _find(self) -> None:
        if self._showing_document():
            self.document.search.setFocus()
            self.document.search.selectAll()

    def go_to_dialog(self) -> None:
        """Ctrl+G: a frame number (``120``, ``#120``) or a time (``0:01:02.5``, ``62.5s``)."""
        if self.video is None or self.video.table is None:
            return
        text, ok = QInputDialog.getText(self, "Go to", "Frame number or time (e.g. 120, 0:01:02.5, 62.5s):")
        if ok:
            self.go_to(text)

    def go_to(self, text: str) -> None:
        """Jump to what ``text`` names; a bad entry is explained in the status bar."""
        try:
            kind, value = parse_time_or_frame(text)
        except ValueError as exc:
            self.notify(str(exc))
            return
        if kind == "frame":
            if not 0 <= value < self.video.frame_count:
                self.notify(f"frame {int(value)} is outside 0..{self.video.frame_count - 1}")
                return
            self.video.show_index(int(value))
        else:
            self.video.seek_seconds(self.video.table.seconds(0) + value)

    # --- annotation and evaluation ---------------------------------------------------------------
    def _connect_annotation_actions(self) -> None:
        a, ctl = self.actions, self.annotator
        a["undo"].triggered.connect(ctl.undo_stack.undo)
        a["redo"].triggered.connect(ctl.undo_stack.redo)
        a["undo"].setEnabled(False)
        a["redo"].setEnabled(False)
        ctl.undo_stack.canUndoChanged.connect(a["undo"].setEnabled)  # slots of the actions: dropped with them
        ctl.undo_stack.canRedoChanged.connect(a["redo"].setEnabled)
        # bound methods, not lambdas: Qt drops them with the window, the stack may outlive it briefly
        ctl.undo_stack.undoTextChanged.connect(self._undo_text)
        ctl.undo_stack.redoTextChanged.connect(self._redo_text)
        a["select_tool"].triggered.connect(lambda: ctl.set_tool("select"))
        a["box_tool"].triggered.connect(lambda: ctl.set_tool("select" if ctl.tool == "box" else "box"))
        a["ruler_tool"].triggered.connect(lambda: ctl.set_tool("select" if ctl.tool == "ruler" else "ruler"))
        a["calibrate"].triggered.connect(ctl.calibrate_key)
        a["toggle_grid"].toggled.connect(self._set_grid)
        a["delete_marks"].triggered.connect(ctl.delete_selected)
        # Delete acts on the canvas's selection only: the annotation list and tag tables have their own
        self.removeAction(a["delete_marks"])
        a["delete_marks"].setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.canvas.addAction(a["delete_marks"])
        a["edit_mark"].triggered.connect(ctl.edit_selected)
        a["copy_next"].triggered.connect(ctl.copy_to_next_frame)
        a["make_keyframe"].triggered.connect(lambda: ctl.make_keyframe())
        a["segment_start"].triggered.connect(ctl.start_segment)
        a["segment_end"].triggered.connect(ctl.end_segment)
        a["event"].triggered.connect(ctl.mark_event)
        for k in range(1, 10):
            a[f"label_{k}"].triggered.connect(lambda _=False, k=k: ctl.use_label_key(k))
        a["labels"].triggered.connect(self.labels_dialog)
        a["export_annotations"].triggered.connect(self.export_dialog)

    def _frame_failed(self, _token: int, media_id: str, message: str) -> None:
        # the picture stays on the last frame shown, so the position does too: marks must attach to it
        self.notify(message)
        if self.video is not None and self.media is not None and self.media.id == media_id \
                and self.media.kind == "video" and not self.video.playing:
            self.video.index = self.shown_index
            self.timeline.set_index(self.shown_index)

    def _leave_project(self) -> bool:
        """Before another project or the welcome screen replaces this one: open segments, unsaved task form."""
        if self.project is None:
            return True
        tasks = self.workspace.panels.get("tasks")
        if tasks is not None and getattr(tasks, "dirty", False) and not tasks.save():
            self.modes.setCurrentWidget(tasks.parentWidget())
            self.notify("the task being edited has problems: fix them or press Revert first")
            return False
        return self.annotator.confirm_open_segments()

    def _undo_text(self, text: str) -> None:
        self.actions["undo"].setText(f"&Undo {text}".strip())

    def _redo_text(self, text: str) -> None:
        self.actions["redo"].setText(f"&Redo {text}".strip())

    def _set_grid(self, on: bool) -> None:
        self.annotator.show_grid = on
        self.annotator.refresh()

    def _annotations_changed(self) -> None:
        self.workspace.annotations_changed()

    def _side_panels_refresh(self, _index: int = 0) -> None:
        for panel in self._side or ():
            panel.refresh()

    def _jump_to_annotation(self, media_id: str, frame: int, annotation_id: str) -> None:
        self.annotator.select_on_refresh(annotation_id)
        self.show_media_frame(media_id, frame)
        self.annotator.refresh()

    def labels_dialog(self) -> None:
        if not self._need_project():
            return
        from fieldstudio.gui.panels.label_set import LabelSetDialog

        dialog = LabelSetDialog(self.project, self.annotator.apply_or_raise, self)
        dialog.status.connect(self.notify)
        dialog.exec()
        self.annotator.refresh()

    def export_dialog(self) -> None:
        if not self._need_project():
            return
        from fieldstudio.gui.panels.export_dialog import ExportDialog

        ExportDialog(self.project, self.media.id if self.media is not None else None, self).exec()

    def relink_dialog(self) -> None:
        """File ▸ Relink media: search a folder for the files of missing media (matched by content)."""
        from fieldstudio.media import library

        if not self._need_project():
            return
        folder = QFileDialog.getExistingDirectory(self, "Relink media: the folder the files were moved to")
        if not folder:
            return
        worker = workers.Worker(library.relink, self.project, Path(folder))

        def done(found: dict) -> None:
            self.notify(f"relinked {len(found)} media file(s) from {folder}" if found
                        else f"no missing media file was found in {folder}")
            if self.library is not None:
                self.library.reload()
            if found and self.media is not None and self.media.id in found:
                self.open_media(self.media.id)

        worker.signals.result.connect(done)
        worker.signals.error.connect(self.notify)
        workers.start(worker)

    def export_rating_package(self) -> None:
        if self._need_project():
            from fieldstudio.gui import rating_exchange

            rating_exchange.export_dialog(self, self.project)

    def import_rating_package(self) -> None:
        if self._need_project():
            from fieldstudio.gui import rating_exchange

            rating_exchange.import_dialog(self, self.project, self.workspace.reload_ratings)

    def show_media_frame(self, media_id: str, frame: int) -> None:
        """Bring the viewer forward on frame ``frame`` of ``media_id`` (from a task, an answer or a rating)."""
        if self.project is None or self.library is None:
            return
        self.modes.setCurrentIndex(0)
        if self.media is not None and self.media.id == media_id and self.video is not None \
                and self.video.table is not None:
            self.video.show_index(min(max(frame, 0), self.video.frame_count - 1))
            return
        self._pending_frame = (media_id, frame)
        if not self.library.select(media_id):
            self._pending_frame = None
            self.open_media(media_id)

    def set_viewer_mode(self, on: bool) -> None:
        """Media tab shown (True) or another tab: the side panels and the viewer's keys follow it.

        The evaluation tabs need the width, so the library and properties panels are hidden while they
        show and come back as they were.
        """
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
        keep = {"new_project", "open_project", "add_media", "add_folder", "quit", "shortcuts", "next_media",
                "prev_media", "labels", "export_annotations"}
        stack = self.annotator.undo_stack
        possible = {"undo": stack.canUndo(), "redo": stack.canRedo()}
        for aid, action in self.actions.items():
            if aid not in keep:
                action.setEnabled(enabled and possible.get(aid, True))

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
        if canvas is self._active_canvas():
            self.zoom_label.setText(f"zoom {zoom * 100:.0f} %")

    def notify(self, message: str) -> None:
        """A one-line message in the status bar for 8 seconds (and the log)."""
        log.info("%s", message)
        self.statusBar().showMessage(message, 8000)

    def show_shortcuts(self) -> None:
        shortcuts.ShortcutsDialog(self.actions, self).exec()

    def _about(self) -> None:
        from fieldstudio import __version__
        QMessageBox.about(self, "About fieldstudio",
                          f"fieldstudio {__version__}\nAnnotate field-work footage and compare vision-language "
                          "models on it.\nEverything is saved as you work, in one project file.")

    # --- layout ----------------------------------------------------------------------------------
    def _restore_layout(self, geometry: bool = True) -> None:
        s = settings.settings()
        saved_geometry, state = s.value("window/geometry"), s.value("window/state")
        if geometry and isinstance(saved_geometry, QByteArray):
            self.restoreGeometry(saved_geometry)
        if isinstance(state, QByteArray):
            self.restoreState(state)

    def _save_layout(self) -> None:
        if self._docks_hidden_for_tab is not None:  # the panels hidden for a tab are still the user's layout
            self.modes.setCurrentIndex(0)
        s = settings.settings()
        s.setValue("window/geometry", self.saveGeometry())
        if not self._welcome_hid_docks:  # the welcome screen's hidden panels are not the user's layout
            s.setValue("window/state", self.saveState())
        s.sync()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        if not self._leave_project():
            event.ignore()
            return
        self._save_layout()
        self._close_project()
        self._closed = True
        super().closeEvent(event)
