"""The window never shows another project's state (issue 32, item 6): after a switch of project, and after
File ▸ Import a benchmark… from inside a project, a walk through every tab finds nothing of the project left.

Project A is the demo (media, tasks, runs, scores, a rating set); what it shows is named from its own records
through the headless services, so the walk looks for those names, not for widget internals.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtWidgets import (QAbstractButton, QAbstractItemView, QComboBox, QLabel, QLineEdit, QPlainTextEdit,
                               QTextEdit, QWidget)

from fieldstudio.inference import profiles
from fieldstudio.inference.runs import views as run_views
from fieldstudio.media import inventory
from fieldstudio.ratings import rating_records
from fieldstudio.store.project import Project
from fieldstudio.tasks import task_records
from fieldstudio.tasks.importing import import_tasks
from tests.support.gui_support import open_project_and_wait, wait_idle

pytestmark = pytest.mark.gui

TABS = ("tasks", "runs", "comparison", "rater", "agreement")
B_TASKS = ("task_id,query,answer_type,ground_truth,category,sub_category,scenario,inputs,eval_func,output_format,"
           "extra\n"
           "fl-01,How many forklifts cross the aisle?,count,2,Forklifts,,warehouse,,,,\n"
           "fl-02,Does a forklift stop at the line?,yes_no,Yes,Forklifts,,warehouse,,,,\n"
           "ld-01,How long does the loading take?,duration_s,41,Loading,,warehouse,,,,\n")


def b_tasks_file(folder: Path) -> Path:
    path = folder / "b_tasks.csv"
    path.write_text(B_TASKS, encoding="utf-8")
    return path


def names_of(project: Project) -> tuple[set[str], set[str]]:
    """(strings that name this project's records anywhere in a text, categories that fill a cell or a combo
    item on their own, with a count in brackets or not): media file names, task ids and questions, run and
    rating set names."""
    tasks = task_records.list_tasks(project)
    anywhere = {c.file_name for c in inventory.media_choices(project)}
    anywhere |= {t.external_id for t in tasks if t.external_id} | {t.query for t in tasks}
    anywhere |= {r.name for r in run_views.list_runs(project)}
    anywhere |= {s.name for s in rating_records.list_rating_sets(project)}
    return anywhere, {t.category for t in tasks if t.category}


def columns_of(model) -> int:  # noqa: ANN001 - QAbstractItemModel
    try:
        return model.columnCount()
    except TypeError:  # a list model keeps its columnCount private: one column
        return 1


def shown_texts(window: QWidget) -> list[str]:
    """Every text the window shows now: visible labels, fields, buttons, combo items, the cells of visible
    lists and tables, text panes, the title and the status bar's message."""
    out = [window.windowTitle(), window.statusBar().currentMessage()]
    for w in window.findChildren(QWidget):
        if not w.isVisible():
            continue
        if isinstance(w, (QLabel, QLineEdit, QAbstractButton)):
            out.append(w.text())
        elif isinstance(w, (QTextEdit, QPlainTextEdit)):
            out.append(w.toPlainText())
        elif isinstance(w, QComboBox):
            out += [w.itemText(i) for i in range(w.count())]
        elif isinstance(w, QAbstractItemView) and w.model() is not None:
            m = w.model()
            out += [str(m.index(r, c).data() or "") for r in range(m.rowCount()) for c in range(columns_of(m))]
    return [t for t in out if t]


def left_over(texts: list[str], anywhere: set[str], categories: set[str]) -> list[str]:
    return sorted({t for t in texts for name in anywhere if name in t}
                  | {t for t in texts for c in categories if re.fullmatch(rf"{re.escape(c)}( \(\d+\))?", t)})


def walk(window, qtbot) -> dict[str, list[str]]:  # noqa: ANN001 - MainWindow, QtBot
    """Each tab brought forward (Media first) and what it shows once its panel has read the project."""
    seen = {}
    window.modes.setCurrentIndex(0)
    qtbot.wait(100)
    seen["media"] = shown_texts(window)
    for name in TABS:
        panel = window.workspace.show_panel(name)
        if name == "comparison":
            qtbot.waitUntil(lambda p=panel: p.view is not None or p.project is None, timeout=20000)
        if name in ("tasks", "runs"):                                 # read on a worker
            qtbot.waitUntil(lambda p=panel: not p.loading(), timeout=20000)
        qtbot.wait(200)
        seen[name] = shown_texts(window)
    window.modes.setCurrentIndex(0)
    return seen


def set_state_everywhere(w, qtbot) -> None:  # noqa: ANN001 - MainWindow, QtBot
    """Project A's work in every tab: a video at frame 30 with the ruler tool, a task in the editor, a category
    chosen to run on with ids typed, a run and its answers, Compare filtered, a rating set and its item."""
    p = w.state.project
    video = next(c for c in inventory.media_choices(p) if c.kind == "video")
    w.state.request_frame(video.id, 30)
    qtbot.waitUntil(lambda: w.state.media is not None and w.state.frame_index == 30, timeout=10000)
    wait_idle(w, qtbot)
    w.actions["ruler_tool"].trigger()
    tasks = w.workspace.show_panel("tasks")
    qtbot.waitUntil(lambda: not tasks.loading(), timeout=20000)     # the tasks are read on a worker
    first = task_records.list_tasks(p)[0]
    assert tasks.select_task(first.id)
    runs = w.workspace.show_panel("runs")
    qtbot.waitUntil(lambda: not runs.loading(), timeout=20000)      # its facets are read on a worker
    runs.scope.setCurrentIndex(runs.scope.findData("category"))
    runs.category.setCurrentIndex(1)
    runs.task_ids.setText(first.external_id)
    runs.unanswered.setChecked(True)
    runs.new_run.setChecked(True)
    runs.history.refresh(select=run_views.list_runs(p)[0].id)
    assert runs.history.answers_model.rowCount() > 0
    compare = w.workspace.show_panel("comparison")
    qtbot.waitUntil(lambda: compare.view is not None, timeout=20000)
    compare.wrong_check.setChecked(True)
    compare.search_edit.setText(first.external_id)
    rater = w.workspace.show_panel("rater")
    assert rater.set_combo.count() > 0 and rater.item is not None
    w.workspace.show_panel("agreement")


