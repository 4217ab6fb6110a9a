"""File ▸ Import tasks / Import answers / Export tasks, driven through the window's menu with the published
files; counts are read from the files themselves, results from the report dialog, the Tasks tab and the project."""

from __future__ import annotations

import csv
import json
from collections import Counter

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFileDialog,
    QInputDialog,
    QMessageBox,
    QPushButton,
)
from sqlalchemy import func, select

from fieldstudio.gui import raw_cells_choice
from fieldstudio.store.models import Answer, Run
from fieldstudio.tasks.importing import import_tasks
from tests.support.gui_support import file_menu_action, import_report, report_rows
from tests.support.shared_data import SHARED_DATA

pytestmark = pytest.mark.gui

GROUND_TRUTH = SHARED_DATA / "fieldworkarena" / "ground_truth"
OPENEQA = SHARED_DATA / "openeqa" / "open-eqa-v0.json"


def _report(window, qtbot):
    return import_report(window, qtbot, 60000)


def test_import_the_ground_truth_folder(empty_window, qtbot, monkeypatch):
    records = [r for f in sorted(GROUND_TRUTH.glob("Tasks_*.json")) for r in json.loads(f.read_text("utf-8"))]
    ids = {r["id"] for r in records}
    # input_data is a space-separated string in some files and a list of names in others
    with_media = {r["id"] for r in records if (r["input_data"].split() if isinstance(r["input_data"], str)
                                               else r["input_data"])}
    tasks_panel = empty_window.workspace.show_panel("tasks")
    qtbot.waitUntil(lambda: not tasks_panel.loading(), timeout=20000)   # read on a worker
    assert tasks_panel.count_label.text() == "0 of 0 tasks"
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(GROUND_TRUTH))
    file_menu_action(empty_window, "Import tasks from a f&older…").trigger()
    dialog = _report(empty_window, qtbot)
    assert dialog.summary.text().startswith(f"Tasks: {len(ids)} created, 0 updated.")
    rows = report_rows(dialog)
    per_category = {cat: int(detail.split()[0]) for what, cat, detail in rows if what == "tasks"}
    assert per_category == Counter(i.rsplit(".", 1)[0] for i in ids)
    assert {task for what, task, _ in rows if what == "media not found"} == with_media
    assert tasks_panel.count_label.text() == f"{len(ids)} of {len(ids)} tasks"  # the Tasks tab reloaded


def test_import_answers_then_export_tasks(empty_window, qtbot, monkeypatch, tmp_path):
    questions = json.loads(OPENEQA.read_text("utf-8"))
    import_tasks(empty_window.state.project, [OPENEQA])
    answers = tmp_path / "answers.csv"
    with answers.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["task_id", "answer"])
        w.writerows([q["question_id"], "a chair"] for q in questions[:9])
        w.writerow(["no-such-question", "x"])
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(answers), ""))
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("my-vlm", True))
    with qtbot.waitSignal(empty_window.workspace.panel("comparison").loaded, timeout=20000):  # the first load
        compare = empty_window.workspace.show_panel("comparison")
    with qtbot.waitSignal(compare.loaded, timeout=60000):  # the Compare tab reloads after the import
        file_menu_action(empty_window, "Import a&nswers…").trigger()
    dialog = _report(empty_window, qtbot)
    model = compare.model
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())][-1] == "my-vlm"
    assert dialog.summary.text().startswith("Answers: 9 imported.\n1 answer(s) name no task of the project.")
    assert ("unknown task id", "no-such-question", "names no task of the project") in report_rows(dialog)
    with empty_window.state.project.read() as s:
        (run,) = s.scalars(select(Run)).all()
        count = s.scalar(select(func.count()).select_from(Answer).where(Answer.run_id == run.id))
    assert (run.name, run.kind, count) == ("my-vlm", "import", 9)

    out = tmp_path / "exported.csv"
    shown: list[str] = []
    monkeypatch.setattr(QInputDialog, "getItem", lambda *a, **k: ("csv", True))
    monkeypatch.setattr(raw_cells_choice, "ask_save_path", lambda *a, **k: raw_cells_choice.SaveChoice(str(out), "", False))
    monkeypatch.setattr(QMessageBox, "information", lambda _p, _t, text, *a, **k: shown.append(text))
    file_menu_action(empty_window, "Export tas&ks…").trigger()
    qtbot.waitUntil(lambda: bool(shown), timeout=60000)
    assert shown[0].startswith(f"csv: {len(questions)} task(s) written to {out}")
    with out.open(encoding="utf-8", newline="") as f:
        assert {r["query"] for r in csv.DictReader(f)} == {q["question"] for q in questions}


