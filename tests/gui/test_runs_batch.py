"""The Run panel's "Run as batch", driven through its widgets against the local fake Batch API."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt

from fieldstudio.gui.panels import runs as runs_panel
from fieldstudio.gui.panels.runs import RunPanel
from fieldstudio.inference import profiles as profile_store
from tests.support.fake_openai import Reply
from tests.support.run_fixtures import add_task

pytestmark = pytest.mark.gui


@pytest.fixture
def text_project(project):
    for i in range(4):
        add_task(project, f"question {i}", external_id=f"1.1.000{i}", category="1.1", source="fieldworkarena")
    return project


def _add_profile(qtbot, panel: RunPanel, name: str, base_url: str, *, batch: bool) -> None:
    editor = panel.show_profiles_dialog().editor
    qtbot.mouseClick(editor.new_button, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(editor.name, name)
    qtbot.keyClicks(editor.base_url, base_url)
    qtbot.keyClicks(editor.model_id, "fake-vlm")
    qtbot.keyClicks(editor.price_in, "2")
    qtbot.keyClicks(editor.price_out, "8")
    editor.retries.setValue(0)
    if batch:
        editor.batch_api.setChecked(True)
        qtbot.keyClicks(editor.batch_discount, "0.5")
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    panel._profiles_dialog.close()


def _tick_only(panel: RunPanel, name: str) -> None:
    for other in panel.checked_profile_names():
        panel.set_profile_checked(other, False)
    panel.set_profile_checked(name, True)


def test_run_as_batch_is_offered_where_the_profile_allows_and_collects_the_answers(qtbot, text_project,
                                                                                   fake_batch_api, monkeypatch):
    monkeypatch.setattr(runs_panel, "BATCH_POLL_S", 0.05)
    fake_batch_api.responder = lambda request: Reply(text="an answer", prompt_tokens=1000, completion_tokens=100)
    panel = RunPanel()
    qtbot.addWidget(panel)
    panel.resize(1300, 900)
    panel.show()
    with qtbot.waitSignal(panel.loaded, timeout=20000):   # read on a worker
        panel.set_project(text_project)
    _add_profile(qtbot, panel, "plain", fake_batch_api.base_url, batch=False)
    _add_profile(qtbot, panel, "batchy", fake_batch_api.base_url, batch=True)
    stored = profile_store.get_profile("batchy")
    assert (stored.batch_api, stored.batch_discount) == (True, 0.5)

    _tick_only(panel, "plain")
    assert not panel.as_batch.isEnabled() and "plain: no Batch API" in panel.as_batch.toolTip()
    _tick_only(panel, "batchy")
    panel.strategy.setCurrentIndex(panel.strategy.findData("chunked"))
    assert not panel.as_batch.isEnabled() and "several requests per task" in panel.as_batch.toolTip()
    panel.strategy.setCurrentIndex(panel.strategy.findData("fieldworkarena"))
    assert panel.as_batch.isEnabled() and "batchy -50%" in panel.as_batch.toolTip()

    fake_batch_api.hold = True                 # the provider keeps the batch in progress until released
    qtbot.mouseClick(panel.as_batch, Qt.MouseButton.LeftButton)
    assert panel.as_batch.isChecked()
    qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: any(b["status"] == "in_progress" for b in fake_batch_api.batches.values()), timeout=20000)
    qtbot.waitUntil(lambda: panel.history.runs_model.rowCount() == 1
                    and panel.history.runs_model.cell(0, "Batch").startswith("in_progress"), timeout=20000)
    panel.grab().save("/tmp/gui_run_batch_waiting.png")
    qtbot.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=20000)
    assert "4 request(s) still in the provider's batch" in panel.message.text()
    assert panel.history.runs_model.cell(0, "Status") == "batch"
    assert fake_batch_api.batch_lines == [] and fake_batch_api.chat_requests() == []

    fake_batch_api.hold = False
    panel.history.runs.selectionModel().setCurrentIndex(panel.history.runs_model.index(0, 0),
                                                        QItemSelectionModel.SelectionFlag.ClearAndSelect
                                                        | QItemSelectionModel.SelectionFlag.Rows)
    assert panel.history.resume_button.isEnabled()
    qtbot.mouseClick(panel.history.resume_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.is_running(), timeout=20000)
    qtbot.wait(20)
    assert len(fake_batch_api.batches) == 1 and len(fake_batch_api.batch_lines) == 4   # one batch, never resent
    assert fake_batch_api.chat_requests() == []
    model = panel.history.runs_model
    assert (model.cell(0, "Status"), model.cell(0, "Batch"), model.cell(0, "Answered")) == ("done", "completed", "4")
    # by hand: 4 x (1000 x $2 + 100 x $8) / 1e6 x (1 - 0.5) = $0.0056
    assert model.cell(0, "Cost") == "$0.0056"
    panel.grab().save("/tmp/gui_run_batch_done.png")
