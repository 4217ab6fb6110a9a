"""The task editor panel, driven through its widgets (pytest-qt); results are read back from the database.

Times come from the hand-written frame table of ``tests/support/annotation_fixtures.py`` (time base 1/90000 s,
PTS 1800 + 3000, 3000, 6000 ticks repeating): frame 3 = 13800 ticks = 0.153333 s, frame 7 = 28800 = 0.32 s.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from PySide6.QtCore import Qt
from sqlalchemy import select

from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.gui.panels.tasks import TaskEditorPanel
from fieldstudio.store.models import Answer, Run, Task, TaskInput
from fieldstudio.tasks import task_records as ts
from fieldstudio.tasks.importing import import_tasks
from tests.support.annotation_fixtures import PHOTO_ID, VIDEO_ID, add_test_media
from tests.support.shared_data import SHARED_DATA
from tests.support.task_editor import choose, panel, rows  # noqa: F401 - panel is the fixture

FWA_GT = sorted((SHARED_DATA / "fieldworkarena" / "ground_truth").glob("Tasks_*.json"))


def replace_text(qtbot, widget, text: str) -> None:
    widget.setFocus()
    widget.selectAll()
    qtbot.keyClicks(widget, text)


def test_new_edit_save_undo_redo(qtbot, panel, project):
    qtbot.mouseClick(panel.new_button, Qt.MouseButton.LeftButton)
    (task,) = rows(project)
    assert (task.source, task.external_id, task.query) == ("manual", "T0001", "New task: write the question")
    replace_text(qtbot, panel.query, "How many people cross the red zone?")
    choose(panel.answer_type, "count")
    replace_text(qtbot, panel.ground_truth, "3")
    choose(panel.scenario, "warehouse")
    assert panel.save_button.isEnabled()
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    (task,) = rows(project)
    assert (task.query, task.answer_type, task.ground_truth, task.scenario) == (
        "How many people cross the red zone?", "count", "3", "warehouse")
    panel.table.setFocus()
    qtbot.keyClick(panel.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    (task,) = rows(project)
    assert (task.query, task.ground_truth, task.answer_type) == ("New task: write the question", None, "free_text")
    assert panel.query.toPlainText() == "New task: write the question"
    qtbot.keyClick(panel.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert rows(project)[0].ground_truth == "3"
    qtbot.keyClick(panel.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(panel.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)   # undo the creation
    assert rows(project) == [] and panel.count_label.text() == "0 of 0 tasks"


def test_validation_is_shown_inline_and_blocks_saving(qtbot, panel, project):
    tid = ts.create_task(project, query="How many forklifts?", answer_type="count", ground_truth="2")
    panel.reload(select_id=tid)
    replace_text(qtbot, panel.ground_truth, "many")
    assert panel.gt_message.isVisible() and "exactly one whole number" in panel.gt_message.text()
    assert not panel.save_button.isEnabled()
    choose(panel.answer_type, "distance")
    replace_text(qtbot, panel.ground_truth, "12")
    assert "a distance needs one number with a unit" in panel.gt_message.text()
    replace_text(qtbot, panel.ground_truth, "12 meters")
    assert not panel.gt_message.isVisible() and panel.save_button.isEnabled()
    # a time range on the video that ends before it starts
    qtbot.mouseClick(panel.add_input, Qt.MouseButton.LeftButton)
    choose(panel.input_media, VIDEO_ID)
    panel.start_frame.setValue(7)
    panel.end_frame.setValue(3)
    assert panel.input_message.isVisible() and "ends (0.153333 s) before it starts (0.32 s)" in panel.input_message.text()
    assert not panel.save_button.isEnabled()
    assert not panel.save()
    assert rows(project)[0].ground_truth == "2"                  # nothing was stored
    panel.end_frame.setValue(9)
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    with project.read() as s:
        (inp,) = s.scalars(select(TaskInput)).all()
    assert (inp.media_id, inp.name) == (VIDEO_ID, "walk.mp4")
    assert inp.start_s == pytest.approx(28800 / 90000) and inp.end_s == pytest.approx(37800 / 90000)
    assert rows(project)[0].ground_truth == "12 meters"


def test_a_time_of_day_is_refused_as_a_time_ground_truth(qtbot, panel, project):
    tid = ts.create_task(project, query="When does the forklift enter?", answer_type="time", ground_truth="00:00:05")
    panel.reload(select_id=tid)
    replace_text(qtbot, panel.ground_truth, "12:30 PM")
    assert panel.gt_message.isVisible()
    assert panel.gt_message.text() == ("'12:30 PM' is a time of day (AM/PM), not a time in the video: give the time "
                                       "from the start of the video, e.g. 00:01:05 (H:MM:SS), 1:05 (M:SS) or 65 s")
    assert not panel.save_button.isEnabled() and not panel.save()
    assert rows(project)[0].ground_truth == "00:00:05"                 # nothing was stored
    choose(panel.answer_type, "time_range")
    replace_text(qtbot, panel.ground_truth, "from 9:05 AM to 9:10 AM")
    assert "'9:05 AM' is a time of day" in panel.gt_message.text()
    choose(panel.answer_type, "time")
    for text in ("12:30", "1:02:03.5"):                               # M:SS and H:MM:SS.s stay times in the video
        replace_text(qtbot, panel.ground_truth, text)
        assert not panel.gt_message.isVisible() and panel.save_button.isEnabled(), text
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    assert rows(project)[0].ground_truth == "1:02:03.5"


def test_go_to_refuses_a_time_of_day():
    from fieldstudio.gui.imaging import parse_time_or_frame

    with pytest.raises(ValueError, match=r"'12:30 PM' is a time of day \(AM/PM\), not a time in the video"):
        parse_time_or_frame("12:30 PM")
    assert parse_time_or_frame("12:30") == ("time", 750.0)
    assert parse_time_or_frame("1:02:03.5") == ("time", pytest.approx(3723.5))


def test_use_current_frame_and_open_at_start(qtbot, panel, project):
    from fieldstudio.gui.state import ViewState
    from fieldstudio.media import library

    tid = ts.create_task(project, query="When does the worker enter?", answer_type="time_range")
    panel.reload(select_id=tid)
    state = ViewState()                                           # the window's: what the viewer shows
    panel.follow_view(state)
    assert not panel.use_start.isEnabled()                        # no viewer position yet
    qtbot.mouseClick(panel.add_input, Qt.MouseButton.LeftButton)
    state.media = library.find_media(project, VIDEO_ID)
    state.show_frame(3, 13800 / 90000)
    qtbot.mouseClick(panel.use_start, Qt.MouseButton.LeftButton)
    state.show_frame(7, 0.32)
    qtbot.mouseClick(panel.use_end, Qt.MouseButton.LeftButton)
    assert panel.input_media.currentData() == VIDEO_ID
    assert (panel.start_frame.value(), panel.end_frame.value()) == (3, 7)
    assert panel.start_time.text() == "0.153 s" and panel.end_time.text() == "0.320 s"
    qtbot.keyClick(panel.query, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)      # Save
    with project.read() as s:
        (inp,) = s.scalars(select(TaskInput)).all()
    assert inp.start_s == pytest.approx(13800 / 90000) and inp.end_s == pytest.approx(0.32)
    with qtbot.waitSignal(panel.open_media_at) as signal:
        qtbot.mouseClick(panel.open_button, Qt.MouseButton.LeftButton)
    assert signal.args == [VIDEO_ID, 3]


def test_filters_and_counts(qtbot, panel, project):
    for ext, cat, typ in (("a", "1.1", "count"), ("b", "1.1", "distance"), ("c", "2.1", "count"),
                          ("d", "2.1", "free_text"), ("e", None, "count")):
        ts.create_task(project, external_id=ext, query=f"question {ext} forklift" if ext in "ac" else f"q {ext}",
                       category=cat, answer_type=typ)
    panel.reload()
    assert panel.count_label.text() == "5 of 5 tasks"
    choose(panel.category_filter, "1.1")
    assert panel.count_label.text() == "2 of 5 tasks"
    choose(panel.type_filter, "count")
    assert panel.count_label.text() == "1 of 5 tasks"
    choose(panel.category_filter, None)
    assert panel.count_label.text() == "3 of 5 tasks"
    qtbot.keyClicks(panel.search, "FORKLIFT")
    assert panel.count_label.text() == "2 of 5 tasks"
    assert [ts.get_task(project, t).external_id for t in panel.visible_task_ids()] == ["a", "c"]
    choose(panel.category_filter, "")                              # "(none)"
    assert panel.count_label.text() == "0 of 5 tasks"


def test_delete_duplicate_and_refused_delete(qtbot, panel, project):
    first = ts.create_task(project, query="Is a hard hat worn?", answer_type="yes_no", ground_truth="yes",
                           inputs=[{"media_id": PHOTO_ID}])
    answered = ts.create_task(project, query="Answered task", ground_truth="x")
    with project.write() as s:
        run = Run(name="model A")
        s.add(run)
        s.flush()
        s.add(Answer(run_id=run.id, task_id=answered, raw_text="x"))
    panel.reload(select_id=first)
    qtbot.mouseClick(panel.duplicate_button, Qt.MouseButton.LeftButton)
    tasks = rows(project)
    assert len(tasks) == 3
    copy = tasks[-1]
    assert (copy.query, copy.ground_truth, copy.external_id) == ("Is a hard hat worn?", "yes", "T0003")
    assert panel.record.id == copy.id
    panel.select_task(first)
    panel.table.setFocus()
    qtbot.keyClick(panel.table, Qt.Key.Key_Delete)
    assert first not in {t.id for t in rows(project)}
    qtbot.keyClick(panel.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert first in {t.id for t in rows(project)} and panel.record.id == first
    with project.read() as s:
        assert s.scalars(select(TaskInput.media_id).where(TaskInput.task_id == first)).all() == [PHOTO_ID]
    panel.select_task(answered)
    qtbot.mouseClick(panel.delete_button, Qt.MouseButton.LeftButton)
    assert answered in {t.id for t in rows(project)}
    assert panel.edit_message.isVisible() and "has 1 answer" in panel.edit_message.text()


def test_ground_truth_linked_to_a_ruler(qtbot, panel, project):
    cal_id = cal.save_calibration(project, "scale", [[0, 0], [100, 0]], media_id=PHOTO_ID, length_m=2.0)
    ruler = ann.add_ruler(project, PHOTO_ID, (10, 10), (40, 50))       # 50 px * 2 m / 100 px = 1.00 m
    tid = ts.create_task(project, query="How far apart are the marks?", inputs=[{"media_id": PHOTO_ID}])
    panel.reload(select_id=tid)
    choose(panel.link_kind, "ruler_distance")
    assert panel.link_target.currentData() == ruler
    qtbot.mouseClick(panel.link_button, Qt.MouseButton.LeftButton)
    task = rows(project)[0]
    assert (task.ground_truth, task.answer_type, task.ground_truth_annotation_id) == ("1.00 m", "distance", ruler)
    assert panel.ground_truth.toPlainText() == "1.00 m" and "→ 1.00 m" in panel.link_label.text()
    assert panel.unlink_button.isEnabled()
    cal.save_calibration(project, "scale", [[0, 0], [100, 0]], media_id=PHOTO_ID, length_m=3.0, calibration_id=cal_id)
    panel.refresh_ground_truths()
    # never changed silently: the change is pending until accepted
    assert rows(project)[0].ground_truth == "1.00 m" and panel.ground_truth.toPlainText() == "1.00 m"
    assert "Pending change from annotations: '1.00 m' → '1.50 m'" in panel.pending_label.text()
    assert panel.accept_button.isEnabled()
    qtbot.mouseClick(panel.accept_button, Qt.MouseButton.LeftButton)
    assert rows(project)[0].ground_truth == "1.50 m" and panel.ground_truth.toPlainText() == "1.50 m"
    assert panel.pending_label.text() == "" and not panel.accept_button.isEnabled()
    panel.table.setFocus()
    qtbot.keyClick(panel.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)     # undo the accept
    assert rows(project)[0].ground_truth == "1.00 m" and "'1.00 m' → '1.50 m'" in panel.pending_label.text()
    qtbot.keyClick(panel.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)     # undo the link
    task = rows(project)[0]
    assert task.ground_truth is None and task.ground_truth_annotation_id is None


def test_a_stray_box_makes_a_pending_count_that_changes_only_when_accepted(qtbot, panel, project):
    """Issue 31 item 2's supervisor: one person boxed on the photo, the count task linked to it; a stray box on a
    trash can makes the change 1 → 2 pending (named in the status bar, shown in the form) and nothing changes
    until Accept, which is one undoable edit; Accept all takes every pending change as one edit."""
    import os

    from fieldstudio.annotations import labels
    from fieldstudio.tasks.ground_truth import GroundTruthLink, link_fields

    person = labels.create_label(project, "person")
    ann.add_box(project, PHOTO_ID, (10, 10, 40, 80), person)
    tasks = []
    for i in range(2):
        tid = ts.create_task(project, external_id=f"1.1.000{i + 1}", query="How many people appear in this clip?",
                             inputs=[{"media_id": PHOTO_ID}])
        ts.update_task(project, tid, **link_fields(project, None, GroundTruthLink("count", media_id=PHOTO_ID,
                                                                                   label_id=person)))
        tasks.append(tid)
    panel.reload(select_id=tasks[0])
    messages = []
    panel.status.connect(messages.append)
    ann.add_box(project, PHOTO_ID, (200, 150, 30, 40), person)      # the stray box on the trash can
    panel.on_annotations_changed()
    assert [t.ground_truth for t in rows(project)] == ["1", "1"]
    assert messages[-1].startswith("2 ground truths would change from annotations (pending; Tasks tab): "
                                   "1.1.0001: '1' → '2'")
    assert panel.pending_label.text().startswith("Pending change from annotations: '1' → '2' (2 distinct object(s)")
    assert panel.accept_all_button.text() == "Accept all (2)"
    shots = os.environ.get("FIELDSTUDIO_SHOTS")
    if shots:
        qtbot.wait(100)                          # let the form's layout follow the new texts
        panel.grab().save(os.path.join(shots, "pending_ground_truth_tasks.png"))
    qtbot.mouseClick(panel.accept_button, Qt.MouseButton.LeftButton)
    assert [t.ground_truth for t in rows(project)] == ["2", "1"] and messages[-1].startswith(
        "Ground truth of task 1.1.0001: '1' → '2'")
    assert panel.accept_all_button.text() == "Accept all (1)"
    qtbot.mouseClick(panel.accept_all_button, Qt.MouseButton.LeftButton)
    assert [t.ground_truth for t in rows(project)] == ["2", "2"] and not panel.pending
    panel.undo_stack.undo()                                         # Accept all: one edit
    assert [t.ground_truth for t in rows(project)] == ["2", "1"]
    panel.undo_stack.undo()
    assert [t.ground_truth for t in rows(project)] == ["1", "1"] and len(panel.pending) == 2


@pytest.mark.skipif(not FWA_GT, reason="FieldWorkArena files not available")
def test_fieldworkarena_tasks_listed_and_filtered(qtbot, project, tmp_path):
    assert import_tasks(project, FWA_GT).created == 886
    w = TaskEditorPanel()
    qtbot.addWidget(w)
    w.resize(1400, 860)
    w.show()
    with qtbot.waitSignal(w.loaded, timeout=20000):
        w.set_project(project)
    records = [r for f in FWA_GT for r in json.loads(f.read_text(encoding="utf-8"))]
    per_category = Counter(r["id"][:-5] for r in records)
    assert w.count_label.text() == "886 of 886 tasks"
    choose(w.category_filter, "2.1")
    assert w.count_label.text() == f"{per_category['2.1']} of 886 tasks" == "242 of 886 tasks"
    choose(w.category_filter, None)
    choose(w.type_filter, "json_report")
    json_tasks = sum(r.get("eval_func") == "json_match" or r.get("output_format") == "json" for r in records)
    assert w.count_label.text() == f"{json_tasks} of 886 tasks"
    choose(w.type_filter, None)
    qtbot.keyClicks(w.search, "4.1.0051")
    assert w.count_label.text() == "1 of 886 tasks"
    w.search.clear()
    w.select_task(w.visible_task_ids()[3])
    assert w.id_edit.text() == records[3]["id"] and w.query.toPlainText() == records[3]["conversations"][0]["value"]
    w.grab().save(str(tmp_path / "tasks_fwa.png"))


def test_switching_tasks_saves_valid_changes_and_keeps_invalid_ones_on_screen(qtbot, panel, project):
    a = ts.create_task(project, external_id="a", query="Count?", answer_type="count", ground_truth="2")
    b = ts.create_task(project, external_id="b", query="Other", ground_truth="x")
    panel.reload(select_id=a)
    replace_text(qtbot, panel.ground_truth, "4")
    panel.table.selectRow(1)                                       # choose task b: the valid edit is saved
    assert ts.get_task(project, a).ground_truth == "4" and panel.record.id == b
    panel.table.selectRow(0)
    replace_text(qtbot, panel.ground_truth, "lots")
    panel.table.selectRow(1)                                       # invalid: stays on a, nothing stored
    assert panel.record.id == a and panel.ground_truth.toPlainText() == "lots"
    assert ts.get_task(project, a).ground_truth == "4"
    qtbot.mouseClick(panel.revert_button, Qt.MouseButton.LeftButton)
    assert panel.ground_truth.toPlainText() == "4" and not panel.gt_message.isVisible()


def test_an_imported_benchmark_task_is_locked_until_unlocked(qtbot, panel, project):
    from fieldstudio.annotations import labels
    from fieldstudio.tasks import ground_truth as gt

    person = labels.create_label(project, "person")
    ann.add_box(project, PHOTO_ID, (10, 10, 40, 80), person)
    tid = ts.create_task(project, external_id="1.1.0001", query="How many people?", inputs=[{"media_id": PHOTO_ID}])
    ts.update_task(project, tid, **gt.link_fields(project, None, gt.GroundTruthLink("count", media_id=PHOTO_ID,
                                                                                     label_id=person)))
    with project.write() as s:                          # as a FieldWorkArena import leaves it
        s.get(Task, tid).source = "fieldworkarena"
    ann.add_box(project, PHOTO_ID, (200, 150, 30, 40), person)
    panel.reload(select_id=tid)
    panel.on_annotations_changed()
    assert not panel.pending and panel.lock_box.isVisible() and panel.lock_box.isChecked()
    assert "imported from FieldWorkArena" in panel.lock_box.toolTip()
    (change,) = gt.pending_changes(project)
    assert not change.ok and change.explanation.startswith("locked: imported from FieldWorkArena")
    qtbot.mouseClick(panel.lock_box, Qt.MouseButton.LeftButton)        # unlock: one edit; the change is offered
    assert not panel.lock_box.isChecked() and "'1' → '2'" in panel.pending_label.text()
    assert rows(project)[0].ground_truth == "1"
    panel.undo_stack.undo()
    assert panel.lock_box.isChecked() and not panel.pending


def test_the_tasks_are_read_on_a_worker_and_an_edit_meanwhile_is_not_undone(qtbot, project):
    """Opening a project reads its tasks on a worker (``loaded`` when shown); a task made before that read is shown
    stays in the list: the late read is dropped, not shown over it."""
    add_test_media(project)
    for k in range(3):
        ts.create_task(project, query=f"question {k}?", external_id=f"e{k}")
    w = TaskEditorPanel()
    qtbot.addWidget(w)
    w.show()
    loaded: list[bool] = []
    w.loaded.connect(lambda: loaded.append(True))
    w.set_project(project)
    assert w.loading() and w.count_label.text() == "loading…"
    qtbot.mouseClick(w.new_button, Qt.MouseButton.LeftButton)      # an edit before the read is shown
    assert not w.loading() and w.count_label.text() == "4 of 4 tasks" and loaded == [True]
    qtbot.wait(500)                                                 # the worker's read, if it ended, is dropped
    assert w.count_label.text() == "4 of 4 tasks" and loaded == [True] and len(rows(project)) == 4
    with qtbot.waitSignal(w.loaded, timeout=20000):
        w.set_project(project)
    assert w.count_label.text() == "4 of 4 tasks" and loaded == [True, True]
    w.search.setText("QUESTION 1")                                  # the model's own filter, case-insensitive
    assert w.count_label.text() == "1 of 4 tasks" and w.visible_task_ids() == [
        t.id for t in rows(project) if t.query == "question 1?"]
