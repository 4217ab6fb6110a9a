"""The window's one state object (gui/state.py) and the one undo group, read as a user would see them."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from fieldstudio.gui.state import ViewState
from tests.support.gui_support import open_media, wait_idle


def test_a_field_emits_once_after_it_changed_and_not_for_the_same_value():
    state = ViewState()
    seen: list[tuple[str, object]] = []
    state.events.tool.connect(lambda v: seen.append(("tool", v)))
    state.events.frame.connect(lambda v: seen.append(("frame", v)))
    state.tool = "box"
    state.tool = "box"
    assert state.tool == "box" and seen == [("tool", "box")]
    state.show_frame(122, 7.0 + 1 / 15, exact=False)
    assert seen[-1] == ("frame", (122, pytest.approx(7.0667, abs=1e-4), False))
    assert (state.frame_index, state.frame_exact) == (122, False)
    assert state.video_frame() is None  # nothing shown: no frame for marks to attach to


@pytest.mark.gui
def test_stepping_moves_the_one_frame_the_status_bar_timeline_and_marks_use(window, qtbot, clips):
    media_id = open_media(window, qtbot, clips["cfr_bframes"].name)
    for _ in range(3):
        qtbot.keyClick(window.view.canvas, Qt.Key.Key_Right)
        wait_idle(window, qtbot)
    state = window.state
    assert state.media.id == media_id and state.frame_index == 3 and state.frame_exact
    assert window.frame_label.text().startswith("frame 3 /")
    assert window.view.transport.position.text().startswith("frame 3 /")
    assert window.annotator.frame_index() == 3


@pytest.mark.gui
def test_edit_menu_undo_acts_on_the_tab_in_front(window, qtbot):
    """An annotation edit on the Media tab and a task edit on the Tasks tab: Edit ▸ Undo takes back the
    one of the tab in front, and its text names that edit."""
    from fieldstudio.tasks import task_records as ts

    tasks = window.workspace.show_panel("tasks")
    qtbot.mouseClick(tasks.new_button, Qt.MouseButton.LeftButton)
    assert len(ts.list_tasks(window.state.project)) == 1
    assert window.actions["undo"].isEnabled() and "task" in window.actions["undo"].text().lower()
    window.actions["undo"].trigger()
    assert ts.list_tasks(window.state.project) == []
    window.modes.setCurrentIndex(0)
    assert not window.actions["undo"].isEnabled()  # the Media tab's stack has nothing to undo


@pytest.mark.gui
def test_the_tool_and_selection_live_in_the_state_and_a_tab_switch_leaves_no_tool_hint(window, qtbot, clips):
    open_media(window, qtbot, clips["cfr_bframes"].name)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_B)
    assert window.state.tool == "box" and window.annotator.tool == "box"
    assert window.statusBar().currentMessage().startswith("Box:")
    window.modes.setCurrentIndex(1)
    assert window.state.tool == "select" and not window.statusBar().currentMessage().startswith("Box:")
    window.modes.setCurrentIndex(0)


@pytest.mark.gui
def test_undo_of_a_mark_elsewhere_says_where_it_was(window, qtbot, clips):
    from fieldstudio.annotations import edits

    mid = open_media(window, qtbot, clips["cfr_bframes"].name)
    assert window.annotator.apply(edits.AddBox(window.state.project, mid, (10, 10, 40, 30), frame_index=0))
    for _ in range(2):
        qtbot.keyClick(window.view.canvas, Qt.Key.Key_Right)
        wait_idle(window, qtbot)
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.statusBar().currentMessage() == f"Undid add box on {clips['cfr_bframes'].name}, frame 0"


@pytest.mark.gui
def test_timeline_zoom_buttons_keep_their_short_text_after_a_tab_switch(window, qtbot, clips):
    from PySide6.QtWidgets import QToolButton

    open_media(window, qtbot, clips["cfr_bframes"].name)
    window.modes.setCurrentIndex(1)
    window.modes.setCurrentIndex(0)
    texts = {b.text() for b in window.view.transport.findChildren(QToolButton)}
    assert {"−", "+"} <= texts and "Zoom timeline in" not in texts


def test_a_new_project_shows_nothing_of_the_one_before(window, qtbot, tmp_path, monkeypatch):
    """File ▸ New project… after a photo was shown: no Properties of that photo and no frame, size or zoom
    read-out stay on show over the new, empty project (a fresh-eyes finding)."""
    from PySide6.QtWidgets import QFileDialog

    from tests.support.gui_support import file_menu_action

    open_media(window, qtbot, "cfr_bframes.mp4")
    assert window.properties.table.rowCount() > 0 and window.frame_label.text() and window.zoom_label.text()
    new = tmp_path / "empty.fieldstudio"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(new), ""))
    file_menu_action(window, "&New project…").trigger()
    qtbot.waitUntil(lambda: window.state.project is not None and window.state.project.path == new, timeout=10000)
    assert window.properties.table.rowCount() == 0
    assert [w.text() for w in (window.frame_label, window.time_label, window.zoom_label, window.pointer_label)] \
        == ["", "", "", ""]


def test_the_file_menu_works_from_every_tab(window, qtbot):
    """The File menu's project actions stay enabled on the evaluation tabs, where the viewer's keys are off
    ("Open shared project…" was greyed out there: a fresh-eyes finding)."""
    from PySide6.QtGui import QAction

    (file_menu,) = [a.menu() for a in window.menuBar().actions() if a.text() == "&File"]
    for i in range(window.modes.count()):
        window.modes.setCurrentIndex(i)
        off = [a.text() for a in file_menu.actions() if isinstance(a, QAction) and not a.isSeparator()
               and a.menu() is None and not a.isEnabled()]
        assert off == [], (window.modes.tabText(i), off)
