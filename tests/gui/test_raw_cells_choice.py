"""The window's CSV exports offer the command line's ``--raw-cells``: an unticked box on the save dialog (report,
tasks, agreement) and in Export annotations; ticked, a cell starting like a formula is written as stored, else with
a leading apostrophe. The expected cells are the stored text and ``"'" + text``, read back with ``csv``."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QFileDialog, QMessageBox

from fieldstudio.annotations import labels
from fieldstudio.gui import raw_cells_choice
from fieldstudio.gui.panels.export_dialog import ExportDialog
from fieldstudio.tasks.importing import import_tasks
from tests.support.gui_support import file_menu_action
from tests.support.shared_data import SHARED_DATA

pytestmark = pytest.mark.gui

SHOTS = Path("/tmp/aw")      # screenshots to look at, as tests/gui/test_side_panels.py
OPENEQA = SHARED_DATA / "openeqa" / "open-eqa-v0.json"
FORMULA = '=HYPERLINK("http://example.com","x")'


def _csv_column(path: Path, column: str) -> list[str]:
    with path.open(encoding="utf-8", newline="") as f:
        return [r[column] for r in csv.DictReader(f)]


def test_the_save_dialog_holds_the_box_unticked_and_returns_its_state(qtbot, tmp_path):
    dialog = raw_cells_choice.save_dialog(None, "Export report", str(tmp_path / "report.csv"), "CSV (*.csv)")
    qtbot.addWidget(dialog)
    dialog.show()
    box = dialog.raw_cells
    assert box.isVisible() and not box.isChecked()
    assert box.text() == raw_cells_choice.RAW_CELLS_TEXT and "--raw-cells" in box.toolTip()
    SHOTS.mkdir(parents=True, exist_ok=True)
    dialog.grab().save(str(SHOTS / "raw_cells_save_dialog.png"))
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton)
    assert box.isChecked()
    dialog.selectFile(str(tmp_path / "report.csv"))
    dialog.done(QDialog.DialogCode.Accepted)
    assert raw_cells_choice.chosen(dialog) == raw_cells_choice.SaveChoice(str(tmp_path / "report.csv"), "CSV (*.csv)",
                                                                          True)
    dialog.done(QDialog.DialogCode.Rejected)
    assert raw_cells_choice.chosen(dialog) is None


@pytest.mark.parametrize("tick", [False, True])
def test_export_report_from_the_window_writes_formulas_raw_only_when_ticked(empty_window, qtbot, monkeypatch,
                                                                             tmp_path, tick):
    from fieldstudio.scoring.imported_answers import import_answers

    questions = json.loads(OPENEQA.read_text("utf-8"))[:3]
    import_tasks(empty_window.state.project, [OPENEQA])
    answers = tmp_path / "answers.csv"
    with answers.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([["task_id", "answer"], *([q["question_id"], FORMULA] for q in questions)])
    import_answers(empty_window.state.project, answers, "my-vlm")
    out = tmp_path / "report.csv"

    def answer_the_dialog(dialog: QFileDialog) -> int:      # what a user does in the real dialog
        assert not dialog.raw_cells.isChecked()
        if tick:
            qtbot.mouseClick(dialog.raw_cells, Qt.MouseButton.LeftButton)
        dialog.selectFile(str(out))
        dialog.done(QDialog.DialogCode.Accepted)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(QFileDialog, "exec", answer_the_dialog)
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "information", lambda _p, _t, text, *a, **k: shown.append(text))
    file_menu_action(empty_window, "Export &report…").trigger()
    qtbot.waitUntil(lambda: bool(shown), timeout=60000)
    assert shown[0].startswith(f"Wrote {out} (csv, {len(questions)} answer(s)")
    assert set(_csv_column(out, "answer")) == {FORMULA if tick else "'" + FORMULA}


@pytest.mark.parametrize("tick", [False, True])
def test_export_tasks_csv_from_the_window_follows_the_box(empty_window, qtbot, monkeypatch, tmp_path, tick):
    from PySide6.QtWidgets import QInputDialog

    tasks = tmp_path / "tasks.csv"
    with tasks.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([["id", "query", "answer"], ["t1", FORMULA, "yes"], ["t2", "-a dash", "no"]])
    import_tasks(empty_window.state.project, [tasks])
    out = tmp_path / "exported.csv"
    monkeypatch.setattr(QInputDialog, "getItem", lambda *a, **k: ("csv", True))
    monkeypatch.setattr(raw_cells_choice, "ask_save_path",
                        lambda *a, **k: raw_cells_choice.SaveChoice(str(out), "", tick))
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "information", lambda _p, _t, text, *a, **k: shown.append(text))
    file_menu_action(empty_window, "Export tas&ks…").trigger()
    qtbot.waitUntil(lambda: bool(shown), timeout=60000)
    queries = sorted(_csv_column(out, "query"))
    assert queries == sorted([FORMULA, "-a dash"] if tick else ["'" + FORMULA, "'-a dash"])


def test_export_annotations_dialog_box_is_for_csv_and_unticked(qtbot, demo_project, tmp_path):
    first = labels.list_labels(demo_project)[0]
    labels.rename_label(demo_project, first.id, "=cart")
    dlg = ExportDialog(demo_project, None)
    qtbot.addWidget(dlg)
    dlg.show()
    dlg.set_format("coco")
    assert not dlg.raw_cells.isEnabled() and not dlg.raw_cells.isChecked()
    dlg.set_format("csv")
    assert dlg.raw_cells.isEnabled() and "--raw-cells" in dlg.raw_cells.toolTip()
    SHOTS.mkdir(parents=True, exist_ok=True)
    dlg.grab().save(str(SHOTS / "raw_cells_export_annotations.png"))
    for tick, out in ((False, tmp_path / "kept.csv"), (True, tmp_path / "raw.csv")):
        if tick:
            qtbot.mouseClick(dlg.raw_cells, Qt.MouseButton.LeftButton)
        dlg.path.setText(str(out))
        dlg.last_report = dlg.last_error = None
        qtbot.mouseClick(dlg.export_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: dlg.last_report is not None or dlg.last_error is not None, timeout=20000)
        if dlg.summary_box is not None:
            dlg.summary_box.close()
        assert dlg.last_error is None
        names = set(_csv_column(out, "label"))
        assert ("=cart" in names, "'=cart" in names) == ((True, False) if tick else (False, True))
