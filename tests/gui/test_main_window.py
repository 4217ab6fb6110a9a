"""The window around the viewer: welcome screen, `fieldstudio open`, drag-and-drop import, shortcuts,
remembered layout."""

from __future__ import annotations

import json
import shutil

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QMessageBox

from fieldstudio.gui.main_window import MainWindow
from fieldstudio.store.project import Project
from tests.support.gui_support import SAMPLE_MEDIA, open_project_and_wait

pytestmark = pytest.mark.gui


def make_window(qtbot, project=None) -> MainWindow:  # noqa: ANN001
    w = MainWindow(project)
    qtbot.addWidget(w)
    w.show()
    return w


def test_welcome_screen_lists_recent_projects(qtbot, tmp_path):
    from fieldstudio.gui import settings
    Project.create(tmp_path / "site A.fieldstudio").close()
    settings.add_recent(tmp_path / "site A.fieldstudio")
    w = make_window(qtbot)
    assert w.windowTitle() == "fieldstudio"
    assert w.view.stack.currentWidget() is w.view.welcome
    items = [w.view.welcome.recent.item(i).text() for i in range(w.view.welcome.recent.count())]
    assert items and items[0].startswith("site A")
    with qtbot.waitSignal(w.project_opened, timeout=20000):
        w.view.welcome.recent.itemActivated.emit(w.view.welcome.recent.item(0))
        # the click returns at once: the name is read ahead, the project opens on a worker
        assert w.windowTitle() == "fieldstudio — site A" and w.state.project is None
    assert w.state.project.path == (tmp_path / "site A.fieldstudio").resolve()
    w.close()


def test_a_project_dropped_on_the_window_opens_in_the_background(qtbot, tmp_path):
    Project.create(tmp_path / "dropped.fieldstudio", name="dropped").close()
    w = make_window(qtbot, Project.create(tmp_path / "first.fieldstudio"))
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(tmp_path / "dropped.fieldstudio"))])
    with qtbot.waitSignal(w.project_opened, timeout=20000):
        w.dropEvent(QDropEvent(QPointF(200, 200), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                               Qt.KeyboardModifier.NoModifier))
        assert w.state.project.path.name == "first.fieldstudio"  # still on show while the other one opens
    assert w.state.project.path.name == "dropped.fieldstudio" and w.windowTitle() == "fieldstudio — dropped"
    w.close()


def test_a_damaged_file_opened_over_a_project_keeps_that_project(qtbot, tmp_path, monkeypatch):
    bad = tmp_path / "broken.fieldstudio"
    bad.write_bytes(b"this is not sqlite")
    w = make_window(qtbot, Project.create(tmp_path / "kept.fieldstudio", name="kept"))
    shown = []
    monkeypatch.setattr(QMessageBox, "critical", staticmethod(lambda parent, title, text, *a: shown.append(text)))
    with qtbot.waitSignal(w.session.open_failed, timeout=20000):
        assert w.open_project_path(bad)
    assert len(shown) == 1 and "broken.fieldstudio" in shown[0]
    assert w.state.project.path.name == "kept.fieldstudio" and w.windowTitle() == "fieldstudio — kept"
    assert w.session.opening is None
    w.close()


def test_open_command_opens_the_window_on_the_project(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from fieldstudio.cli.app import app
    Project.create(tmp_path / "yard.fieldstudio", name="yard").close()
    titles = []

    def fake_exec(self):  # noqa: ANN001 - instead of the event loop: read what is on screen, then quit
        titles.extend(w.windowTitle() for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)
                      and w.isVisible())
        for w in QApplication.topLevelWidgets():
            w.close()
        return 0

    monkeypatch.setattr(QApplication, "exec", fake_exec)
    result = CliRunner().invoke(app, ["open", str(tmp_path / "yard.fieldstudio")])
    assert result.exit_code == 0, result.output
    assert "fieldstudio — yard" in titles


def test_opening_a_damaged_project_explains_and_keeps_the_welcome_screen(qtbot, tmp_path):
    bad = tmp_path / "broken.fieldstudio"
    bad.write_bytes(b"this is not sqlite")
    w = make_window(qtbot)
    shown = []
    orig = QMessageBox.critical
    QMessageBox.critical = staticmethod(lambda parent, title, text, *a: shown.append(text))
    try:
        with qtbot.waitSignal(w.session.open_failed, timeout=20000):
            assert w.open_project_path(bad)  # the open has started; the worker finds the file bad
    finally:
        QMessageBox.critical = orig
    assert len(shown) == 1 and "broken.fieldstudio" in shown[0]
    assert w.view.stack.currentWidget() is w.view.welcome and w.state.project is None


