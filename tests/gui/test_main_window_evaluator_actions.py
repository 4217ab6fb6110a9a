"""The evaluator's actions in the window, on the published FieldWorkArena files: the import report's "Add the
missing media folder…", the welcome screen's "Import a benchmark…", "Run model on these tasks…" from the Tasks
list and the Compare grid, and the Runs tab's "Model profiles…" in view at the default window size.

Expected counts come from the files themselves (task records, their input names, the image files).
"""

from __future__ import annotations

import csv
import json
import os
from collections import Counter
from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox
from sqlalchemy import func, select

from fieldstudio.store.models import Media, Task, TaskInput
from fieldstudio.store.project import Project
from fieldstudio.scoring.imported_answers import import_answers
from fieldstudio.tasks.importing import import_tasks, link_missing_media
from tests.support.gui_support import file_menu_action, import_report, report_rows
from tests.support.shared_data import SHARED_DATA

pytestmark = pytest.mark.gui

FWA = SHARED_DATA / "fieldworkarena"
DEMO_TASKS = FWA / "tasks_v2" / "tasks_demo.json"
DEMO_IMAGES = FWA / "demo_images"
GROUND_TRUTH = FWA / "ground_truth"
SHOTS = Path(os.environ.get("FIELDSTUDIO_SHOTS", "")) if os.environ.get("FIELDSTUDIO_SHOTS") else None


def shot(widget, name: str) -> None:
    """Save a screenshot when FIELDSTUDIO_SHOTS names a folder (to look at; nothing is compared)."""
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        widget.grab().save(str(SHOTS / f"{name}.png"))


def demo_records() -> list[dict]:
    return json.loads(DEMO_TASKS.read_text("utf-8"))


def input_names(record: dict) -> list[str]:
    data = record["input_data"]
    return data.split() if isinstance(data, str) else list(data)


@pytest.fixture(autouse=True)
def _need_data():
    if not DEMO_IMAGES.is_dir() or not GROUND_TRUTH.is_dir():
        pytest.skip(f"shared data not found at {FWA}")


def _report(window, qtbot):
    return import_report(window, qtbot, 90000)


# -- the import report's "Add the missing media folder…" ---------------------------------------------
def test_add_the_missing_media_folder_links_the_tasks(empty_window, qtbot, monkeypatch):
    records = demo_records()
    names = {r["id"]: input_names(r) for r in records}
    images = sorted(p.name for p in DEMO_IMAGES.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    assert sorted(n for ns in names.values() for n in ns) == images   # each demo task names one of the photos
    tasks_panel = empty_window.workspace.show_panel("tasks")
    monkeypatch.setattr(QFileDialog, "getOpenFileNames", lambda *a, **k: ([str(DEMO_TASKS)], ""))
    file_menu_action(empty_window, "Import &tasks…").trigger()
    dialog = _report(empty_window, qtbot)
    missing = {task: detail.split(", ") for what, task, detail in report_rows(dialog) if what == "media not found"}
    assert missing == names
    assert f"{len(names)} task(s) name media that are not in the project" in dialog.summary.text()
    assert [r.missing_media for r in tasks_panel.model.rows] == [True] * len(records)
    assert dialog.add_media_button is not None and dialog.add_media_button.isVisible()
    shot(dialog, "import_report_missing_media")

    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(DEMO_IMAGES))
    dialog.add_media_button.click()
    qtbot.waitUntil(lambda: empty_window.findChild(QMessageBox, "link_summary") is not None, timeout=90000)
    text = empty_window.findChild(QMessageBox, "link_summary").text()
    assert text.splitlines() == [f"Media: {len(images)} images added.",
                                 f"{len(images)} task input(s) linked; {len(records)} task(s) now have all their media."]
    # the widgets read the project again: no task is marked, the library lists the photos
    assert [r.missing_media for r in tasks_panel.model.rows] == [False] * len(records)
    assert sorted(empty_window.library.visible_ids()) == sorted(_media_ids(empty_window.state.project))
    with empty_window.state.project.read() as s:
        linked = dict(s.execute(select(TaskInput.name, Media.file_name).join(Media, TaskInput.media_id == Media.id)).all())
    assert linked == {n: n for n in images}


def _media_ids(project: Project) -> list[str]:
    with project.read() as s:
        return list(s.scalars(select(Media.id)))


