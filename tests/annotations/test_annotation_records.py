"""The annotation service: boxes, tracks, segments, events, tags, labels, undo/redo, missing media.

PTS values come from the hand-written frame table of ``tests.support.annotation_fixtures`` (variable rate,
start PTS 1800, time base 1/90000 s), so a PTS computed from index / fps would not match them.
"""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from fieldstudio.annotations import edits
from fieldstudio.annotations import box_tracks
from fieldstudio.annotations import mark_batches
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.core.errors import NotFound
from tests.support.undo_stack import UndoStack
from fieldstudio.annotations import labels as lab
from fieldstudio.annotations.labels import LabelError
from fieldstudio.annotations.annotation_records import AnnotationError
from fieldstudio.store.models import Annotation
from tests.support.annotation_fixtures import PHOTO_ID, UNINDEXED_ID, VIDEO_ID


@pytest.fixture
def person(media_project):
    return lab.create_label(media_project, "person")


def test_photo_box_is_stored_in_pixels_and_clipped(media_project, person):
    a = ann.add_box(media_project, PHOTO_ID, (390, 280, 30, 40), person, attributes={"vest": "no"})
    rec = ann.get_annotation(media_project, a)
    assert rec.geometry == [390, 280, 400, 300]              # clipped to the 400x300 photo
    assert rec.box_xywh == (390, 280, 10, 20)
    assert rec.frame_index is None and rec.pts is None
    assert rec.label_name == "person" and rec.attributes == {"vest": "no"}
    a0 = ann.add_box(media_project, PHOTO_ID, (1.25, 2.5, 10.75, 3.0), None, frame_index=0)   # 0 = the photo
    assert ann.get_annotation(media_project, a0).geometry == [1.25, 2.5, 12.0, 5.5]
    with pytest.raises(AnnotationError, match="outside"):
        ann.add_box(media_project, PHOTO_ID, (500, 10, 20, 20))
    with pytest.raises(AnnotationError, match="zero width"):
        ann.add_box(media_project, PHOTO_ID, (10, 10, 0, 20))
    with pytest.raises(AnnotationError, match="only frame 0"):
        ann.add_box(media_project, PHOTO_ID, (10, 10, 5, 5), frame_index=3)


def test_video_annotations_take_pts_from_the_frame_table(media_project, person):
    # frame 7: 1800 + (3000 + 3000 + 6000) * 2 + 3000 = 28800 ticks = 0.32 s
    # (index / fps at the clip's average 22.5 fps would say 0.3111 s)
    box = ann.add_box(media_project, VIDEO_ID, (10, 10, 50, 50), person, frame_index=7)
    rec = ann.get_annotation(media_project, box)
    assert rec.pts == 28800 and rec.pts_seconds == pytest.approx(0.32)
    with pytest.raises(AnnotationError, match=r"outside 0\.\.29"):
        ann.add_box(media_project, VIDEO_ID, (10, 10, 50, 50), person, frame_index=30)
    with pytest.raises(AnnotationError, match="needs a frame"):
        ann.add_box(media_project, VIDEO_ID, (10, 10, 50, 50), person)
    with pytest.raises(AnnotationError, match="frame index is not built"):
        ann.add_box(media_project, UNINDEXED_ID, (10, 10, 50, 50), person, frame_index=0)
    with pytest.raises(NotFound):
        ann.add_box(media_project, VIDEO_ID, (10, 10, 50, 50), "nolabel", frame_index=1)


def test_segments_land_on_exact_frames_and_report_duration(media_project, person):
    seg = ann.add_segment(media_project, VIDEO_ID, person, 3)
    assert [r.id for r in ann.open_segments(media_project)] == [seg]
    ann.close_segment(media_project, seg, 11)
    rec = ann.get_annotation(media_project, seg)
    # frame 3: 1800 + 12000 = 13800; frame 11: 1800 + 3 * 12000 + 3000 + 3000 = 43800
    assert (rec.pts, rec.end_pts) == (13800, 43800)
    assert rec.duration_s == pytest.approx(30000 / 90000)
    assert ann.open_segments(media_project) == []
    with pytest.raises(AnnotationError, match="before it starts"):
        ann.close_segment(media_project, seg, 2)
    assert ann.get_annotation(media_project, seg).end_frame_index == 11        # nothing saved
    with pytest.raises(AnnotationError, match="video"):
        ann.add_segment(media_project, PHOTO_ID, person, 0)


