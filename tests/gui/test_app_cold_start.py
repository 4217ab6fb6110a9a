"""The window's cold start (issue 3): name and library first from plain sqlite3, the project in the background.

``fieldstudio P`` must show the project's name and its media list before SQLAlchemy and the decoders are
imported; these tests check that in a fresh interpreter, and that the background open ends in the same
window a direct ``MainWindow(project)`` gives (or in the welcome screen with a message for a bad file).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from fieldstudio.gui.main_window import MainWindow
from fieldstudio.media import library
from fieldstudio.store import library_rows
from fieldstudio.store.models import Media
from fieldstudio.store.project import Project
from tests.support.gui_support import SAMPLE_MEDIA

pytestmark = pytest.mark.gui

HEAVY = ["sqlalchemy", "numpy", "cv2", "av", "vlc", "pymupdf", "pandas", "matplotlib", "alembic",
         "fieldstudio.benchmarks",  # only for tips of a menu and of the hidden welcome page (issue 37)
         # the canvas's drawing tools, built when the first media is shown (gui/annotate.py ``drawing``)
         "fieldstudio.gui.tools.drawing", "fieldstudio.gui.tools.shape_drawing", "fieldstudio.core.skeletons"]

# Qt classes the first paint does not need, whose enum types PySide creates with the class (issue 37): widgets the
# window never makes, created only when PySide looks for the exact class of a QWidget that Qt made and Python never
# saw (a scroll area's own viewport), which creates every QWidget subclass at once, 60-100 ms (gui/viewer/canvas.py,
# own_viewport); the dialogs, imported where they are opened (the shortcuts dialog's QDialogButtonBox, 10-14 ms);
# QGradient, which QBrush(QColor)'s overload search creates (8 ms, gui/viewer/canvas.py); the graphics items' paint
# option, named in signatures only; QStyle and its options, which the library's narrowest width asks (8 ms), set a
# turn after the first paint (gui/panels/library.py)
UNUSED_WIDGETS = ("QWizard", "QCalendarWidget", "QMdiArea", "QLCDNumber", "QMessageBox", "QFileDialog", "QInputDialog",
                  "QDialogButtonBox", "QGradient", "QStyleOptionGraphicsItem", "QStyle", "QStyleOption")

PROBE = """
import json, sys, time
HEAVY, UNUSED_WIDGETS = %r, %r
from pathlib import Path
from PySide6.QtCore import QEvent, QObject, QTimer
from fieldstudio.gui.app import application
from fieldstudio.gui.main_window import MainWindow
first = {}
class FirstPaint(QObject):
    # the library's first paint, the one a user sees first: what is imported and made before it (the open's worker
    # starts after it, gui/first_paint.py, so sys.modules is read here before that thread can import anything)
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and not first:
            shown()
        return False
app = application()
w = MainWindow(path=Path(sys.argv[1]))
watch = FirstPaint()
w.library.list.installEventFilter(watch)  # not its viewport: see benchmarks/viewer_children.py
w.show()
def enum_types():
    import enum
    out, todo = [], [enum.Enum]
    while todo:
        for c in todo.pop().__subclasses__():
            out.append(c.__qualname__)
            todo.append(c)
    return out
def shown():
    first.update(unused_widget_enums=[q for q in enum_types() if q.split(".")[0] in UNUSED_WIDGETS],
                 title=w.windowTitle(), rows=w.library.model.rowCount() if w.library else -1,
                 names=[w.library.model.rows[i].file_name for i in range(w.library.model.rowCount())],
                 loaded=[m for m in HEAVY if m in sys.modules])
def ready():
    first["project_open"] = w.state.project is not None and w.state.project.path == Path(sys.argv[1]).resolve()
    print(json.dumps(first), flush=True)
    app.quit()
