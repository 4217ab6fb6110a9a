"""The Runs tab's Record menu: Save reproducibility record…, Export run…, Import run…, Verify a record…, driven
through the menu's actions with the file dialogs answered, on a run made through the fake server."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess

import pytest
from PySide6.QtCore import QItemSelectionModel
from PySide6.QtWidgets import QFileDialog

from fieldstudio.gui.panels.runs import RunPanel
from fieldstudio.store.project import Project
from tests.support.recorded_runs import make_recorded_run
from tests.support.run_fixtures import add_media, add_task
from tests.support.video_fixtures import _ffmpeg

pytestmark = pytest.mark.gui


@pytest.fixture
def panel_on_run(qtbot, tmp_path, clips, fake_openai):
    run = make_recorded_run(tmp_path, clips, fake_openai)
    panel = RunPanel()
    qtbot.addWidget(panel)
    panel.resize(1300, 900)
    panel.show()
    with qtbot.waitSignal(panel.loaded, timeout=20000):   # read on a worker
        panel.set_project(run.project)
    history = panel.history
    row = next(i for i, r in enumerate(history.runs_model.rows) if r.id == run.run_id)
    history.runs.selectionModel().setCurrentIndex(history.runs_model.index(row, 0),
                                                  QItemSelectionModel.SelectionFlag.ClearAndSelect
                                                  | QItemSelectionModel.SelectionFlag.Rows)
    yield panel, run
    with qtbot.waitSignal(panel.loaded, timeout=20000):   # read on a worker
        panel.set_project(None)
    run.project.close()


def _answer(monkeypatch, method: str, path) -> None:  # noqa: ANN001
    monkeypatch.setattr(QFileDialog, method, staticmethod(lambda *a, **k: (str(path), "")))


def _write_through_menu(qtbot, monkeypatch, action, status, path):  # noqa: ANN001
    """Trigger a menu action that saves a file, the save dialog answered with ``path``; returns ``path``."""
    _answer(monkeypatch, "getSaveFileName", path)
    with qtbot.waitSignal(status, timeout=20000):
        action.trigger()
    return path


def test_save_then_verify_lists_the_changed_media_file(qtbot, panel_on_run, tmp_path, monkeypatch):
    panel, run = panel_on_run
    records = panel.history.records
    records.update_actions()
    assert [a.text() for a in records.menu.actions() if a.text()] == [
        "Save reproducibility record…", "Export run…", "Import run…", "Verify a record…"]
    assert records.save_action.isEnabled()
    out = tmp_path / "saved.jsonl"
    _answer(monkeypatch, "getSaveFileName", out)
    with qtbot.waitSignal(records.status, timeout=20000) as said:
        records.save_action.trigger()
    assert said.args[0].startswith("Wrote the record of run ") and str(out) in said.args[0]
    assert json.loads(out.read_text(encoding="utf-8").splitlines()[-1])["type"] == "end"
    clip = run.files["h264.mov"]
    old = hashlib.sha256(clip.read_bytes()).hexdigest()
    subprocess.run([_ffmpeg(), "-v", "error", "-y", "-i", str(clip), "-c:v", "libx264", "-crf", "45",
                    str(tmp_path / "x.mov")], check=True)
    shutil.copy(tmp_path / "x.mov", clip)
    _answer(monkeypatch, "getOpenFileName", out)
    with qtbot.waitSignal(records.status, timeout=60000) as said:
        records.verify_action.trigger()
    dialog = records.last_dialog
    rows = [dialog.differences.item(i).text() for i in range(dialog.differences.count())]
    assert any(r.startswith("media h264.mov: the file changed: SHA-256 ") and f"{old[:12]}… in the record" in r
               for r in rows), rows
    assert dialog.verdict.text().startswith(f"{len(rows)} difference(s)") and "difference(s)" in said.args[0]


def test_export_then_import_into_another_project_through_the_menu(qtbot, panel_on_run, tmp_path, monkeypatch):
    panel, run = panel_on_run
    records = panel.history.records
    out = _write_through_menu(qtbot, monkeypatch, records.export_action, records.status, tmp_path / "export.jsonl")
    target = Project.create(tmp_path / "target.fieldstudio")
    ids = add_media(target, *run.files.values())
    add_task(target, "how many?", [("h264.mkv", ids["h264.mkv"])], external_id="t1", source="manual", ground_truth="4")
    add_task(target, "how many now?", [("h264.mov", ids["h264.mov"])], external_id="t2", source="manual",
             ground_truth="5")
    with qtbot.waitSignal(panel.loaded, timeout=20000):   # read on a worker
        panel.set_project(target)
    assert panel.history.runs_model.rows == []
    _answer(monkeypatch, "getOpenFileName", out)
    with qtbot.waitSignal(panel.runs_changed, timeout=20000):
        records.import_action.trigger()
    assert "1 run, 2 answers, 2 scores" in records.last_dialog.text()
    assert [r.id for r in panel.history.runs_model.rows] == [run.run_id]
    with qtbot.waitSignal(panel.loaded, timeout=20000):   # read on a worker
        panel.set_project(None)
    target.close()


def test_a_hand_made_record_is_refused_by_verify_and_import_in_a_warning_naming_the_file_and_line(
        qtbot, panel_on_run, tmp_path, monkeypatch):
    panel, run = panel_on_run
    records = panel.history.records
    saved = _write_through_menu(qtbot, monkeypatch, records.save_action, records.status, tmp_path / "saved.jsonl")
    lines = [json.loads(line) for line in saved.read_text(encoding="utf-8").splitlines()[:-1]]
    next(line for line in lines if line["type"] == "answer")["task_id"] = "nope"
    body = "".join(json.dumps(line) + "\n" for line in lines).encode()
    edited = tmp_path / "edited.jsonl"
    edited.write_bytes(body + json.dumps({"type": "end", "lines": len(lines),
                                          "sha256": hashlib.sha256(body).hexdigest()}).encode() + b"\n")
    _answer(monkeypatch, "getOpenFileName", edited)
    for action in (records.verify_action, records.import_action):
        with qtbot.waitSignal(records.status, timeout=20000) as said:
            action.trigger()
        message = records.last_dialog.text()
        assert said.args[0] == message and "\n" not in message
        assert "edited.jsonl" in message and "(answer): its 'task_id' 'nope' names no task line" in message
    assert [r.id for r in panel.history.runs_model.rows] == [run.run_id]
