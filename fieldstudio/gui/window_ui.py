"""The main window's widgets, docks, status bar and menus (what Qt Designer's ``setupUi`` would be).

Built onto the :class:`~fieldstudio.gui.main_window.MainWindow` (``window``, typed as QMainWindow so the
import runs one way); main_window.py holds what they do.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QTabWidget

from fieldstudio.gui.panels.properties import PropertiesPanel


def build_central(window: QMainWindow) -> None:
    """The central tabs: the Media tab (the viewer) first; the workspace adds the others."""
    window.modes = QTabWidget()
    window.modes.setObjectName("modes")
    window.modes.setDocumentMode(True)
    window.modes.addTab(window.view.stack, "Media")
    window.modes.setTabToolTip(0, "The viewer: library, photos, video frames and documents (Alt+1)")
    # connected before the workspace's own slot, which may say something about the tab left
    window.modes.currentChanged.connect(lambda _i: window.statusBar().clearMessage())
    window.setCentralWidget(window.modes)

def build_docks(window: QMainWindow) -> None:
    """The library and properties docks, and the docks the side panels fill with the first project."""
    window.library_dock = QDockWidget("Library", window)
    window.library_dock.setObjectName("library_dock")
    window.properties = PropertiesPanel()
    window.properties_dock = QDockWidget("Properties", window)
    window.properties_dock.setObjectName("properties_dock")
    window.properties_dock.setWidget(window.properties)
    # the annotation, tag and calibration lists are built with the first project (gui/side_panels.py):
    # their docks are tabbed behind Properties, and building them is part of a cold start otherwise
    window.annotations_dock = QDockWidget("Annotations", window)
    window.annotations_dock.setObjectName("annotations_dock")
    window.tags_dock = QDockWidget("Tags", window)
    window.tags_dock.setObjectName("tags_dock")
    window.calibrations_dock = QDockWidget("Calibrations", window)
    window.calibrations_dock.setObjectName("calibrations_dock")
    window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, window.library_dock)
    window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, window.properties_dock)
    for dock in (window.annotations_dock, window.tags_dock, window.calibrations_dock):
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        window.tabifyDockWidget(window.properties_dock, dock)
    window.properties_dock.raise_()
    window.resizeDocks([window.library_dock, window.properties_dock], [300, 300], Qt.Orientation.Horizontal)
    window.library = None  # the LibraryPanel, made with the first project file (main_window._set_library)

def build_status(window: QMainWindow) -> None:
    """The status bar's permanent read-outs: current label of the active tool, frame, PTS time, zoom, pointer."""
    bar = window.statusBar()
    window.label_label = QLabel("")
    window.label_label.setObjectName("label_label")
    window.label_label.setToolTip("The label the next mark of this kind gets; keys 1-9 pick another from "
                                  "this kind's list (Annotate ▸ Labels…)")
    bar.addPermanentWidget(window.label_label)
    window.frame_label = QLabel("")
    window.frame_label.setObjectName("frame_label")
    window.frame_label.setToolTip("Index of the frame shown (0-based) / last index")
    window.time_label = QLabel("")
    window.time_label.setObjectName("time_label")
    window.time_label.setToolTip("PTS time of the frame shown (HH:MM:SS.mmm)")
    window.zoom_label = QLabel("")
    window.zoom_label.setObjectName("zoom_label")
    window.zoom_label.setToolTip("Zoom: 100 % is one image pixel per screen pixel")
    window.pointer_label = QLabel("")
    window.pointer_label.setObjectName("pointer_label")
    window.pointer_label.setToolTip("Pointer position in image pixels")
    # the viewer's read-outs: shown on the Media tab only, emptied when a project closes (main_window.py)
    window.viewer_readouts = (window.frame_label, window.time_label, window.zoom_label, window.pointer_label)
    for w in window.viewer_readouts:
        w.setMinimumWidth(190 if w is window.pointer_label else 120)
        bar.addPermanentWidget(w)


def _write_tips(tips: list) -> None:
    """Set each ``(action, tip(benchmarks_module))`` pair's tooltip once (the list is emptied)."""
    from fieldstudio import benchmarks

    while tips:
        action, tip = tips.pop()
        action.setToolTip(tip(benchmarks))