w.project_opened.connect(ready)
QTimer.singleShot(30000, app.quit)
app.exec()
""" % (HEAVY, UNUSED_WIDGETS)


@pytest.fixture
def sample_project(tmp_path: Path) -> Path:
    path = tmp_path / "yard ü.fieldstudio"
    with Project.create(path, name="Yard Ü") as p:
        report = library.add_paths(p, [SAMPLE_MEDIA])
        assert not report.unreadable
    return path


def test_window_shows_name_and_library_before_the_store_and_decoders_are_imported(sample_project):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, "-c", PROBE, str(sample_project)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads([line for line in done.stdout.splitlines() if line.startswith("{")][-1])
    assert out["loaded"] == []  # nothing heavy on the GUI thread's start path, before the open worker starts
    assert out["unused_widget_enums"] == []  # no search for a Qt-made widget's class before the first paint
    assert out["title"] == "fieldstudio — Yard Ü"
    con = sqlite3.connect(sample_project)  # the media list, read independently
    expected = sorted((r[0] for r in con.execute("SELECT file_name FROM media")), key=str.casefold)
    con.close()
    on_disk = {f.name for f in SAMPLE_MEDIA.rglob("*") if f.is_file() and library.kind_of(f)}
    assert set(expected) == on_disk and len(expected) >= 8
    assert out["names"] == expected
    assert out["project_open"] is True


def test_background_open_keeps_the_library_and_shows_a_media_chosen_meanwhile(qtbot, sample_project):
    w = MainWindow(path=sample_project)
    qtbot.addWidget(w)
    w.annotator.confirm_open_segments = lambda: True
    w.show()
    assert w.state.project is None and w.library is not None
    panel = w.library
    first = panel.model.rows[0]
    panel.select(first.id)  # chosen before the project is open: remembered, not lost
    with qtbot.waitSignal(w.project_opened, timeout=20000):
        pass
    assert w.library is panel  # not rebuilt: the user's scroll position and selection stay
    qtbot.waitUntil(lambda: w.state.media is not None and w.state.media.id == first.id, timeout=5000)
    assert w.windowTitle() == "fieldstudio — Yard Ü"
    w.close()


def _start_and_wait_for_the_message(qtbot, path: Path, monkeypatch) -> str:  # noqa: ANN001
    """Start the window on ``path``; the text of the critical message box, once the window is on the welcome
    screen without a project."""
    shown = []
    monkeypatch.setattr(QMessageBox, "critical", lambda _p, _t, text, *a, **k: shown.append(text))
    w = MainWindow(path=path)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: bool(shown), timeout=20000)
    assert w.view.stack.currentWidget() is w.view.welcome and w.state.project is None
    w.close()
    return shown[0]


def test_a_damaged_file_ends_in_the_welcome_screen_with_the_reason(qtbot, tmp_path, monkeypatch):
    bad = tmp_path / "broken.fieldstudio"
    bad.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)  # a truncated database header
    assert "broken.fieldstudio" in _start_and_wait_for_the_message(qtbot, bad, monkeypatch)


def test_library_rows_read_the_same_media_as_the_store(sample_project):
    with Project.open(sample_project) as p, p.read() as s:
        stored = {m.id: m for m in s.query(Media)}
    rows = library_rows.media_rows(sample_project)
    assert {r.id for r in rows} == set(stored)
    for r in rows:
        m = stored[r.id]
        assert (r.file_name, r.kind, r.width, r.height, r.page_count) == (m.file_name, m.kind, m.width, m.height,
                                                                         m.page_count)
    assert library_rows.project_name(sample_project) == "Yard Ü"
    assert library_rows.is_current(sample_project)
    folder = Path("/data/site")
    assert library_rows.resolve_media_path(folder, "a/b.jpg") == folder / "a" / "b.jpg"
    assert library_rows.resolve_media_path(folder, "/elsewhere/c.jpg") == Path("/elsewhere/c.jpg")


def _damage_table(path: Path, table: str) -> None:
    """Overwrite the root page of ``table`` with garbage, as a failing disk would."""
    con = sqlite3.connect(path)
    page_size = con.execute("PRAGMA page_size").fetchone()[0]
    root = con.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    con.close()
    with open(path, "r+b") as f:
        f.seek((root - 1) * page_size)
        f.write(b"\xa5" * page_size)


def test_a_damaged_media_table_ends_in_the_welcome_screen_with_the_reason(qtbot, sample_project, monkeypatch):
    _damage_table(sample_project, "media")
    message = _start_and_wait_for_the_message(qtbot, sample_project, monkeypatch)
    assert sample_project.name in message and "damaged" in message


def test_a_damaged_thumbnail_table_draws_placeholders_instead_of_raising(qtbot, sample_project):
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QIcon

    from fieldstudio.media import thumbnails

    with Project.open(sample_project) as p, p.read() as s:
        ids = [m.id for m in s.query(Media)]
    with Project.open(sample_project) as p:
        thumbnails.make_thumbnails(p, ids)
    _damage_table(sample_project, "thumbnail")
    from fieldstudio.gui.panels.library import LibraryPanel

    panel = LibraryPanel(sample_project)
    qtbot.addWidget(panel)
    panel.model.data(panel.model.index(0), Qt.ItemDataRole.DecorationRole)  # asks for it: decoded next turn
    qtbot.waitUntil(lambda: not panel.model._wanted, timeout=5000)
    icon = panel.model.data(panel.model.index(0), Qt.ItemDataRole.DecorationRole)
    assert isinstance(icon, QIcon) and not icon.isNull()


def test_library_icons_are_a_grey_tile_first_and_the_thumbnail_a_turn_later(qtbot, sample_project):
    import cv2
    import numpy as np
    from PySide6.QtCore import Qt

    from fieldstudio.gui.panels.library import ICON, LibraryPanel
    from fieldstudio.media import thumbnails

    with Project.open(sample_project) as p:
        with p.read() as s:
            ids = [m.id for m in s.query(Media)]
        thumbnails.make_thumbnails(p, ids)
    panel = LibraryPanel(sample_project)
    qtbot.addWidget(panel)
    model = panel.model
    r = next(i for i, row in enumerate(model.rows) if library_rows.thumbnail_jpeg(sample_project, row.id))
    index = model.index(r)

    def pixels():  # the icon as an RGB array, ICON sized
        from PySide6.QtGui import QImage

        image = model.data(index, Qt.ItemDataRole.DecorationRole).pixmap(ICON).toImage()
        image = image.convertToFormat(QImage.Format.Format_RGB888)
        rows = np.frombuffer(image.constBits(), np.uint8, image.sizeInBytes()).reshape(image.height(), -1)
        return rows[:, :image.width() * 3].reshape(image.height(), image.width(), 3).copy()

    assert (pixels() == (0x3c, 0x40, 0x43)).all()  # asked for: a grey tile now, nothing decoded yet
    with qtbot.waitSignal(model.dataChanged, timeout=5000,
                          check_params_cb=lambda top, _bottom, roles: top.row() == r):
        pass
    # the thumbnail itself, decoded independently by OpenCV: the icon's picture has its mean colour
    jpeg = library_rows.thumbnail_jpeg(sample_project, model.rows[r].id)
    thumb = cv2.cvtColor(cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    h, w = thumb.shape[:2]
    scale = min(ICON.width() / w, ICON.height() / h)
    sw, sh = round(w * scale), round(h * scale)
    x0, y0 = (ICON.width() - sw) // 2, (ICON.height() - sh) // 2
    inner = pixels()[y0 + 2:y0 + sh - 2, x0 + 2:x0 + sw - 2].reshape(-1, 3).mean(axis=0)
    assert np.abs(inner - thumb.reshape(-1, 3).mean(axis=0)).max() < 8


def test_opening_another_project_meanwhile_wins_and_clears_the_opening_text(qtbot, sample_project, tmp_path):
    other = tmp_path / "other.fieldstudio"
    Project.create(other, name="Other").close()
    w = MainWindow(path=sample_project)
    qtbot.addWidget(w)
    w.annotator.confirm_open_segments = lambda: True
    w.show()
    assert w.open_project_path(other)  # before the background open has finished
    qtbot.waitUntil(lambda: w.session.opening is None, timeout=20000)  # the background open has ended ...
    qtbot.wait(100)  # ... and must not have taken the window back
    assert w.state.project is not None and w.state.project.path == other.resolve()
    assert w.windowTitle() == "fieldstudio — Other"
    assert not w.view.empty.text().startswith("Opening")
    w.close()


def test_next_media_pressed_while_opening_counts_from_the_media_chosen_so_far(qtbot, sample_project):
    w = MainWindow(path=sample_project)
    qtbot.addWidget(w)
    w.annotator.confirm_open_segments = lambda: True
    w.show()
    ids = w.library.visible_ids()
    w.actions["next_media"].trigger()
    w.actions["next_media"].trigger()  # both before the project is open
    with qtbot.waitSignal(w.project_opened, timeout=20000):
        pass
    qtbot.waitUntil(lambda: w.state.media is not None and w.state.media.id == ids[1], timeout=5000)
    w.close()



def _ink_widths(panel) -> list[int]:
    """Per library row, how wide (px) the text painted beside its thumbnail is, read from the drawn pixels:
    the columns right of the icon holding a pixel that differs from that area's most frequent colour."""
    from collections import Counter

    import numpy as np
    from PySide6.QtGui import QImage

    from fieldstudio.gui.panels.library import ICON

    view = panel.list
    image = view.viewport().grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    dpr = image.devicePixelRatio()
    rows = np.frombuffer(image.constBits(), np.uint8, image.sizeInBytes()).reshape(image.height(), -1)
    pixels = rows[:, :image.width() * 3].reshape(image.height(), image.width(), 3).astype(int)
    widths = []
    for r in range(panel.proxy.rowCount()):
        rect = view.visualRect(panel.proxy.index(r, 0))
        if rect.bottom() > view.viewport().height():
            break
        x0 = int((rect.left() + ICON.width() + 4) * dpr)
        area = pixels[int((rect.top() + 2) * dpr):int((rect.bottom() - 2) * dpr), x0:]
        background = Counter(map(tuple, area.reshape(-1, 3))).most_common(1)[0][0]
        ink = np.nonzero((np.abs(area - background).sum(axis=2) > 90).any(axis=0))[0]
        widths.append(int((ink.max() - ink.min() + 1) / dpr) if ink.size else 0)
    return widths


