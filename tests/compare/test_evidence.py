"""Evidence coverage (fieldstudio.compare.evidence) on the hand-written variable-rate video of
tests/support/annotation_fixtures.py: every frame index and PTS below is computed by hand from its frame table
(time base 1/90000 s, first PTS 1800, frame durations 3000, 3000, 6000 ticks repeating)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.compare import evidence
from fieldstudio.store.models import Answer, Task, TaskInput
from tests.support.annotation_fixtures import PHOTO_ID, VIDEO_ID, hand_pts
from tests.support.scoring_fixtures import add_run


def _seconds(i: int) -> float:
    return hand_pts(i) / 90000


def _frame(media_id: str, index: int) -> dict:
    return {"media_id": media_id, "frame_index": index, "pts_s": None, "sha256": "0" * 64}


@pytest.fixture
def tasks(media_project):
    """Three tasks: a segment-linked one (frames 10-19), a time-range one whose reference names 0.100-0.250 s of
    the video, and a free-text one with no evidence."""
    p = media_project
    seg = ann.add_segment(p, VIDEO_ID, None, 10, end_frame=19, text="lifting")
    with p.write() as s:
        linked = Task(external_id="seg", query="When does the lifting happen?", answer_type="time_range",
                      ground_truth="from 00:00:00.333 to 00:00:00.667",
                      ground_truth_extra={"annotation_link": {"kind": "segment_range", "annotation_id": seg}})
        timed = Task(external_id="time", query="When?", answer_type="time_range",
                     ground_truth="from 00:00:00.100 to 00:00:00.250")
        free = Task(external_id="free", query="What is shown?", ground_truth="a worker")
        s.add_all([linked, timed, free])
        s.flush()
        s.add(TaskInput(task_id=timed.id, position=0, name="walk.mp4", media_id=VIDEO_ID))
        return p, {"seg": linked.id, "time": timed.id, "free": free.id}


def test_spans_come_from_the_linked_annotation_and_from_the_reference_time(tasks):
    p, ids = tasks
    spans = evidence.task_spans(p)
    assert set(spans) == {ids["seg"], ids["time"]}
    seg = spans[ids["seg"]]
    assert (seg.media_id, seg.start_frame, seg.end_frame) == (VIDEO_ID, 10, 19)
    assert seg.start_s == pytest.approx(_seconds(10)) and seg.end_s == pytest.approx(_seconds(19))
    # 0.100 s and 0.250 s after the first PTS: the frames shown then are 2 (at +0.0667 s) and 5 (at +0.200 s)
    timed = spans[ids["time"]]
    assert (timed.start_frame, timed.end_frame) == (2, 5)
    assert (hand_pts(2) - 1800) / 90000 <= 0.100 < (hand_pts(3) - 1800) / 90000
    assert (hand_pts(5) - 1800) / 90000 <= 0.250 < (hand_pts(6) - 1800) / 90000
    assert timed.origin == "the reference's time range"


def test_coverage_saw_never_saw_with_distance_and_unknown(tasks):
    p, ids = tasks
    span = evidence.task_spans(p)[ids["seg"]]
    saw = evidence.coverage_of(span, [_frame(VIDEO_ID, 5), _frame(VIDEO_ID, 12)])
    assert (saw.status, saw.distance_s, saw.frames_sent, saw.frames_in_span) == ("saw", 0.0, 2, 1)
    # frames 3 and 25: 3 is (pts(10) - pts(3)) before the span, 25 is (pts(25) - pts(19)) after it
    near = evidence.coverage_of(span, [_frame(VIDEO_ID, 3), {**_frame(VIDEO_ID, 25), "pts_s": _seconds(25)}])
    assert near.status == "never saw" and near.frames_in_span == 0
    assert near.distance_s == pytest.approx(min(_seconds(10) - _seconds(3), _seconds(25) - _seconds(19)))
    photo_only = evidence.coverage_of(span, [_frame(PHOTO_ID, 0)])
    assert (photo_only.status, photo_only.distance_s) == ("never saw", None)
    assert "none of the 1 frames sent is of that video" in photo_only.text()
    text_only = evidence.coverage_of(span, [])
    assert (text_only.status, text_only.text()) == ("never saw", "never saw it: no frame was sent with its request(s)")
    assert evidence.coverage_of(span, None).status == "unknown"
    unplaced = evidence.coverage_of(span, [{"media_id": VIDEO_ID, "frame_index": "12", "pts_s": 0.5}])
    assert unplaced.text() == "unknown: the frames sent of that video carry no frame index"
    assert evidence.coverage_of(None, [_frame(VIDEO_ID, 1)]).status == "no evidence"


def test_answer_coverage_and_the_split_of_accuracy(tasks):
    p, ids = tasks
    run = add_run(p, "m", {ids["seg"]: {"raw_text": "a", "frames": [_frame(VIDEO_ID, 12)]},
                           ids["time"]: {"raw_text": "b", "frames": [_frame(VIDEO_ID, 9)]},
                           ids["free"]: {"raw_text": "c", "frames": [_frame(VIDEO_ID, 1)]}})
    table = evidence.answer_coverage(p).set_index("task_id")
    assert table.loc[ids["seg"], "evidence"] == "saw"
    assert table.loc[ids["time"], "evidence"] == "never saw"
    assert table.loc[ids["time"], "evidence_distance_s"] == pytest.approx(_seconds(9) - _seconds(5))
    assert table.loc[ids["free"], "evidence"] == "no evidence"
    assert math.isnan(table.loc[ids["free"], "evidence_distance_s"])
    with p.read() as s:
        answer_ids = {a.task_id: a.id for a in s.query(Answer).filter(Answer.run_id == run)}
    answers = pd.DataFrame({"answer_id": [answer_ids[ids["seg"]], answer_ids[ids["time"]], answer_ids[ids["free"]]],
                            "source": ["m", "m", "m"], "value": [1.0, 0.0, float("nan")]})
    split = evidence.split_by_evidence(answers, evidence.answer_coverage(p))
    assert split[["evidence", "answers", "scored"]].values.tolist() == [
        ["saw", 1, 1], ["never saw", 1, 1], ["no evidence", 1, 0]]
    assert split["mean"].tolist()[:2] == [1.0, 0.0] and math.isnan(split["mean"].tolist()[2])
    assert split["coverage"].tolist() == ["1/1 scored", "1/1 scored", "0/1 scored"]


def _time_task(p, reference: str, media_id: str = VIDEO_ID) -> str:
    with p.write() as s:
        t = Task(external_id=reference, query="When?", answer_type="time_range", ground_truth=reference)
        s.add(t)
        s.flush()
        s.add(TaskInput(task_id=t.id, position=0, name="v.mp4", media_id=media_id))
        return t.id


def test_references_beyond_the_clip_or_backwards_are_no_evidence_and_unindexed_is_unknown(media_project):
    """The clip's last frame is at +1.267 s (30 frames of 3000/3000/6000 ticks after the first PTS)."""
    from tests.support.annotation_fixtures import UNINDEXED_ID

    p = media_project
    beyond = _time_task(p, "from 00:01:00 to 00:02:00")
    backwards = _time_task(p, "from 00:00:00.500 to 00:00:00.100")
    tail = _time_task(p, "from 00:00:00.950 to 00:00:09.000")       # starts inside, ends after: clipped
    unindexed = _time_task(p, "from 00:00:01 to 00:00:02", UNINDEXED_ID)
    found = evidence.task_evidence(p)
    assert beyond not in found and backwards not in found
    assert (found[tail].start_frame, found[tail].end_frame) == (21, 29)
    assert (hand_pts(21) - 1800) / 90000 <= 0.950 < (hand_pts(22) - 1800) / 90000
    assert found[unindexed] is None
    add_run(p, "m", {unindexed: {"raw_text": "x", "frames": [_frame(UNINDEXED_ID, 3)]}})
    table = evidence.answer_coverage(p).set_index("task_id")
    assert table.loc[unindexed, "evidence"] == "unknown"
    assert table.loc[unindexed, "evidence_text"].startswith("unknown: the video's frame index is not built yet")