def test_link_missing_media_leaves_unmatched_and_rejected_inputs_marked(tmp_path):
    p = Project.create(tmp_path / "q.fieldstudio")
    tasks = tmp_path / "tasks.csv"
    with tasks.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["task_id", "query", "ground_truth", "inputs"])
        w.writerow(["a", "Is a worker visible?", "yes", "worksite_a.jpg"])
        w.writerow(["b", "Is a crane visible?", "no", "not_in_any_folder.jpg"])
        w.writerow(["c", "Escapes?", "no", "../outside.jpg"])
    report = import_tasks(p, [tasks])
    assert report.created == 3 and set(report.missing_media) == {"a", "b", "c"}
    from fieldstudio.media import library

    library.add_paths(p, [DEMO_IMAGES])
    linked = link_missing_media(p)
    assert (linked.inputs_linked, linked.tasks_completed) == (1, 1)
    assert linked.still_missing == {"b": ["not_in_any_folder.jpg"], "c": ["../outside.jpg"]}
    with p.read() as s:
        assert dict(s.execute(select(Task.external_id, Task.missing_media)).all()) == {"a": False, "b": True, "c": True}
    assert link_missing_media(p).inputs_linked == 0   # nothing new: nothing changes
    p.close()


# -- the welcome screen's "Import a benchmark…" ------------------------------------------------------
def _accept_benchmark(monkeypatch, project: Path, tasks: Path, media: Path | None, seen: list):
    from fieldstudio.gui.benchmark_dialog import BenchmarkDialog

    def exec_(dialog):
        dialog.set_tasks(tasks)
        if media is not None:
            dialog.media_edit.setText(str(media))
        dialog.project_edit.setText(str(project))
        seen.append((dialog.tasks_info.text(), dialog.message.text(), dialog.ok_button.isEnabled()))
        shot(dialog, "import_benchmark_dialog")
        return BenchmarkDialog.DialogCode.Accepted if dialog.check() else BenchmarkDialog.DialogCode.Rejected

    monkeypatch.setattr(BenchmarkDialog, "exec", exec_)


def test_import_a_benchmark_folder_from_the_welcome_screen(qtbot, tmp_path, monkeypatch):
    from fieldstudio.gui.main_window import MainWindow

    records = [r for f in sorted(GROUND_TRUTH.glob("Tasks_*.json")) for r in json.loads(f.read_text("utf-8"))]
    ids = {r["id"] for r in records}
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    assert w.view.stack.currentWidget() is w.view.welcome and w.view.welcome.benchmark_button.isVisible()
    shot(w, "welcome")
    out = tmp_path / "fwa.fieldstudio"
    seen: list = []
    _accept_benchmark(monkeypatch, out, GROUND_TRUTH, None, seen)
    qtbot.mouseClick(w.view.welcome.benchmark_button, Qt.MouseButton.LeftButton)
    dialog = _report(w, qtbot)
    n_files = len([p for p in GROUND_TRUTH.iterdir() if p.suffix == ".json"])
    assert seen == [(f"{n_files} task file(s) in the folder; the format is detected per file", "", True)]
    assert dialog.summary.text().startswith(f"Tasks: {len(ids)} created, 0 updated.")
    per_category = {cat: int(detail.split()[0]) for what, cat, detail in report_rows(dialog) if what == "tasks"}
    assert per_category == Counter(i.rsplit(".", 1)[0] for i in ids)
    # long file names do not squeeze the detail column; every cell reads whole in its tooltip
    from fieldstudio.gui.file_menu import MIDDLE_COLUMN_MAX_PX

    assert dialog.table.columnWidth(1) <= MIDDLE_COLUMN_MAX_PX
    cells = [dialog.table.item(r, c) for r in range(dialog.table.rowCount()) for c in range(3)]
    assert all(i.toolTip() == i.text() for i in cells)
    assert w.state.project is not None and w.state.project.path == out.resolve()
    tasks_panel = w.workspace.show_panel("tasks")
    qtbot.waitUntil(lambda: not tasks_panel.loading(), timeout=20000)   # read on a worker
    assert tasks_panel.count_label.text() == f"{len(ids)} of {len(ids)} tasks"
    shot(dialog, "import_benchmark_report")


def test_import_a_benchmark_with_its_media_links_every_task(qtbot, tmp_path, monkeypatch):
    from fieldstudio.gui.main_window import MainWindow

    records = demo_records()
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    seen: list = []
    _accept_benchmark(monkeypatch, tmp_path / "demo.fieldstudio", DEMO_TASKS, DEMO_IMAGES, seen)
    worker = w.import_benchmark_dialog()
    assert worker is not None and seen[0][:2] == ("fieldworkarena task file", "")
    dialog = _report(w, qtbot)
    assert dialog.summary.text().splitlines()[:2] == [f"Media: {len(records)} images added.",
                                                      f"Tasks: {len(records)} created, 0 updated."]
    assert not [row for row in report_rows(dialog) if row[0] == "media not found"]
    assert dialog.add_media_button is None            # nothing is missing: no button
    assert len(w.library.visible_ids()) == len(records)