def test_a_narrow_library_dock_still_shows_the_start_and_end_of_each_name(qtbot, sample_project):
    from PySide6.QtCore import Qt

    w = MainWindow(Project.open(sample_project))
    qtbot.addWidget(w)
    w.resize(1280, 800)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.library is not None and w.library.proxy.rowCount() > 0, timeout=10000)
    w.resizeDocks([w.library_dock], [60], Qt.Orientation.Horizontal)   # as narrow as the dock goes
    qtbot.wait(50)
    view = w.library.list
    assert any(len(view.model().index(r, 0).data()) > 30 for r in range(view.model().rowCount()))  # long names
    # names are elided in the middle: their start and their extension stay
    assert view.textElideMode() == Qt.TextElideMode.ElideMiddle
    # and there is room to draw them: at least 12 average characters beside every thumbnail, where a
    # dock at its old minimum (its combo box and search field) left room for "…" alone
    widths = _ink_widths(w.library)
    assert len(widths) >= 3 and min(widths) >= 12 * view.fontMetrics().averageCharWidth(), widths
    w.close()


def _project_of_images(path: Path, names: list[str]) -> Path:
    from PIL import Image

    folder = path.parent / "images"
    folder.mkdir()
    for k, name in enumerate(names):
        Image.new("RGB", (8, 6), (k, 2 * k, 3 * k)).save(folder / name)
    with Project.create(path) as p:
        assert library.add_paths(p, [folder]).imported_total == len(names)
    return path