def build_menus(window: QMainWindow) -> None:
    """File, Edit, Annotate, View, Video and Help, from the actions of gui/shortcuts.py."""
    a = window.actions
    m = window.menuBar().addMenu("&File")
    for aid in ("new_project", "open_project", "open_shared"):
        m.addAction(a[aid])
    window.recent_menu = m.addMenu("Open &recent")
    window.recent_menu.aboutToShow.connect(lambda: window.session.fill_recent_menu(window.recent_menu))
    window.demo_action = QAction("Open the &demo project", window)
    window.demo_action.triggered.connect(window.session.open_demo)
    m.addAction(window.demo_action)
    benchmark = m.addAction("Import a &benchmark…")
    benchmark.setToolTip("A new project with a benchmark's tasks and its media folder, in one step")
    benchmark.triggered.connect(window.session.import_benchmark_dialog)
    m.addSeparator()
    for aid in ("add_media", "add_folder"):
        m.addAction(a[aid])
    relink = m.addAction("&Relink media…")
    relink.setToolTip("Find moved media files in a folder by their SHA-256 and update their paths")
    relink.triggered.connect(window.relink_dialog)
    m.addSeparator()
    # three tips name the declared benchmarks: written when the menu first opens (the only place they show), so
    # the window's first paint does not wait for fieldstudio.benchmarks' import (issue 37 item 3)
    benchmark_tips = []
    for text, tip, dialog, folder in (
            ("Import &tasks…", lambda b: f"Import benchmark task files with ground truth ({b.format_titles()})",
             "import_tasks", False),
            ("Import tasks from a f&older…", lambda b: "Import every task file in a folder (such as "
             f"{b.task_folder_examples()})", "import_tasks", True),
            ("Import a&nswers…", "Import answers made elsewhere as a named answer source", "import_answers", False),
            ("Import answers from a folder…", lambda b: f"Import a folder of {b.answer_folder_kinds()} as a named "
             "answer source",
             "import_answers", True),
            ("Export tas&ks…", "Write the tasks with ground truth in a benchmark's format, CSV or XLSX",
             "export_tasks", False),
            ("Export &report…", "Write the comparison of the answer sources: HTML (opens in the browser), CSV, "
             "XLSX, Parquet or JSON, by the file's suffix", "export_report", False)):
        action = m.addAction(text)
        if isinstance(tip, str):
            action.setToolTip(tip)
        else:
            benchmark_tips.append((action, tip))
        action.triggered.connect(lambda _=False, d=dialog, f=folder: window.task_file_dialog(d, f))
    m.aboutToShow.connect(lambda: _write_tips(benchmark_tips))
    m.addSeparator()
    m.addAction(a["import_annotations"])
    m.addAction(a["export_annotations"])
    packages = m.addMenu("Rating &packages")
    export_pkg = packages.addAction("&Export a rating set…")
    export_pkg.setToolTip("Send a rating set to a rater who works offline (a .zip with the photos and frames)")
    export_pkg.triggered.connect(window.export_rating_package)
    import_pkg = packages.addAction("&Import a rater's package…")
    import_pkg.setToolTip("Merge ratings sent back by a rater; importing twice changes nothing")
    import_pkg.triggered.connect(window.import_rating_package)
    sent = m.addAction("What &left this machine…")
    sent.setObjectName("what_left_action")
    sent.setToolTip("Per endpoint and day: the frames and documents model runs sent, and whether the frames were "
                    "blurred by the profile's privacy gate")
    sent.triggered.connect(window.what_left_dialog)
    redact = m.addAction("Redact media for &sharing…")
    redact.setObjectName("redact_action")
    redact.setToolTip("Write copies of images and videos with every face blurred (every frame kept, audio copied)")
    redact.triggered.connect(window.redact_dialog)
    m.addSeparator()
    m.addAction(a["quit"])
    m = window.menuBar().addMenu("&Edit")
    m.addAction(a["undo"])
    m.addAction(a["redo"])
    m = window.menuBar().addMenu("&Annotate")
    m.setToolTipsVisible(True)  # each tool says how it is used (its key is in the menu text)
    window.annotate_menu = m  # behaviour coding adds its entries (gui/behaviour_coding.py)
    for aid in ("select_tool", "box_tool", "ruler_tool", "angle_tool", "polygon_tool", "polyline_tool", "points_tool",
                "skeleton_tool", "calibrate", "toggle_grid", None, "edit_mark",
                "delete_marks", "copy_next", "make_keyframe", "track_forward", "track_backward", "trajectory", None,
                "segment_start", "segment_end", "event", "stopwatch_start", "stopwatch_stop",
                None, "read_text", "detect_people", None, "labels"):
        if aid is None:
            m.addSeparator()
        else:
            m.addAction(a[aid])
    m.addAction(a["ask_label"])
    skeleton = m.addAction("Skeleton &template of a label…")
    skeleton.setObjectName("skeleton_template_action")
    skeleton.setToolTip("The points (in order) and limbs Shift+D places for a label; the 17 COCO body points "
                        "unless it has its own")
    skeleton.triggered.connect(window.skeleton_template_dialog)
    labels_menu = m.addMenu("Use &label")
    for k in range(1, 10):
        labels_menu.addAction(a[f"label_{k}"])
    a["toggle_grid"].setCheckable(True)
    a["toggle_grid"].setChecked(True)
    m = window.menuBar().addMenu("&View")
    window.view_menu = m
    for aid in ("zoom_in", "zoom_out", "zoom_fit", "zoom_1to1"):
        m.addAction(a[aid])
    m.addSeparator()
    for aid in ("timeline_zoom_in", "timeline_zoom_out", "next_media", "prev_media", "find"):
        m.addAction(a[aid])
    m.addSeparator()
    for dock in window._docks():
        m.addAction(dock.toggleViewAction())
    m.addSeparator()
    for action in window.workspace.tab_actions:
        m.addAction(action)
    m = window.menuBar().addMenu("&Video")
    for aid in ("play", "next_frame", "prev_frame", "next_second", "prev_second", "next_10s", "prev_10s",
                "first_frame", "last_frame", "prev_keyframe", "next_keyframe",
                "shuttle_back", "shuttle_stop", "shuttle_fwd", "go_to", "loop_start", "loop_end",
                "loop_toggle", "mute"):
        m.addAction(a[aid])
    a["mute"].setCheckable(True)
    a["loop_toggle"].setCheckable(True)
    m = window.menuBar().addMenu("&Help")
    m.addAction(a["shortcuts"])
    show_logs = QAction("Show &logs", window)
    show_logs.setToolTip("Open the folder with fieldstudio's log files (attach them to a bug report)")
    show_logs.triggered.connect(window._show_logs)
    m.addAction(show_logs)
    about = QAction("&About fieldstudio", window)
    about.triggered.connect(window._about)
    m.addAction(about)