def test_a_file_of_answers_is_refused_as_tasks(empty_window, qtbot, monkeypatch, tmp_path):
    answers = tmp_path / "answers.csv"
    answers.write_text("task_id,answer\nt1,x\n", encoding="utf-8")
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", lambda *a, **k: ([str(answers)], ""))
    file_menu_action(empty_window, "Import &tasks…").trigger()
    dialog = _report(empty_window, qtbot)
    assert dialog.summary.text().startswith("Tasks: 0 created, 0 updated.\n1 problem(s), 0 warning(s).")
    ((what, where, detail),) = report_rows(dialog)
    assert (what, where) == ("error", str(answers)) and "holds answers (csv-answers), not tasks" in detail


def test_export_report_html_opens_and_csv_has_every_answer(empty_window, qtbot, monkeypatch, tmp_path):
    from PySide6.QtGui import QDesktopServices

    from fieldstudio.scoring.imported_answers import import_answers

    questions = json.loads(OPENEQA.read_text("utf-8"))[:6]
    import_tasks(empty_window.state.project, [OPENEQA])
    answers = tmp_path / "answers.csv"
    answers.write_text("task_id,answer\n" + "".join(f"{q['question_id']},a chair\n" for q in questions),
                       encoding="utf-8")
    assert import_answers(empty_window.state.project, answers, "my-vlm").answers_imported == len(questions)
    opened: list[str] = []
    shown: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile()) or True)
    monkeypatch.setattr(QMessageBox, "information", lambda _p, _t, text, *a, **k: shown.append(text))
    html = tmp_path / "report.html"
    monkeypatch.setattr(raw_cells_choice, "ask_save_path", lambda *a, **k: raw_cells_choice.SaveChoice(str(html), "", False))
    file_menu_action(empty_window, "Export &report…").trigger()
    qtbot.waitUntil(lambda: bool(opened), timeout=60000)
    assert opened == [str(html)] and "my-vlm" in html.read_text("utf-8") and not shown
    # the browser may still fail after it started: where the report went stays on show in the status bar
    assert empty_window.statusBar().currentMessage().startswith(f"Wrote {html} (html, {len(questions)} answer(s)")

    table = tmp_path / "answers-out.csv"
    monkeypatch.setattr(raw_cells_choice, "ask_save_path", lambda *a, **k: raw_cells_choice.SaveChoice(str(table), "", False))
    file_menu_action(empty_window, "Export &report…").trigger()
    qtbot.waitUntil(lambda: bool(shown), timeout=60000)
    assert shown[0].startswith(f"Wrote {table} (csv, {len(questions)} answer(s)")
    with table.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["external_id"] for r in rows} == {q["question_id"] for q in questions}


def test_cancel_in_the_progress_dialog_stops_the_import(empty_window, qtbot, monkeypatch):
    tasks_panel = empty_window.workspace.show_panel("tasks")
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(GROUND_TRUTH))
    worker = empty_window.task_file_dialog("import_tasks", folder=True)  # what the menu action calls
    # the dialog's Cancel button (clicked before the dialog shows: the files are still being read)
    worker.progress_dialog.findChild(QPushButton).click()
    dialog = _report(empty_window, qtbot)
    assert dialog.summary.text().startswith("Tasks: 0 created, 0 updated.")
    assert dialog.summary.text().endswith("The import was cancelled; what was saved before stays.")
    assert tasks_panel.count_label.text() == "0 of 0 tasks"
