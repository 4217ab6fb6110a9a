"""Helpers for tests that drive the real main window offscreen."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from fieldstudio.gui.imaging import rgb_from_qimage
from fieldstudio.media import library, thumbnails, video_index
from fieldstudio.store.project import Project

SAMPLE_MEDIA = Path(__file__).resolve().parents[2] / "sample_data" / "media"


def build_viewer_project(path: Path, clips: dict[str, Path]) -> Path:
    """A project with the sample media and three barcode clips (B-frames, VFR, rotated 90°), indexed."""
    with Project.create(path, name="viewer test") as p:
        report = library.add_paths(p, [SAMPLE_MEDIA, clips["cfr_bframes"], clips["vfr"], clips["rot90"]])
        assert not report.unreadable, report.unreadable
        video_index.index_videos(p, report.media_ids)
        thumbnails.make_thumbnails(p, report.media_ids)
    return path


def copy_project(src: Path, dst: Path) -> Path:
    shutil.copyfile(src, dst)
    return dst


def media_id(window, file_name: str) -> str:  # noqa: ANN001 - MainWindow
    return library.find_media(window.state.project, file_name).id


def open_media(window, qtbot, file_name: str) -> str:  # noqa: ANN001 - MainWindow, QtBot
    """Choose ``file_name`` in the library as a user would and wait until it is shown."""
    mid = media_id(window, file_name)
    assert window.library.select(mid)
    qtbot.waitUntil(lambda: window.state.media is not None and window.state.media.id == mid, timeout=5000)
    wait_idle(window, qtbot)
    return mid


def wait_idle(window, qtbot, timeout: int = 10000) -> None:  # noqa: ANN001
    """Wait until the frame decoder has nothing left to do and its last frame has been drawn."""
    qtbot.waitUntil(lambda: window.view.loader.idle(), timeout=timeout)
    qtbot.wait(50)


def open_project_and_wait(window, qtbot, path: Path | str, timeout_ms: int = 20000) -> None:  # noqa: ANN001
    """Open ``path`` as the window does from its recent list or File ▸ Open (in the background), and wait for
    ``project_opened``: the project is on show on return."""
    with qtbot.waitSignal(window.project_opened, timeout=timeout_ms):
        assert window.open_project_path(path)


def shown_rgb(window) -> np.ndarray:  # noqa: ANN001
    """The pixels the canvas shows, as an (H, W, 3) RGB array."""
    return rgb_from_qimage(window.view.canvas.image())


def shown_window(qtbot, template: Path, tmp_path: Path):  # noqa: ANN001, ANN201 - QtBot -> MainWindow
    """A MainWindow on a copy of ``template``, shown at 1280 x 800, that never asks about open segments."""
    from fieldstudio.gui.main_window import MainWindow
    from fieldstudio.store.project import Project

    w = MainWindow(Project.open(copy_project(template, tmp_path / template.name)))
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    qtbot.waitExposed(w)
    # no question box about open segments when pytest-qt closes the window (before fixture teardown)
    w.annotator.confirm_open_segments = lambda: True
    no_label_chooser(w)
    return w


def no_label_chooser(window) -> None:  # noqa: ANN001 - MainWindow
    """Boxes drawn take the current label without the chooser (Annotate ▸ Ask the label of each new box off,
    in this test's own settings): tests that draw are not about the chooser (tests/gui/test_label_chooser.py is)."""
    window.actions["ask_label"].setChecked(False)


def blank_window(qtbot, path: Path):
    """The main window, shown, on a new empty project at ``path`` (open segments closed without asking)."""
    from fieldstudio.gui.main_window import MainWindow

    w = MainWindow(Project.create(path))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.annotator.confirm_open_segments = lambda: True
    no_label_chooser(w)
    return w


def file_menu_action(window, text: str):
    """The File menu's action whose text is ``text`` (mnemonic ``&`` included)."""
    (file_menu,) = [a.menu() for a in window.menuBar().actions() if a.text() == "&File"]
    (action,) = [a for a in file_menu.actions() if a.text() == text]
    return action


def import_report(window, qtbot, timeout_ms: int):
    """The import report dialog, once the import worker has shown it (waits up to ``timeout_ms``)."""
    from PySide6.QtWidgets import QDialog

    qtbot.waitUntil(lambda: window.findChild(QDialog, "import_report") is not None, timeout=timeout_ms)
    return window.findChild(QDialog, "import_report")


def report_rows(dialog) -> list[tuple[str, ...]]:
    """The import report's table, row by row, as the cells' texts."""
    t = dialog.table
    return [tuple(t.item(r, c).text() for c in range(t.columnCount())) for r in range(t.rowCount())]


def run_panel(qtbot, project: Project):  # noqa: ANN001, ANN201 - QtBot -> RunPanel
    """The Runs tab's panel on its own, shown at 1300 x 900 with ``project`` open."""
    from fieldstudio.gui.panels.runs import RunPanel

    panel = RunPanel()
    qtbot.addWidget(panel)
    panel.resize(1300, 900)
    panel.show()
    with qtbot.waitSignal(panel.loaded, timeout=20000):   # read on a worker
        panel.set_project(project)
    return panel


def open_comparison(qtbot, project: Project, size: tuple[int, int] = (1400, 800)):  # noqa: ANN001, ANN201
    """A ComparisonPanel on screen at ``size``, once it has loaded ``project``."""
    from fieldstudio.gui.panels.comparison import ComparisonPanel

    w = ComparisonPanel()
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    with qtbot.waitSignal(w.loaded, timeout=20000):
        w.set_project(project)
    return w