def _listing(model) -> list[str]:  # noqa: ANN001 - MediaListModel
    return [model.index(r, 0).data().splitlines()[0] for r in range(model.rowCount())]


def test_the_library_lists_its_first_rows_then_the_rest_after_them(qtbot, tmp_path, monkeypatch):
    """A new library model lists FIRST_ROWS names (case-insensitive order) before the first paint; the next
    event-loop turn inserts the others after them without a reset (the rows on screen do not move)."""
    from fieldstudio.gui.panels import library as library_panel

    monkeypatch.setattr(library_panel, "FIRST_ROWS", 3)
    path = _project_of_images(tmp_path / "p.fieldstudio", ["d.png", "b.png", "E.png", "A.png", "c.png"])
    model = library_panel.MediaListModel(path)
    assert _listing(model) == ["A.png", "b.png", "c.png"]
    resets, inserted = [], []
    model.modelReset.connect(lambda: resets.append(1))
    model.rowsInserted.connect(lambda _parent, first, last: inserted.append((first, last)))
    with qtbot.waitSignal(model.all_listed, timeout=5000):
        pass
    assert _listing(model) == ["A.png", "b.png", "c.png", "d.png", "E.png"]
    assert inserted == [(3, 4)] and resets == []


def test_the_library_resets_to_the_full_order_when_the_first_rows_were_not_the_first(qtbot, tmp_path, monkeypatch):
    """SQLite lowers ASCII only: "Éb" sorts before "éa" there, after it in Python's casefold order. The full
    list wins (a reset), and asking for the visible ids before the event loop turns lists every row at once."""
    from fieldstudio.gui.panels import library as library_panel

    monkeypatch.setattr(library_panel, "FIRST_ROWS", 2)
    path = _project_of_images(tmp_path / "p.fieldstudio", ["éa.png", "Éb.png", "z.png"])
    panel = library_panel.LibraryPanel(path)
    qtbot.addWidget(panel)
    assert _listing(panel.model) == ["z.png", "Éb.png"]
    resets, inserted = [], []
    panel.model.modelReset.connect(lambda: resets.append(1))
    panel.model.rowsInserted.connect(lambda *_: inserted.append(1))
    assert len(panel.visible_ids()) == 3  # lists the rest now
    assert resets == [1] and inserted == []
    assert _listing(panel.model) == ["z.png", "éa.png", "Éb.png"]
    assert sorted(["éa.png", "Éb.png", "z.png"], key=str.casefold) == _listing(panel.model)