def test_dropping_files_and_folders_imports_them_with_a_summary(qtbot, tmp_path):
    folder = tmp_path / "drop"
    folder.mkdir()
    shutil.copy(SAMPLE_MEDIA / "images" / "ppe_electrician_hivis_systems_equipment_mta.jpg", folder)
    (folder / "truncated.jpg").write_bytes((SAMPLE_MEDIA / "images" /
                                             "retail_grocery_Bravo-Orange-Juice_024.jpg").read_bytes()[:300])
    (folder / "notes.docx").write_bytes(b"PK")
    w = make_window(qtbot, Project.create(tmp_path / "d.fieldstudio"))
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(folder))])
    event = QDropEvent(QPointF(200, 200), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    w.dropEvent(event)
    qtbot.waitUntil(lambda: w.findChild(QMessageBox, "import_summary") is not None, timeout=20000)
    text = w.findChild(QMessageBox, "import_summary").text()
    assert "Added 1 image." in text
    assert "truncated.jpg" in text and "could not be read" in text
    # the unreadable file stays listed, badged, so the user sees it and why
    rows = [w.library.proxy.index(r, 0).data() for r in range(w.library.proxy.rowCount())]
    assert len(rows) == 2
    assert any(r.startswith("truncated.jpg") and "unreadable" in r for r in rows)
    w.close()


def test_dropping_a_task_file_with_a_photo_imports_both(qtbot, tmp_path):
    # FieldWorkArena's demo tasks and one of the photos they name, dropped together
    from PySide6.QtWidgets import QDialog

    from tests.support.shared_data import SHARED_DATA

    fwa = SHARED_DATA / "fieldworkarena"
    if not (fwa / "demo_images").is_dir():
        pytest.skip(f"shared data not found at {fwa}")
    tasks_file, photo = fwa / "tasks_v2" / "tasks_demo.json", fwa / "demo_images" / "worksite_a.jpg"
    records = json.loads(tasks_file.read_text("utf-8"))
    w = make_window(qtbot, Project.create(tmp_path / "t.fieldstudio"))
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(tasks_file)), QUrl.fromLocalFile(str(photo))])
    w.dropEvent(QDropEvent(QPointF(200, 200), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                           Qt.KeyboardModifier.NoModifier))
    qtbot.waitUntil(lambda: w.findChild(QDialog, "import_report") is not None, timeout=60000)
    report = w.findChild(QDialog, "import_report")
    assert report.summary.text().splitlines()[:2] == ["Media: 1 image added.", f"Tasks: {len(records)} created, 0 updated."]
    # the photo was added first: its task found it, the other tasks name photos not dropped
    missing = {task for r in range(report.table.rowCount()) if report.table.item(r, 0).text() == "media not found"
               for task in [report.table.item(r, 1).text()]}
    assert missing == {r["id"] for r in records if photo.name not in r["input_data"]}
    assert w.library.proxy.rowCount() == 1
    w.close()


def test_shortcuts_are_listed_editable_and_remembered(qtbot, tmp_path):
    from fieldstudio.gui.shortcuts import ShortcutsDialog
    w = make_window(qtbot, Project.create(tmp_path / "k.fieldstudio"))
    dialog = ShortcutsDialog(w.actions, w)
    assert dialog.table.rowCount() == len(w.actions)
    dialog.edits["next_frame"].setKeySequence(QKeySequence("D"))
    dialog.accept()
    assert w.actions["next_frame"].shortcut().toString() == "D"
    w.close()
    w2 = make_window(qtbot, Project.open(tmp_path / "k.fieldstudio"))
    assert w2.actions["next_frame"].shortcut().toString() == "D"
    w2.close()


def test_panel_layout_is_remembered(qtbot, tmp_path):
    Project.create(tmp_path / "l.fieldstudio").close()
    w = make_window(qtbot, Project.open(tmp_path / "l.fieldstudio"))
    assert w.properties_dock.isVisible()
    w.properties_dock.close()
    w.annotations_dock.close()
    w.close()
    w2 = make_window(qtbot, Project.open(tmp_path / "l.fieldstudio"))
    assert not w2.properties_dock.isVisible()
    w2.close()
