"""The task service (store/tasks.py) and ground truth linked to annotations (store/ground_truth.py).

Expected values are computed by hand from the frame table of ``tests/support/annotation_fixtures.py`` (time base
1/90000 s, PTS 1800 + 3000, 3000, 6000 ticks repeating) and from ruler lengths chosen as 3-4-5 triangles.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations import labels
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.core.errors import NotFound
from fieldstudio.tasks import task_records as ts
from tests.support.undo_stack import UndoStack
from fieldstudio.store.models import Answer, Run, Task, TaskInput
from fieldstudio.tasks.ground_truth import GroundTruthLink, LinkError, clock, compute, link_fields, refresh_linked
from tests.support.annotation_fixtures import PHOTO_ID, VIDEO_ID


# ---------------------------------------------------------------- validation
@pytest.mark.parametrize("answer_type, gt, ok", [
    ("count", "3", True), ("count", "three people", True), ("count", "three or four", False),
    ("distance", "12 meters", True), ("distance", "12", False), ("duration", "12.5 s", True),
    ("time", "00:01:05", True), ("time", "soon", False),
    ("time_range", "from 00:00:10 to 00:02:36", True), ("time_range", "from 00:02:00 to 00:01:00", False),
    ("time_range", "at 00:00:10", False), ("yes_no", "No, nobody.", True), ("yes_no", "maybe", False),
    ("choice", "B", True), ("choice", "the second", False), ("json_report", "{\"total_violations\": 0}", True),
    ("json_report", "{total: 0", False), ("free_text", "anything", True), ("list", "a, b", True),
])
def test_ground_truth_parses_as_its_type(answer_type, gt, ok):
    assert (ts.ground_truth_issue(answer_type, gt) is None) == ok


def test_validate_names_each_problem():
    issues = ts.validate({"query": " ", "answer_type": "count", "ground_truth": "many", "scenario": "mine",
                          "tolerances": {"r_th": -1}, "inputs": [{"name": "a.mp4", "start_s": 5.0, "end_s": 2.0}]})
    assert sorted(i.field for i in issues) == ["ground_truth", "inputs", "query", "scenario", "tolerances"]
    assert any("ends (2 s) before it starts (5 s)" in i.message for i in issues)
    (warning,) = ts.validate({"query": "q", "answer_type": "count", "ground_truth": ""})
    assert warning.severity == "warning" and warning.field == "ground_truth"


# ---------------------------------------------------------------- create, change, delete, undo
def test_create_update_delete_with_undo(media_project):
    p = media_project
    stack = UndoStack()
    create = stack.push(ts.CreateTask(p, query="How many people enter?", answer_type="count", ground_truth="2",
                                      scenario="warehouse", inputs=[{"media_id": VIDEO_ID, "start_s": 0.02,
                                                                     "end_s": 0.32}]))
    rec = ts.get_task(p, create.task_id)
    assert (rec.external_id, rec.source, rec.missing_media) == ("T0001", "manual", False)
    assert rec.inputs == ({"name": "walk.mp4", "media_id": VIDEO_ID, "start_s": 0.02, "end_s": 0.32},)
    stack.push(ts.UpdateTask(p, create.task_id, ground_truth="3", inputs=[{"name": "gone.mp4"}]))
    rec = ts.get_task(p, create.task_id)
    assert rec.ground_truth == "3" and rec.missing_media is True
    stack.undo()
    rec = ts.get_task(p, create.task_id)
    assert rec.ground_truth == "2" and rec.missing_media is False and rec.inputs[0]["media_id"] == VIDEO_ID
    stack.push(ts.DeleteTask(p, create.task_id))
    with pytest.raises(NotFound):
        ts.get_task(p, create.task_id)
    stack.undo()
    assert ts.get_task(p, create.task_id).ground_truth == "2"
    stack.undo()  # the creation
    assert ts.list_tasks(p) == []
    stack.redo()
    assert [t.id for t in ts.list_tasks(p)] == [create.task_id]
    with p.read() as s:
        assert s.scalars(select(TaskInput.name)).all() == ["walk.mp4"]


def test_invalid_changes_are_refused_and_nothing_is_stored(media_project):
    p = media_project
    tid = ts.create_task(p, query="Distance?", answer_type="distance", ground_truth="2 m")
    with pytest.raises(ts.TaskError, match="a distance needs one number with a unit"):
        ts.update_task(p, tid, ground_truth="two")
    with pytest.raises(ts.TaskError, match="ends"):
        ts.update_task(p, tid, inputs=[{"media_id": VIDEO_ID, "start_s": 0.3, "end_s": 0.1}])
    with pytest.raises(ts.TaskError, match="a yes/no ground truth must say yes or no"):
        ts.update_task(p, tid, answer_type="yes_no")         # the stored "2 m" is checked against the new type
    rec = ts.get_task(p, tid)
    assert (rec.answer_type, rec.ground_truth, rec.inputs) == ("distance", "2 m", ())
    other = ts.create_task(p, query="x", external_id="A1")
    with pytest.raises(ts.TaskError, match="exists already"):
        ts.update_task(p, other, external_id=rec.external_id)


def test_a_task_with_answers_is_not_deleted(project):
    tid = ts.create_task(project, query="q", ground_truth="a")
    with project.write() as s:
        run = Run(name="m")
        s.add(run)
        s.flush()
        s.add(Answer(run_id=run.id, task_id=tid, raw_text="a"))
    with pytest.raises(ts.TaskError, match="has 1 answer"):
        ts.delete_task(project, tid)
    with project.read() as s:
        assert s.get(Task, tid) is not None


def test_frames_and_seconds_from_the_frame_table(media_project):
    # PTS(3) = 1800 + 3000 + 3000 + 6000 = 13800 ticks = 0.153333 s; PTS(4) = 16800 = 0.186667 s
    assert ts.frame_time_s(media_project, VIDEO_ID, 3) == pytest.approx(13800 / 90000)
    assert ts.frame_at_time(media_project, VIDEO_ID, 0.16) == 3
    assert ts.frame_at_time(media_project, VIDEO_ID, 0.18) == 4
    assert ts.frame_at_time(media_project, VIDEO_ID, 13800 / 90000) == 3
    with pytest.raises(NotFound):
        ts.frame_time_s(media_project, VIDEO_ID, 30)


# ---------------------------------------------------------------- ground truth from annotations
def test_clock():
    assert clock(75.5) == "00:01:15.500" and clock(3661.0004) == "01:01:01.000"


def test_ruler_distance_follows_the_calibration_and_the_ruler(media_project):
    p = media_project
    cal_id = cal.save_calibration(p, "scale", [[0, 0], [100, 0]], media_id=PHOTO_ID, length_m=2.0)
    ruler = ann.add_ruler(p, PHOTO_ID, (10, 10), (40, 50))                # 30-40-50 px -> 50 * 2 / 100 = 1.00 m
    tid = ts.create_task(p, query="How far apart are the two marks?")
    ts.update_task(p, tid, **link_fields(p, None, GroundTruthLink("ruler_distance", annotation_id=ruler)))
    rec = ts.get_task(p, tid)
    assert (rec.ground_truth, rec.answer_type, rec.ground_truth_annotation_id) == ("1.00 m", "distance", ruler)
    assert refresh_linked(p) == []                                        # nothing changed
    cal.save_calibration(p, "scale", [[0, 0], [100, 0]], media_id=PHOTO_ID, length_m=3.0, calibration_id=cal_id)
    (change,) = refresh_linked(p)
    assert (change.old, change.new, change.ok) == ("1.00 m", "1.50 m", True)
    ann.update_geometry(p, ruler, [[10, 10], [70, 90]])                   # 60-80-100 px -> 3.00 m
    refresh_linked(p)
    assert ts.get_task(p, tid).ground_truth == "3.00 m"
    ann.delete(p, ruler)
    (change,) = refresh_linked(p)
    assert not change.ok and "deleted" in change.explanation and ts.get_task(p, tid).ground_truth == "3.00 m"
    ts.update_task(p, tid, **link_fields(p, rec.ground_truth_extra, None))
    assert refresh_linked(p) == [] and ts.get_task(p, tid).ground_truth_annotation_id is None


def test_uncalibrated_ruler_gives_no_value(media_project):
    ruler = ann.add_ruler(media_project, PHOTO_ID, (0, 0), (30, 40))
    value = compute(media_project, GroundTruthLink("ruler_distance", annotation_id=ruler))
    assert not value.ok and "50.0 px" in value.explanation
    with pytest.raises(LinkError, match="no ground truth from this link"):
        link_fields(media_project, None, GroundTruthLink("ruler_distance", annotation_id=ruler))


def test_segment_range_duration_and_event_time(media_project):
    """Times are seconds after the first frame (PTS(0) = 1800 ticks = 0.02 s), the clock of the timestamps sent
    with frames and of a typed reference."""
    p = media_project
    seg = ann.add_segment(p, VIDEO_ID, None, 3, 7)
    # PTS(3) = 13800 -> (13800 - 1800) / 90000 = 0.133333 s; PTS(7) = 1800 + 2 * 12000 + 3000 = 28800 -> 0.3 s
    rng = compute(p, GroundTruthLink("segment_range", annotation_id=seg))
    assert rng.text == "from 00:00:00.133 to 00:00:00.300"
    assert rng.value == pytest.approx((12000 / 90000, 0.3))
    assert ts.ground_truth_issue("time_range", rng.text) is None
    assert compute(p, GroundTruthLink("segment_duration", annotation_id=seg)).text == "0.167 s"  # 0.32 - 0.15333
    ann.close_segment(p, seg, 9)                                   # PTS(9) = 1800 + 3 * 12000 = 37800 -> 0.4 s
    assert compute(p, GroundTruthLink("segment_range", annotation_id=seg)).text == "from 00:00:00.133 to 00:00:00.400"
    event = ann.add_event(p, VIDEO_ID, 8)                          # PTS(8) = 1800 + 24000 + 6000 = 31800 -> 0.333 s
    assert compute(p, GroundTruthLink("event_time", annotation_id=event)).text == "00:00:00.333"
    opened = ann.add_segment(p, VIDEO_ID, None, 10)
    assert not compute(p, GroundTruthLink("segment_range", annotation_id=opened)).ok
    assert not compute(p, GroundTruthLink("segment_range", annotation_id=event)).ok


def test_counts_of_boxes_and_events(media_project):
    p = media_project
    person = labels.create_label(p, "person")
    forklift = labels.create_label(p, "forklift")
    enter = labels.create_label(p, "enter")
    for frame in (2, 10):
        ann.add_box(p, VIDEO_ID, (10, 10, 20, 40), person, frame_index=frame, track_id=1)
    for frame in (12, 20):
        ann.add_box(p, VIDEO_ID, (100, 10, 20, 40), person, frame_index=frame, track_id=2)
    ann.add_box(p, VIDEO_ID, (200, 10, 20, 40), person, frame_index=5)
    ann.add_box(p, VIDEO_ID, (200, 100, 20, 40), person, frame_index=15)
    ann.add_box(p, VIDEO_ID, (300, 100, 20, 40), person, frame_index=15)
    ann.add_box(p, VIDEO_ID, (400, 100, 50, 40), forklift, frame_index=5)
    for frame in (1, 8, 20):
        ann.add_event(p, VIDEO_ID, frame, enter)

    def count(mode, label=None, start=None, end=None):
        return compute(p, GroundTruthLink("count", media_id=VIDEO_ID, label_id=label, start_frame=start,
                                          end_frame=end, mode=mode)).value

    # objects: tracks 1 (frames 2-10) and 2 (12-20) count once each, single boxes once each
    assert count("objects", person) == 5
    assert count("objects") == 6
    assert count("objects", person, 11, 11) == 0
    assert count("objects", person, 9, 12) == 2
    assert count("objects", person, 13, 16) == 3                # track 2 + the two boxes on frame 15
    # busiest frame: frame 15 holds track 2 and two single boxes; in 0-10 frame 5 holds track 1 + one box
    assert count("max_per_frame", person) == 3
    assert count("max_per_frame", person, 0, 10) == 2
    assert count("max_per_frame", person, 6, 9) == 1            # only track 1 spans these frames
    assert count("events", enter, 0, 10) == 2
    assert count("events", enter) == 3
    tid = ts.create_task(p, query="How many people are boxed in frames 9-12?")
    link = GroundTruthLink("count", media_id=VIDEO_ID, label_id=person, start_frame=9, end_frame=12)
    ts.update_task(p, tid, **link_fields(p, None, link))
    assert (ts.get_task(p, tid).ground_truth, ts.get_task(p, tid).answer_type) == ("2", "count")
    ann.add_box(p, VIDEO_ID, (250, 200, 20, 40), person, frame_index=11)   # a new single box in the range
    (change,) = refresh_linked(p)
    assert (change.old, change.new) == ("2", "3") and ts.get_task(p, tid).ground_truth == "3"


def test_count_on_a_photo(media_project):
    p = media_project
    person = labels.create_label(p, "person")
    for x in (0, 50, 100):
        ann.add_box(p, PHOTO_ID, (x, 0, 40, 40), person)
    assert compute(p, GroundTruthLink("count", media_id=PHOTO_ID, label_id=person, mode="max_per_frame")).value == 3
    assert compute(p, GroundTruthLink("count", media_id=PHOTO_ID, label_id=person)).value == 3