def test_a_deleted_linked_annotation_leaves_the_reference_time(tasks):
    p, ids = tasks
    with p.read() as s:
        link = s.get(Task, ids["seg"]).ground_truth_extra["annotation_link"]["annotation_id"]
    ann.delete(p, link)
    with p.write() as s:
        s.add(TaskInput(task_id=ids["seg"], position=0, name="walk.mp4", media_id=VIDEO_ID))
    span = evidence.task_evidence(p)[ids["seg"]]
    # the reference 0.333-0.667 s after the first PTS: frames 8 (+30000/90000 = 0.3333 s, written 0.333) to 15
    # (+60000/90000 = 0.6667 s)
    assert span.origin == "the reference's time range"
    assert (span.start_frame, span.end_frame) == (8, 15)


def test_a_reference_time_written_to_the_millisecond_names_the_frame_fs_tiou_names(media_project):
    """Frame 1 is at +3000/90000 = 0.0333 s, which a time written to the millisecond (as the linked ground truth
    writes it) reads back as 0.033 s; frame 4 is at +15000/90000 = 0.1667 s, written 0.167. The span of
    "0.033-0.167" is frames 1-4, the frames fs-tiou's frame_at names for the same times, so a frame 0 sent is
    not "saw the evidence"."""
    from fieldstudio.scoring.scorers.temporal_iou import frame_at

    p = media_project
    task = _time_task(p, "from 00:00:00.033 to 00:00:00.167")
    span = evidence.task_evidence(p)[task]
    assert (span.start_frame, span.end_frame) == (1, 4)
    relative = [(hand_pts(i) - 1800) / 90000 for i in range(30)]
    assert (frame_at(relative, 0.033), frame_at(relative, 0.167)) == (1, 4)
    assert evidence.coverage_of(span, [_frame(VIDEO_ID, 0)]).status == "never saw"