def test_overlapping_segments_of_one_label_are_flagged(media_project, person):
    other = lab.create_label(media_project, "forklift")
    a = ann.add_segment(media_project, VIDEO_ID, person, 0, 10)
    b = ann.add_segment(media_project, VIDEO_ID, person, 10, 15)      # shares frame 10 with a
    ann.add_segment(media_project, VIDEO_ID, person, 16, 20)
    ann.add_segment(media_project, VIDEO_ID, other, 5, 25)            # another label: not compared
    pairs = {(x.id, y.id) for x, y in ann.overlapping_segments(media_project)}
    assert pairs == {(a, b)}


def test_events_tags_and_filters(media_project, person):
    ev = ann.add_event(media_project, VIDEO_ID, 4, person, text="enters zone")
    t_media = ann.add_tag(media_project, VIDEO_ID, "blurry")
    t_frame = ann.add_tag(media_project, VIDEO_ID, "no people", frame_index=4)
    t_photo = ann.add_tag(media_project, PHOTO_ID, "night")
    seg = ann.add_segment(media_project, VIDEO_ID, person, 2, 6)
    with pytest.raises(AnnotationError, match="text"):
        ann.add_tag(media_project, PHOTO_ID, "  ")
    assert ann.get_annotation(media_project, t_media).frame_index is None
    on4 = {r.id for r in ann.list_annotations(media_project, frame_index=4)}
    assert on4 == {ev, t_frame, seg}                        # the segment covers frame 4
    assert {r.id for r in ann.list_annotations(media_project, kinds=["tag"])} == {t_media, t_frame, t_photo}
    assert {r.id for r in ann.list_annotations(media_project, label_ids=[person])} == {ev, seg}
    assert {r.id for r in ann.list_annotations(media_project, label_ids=[None], media_id=VIDEO_ID)} == {t_media, t_frame}
    counts = ann.count_annotations(media_project, VIDEO_ID)      # every kind named, zero or not
    assert set(counts) == set(ann.KINDS) and {k: n for k, n in counts.items() if n} == {"segment": 1, "event": 1, "tag": 2}


def test_tracks_interpolate_copy_and_make_keyframes(media_project, person):
    track = box_tracks.next_track_id(media_project, VIDEO_ID)
    assert track == 1
    k0 = ann.add_box(media_project, VIDEO_ID, (0, 0, 10, 10), person, frame_index=0, track_id=track)
    ann.add_box(media_project, VIDEO_ID, (40, 20, 10, 10), person, frame_index=4, track_id=track)
    with pytest.raises(AnnotationError, match="already has a box on frame 4"):
        ann.add_box(media_project, VIDEO_ID, (1, 1, 5, 5), person, frame_index=4, track_id=track)
    shown = box_tracks.boxes_on_frame(media_project, VIDEO_ID, 2)
    assert len(shown) == 1 and not shown[0].keyframe and shown[0].annotation_id is None
    assert shown[0].box == pytest.approx((20, 10, 30, 20))
    new = box_tracks.make_keyframe(media_project, VIDEO_ID, track, 2)
    assert ann.get_annotation(media_project, new).geometry == pytest.approx([20, 10, 30, 20])
    assert box_tracks.boxes_on_frame(media_project, VIDEO_ID, 2)[0].keyframe
    with pytest.raises(AnnotationError, match="no interpolated box"):
        box_tracks.make_keyframe(media_project, VIDEO_ID, track, 2)
    # copy to the next frame: frame 1 lies inside the track, so it becomes a keyframe there
    copy = box_tracks.copy_box(media_project, k0)
    rec = ann.get_annotation(media_project, copy)
    assert (rec.frame_index, rec.track_id, rec.geometry) == (1, track, [0, 0, 10, 10])
    assert sorted(box_tracks.track_boxes(media_project, VIDEO_ID, track)) == [0, 1, 2, 3, 4]
    last = ann.add_box(media_project, VIDEO_ID, (0, 0, 5, 5), person, frame_index=29)
    with pytest.raises(AnnotationError, match="outside"):
        box_tracks.copy_box(media_project, last)