def test_benchmark_dialog_names_what_is_wrong(qtbot, tmp_path):
    from fieldstudio.gui.benchmark_dialog import BenchmarkDialog

    d = BenchmarkDialog(folder=tmp_path)
    qtbot.addWidget(d)
    assert not d.ok_button.isEnabled() and "Choose a task file" in d.message.text()
    answers = tmp_path / "answers.csv"
    answers.write_text("task_id,answer\nt1,x\n", encoding="utf-8")
    d.set_tasks(answers)
    assert d.project_edit.text() == str(tmp_path / "answers.fieldstudio")   # named for the tasks
    assert "answers.csv: not a task file: it looks like csv-answers (answers)" in d.message.text()
    d.set_tasks(GROUND_TRUTH)
    assert d.project_edit.text() == str(tmp_path / "fieldworkarena.fieldstudio")   # the folder's parent
    d.media_edit.setText(str(tmp_path / "nowhere"))
    assert d.message.text() == f"{tmp_path / 'nowhere'}: is not a folder." and not d.ok_button.isEnabled()
    d.media_edit.setText(str(DEMO_IMAGES))
    Project.create(tmp_path / "fieldworkarena.fieldstudio").close()
    d.check()
    assert "exists already" in d.message.text() and not d.ok_button.isEnabled()
    d.project_edit.setText(str(tmp_path / "new"))
    assert d.ok_button.isEnabled() and d.values() == (tmp_path / "new.fieldstudio", GROUND_TRUTH, DEMO_IMAGES)


# -- "Run model on these tasks…" ---------------------------------------------------------------------
def _select_rows(view, rows: list[int]) -> None:
    selection = QItemSelection()
    model = view.model()
    for r in rows:
        selection.select(model.index(r, 0), model.index(r, 0))
    view.selectionModel().select(selection, QItemSelectionModel.SelectionFlag.ClearAndSelect
                                 | QItemSelectionModel.SelectionFlag.Rows)


def test_run_model_on_the_tasks_selected_in_the_tasks_tab(empty_window, qtbot):
    from fieldstudio.gui.panels.run_choice import SCOPE_IDS

    import_tasks(empty_window.state.project, [DEMO_TASKS, GROUND_TRUTH / "Tasks_2.1.json"])
    n_21 = len(json.loads((GROUND_TRUTH / "Tasks_2.1.json").read_text("utf-8")))
    tasks_panel = empty_window.workspace.show_panel("tasks")
    tasks_panel.reload()
    _select_rows(tasks_panel.table, [1, 3])
    chosen = tasks_panel.selected_task_ids()
    assert len(chosen) == 2
    menu = tasks_panel.run_menu.menu()
    on_selected, on_shown = menu.actions()
    assert on_selected.text() == "Run model on these tasks… (2 selected)"
    assert on_shown.text() == f"Run model on all {len(records := demo_records()) + n_21} tasks shown…"
    on_selected.trigger()
    runs = empty_window.workspace.panels["runs"]
    assert empty_window.modes.currentWidget() is empty_window.workspace._pages["runs"]
    assert runs.scope.currentData() == SCOPE_IDS and runs.task_ids.text() == ", ".join(chosen)
    runs.update_estimate()
    assert runs.task_count.text() == "2 task(s) chosen"

    tasks_panel.category_filter.setCurrentIndex(tasks_panel.category_filter.findData("demo"))
    on_shown = tasks_panel.run_menu.menu().actions()[1]
    assert on_shown.text() == f"Run model on all {len(records)} tasks shown…"
    on_shown.trigger()
    runs.update_estimate()
    assert runs.task_count.text() == f"{len(records)} task(s) chosen"


