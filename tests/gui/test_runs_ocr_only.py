"""Runs tab ▸ "OCR only…" (issue 34 item 2): the chosen tasks are answered by the text OCR reads in their photos, in a
worker behind a progress dialog; the answer source "OCR only" then shows in the run history; Cancel stops after the
task being read, and the run says "cancelled"."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton
from sqlalchemy import select

from fieldstudio.inference.runs import ocr_answers
from fieldstudio.store.models import Answer, Run
from tests.support.gui_support import run_panel
from tests.support.run_fixtures import add_media, add_task
from tests.support.text_photo import write_text_photo

pytestmark = pytest.mark.gui


def test_ocr_only_answers_the_chosen_tasks_from_the_runs_tab(qtbot, project, tmp_path):
    media = add_media(project, write_text_photo(tmp_path / "gauge.png"))
    reading = add_task(project, "What does the gauge read?", [("gauge.png", media["gauge.png"])])
    add_task(project, "How many metres is 12 feet?")            # no photo: nothing to read, no answer
    panel = run_panel(qtbot, project)
    assert panel.ocr_button.isEnabled()
    with qtbot.waitSignal(panel.runs_changed, timeout=120_000):
        qtbot.mouseClick(panel.ocr_button, Qt.MouseButton.LeftButton)
        assert not panel.ocr_button.isEnabled()
    qtbot.waitUntil(panel.ocr_button.isEnabled, timeout=10_000)
    with project.read() as s:
        run = s.scalars(select(Run).where(Run.name == ocr_answers.SOURCE_NAME)).one()
        answers = list(s.scalars(select(Answer).where(Answer.run_id == run.id)))
    assert run.status == "done" and [a.task_id for a in answers] == [reading]
    assert "".join(answers[0].raw_text.split()) == "PUMP74.2bar"
    assert panel.message.text() == f"OCR only (run {run.id[:8]}): 1 answer written"
    assert panel.history.runs_model.cell(0, "Status") == "done"


def test_cancel_stops_after_the_task_being_read(qtbot, project, tmp_path, monkeypatch):
    photo = write_text_photo(tmp_path / "gauge.png")
    media = add_media(project, photo)
    for k in range(3):
        add_task(project, f"Reading {k}?", [("gauge.png", media["gauge.png"])])
    reading, release = threading.Event(), threading.Event()
    read_task = ocr_answers._read_task

    def held(p, task):  # noqa: ANN001
        reading.set()
        assert release.wait(60)
        return read_task(p, task)

    monkeypatch.setattr(ocr_answers, "_read_task", held)
    panel = run_panel(qtbot, project)
    worker = panel.answer_by_ocr()
    qtbot.waitUntil(reading.is_set, timeout=30_000)
    worker.progress_dialog.findChild(QPushButton).click()       # the progress dialog's Cancel
    release.set()
    qtbot.waitUntil(panel.ocr_button.isEnabled, timeout=120_000)
    with project.read() as s:
        run = s.scalars(select(Run).where(Run.name == ocr_answers.SOURCE_NAME)).one()
        written = len(s.scalars(select(Answer).where(Answer.run_id == run.id)).all())
    assert (run.status, written) == ("cancelled", 1)
    assert panel.message.text() == f"OCR only (run {run.id[:8]}): 1 answer written"