def test_a_switch_of_project_leaves_nothing_of_the_previous_one_in_any_tab(demo_window, qtbot, tmp_path):
    w = demo_window
    with Project.create(tmp_path / "b.fieldstudio", name="project b") as b:
        import_tasks(b, [b_tasks_file(tmp_path)])
    anywhere, categories = names_of(w.state.project)
    set_state_everywhere(w, qtbot)
    before = walk(w, qtbot)
    # the walk sees project A's names where A is open: it would see them after the switch too
    assert all(left_over(before[tab], anywhere, categories) for tab in ("media", "tasks", "runs", "comparison",
                                                                          "rater"))

    open_project_and_wait(w, qtbot, tmp_path / "b.fieldstudio")
    after = walk(w, qtbot)
    assert {tab: left_over(texts, anywhere, categories) for tab, texts in after.items()} == \
        {tab: [] for tab in after}
    # what each tab shows is project B's, with nothing chosen from before
    runs = w.workspace.panels["runs"]
    assert runs.scope.currentData() == "all" and runs.task_ids.text() == ""
    assert not runs.unanswered.isChecked() and not runs.new_run.isChecked()
    assert [runs.category.itemText(i) for i in range(runs.category.count())] == ["Forklifts (2)", "Loading (1)"]
    qtbot.waitUntil(lambda: runs.task_count.text() == "3 task(s) chosen", timeout=5000)
    assert runs.progress_label.text() == "No run yet." and runs.history.runs_model.rowCount() == 0
    compare = w.workspace.panels["comparison"]
    assert not compare.wrong_check.isChecked() and compare.search_edit.text() == ""
    assert w.workspace.panels["tasks"].count_label.text() == "3 of 3 tasks"
    assert w.state.media is None and w.state.tool == "select" and w.frame_label.text() == ""
    assert w.windowTitle() == "fieldstudio — project b"


def test_one_category_never_stands_for_every_task(demo_window, qtbot, tmp_path):
    """A project without categories: "One category" says there is none to choose and Start is off (the issue:
    an empty category list beside "886 task(s) chosen", and Start would have sent all 886)."""
    w = demo_window
    with Project.create(tmp_path / "c.fieldstudio") as c:
        path = tmp_path / "plain.csv"
        path.write_text("task_id,query,answer_type,ground_truth\nq1,Is it raining?,yes_no,No\n", encoding="utf-8")
        import_tasks(c, [path])
    open_project_and_wait(w, qtbot, tmp_path / "c.fieldstudio")
    profiles.add_profile(profiles.ModelProfile(name="local", base_url="http://127.0.0.1:9/v1", model="m"))
    runs = w.workspace.show_panel("runs")
    qtbot.waitUntil(lambda: not runs.loading(), timeout=20000)
    runs.reload_profiles()
    assert runs.checked_profile_names() == ["local"]
    runs.scope.setCurrentIndex(runs.scope.findData("category"))
    qtbot.waitUntil(lambda: "category" in runs.task_count.text(), timeout=5000)
    assert runs.task_count.text() == "no category to choose: this project's tasks have none"
    assert not runs.start_button.isEnabled()
    assert runs.start() is None and runs.message.text() == "Not started: no category to choose: this project's " \
                                                           "tasks have none"


def test_import_a_benchmark_from_inside_a_project_resets_the_runs_tab(demo_window, qtbot, tmp_path, monkeypatch):
    from fieldstudio.gui.benchmark_dialog import BenchmarkDialog

    w = demo_window
    anywhere, categories = names_of(w.state.project)
    set_state_everywhere(w, qtbot)
    tasks_file = b_tasks_file(tmp_path)

    def accept(dialog):  # noqa: ANN001, ANN202 - the user fills the dialog and presses OK
        dialog.set_tasks(tasks_file)
        dialog.project_edit.setText(str(tmp_path / "imported.fieldstudio"))
        return BenchmarkDialog.DialogCode.Accepted if dialog.check() else BenchmarkDialog.DialogCode.Rejected

    monkeypatch.setattr(BenchmarkDialog, "exec", accept)
    worker = w.import_benchmark_dialog()
    assert worker is not None
    qtbot.waitUntil(lambda: w.findChild(QWidget, "import_report") is not None, timeout=30000)
    w.findChild(QWidget, "import_report").accept()
    runs = w.workspace.panels["runs"]
    # the tasks arrived after the panel was given the new, empty project: they are in its choice now
    assert [runs.category.itemText(i) for i in range(runs.category.count())] == ["Forklifts (2)", "Loading (1)"]
    assert runs.scope.currentData() == "all"
    qtbot.waitUntil(lambda: runs.task_count.text() == "3 task(s) chosen", timeout=5000)
    runs.scope.setCurrentIndex(runs.scope.findData("category"))
    qtbot.waitUntil(lambda: runs.task_count.text() == "2 task(s) chosen", timeout=5000)   # Forklifts
    after = walk(w, qtbot)
    assert {tab: left_over(texts, anywhere, categories) for tab, texts in after.items()} == \
        {tab: [] for tab in after}
