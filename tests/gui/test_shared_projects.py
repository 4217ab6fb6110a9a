"""The window on a shared PostgreSQL project (issue 22): a box drawn by another process appears within 2 s, the
user's own drawing in progress is not disturbed by it, the recent list keeps the URL without a password, and a
move made from a stale read is refused and the box reloaded."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.gui import settings
from fieldstudio.gui.main_window import MainWindow
from fieldstudio.media import library
from fieldstudio.store.project import Project
from tests.conftest import SAMPLE
from tests.support.gui_support import no_label_chooser, open_media, open_project_and_wait

pytestmark = pytest.mark.gui
ROOT = Path(__file__).resolve().parents[2]
PHOTO = "ppe_worker_hardhat_vest_warehouse_zone_frame045.png"  # 480 x 270


def _box_from_another_process(url: str, media_id: str, rect: tuple[int, int, int, int]) -> str:
    code = ("import sys; from fieldstudio.store.project import Project; from fieldstudio.annotations import annotation_records;"
            f"p = Project.open({url!r}); print(annotation_records.add_box(p, {media_id!r}, {rect!r}, author='bo')); p.close()")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ, "FIELDSTUDIO_USER": "bo"})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _drawn_ids(window) -> set[str]:
    return {getattr(i, "annotation_id", None) for i in window.view.canvas.scene().items()} - {None}


@pytest.fixture
def shared_window(qtbot, pg_url):
    with Project.create(pg_url, name="site") as p:
        library.add_paths(p, [SAMPLE / "images" / PHOTO])
    w = MainWindow(Project.open(pg_url))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    no_label_chooser(w)
    yield w
    w.close()


def _at(window, x: float, y: float) -> QPoint:
    return window.view.canvas.mapFromScene(QPointF(x, y))


def test_a_box_drawn_elsewhere_appears_within_two_seconds(shared_window, qtbot, pg_url):
    w = shared_window
    mid = open_media(w, qtbot, PHOTO)
    assert settings.recent_projects()[0] == pg_url
    box = _box_from_another_process(pg_url, mid, (40, 30, 60, 50))
    committed = time.monotonic()
    qtbot.waitUntil(lambda: box in _drawn_ids(w), timeout=2000)
    assert time.monotonic() - committed < 2.0
    w.grab().save("/tmp/fieldstudio_shared_window.png")


def test_own_drawing_in_progress_is_not_disturbed(shared_window, qtbot, pg_url):
    w = shared_window
    mid = open_media(w, qtbot, PHOTO)
    w.actions["box_tool"].trigger()
    vp = w.view.canvas.viewport()
    pa, pb = _at(w, 200.0, 100.0), _at(w, 300.0, 200.0)
    qtbot.mousePress(vp, Qt.MouseButton.LeftButton, pos=pa)
    qtbot.mouseMove(vp, QPoint((pa.x() + pb.x()) // 2, (pa.y() + pb.y()) // 2))
    temp = w.annotator.drawing._temp
    assert temp is not None                                    # the user is half-way through a box
    other = _box_from_another_process(pg_url, mid, (10, 10, 30, 30))
    qtbot.wait(1600)                                           # two polls: the change is known but waits
    assert w.annotator.drawing._temp is temp and temp.scene() is w.view.canvas.scene()
    assert other not in _drawn_ids(w)
    qtbot.mouseMove(vp, pb)
    qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=pb)
    mine = [r for r in ann.list_annotations(w.state.project, media_id=mid, kinds=["box"]) if r.id != other]
    assert len(mine) == 1                                      # the user's box was stored as drawn
    qtbot.waitUntil(lambda: {other, mine[0].id} <= _drawn_ids(w), timeout=2000)


def test_a_move_from_a_stale_read_is_refused_and_the_box_reloaded(shared_window, qtbot, pg_url):
    w = shared_window
    mid = open_media(w, qtbot, PHOTO)
    box = ann.add_box(w.state.project, mid, (100, 100, 50, 50))
    w.annotator.refresh()
    (item,) = [i for i in w.view.canvas.scene().items() if getattr(i, "annotation_id", None) == box]
    with Project.open(pg_url) as bo:                           # Bo moves it before this window's drag ends
        ann.update(bo, box, geometry=[10.0, 10.0, 60.0, 60.0])
    messages = []
    w.notify = messages.append
    w.annotator.notify = messages.append
    w.annotator.drawing._box_moved(item, (120.0, 120.0, 50.0, 50.0))   # what a drag of the stale box reports
    assert messages and "was changed by" in messages[-1] and "not saved" in messages[-1]
    assert ann.get_annotation(w.state.project, box).geometry == [10.0, 10.0, 60.0, 60.0]
    (shown,) = [i for i in w.view.canvas.scene().items() if getattr(i, "annotation_id", None) == box]
    assert shown.version == 2                                  # the view re-read the box


def test_a_password_typed_in_the_url_is_never_kept(shared_window, qtbot, pg_url):
    """Opened with the password in the URL: the recent list and the log hold the URL without it."""
    import os

    from sqlalchemy.engine import make_url

    from fieldstudio.core.paths import config_dir, log_dir

    password = os.environ.get("PGPASSWORD")
    if not password:
        pytest.skip("the test server's password is not in PGPASSWORD")
    with_password = make_url(pg_url).set(password=password).render_as_string(hide_password=False)
    del os.environ["PGPASSWORD"]                           # only the URL carries it now
    try:
        open_project_and_wait(shared_window, qtbot, with_password)
        shared_window.library.reload()                     # the library's own reads find the password too
    finally:
        os.environ["PGPASSWORD"] = password
    assert shared_window.state.project.is_shared and str(shared_window.state.project.path) == pg_url
    assert settings.recent_projects()[0] == pg_url
    kept = [f.read_text(errors="replace") for f in config_dir().rglob("*") if f.is_file()]
    kept += [f.read_text(errors="replace") for f in log_dir().rglob("*") if f.is_file()]
    assert kept and not any(password in text for text in kept)


def test_welcome_opens_a_shared_project_by_url_and_from_the_recent_list(qtbot, pg_url, monkeypatch):
    from PySide6.QtWidgets import QInputDialog

    with Project.create(pg_url, name="team site") as p:
        library.add_paths(p, [SAMPLE / "images" / PHOTO])
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    asked = []
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: (asked.append(a[2]), (pg_url, True))[1])
    with qtbot.waitSignal(w.project_opened, timeout=20000):     # opened on a worker
        qtbot.mouseClick(w.view.welcome.shared_button, Qt.MouseButton.LeftButton)
    assert asked and "PostgreSQL URL" in asked[0]
    assert w.state.project is not None and w.state.project.is_shared and w.windowTitle().endswith("team site")
    assert w.library.model.rowCount() == 1
    w.show_welcome()
    item = w.view.welcome.recent.item(0)
    assert item.text().startswith(make_db_name(pg_url)) and pg_url in item.text()
    with qtbot.waitSignal(w.project_opened, timeout=20000):
        w.view.welcome.recent.itemActivated.emit(item)
    assert w.state.project is not None and str(w.state.project.path) == pg_url
    w.close()


def make_db_name(url: str) -> str:
    return url.rsplit("/", 1)[-1]


def test_the_window_asks_for_an_unmapped_media_root_and_relinks(qtbot, pg_url, tmp_path, monkeypatch):
    """Machine A added media under root "site-footage"; on machine B (no folder for it) the window asks where the
    root is, remembers it and finds the files there (one of them moved) by SHA-256."""
    import shutil

    from PySide6.QtWidgets import QFileDialog

    from fieldstudio.core import media_roots

    a, b = tmp_path / "a", tmp_path / "b"
    shutil.copytree(SAMPLE / "images", a)
    shutil.copytree(SAMPLE / "images", b / "moved")                # on B the files sit one folder deeper
    monkeypatch.setenv("FIELDSTUDIO_CONFIG_DIR", str(tmp_path / "config_a"))
    media_roots.set_root("site-footage", a)
    with Project.create(pg_url) as p:
        assert library.add_paths(p, [a]).imported_total == 4
    monkeypatch.setenv("FIELDSTUDIO_CONFIG_DIR", str(tmp_path / "config_b"))
    asked = []
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *args, **kw: (asked.append(args[1]), str(b))[1])
    w = MainWindow(Project.open(pg_url))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: media_roots.roots().get("site-footage") == b, timeout=5000)
    assert asked == ["Where is the media root \u201csite-footage\u201d on this computer?"]
    open_media(w, qtbot, PHOTO)                                    # found under B's folder, drawn
    assert library.media_path(w.state.project, w.state.media) == b / "moved" / PHOTO
    model = w.library.model
    assert not any(model.missing(r) for r in model.rows)
    w.close()
