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
