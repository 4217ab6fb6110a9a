"""Annotate ▸ Read text here (issue 34 item 2): the selected box or the whole photo is read on a worker; the dialog
shows the text, copies it, and suggests it as the open task's ground truth, which is saved only when the person
saves the task."""

from __future__ import annotations

import os

from PySide6.QtGui import QGuiApplication

from fieldstudio.annotations.annotation_records import add_box
from fieldstudio.gui.read_text import read_text_here
from fieldstudio.media import library
from fieldstudio.tasks import task_records
from tests.support.gui_support import blank_window, media_id
from tests.support.text_photo import LINES, write_text_photo


def _read(window, qtbot):
    dialogs = []
    assert read_text_here(window, done=dialogs.append) is not None
    qtbot.waitUntil(lambda: bool(dialogs), timeout=60000)
    return dialogs[0]


def test_read_text_here_copies_and_suggests_a_ground_truth(qtbot, tmp_path):
    w = blank_window(qtbot, tmp_path / "p.fieldstudio")
    try:
        w.resize(1280, 800)
        photo = write_text_photo(tmp_path / "pump label.png")
        project = w.state.project
        library.add_paths(project, [photo])
        mid = media_id(w, photo.name)
        task_id = task_records.create_task(project, query="What does the gauge read?", external_id="T-1")
        w.library.reload()
        assert w.library.select(mid)
        qtbot.waitUntil(lambda: w.state.media is not None and w.state.media.id == mid, timeout=5000)

        whole = _read(w, qtbot)
        assert "".join(whole.text.toPlainText().split()) == "PUMP74.2bar"
        assert "the whole frame" in whole.where.text() and whole.suggest_buttons == []  # no task open yet
        whole.copy()
        assert QGuiApplication.clipboard().text() == whole.text.toPlainText()
        whole.close()

        box_id = add_box(project, mid, LINES["4.2 bar"])
        w.state.selection = (box_id,)
        tasks = w.workspace.panel("tasks")
        tasks.reload()
        assert tasks.select_task(task_id)
        boxed = _read(w, qtbot)
        assert "".join(boxed.text.toPlainText().split()) == "4.2bar"
        assert "the selected box" in boxed.where.text()
        assert [b.text() for b in boxed.suggest_buttons] == ["Suggest as ground truth of task T-1"]
        shots = os.environ.get("FS_SHOTS")
        if shots:
            qtbot.wait(100)
            w.grab().save(os.path.join(shots, "read_text_frame.png"))
            boxed.grab().save(os.path.join(shots, "read_text_dialog.png"))
        assert boxed.text.toPlainText() == "4.2 bar"       # two pieces of one row, joined by a space
        boxed.text.setPlainText("4.2 bar (gauge)")    # the person corrects the reading first
        boxed.suggest_buttons[0].click()
        assert tasks.ground_truth.toPlainText() == "4.2 bar (gauge)" and tasks.dirty
        assert task_records.get_task(project, task_id).ground_truth in (None, "")   # a suggestion, not saved
        assert tasks.save()
        assert task_records.get_task(project, task_id).ground_truth == "4.2 bar (gauge)"
    finally:
        w.close()