def test_delete_is_soft_and_restore_brings_the_same_row_back(media_project, person):
    a = ann.add_box(media_project, PHOTO_ID, (1, 1, 5, 5), person)
    ann.delete(media_project, a)
    assert ann.list_annotations(media_project) == []
    assert ann.get_annotation(media_project, a).deleted
    ann.restore(media_project, a)
    assert [r.id for r in ann.list_annotations(media_project)] == [a]


def _snapshot(project):
    """What a user sees: the live annotations and their fields (undoing an add soft-deletes the row)."""
    return sorted((r.id, str(r.geometry), r.label_id, r.frame_index, r.end_frame_index, r.pts, r.end_pts,
                   str(r.attributes)) for r in ann.list_annotations(project))


def test_undo_redo_round_trips_every_edit(media_project, person):
    vest = lab.create_label(media_project, "vest")
    stack = UndoStack()
    add = stack.push(edits.AddBox(media_project, VIDEO_ID, (10, 10, 20, 20), person, frame_index=3, track_id=1))
    seg = stack.push(edits.AddSegment(media_project, VIDEO_ID, person, 5))
    steps = [
        edits.MoveBox(media_project, add.annotation_id, (30, 40, 50, 60)),
        edits.SetLabel(media_project, add.annotation_id, vest),
        edits.SetAttributes(media_project, add.annotation_id, {"vest": "no"}),
        edits.CopyBox(media_project, add.annotation_id),
        edits.CloseSegment(media_project, seg.annotation_id, 9),
        edits.MoveSegmentStart(media_project, seg.annotation_id, 6),
        edits.AddEvent(media_project, VIDEO_ID, 8, person),
        edits.AddTag(media_project, PHOTO_ID, "blurry"),
        edits.AddRuler(media_project, PHOTO_ID, (0, 0), (30, 40)),
        edits.DeleteAnnotations(media_project, [add.annotation_id, seg.annotation_id]),
    ]
    snapshots = [_snapshot(media_project)]
    for step in steps:
        stack.push(step)
        snapshots.append(_snapshot(media_project))
    assert len(set(map(tuple, snapshots))) == len(snapshots)      # every step changed something
    for i in range(len(steps), 0, -1):
        stack.undo()
        assert _snapshot(media_project) == snapshots[i - 1], f"undo of {steps[i - 1].text}"
    for i in range(1, len(steps) + 1):
        stack.redo()
        assert _snapshot(media_project) == snapshots[i], f"redo of {steps[i - 1].text}"
    # a push after undos drops the undone edits, as QUndoStack does
    stack.undo()
    stack.push(edits.AddTag(media_project, PHOTO_ID, "night"))
    assert not stack.can_redo()
    with media_project.read() as s:
        assert s.scalar(select(func.count()).select_from(Annotation)) == 7   # ids reused, never duplicated


def test_failed_edit_commits_nothing_and_stays_off_the_stack(media_project, person):
    stack = UndoStack()
    seg = stack.push(edits.AddSegment(media_project, VIDEO_ID, person, 5))
    before = _snapshot(media_project)
    with pytest.raises(AnnotationError):
        stack.push(edits.CloseSegment(media_project, seg.annotation_id, 1))
    assert _snapshot(media_project) == before and stack.index == 1