def test_the_split_counts_only_the_tasks_the_scorer_applies_to(media_project):
    """fs-tiou scores the time-range task and says "not applicable" to the count task (counted over frames 0-10,
    so it has evidence too). The summary counts 1 task for source m; so must the split: saw, 1/1 scored."""
    from fieldstudio.compare.comparison import build_comparison
    from fieldstudio.scoring import service
    from fieldstudio.tasks import ground_truth as gt

    p = media_project
    seg = ann.add_segment(p, VIDEO_ID, None, 10, end_frame=19)
    timed = gt.link_fields(p, None, gt.GroundTruthLink("segment_range", annotation_id=seg))
    ann.add_event(p, VIDEO_ID, 3)
    counted = gt.link_fields(p, None, gt.GroundTruthLink("count", media_id=VIDEO_ID, start_frame=0, end_frame=10,
                                                         mode="events"))
    with p.write() as s:
        tasks = [Task(external_id=ext, query="?", source="manual", **fields)
                 for ext, fields in (("when", timed), ("how-many", counted))]
        s.add_all(tasks)
        s.flush()
        ids = [t.id for t in tasks]
    add_run(p, "m", {ids[0]: {"raw_text": "from 0:00.433 to 0:00.833", "frames": [_frame(VIDEO_ID, 12)]},
                     ids[1]: {"raw_text": "1", "frames": [_frame(VIDEO_ID, 5)]}})
    service.score_answers(p, "fs-tiou")
    c = build_comparison(p, "fs-tiou", n_resamples=50)
    assert int(c.summary.loc["m", "total"]) == 1
    split = c.evidence_split
    assert split[["source", "evidence", "answers", "scored"]].values.tolist() == [["m", "saw", 1, 1]]
    report = evidence.evidence_report(p, "fs-tiou")
    assert report.split[["evidence", "answers", "scored"]].values.tolist() == [["saw", 1, 1]]
    from fieldstudio.compare.views import load_view     # the Summary tab's read

    shown = load_view(p, "fs-tiou", n_resamples=50).evidence_split
    assert shown[["source", "evidence", "answers", "scored"]].values.tolist() == [["m", "saw", 1, 1]]