def test_a_library_of_fewer_rows_than_a_screenful_is_listed_at_once(qtbot, tmp_path):
    from fieldstudio.gui.panels.library import MediaListModel

    model = MediaListModel(_project_of_images(tmp_path / "p.fieldstudio", ["b.png", "a.png"]))
    assert _listing(model) == ["a.png", "b.png"]
    with qtbot.waitSignal(model.all_listed, timeout=5000):
        pass
    assert _listing(model) == ["a.png", "b.png"]


def test_tips_naming_the_benchmarks_are_there_once_the_menu_or_welcome_page_shows(qtbot, sample_project):
    """The File menu's import tips and the welcome page's benchmark tip are written when first shown (their
    module is not imported at the window's start): the texts name every declared benchmark as before."""
    from fieldstudio import benchmarks

    w = MainWindow(path=sample_project)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w.state.project is not None, timeout=30000)
    file_menu = w.menuBar().actions()[0].menu()
    tips = {a.text(): a.toolTip() for a in file_menu.actions()}
    assert tips["Import &tasks…"] == "Import tasks"  # not yet (Qt gives the text then): the menu has not opened
    file_menu.popup(w.mapToGlobal(w.rect().center()))
    qtbot.waitUntil(file_menu.isVisible)
    file_menu.hide()
    tips = {a.text(): a.toolTip() for a in file_menu.actions()}
    titles = [b.format_title for b in benchmarks.DECLARED]
    assert tips["Import &tasks…"] == f"Import benchmark task files with ground truth ({', '.join(titles)})"
    folders = [f"{b.title}'s {b.task_folder}" for b in benchmarks.DECLARED if b.task_folder]
    assert folders and tips["Import tasks from a f&older…"] == f"Import every task file in a folder (such as " \
        f"{' or '.join(folders)})"
    kinds = [f"{b.title} {b.answer_folder}" for b in benchmarks.DECLARED if b.answer_folder]
    assert kinds and tips["Import answers from a folder…"] == f"Import a folder of {' or '.join(kinds)} as a " \
        "named answer source"
    assert tips["Import a&nswers…"] == "Import answers made elsewhere as a named answer source"
    w.show_welcome()
    qtbot.waitUntil(w.view.welcome.isVisible)
    assert w.view.welcome.benchmark_button.toolTip() == (
        f"A new project with a benchmark's tasks (a file or a folder such as {' or '.join(folders)}) and its "
        "media folder, in one step")
    w.close()
