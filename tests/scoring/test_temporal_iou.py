"""fs-tiou (fieldstudio.scoring.scorers.temporal_iou): temporal IoU computed by hand, the strict whole-answer
grammar (a wrong answer is never read as a range), and the call through the registry."""

from __future__ import annotations

import pytest

from fieldstudio.scoring.scorers import REGISTRY, AnswerInputs, TaskInputs
from fieldstudio.scoring.scorers.temporal_iou import parse_range, score, temporal_iou

GT = "from 00:00:01.200 to 00:00:03.500"          # what a linked segment gives (tasks.ground_truth)


@pytest.mark.parametrize("answer, value", [
    ("from 00:00:01.200 to 00:00:03.500", 1.0),
    ("00:00:02.000 - 00:00:04.000", (3.5 - 2.0) / (4.0 - 1.2)),        # overlap 1.5 s of a 2.8 s union
    ("between 0:01 and 0:02", (2.0 - 1.2) / (3.5 - 1.0)),             # overlap 0.8 s of a 2.5 s union
    ("5 s to 6 s", 0.0),
    ("From 00:00:01.2 until 00:00:03.5.", 1.0),
])
def test_value_is_the_hand_computed_iou(answer, value):
    result = score(GT, answer)
    assert result.value == pytest.approx(value)
    assert result.correct == (value >= 0.5)


def test_explanation_gives_onset_and_offset_errors():
    result = score(GT, "00:00:02.000 - 00:00:04.000")
    assert result.explanation.startswith("tIoU 0.54: 00:00:02.000–00:00:04.000 (answer) vs 00:00:01.200–00:00:03.500")
    assert "onset +0.800 s, offset +0.500 s" in result.explanation
    assert result.details == {"onset_error_s": pytest.approx(0.8), "offset_error_s": pytest.approx(0.5)}


@pytest.mark.parametrize("answer", [
    "not from 00:00:01.200 to 00:00:03.500", "from 00:00:01.200 to 00:00:03.500 (just kidding)",
    "maybe 00:00:01.200 to 00:00:03.500", "00:00:01.200", "00:00:01.200 to 00:00:03.500 and 00:00:05 to 00:00:06",
    "from 00:00:03.500 to 00:00:01.200", "frоm 00:00:01.200 to 00:00:03.500", "❌ 00:00:01.200 to 00:00:03.500",
    "", None, "I cannot tell",
])
def test_anything_but_one_range_is_left_unscored(answer):
    result = score(GT, answer)
    assert result.value is None and result.correct is None
    assert result.explanation.startswith("needs a judge")


def test_parse_range_and_iou_edges():
    assert parse_range("1:02:03.5 to 1:02:04") == (3723.5, 3724.0)
    assert temporal_iou((1.0, 1.0), (1.0, 1.0)) == 1.0 and temporal_iou((1.0, 1.0), (2.0, 2.0)) == 0.0
    assert score("yes", "0:01 to 0:02").explanation == "the ground truth 'yes' is not one time range"


def test_through_the_registry_only_time_range_tasks():
    info = REGISTRY["fs-tiou"]
    task = TaskInputs("t", "e", "manual", "When?", "time_range", GT, None, None, None, None)
    answer = AnswerInputs("a", "r", "t", "from 00:00:01.200 to 00:00:03.500", None, None)
    assert info.score(task, answer, {"min_iou": 0.9}).correct is True
    other = info.score(task._replace(answer_type="count"), answer)
    assert other.value is None and "time-range tasks" in other.explanation


@pytest.mark.parametrize("answer", [
    "1s and 3s", "from 1s and 3s", "0:75 to 0:80", "00:61 to 01:30", "１s to ３s", "١s to ٣s", "1ſ to 3ſ", "1sto3s",
    "1 s to3 s", "0s to " + "9" * 400 + "s", "between 1s to 3s",
])
def test_a_fresh_eyes_review_s_forms_are_left_unscored(answer):
    """Found by an independent review: two times joined by "and", impossible clock times, other scripts' digits,
    a long s, missing spaces, an overflowing number."""
    result = score(GT, answer)
    assert result.value is None and result.explanation.startswith("needs a judge")


def test_a_task_it_does_not_apply_to_is_said_not_applicable():
    task = TaskInputs("t", "e", "manual", "How many?", "count", "3", None, None, None, None)
    result = REGISTRY["fs-tiou"].score(task, AnswerInputs("a", "r", "t", "0:01 to 0:02", None, None))
    assert result.value is None and result.details == {"not_applicable": True}
    assert result.explanation == "not applicable: fs-tiou scores time-range tasks, this one's answer type is 'count'"


def test_onset_and_offset_in_frames_from_the_frame_times():
    """Frames every 0.5 s: 1.2 s shows frame 2, 2.0 s frame 4, 3.5 s frame 7, 4.0 s frame 8."""
    result = score(GT, "00:00:02.000 - 00:00:04.000", frame_times_s=[0.5 * i for i in range(20)])
    assert (result.details["onset_error_frames"], result.details["offset_error_frames"]) == (2, 1)
    assert "onset +0.800 s (+2 frames), offset +0.500 s (+1 frames); seconds after the video's first frame" in \
        result.explanation


def test_scored_in_a_project_with_the_frame_table_and_left_out_of_summaries_where_not_applicable(media_project):
    """The fixture video (annotation_fixtures: PTS(0) = 1800 ticks, frame times (PTS - 1800) / 90000 s): a segment
    over frames 10-19 is 0.4333-0.8333 s, written 00:00:00.433-00:00:00.833. The answer 0:00.500-0:00.900 shows
    frames 11 (0.4667 s) and 20 (0.8667 s): onset +1 frame, offset +1 frame; tIoU (0.833 - 0.5) / (0.9 - 0.433)."""
    from fieldstudio.annotations import annotation_records as ann
    from fieldstudio.compare.comparison import build_comparison
    from fieldstudio.scoring import service
    from fieldstudio.store.models import Task
    from fieldstudio.tasks import ground_truth as gt
    from tests.support.annotation_fixtures import VIDEO_ID
    from tests.support.scoring_fixtures import add_run

    p = media_project
    seg = ann.add_segment(p, VIDEO_ID, None, 10, end_frame=19)
    fields = gt.link_fields(p, None, gt.GroundTruthLink("segment_range", annotation_id=seg))
    assert fields["ground_truth"] == "from 00:00:00.433 to 00:00:00.833"
    with p.write() as s:
        timed = Task(external_id="when", query="When?", source="manual", **fields)
        counted = Task(external_id="how-many", query="How many?", source="manual", answer_type="count",
                       ground_truth="3")
        s.add_all([timed, counted])
        s.flush()
        ids = (timed.id, counted.id)
    add_run(p, "m", {ids[0]: "from 0:00.500 to 0:00.900", ids[1]: "3"})
    service.score_answers(p, "fs-tiou")
    c = build_comparison(p, "fs-tiou", n_resamples=200)
    rows = c.answers.set_index("external_id")
    assert rows.loc["when", "value"] == pytest.approx((0.833 - 0.5) / (0.9 - 0.433))
    assert "onset +0.067 s (+1 frames), offset +0.067 s (+1 frames)" in rows.loc["when", "explanation"]
    assert rows.loc["how-many", "explanation"].startswith("not applicable: fs-tiou scores time-range tasks")
    # the count task is neither scored nor counted: one task, scored, its value the mean and the headline
    assert (int(c.summary.loc["m", "total"]), int(c.summary.loc["m", "n"])) == (1, 1)
    assert c.summary.loc["m", "headline"] == pytest.approx(rows.loc["when", "value"])