def test_label_set(media_project):
    a = lab.create_label(media_project, "person")
    b = lab.create_label(media_project, "forklift", "#00FF00")
    c = lab.create_label(media_project, "cart", shortcut=5)
    keys = {r.name: r.shortcut for r in lab.list_labels(media_project)}
    assert keys == {"person": 1, "forklift": 2, "cart": 5}
    assert lab.get_label(media_project, b).color == "#00ff00"
    assert lab.label_for_key(media_project, 5).id == c
    with pytest.raises(LabelError, match="already exists"):
        lab.create_label(media_project, " person ")
    with pytest.raises(LabelError, match="key 5"):
        lab.update_label(media_project, a, shortcut=5)
    with pytest.raises(LabelError, match="#rrggbb"):
        lab.recolour_label(media_project, a, "red")
    before = lab.rename_label(media_project, a, "worker")
    assert before.name == "person" and lab.get_label(media_project, a).name == "worker"
    box = ann.add_box(media_project, PHOTO_ID, (1, 1, 5, 5), a)
    with pytest.raises(LabelError, match="used by 1"):
        lab.delete_label(media_project, a)
    ann.delete(media_project, box)
    stack = UndoStack()
    stack.push(edits.DeleteLabel(media_project, a))
    assert lab.find_label(media_project, "worker") is None
    stack.undo()
    assert lab.get_label(media_project, a) == lab.LabelRecord(a, "worker", "#e69f00", 1)
    stack.push(edits.UpdateLabel(media_project, b, name="truck", color="#123456", shortcut=None))
    stack.undo()
    assert lab.get_label(media_project, b) == lab.LabelRecord(b, "forklift", "#00ff00", 2)


def test_annotations_on_a_media_whose_file_is_missing_stay(media_project, person, tmp_path):
    # the fixture's media rows point at files that do not exist: annotating and listing still work
    assert not (tmp_path / "photos" / "site.jpg").exists()
    a = ann.add_box(media_project, PHOTO_ID, (1, 1, 5, 5), person)
    assert [r.id for r in ann.list_annotations(media_project, media_id=PHOTO_ID)] == [a]


def test_add_many_reads_ahead_checks_tracks_and_stamps_every_box(media_project):
    """A batch of boxes (an import, issue 37) reads what it validates in a few queries, not one per box, and
    still refuses a second keyframe of a track on one frame, in the batch or against a stored box; every box
    gets its PTS from the frame table and one change-log row."""
    from sqlalchemy import event

    from fieldstudio.store.changes import changes_since
    from fieldstudio.store.models import Label
    from tests.support.annotation_fixtures import hand_pts

    with media_project.write() as s:
        s.add(Label(id="l" * 32, name="worker"))
    marks = [mark_batches.NewMark(VIDEO_ID, "box", frame, [10 + 100 * t, 10, 60 + 100 * t, 60], label_id="l" * 32,
                         track_id=t + 1) for frame in range(30) for t in range(3)]
    selects: list[str] = []
    engine = media_project.engine

    def count(_conn, _cursor, statement, *_args) -> None:  # noqa: ANN001
        if statement.lstrip().upper().startswith("SELECT"):
            selects.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        ids = mark_batches.add_many(media_project, marks)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert len(ids) == 90 and len(set(ids)) == 90
    assert len(selects) <= 6, selects             # media, labels, frames, track keyframes (was 2 a box)
    with media_project.read() as s:
        rows = {r.id: r for r in s.scalars(select(Annotation))}
        log = changes_since(s, 0)
    assert [rows[i].pts for i in ids[::3]] == [hand_pts(f) for f in range(30)]
    assert [(c.row_id, c.action) for c in log[-90:]] == [(i, "insert") for i in ids]
    with pytest.raises(AnnotationError, match=r"mark 2 .*track 7 already has a box on frame 4"):
        mark_batches.add_many(media_project, [mark_batches.NewMark(VIDEO_ID, "box", 4, [0, 0, 10, 10], track_id=7),
                                     mark_batches.NewMark(VIDEO_ID, "box", 4, [0, 0, 20, 20], track_id=7)])
    with pytest.raises(AnnotationError, match=r"mark 1 .*track 2 already has a box on frame 11"):
        mark_batches.add_many(media_project, [mark_batches.NewMark(VIDEO_ID, "box", 11, [0, 0, 10, 10], track_id=2)])
    with pytest.raises(AnnotationError, match=r"mark 1 .*frame 30 is outside 0..29"):
        mark_batches.add_many(media_project, [mark_batches.NewMark(VIDEO_ID, "box", 30, [0, 0, 10, 10])])
    with media_project.read() as s:
        assert s.scalar(select(func.count()).select_from(Annotation)) == 90
