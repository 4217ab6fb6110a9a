"""Runs ▸ Sweep…, driven through its widgets: two arms over the ffmpeg clip with known events
(tests/support/event_clip.py) answered by the fake server's seeing model; the table reads the hand-computed values
of tests/compare/test_sweeps.py, Stop keeps what finished and Start continues, an earlier sweep shows again."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import Qt

from fieldstudio.gui.panels.runs import RunPanel
from fieldstudio.inference import profiles as profile_store
from tests.support.event_clip import add_event_tasks, make_event_clip, seeing_model
from tests.support.run_fixtures import fake_profile

pytestmark = pytest.mark.gui


def _cells(dialog) -> dict[str, dict[str, str]]:
    t = dialog.table
    heads = [t.horizontalHeaderItem(c).text() for c in range(t.columnCount())]
    return {t.item(r, 0).text(): {h: t.item(r, c).text() for c, h in enumerate(heads)} for r in range(t.rowCount())}


def test_a_sweep_from_the_runs_tab_shows_its_table_and_plot(qtbot, project, tmp_path, fake_openai):
    add_event_tasks(project, make_event_clip(tmp_path))
    profile_store.add_profile(fake_profile(fake_openai))
    fake_openai.responder = seeing_model
    panel = RunPanel()
    qtbot.addWidget(panel)
    panel.resize(1300, 900)
    panel.show()
    with qtbot.waitSignal(panel.loaded, timeout=20000):   # read on a worker
        panel.set_project(project)
    qtbot.mouseClick(panel.sweep_button, Qt.MouseButton.LeftButton)
    dialog = panel._sweep_dialog
    assert dialog.isVisible() and dialog.profile.currentText() == "fake"
    dialog.arms.setPlainText("uniform:8\nfps:1:30\n")
    dialog.scorer.setCurrentText("fs-tiou")
    with qtbot.waitSignal(dialog.runs_changed, timeout=60_000) as _:
        qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.is_running(), timeout=60_000)
    cells = _cells(dialog)
    assert list(cells) == ["uniform:8", "fps:1:30"]
    assert cells["uniform:8"]["evidence"] == "saw 1 of 2 (50%)" and cells["uniform:8"]["frames sent"] == "8.0"
    assert cells["fps:1:30"]["difference"] == "+0.741 [n too small] (2 paired of 2)"
    assert "differences are arm minus uniform:8 on the 2 of 2 task(s)" in dialog.message.text()
    assert dialog.canvas is not None and dialog.save_button.isEnabled()
    saved = dialog.save_plot(tmp_path / "plot.png")
    assert saved.read_bytes()[:4] == b"\x89PNG"
    shots = os.environ.get("FS_SHOTS")
    if shots:                                            # screenshots for the closing note, looked at by a person
        dialog.grab().save(os.path.join(shots, "sweep_dialog.png"))
    dialog.table.setRowCount(0)
    dialog.earlier.setCurrentIndex(0)
    dialog.earlier.activated.emit(0)
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 2, timeout=30_000)
    assert len(fake_openai.chat_requests()) == 4


def test_a_bad_arm_is_said_in_the_dialog(qtbot, project, tmp_path, fake_openai):
    add_event_tasks(project, make_event_clip(tmp_path))
    profile_store.add_profile(fake_profile(fake_openai))
    panel = RunPanel()
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.loaded, timeout=20000):   # read on a worker
        panel.set_project(project)
    dialog = panel.show_sweep_dialog()
    dialog.arms.setPlainText("uniform:8\nfps:2:30")
    assert dialog.start() is None
    assert "Not started: arm 'fps:2:30'" in dialog.message.text()
    assert fake_openai.chat_requests() == []


def test_stop_keeps_what_finished_and_start_continues_the_same_sweep(qtbot, project, tmp_path, fake_openai):
    from fieldstudio.inference.runs import sweep as sweep_runs

    add_event_tasks(project, make_event_clip(tmp_path))
    profile_store.add_profile(fake_profile(fake_openai))
    fake_openai.responder = seeing_model
    fake_openai.latency_s = 0.4
    panel = RunPanel()
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.loaded, timeout=20000):   # read on a worker
        panel.set_project(project)
    dialog = panel.show_sweep_dialog()
    dialog.arms.setPlainText("uniform:8\nuniform:16")
    dialog.scorer.setCurrentText("fs-tiou")
    qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.progress.value() >= 1, timeout=30_000)
    qtbot.mouseClick(dialog.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.is_running(), timeout=30_000)
    assert "still pending" in dialog.message.text() and dialog.table.rowCount() == 0
    asked = len(fake_openai.chat_requests())
    assert 1 <= asked < 4
    fake_openai.latency_s = 0.0
    qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.is_running() and dialog.table.rowCount() == 2, timeout=60_000)
    assert len(sweep_runs.list_sweeps(project)) == 1                     # the same sweep, continued
    assert len(fake_openai.chat_requests()) == 4                         # nothing finished was asked again