def test_run_model_on_the_tasks_selected_in_the_compare_grid(empty_window, qtbot, tmp_path):
    import_tasks(empty_window.state.project, [DEMO_TASKS])
    records = demo_records()
    answers = tmp_path / "answers.csv"
    answers.write_text("task_id,answer\n" + "".join(f"{r['id']},yes\n" for r in records), encoding="utf-8")
    assert import_answers(empty_window.state.project, answers, "sample: yes-sayer").answers_imported == len(records)
    with qtbot.waitSignal(empty_window.workspace.panel("comparison").loaded, timeout=60000):
        compare = empty_window.workspace.show_panel("comparison")
    assert compare.proxy.rowCount() == len(records)
    # two cells of the same task and one of another: two tasks
    model, sel = compare.table.model(), compare.table.selectionModel()
    last = model.columnCount() - 1
    for r, c in ((0, 0), (0, last), (2, last)):
        sel.select(model.index(r, c), QItemSelectionModel.SelectionFlag.Select)
    expected = [str(compare.model.grid.tasks.at[compare.proxy.mapToSource(model.index(r, 0)).row(), "task_id"])
                for r in (0, 2)]
    on_selected, on_shown = compare.run_menu.menu().actions()
    assert on_selected.text() == "Run model on these tasks… (2 selected)"
    assert on_shown.text() == f"Run model on all {len(records)} tasks shown…"
    on_selected.trigger()
    runs = empty_window.workspace.panels["runs"]
    assert empty_window.modes.currentWidget() is empty_window.workspace._pages["runs"]
    assert runs.task_ids.text() == ", ".join(expected)
    with empty_window.state.project.read() as s:
        ids = set(s.scalars(select(Task.id)))
    assert set(expected) <= ids and s is not None


# -- the Runs tab at the window's default size -------------------------------------------------------
def test_model_profiles_button_is_fully_visible_at_the_default_size(empty_window, qtbot):
    import_tasks(empty_window.state.project, [DEMO_TASKS])
    assert (empty_window.width(), empty_window.height()) == (1400, 860)   # MainWindow's default size (no saved geometry)
    runs = empty_window.workspace.show_panel("runs")
    # the library and properties docks hide for the evaluation tabs: the panel then has the window's width
    qtbot.waitUntil(lambda: runs.edit_profiles.isVisible() and runs.width() > empty_window.width() - 40)
    button = runs.edit_profiles
    # nothing clips it: its visible region is the whole button, and it lies inside the window
    assert button.visibleRegion().boundingRect() == button.rect()
    top_left = button.mapTo(empty_window, button.rect().topLeft())
    assert empty_window.rect().contains(top_left) and empty_window.rect().contains(top_left + button.rect().bottomRight())
    shot(empty_window, "runs_tab_default_size")
    with empty_window.state.project.read() as s:
        assert s.scalar(select(func.count()).select_from(Task)) == len(demo_records())


def test_benchmark_dialog_typing_a_path_from_its_root(qtbot, tmp_path, monkeypatch):
    """Typing "/work/…" key by key: the paths are checked once typing pauses, a folder walk is cut short, and a
    project path with no file name ("/") is a message, not a crash (fresh-eyes findings: the first "/" raised
    ValueError in values() and walked the whole disk on the GUI thread)."""
    from fieldstudio.gui import benchmark_dialog
    from fieldstudio.gui.benchmark_dialog import BenchmarkDialog
    from fieldstudio.tasks import importing

    walks: list[Path] = []
    real = importing.count_task_files
    monkeypatch.setattr(importing, "count_task_files", lambda folder, budget_s: walks.append(folder) or real(
        folder, budget_s))
    d = BenchmarkDialog(folder=tmp_path)
    qtbot.addWidget(d)
    d.show()
    qtbot.waitExposed(d)
    d.project_edit.selectAll()
    qtbot.keyClicks(d.project_edit, "/")
    assert d.values()[0] == Path("/")
    qtbot.waitUntil(lambda: "is a folder; name the new project file in it" in d.message.text(), timeout=5000)
    qtbot.keyClicks(d.tasks_edit, str(GROUND_TRUTH))
    assert not d.ok_button.isEnabled()                   # not until the typed paths are checked
    qtbot.waitUntil(lambda: d.tasks_info.text().endswith("the format is detected per file"), timeout=5000)
    assert walks == [GROUND_TRUTH]                      # one walk, after the last key: not one per prefix
    d.project_edit.setText(str(tmp_path / "typed"))
    assert d.ok_button.isEnabled() and d.values()[0] == tmp_path / "typed.fieldstudio"
    # a huge folder is counted for at most COUNT_BUDGET_S and said to be so
    monkeypatch.setattr(benchmark_dialog, "COUNT_BUDGET_S", 0.0)
    d.set_tasks(GROUND_TRUTH.parent)
    assert "found so far: a large folder" in d.tasks_info.text()
