"""fs-distance and fs-count (fieldstudio.scoring.scorers.distance / count): values by hand, the strict whole-answer
grammars (a wrong answer is never read as a length or a count), and scoring in a project whose ground truths are
linked to a calibrated ruler and to counted events."""

from __future__ import annotations

import pytest

from fieldstudio.scoring.scorers import REGISTRY, AnswerInputs, TaskInputs
from fieldstudio.scoring.scorers import count, distance


@pytest.mark.parametrize("answer, correct, error", [
    ("2.43 m", True, -0.07), ("250 cm", True, 0.0), ("2.58m", True, 0.08),     # the edge itself is inside
    ("2.59 m", False, 0.09),
    ("2400 mm.", False, -0.10),                             # 0.10 m off: outside ±0.08 m
    ("8 ft", True, 8 * 0.3048 - 2.5),                       # 2.4384 m, off by -0.0616 m
])
def test_distance_with_a_check_error_tolerance(answer, correct, error):
    """Check error 0.04 m -> tolerance ±0.08 m around 2.50 m."""
    result = distance.score("2.50 m", answer, check_error_m=-0.04, derived_from="ruler: 2.5000 m (floor plane)")
    assert result.correct is correct and result.value == (1.0 if correct else 0.0)
    assert result.details["error_m"] == pytest.approx(error)
    assert result.details["tolerance_m"] == pytest.approx(0.08)
    assert "(ruler: 2.5000 m (floor plane); check error 0.040 m → tolerance ±0.080 m)" in result.explanation


def test_distance_explanation_and_the_stated_default():
    assert distance.score("2.50 m", "2.43 m", check_error_m=0.04).explanation == (
        "2.43 m vs 2.50 m (check error 0.040 m → tolerance ±0.080 m): correct, off by -0.07 m")
    result = distance.score("2.00 m", "2.11 m")                       # default 5 % of 2.00 m = 0.10 m
    assert result.correct is False and result.details["tolerance_from"] == "default"
    assert "the calibration has no independent check → stated default ±5 % = ±0.100 m" in result.explanation
    assert distance.score("2.00 m", "2.1 m").correct is True
    assert distance.score("2.00 m", "190 cm").explanation.endswith("(answer written '190 cm')")


@pytest.mark.parametrize("answer", [
    "about 2.4 m", "2.4", "2.4 metres", "2 m or 3 m", "5 ft 3 in", "-2 m", "2,4 m", "２.4 m", "2.4 m away", "",
    None, "1234567 m", "2.12345 m", "m 2.4",
])
def test_anything_but_one_length_needs_a_judge(answer):
    result = distance.score("2.50 m", answer)
    assert result.value is None and result.explanation.startswith("needs a judge")


@pytest.mark.parametrize("answer, value", [("3", 3), ("three", 3), ("Twenty.", 20), (" 0 ", 0), ("007", 7)])
def test_count_reads_one_whole_number(answer, value):
    assert count.parse_count(answer) == value


@pytest.mark.parametrize("answer", ["3 people", "about 3", "3 or 4", "none", "twenty-one", "3.0", "-3", "三",
                                    "1234567", "", None, "three forklifts"])
def test_anything_but_one_count_needs_a_judge(answer):
    result = count.score("3", answer)
    assert result.value is None and result.explanation.startswith("needs a judge")


def test_count_explanation_names_what_was_counted():
    assert count.score("3", "three", derived_from="3 event(s) in frames 0-29").explanation == (
        "3 vs 3 (3 event(s) in frames 0-29): correct")
    assert count.score("3", "5").explanation == "5 vs 3: wrong, off by +2"


def test_each_applies_to_its_answer_type_only():
    text = TaskInputs("t", "e", "manual", "What?", "free_text", "2.50 m", None, None, None, None)
    answer = AnswerInputs("a", "r", "t", "2.50 m", None, None)
    for name in ("fs-distance", "fs-count"):
        result = REGISTRY[name].score(text, answer)
        assert result.value is None and result.details == {"not_applicable": True}


def test_scored_in_a_project_against_the_linked_ruler_and_events(media_project):
    """A scale calibration of 1.00 m over 100 px on the photo: the ruler (0,0)-(30,40) is 50 px = 0.50 m. Its check,
    a 1.00 m object over 102 px, measures 1.02 m: error +0.02 m, tolerance ±0.04 m. Events on frames 2, 5 and 20
    of the video: 2 in frames 0-10."""
    from fieldstudio.annotations import annotation_records as ann
    from fieldstudio.annotations import calibrations
    from fieldstudio.compare.answer_table import load_answers
    from fieldstudio.scoring import service
    from fieldstudio.store.models import Task
    from fieldstudio.tasks import ground_truth as gt
    from tests.support.annotation_fixtures import PHOTO_ID, VIDEO_ID
    from tests.support.scoring_fixtures import add_run

    p = media_project
    calibrations.save_calibration(p, "scale", [(0, 0), (100, 0)], media_id=PHOTO_ID, length_m=1.0,
                                  check=[(0, 0), (0, 102), 1.0])
    ruler = ann.add_ruler(p, PHOTO_ID, (0, 0), (30, 40))
    for frame in (2, 5, 20):
        ann.add_event(p, VIDEO_ID, frame)
    far = gt.link_fields(p, None, gt.GroundTruthLink("ruler_distance", annotation_id=ruler))
    many = gt.link_fields(p, None, gt.GroundTruthLink("count", media_id=VIDEO_ID, start_frame=0, end_frame=10,
                                                        mode="events"))
    assert (far["ground_truth"], many["ground_truth"]) == ("0.50 m", "2")
    with p.write() as s:
        tasks = [Task(external_id=ext, query="?", source="manual", **fields)
                 for ext, fields in (("far", far), ("near", far), ("many", many))]
        s.add_all(tasks)
        s.flush()
        ids = [t.id for t in tasks]
    add_run(p, "m", {ids[0]: "52 cm", ids[1]: "0.55 m", ids[2]: "two"})
    service.score_answers(p, "fs-distance")
    service.score_answers(p, "fs-count")
    d = load_answers(p, "fs-distance").set_index("external_id")
    assert (d.loc["far", "value"], d.loc["near", "value"]) == (1.0, 0.0)
    assert d.loc["far", "explanation"] == (
        "0.52 m vs 0.50 m (ruler: 0.5000 m (scale: 1.00 m reference line (this media)); check error 0.020 m → "
        "tolerance ±0.040 m): correct, off by +0.02 m (answer written '52 cm')")
    assert d.loc["many", "explanation"].startswith("not applicable: fs-distance scores distance tasks")
    c = load_answers(p, "fs-count").set_index("external_id")
    assert c.loc["many", "value"] == 1.0
    assert c.loc["many", "explanation"] == "2 vs 2 (2 event(s) in frames 0-10): correct"


def test_a_calibration_keeps_its_check_and_measures_it_when_read(media_project):
    """The check is stored raw and measured through the calibration as it is now: 102 px is 1.02 m at 100 px a metre,
    1.00 m once the reference line is redrawn as 1.00 m over 102 px."""
    from fieldstudio.annotations import calibrations
    from tests.support.annotation_fixtures import PHOTO_ID

    p = media_project
    cal_id = calibrations.save_calibration(p, "scale", [(0, 0), (100, 0)], media_id=PHOTO_ID, length_m=1.0,
                                           check=[(0, 0), (0, 102), 1.0])
    record = calibrations.get_calibration(p, cal_id)
    assert record.check == ((0.0, 0.0), (0.0, 102.0), 1.0)
    assert record.length_check().error_m == pytest.approx(0.02)
    calibrations.save_calibration(p, **{**calibrations.calibration_fields(record), "points": [[0, 0], [102, 0]]})
    assert calibrations.get_calibration(p, cal_id).length_check().error_m == pytest.approx(0.0, abs=1e-12)
    calibrations.save_calibration(p, "scale", [(0, 0), (100, 0)], media_id=PHOTO_ID, length_m=1.0)
    assert calibrations.get_calibration(p, cal_id).length_check() is None      # saved again without a check
    with pytest.raises(Exception, match="check length"):
        calibrations.save_calibration(p, "scale", [(0, 0), (100, 0)], media_id=PHOTO_ID, length_m=1.0,
                                      check=[(0, 0), (0, 10), 0.0])


def test_a_linked_ruler_is_compared_unrounded_not_as_its_centimetre_text(media_project):
    """1.00 m over 1000 px; the check, 1.00 m over 1001 px, measures 1.001 m: error +0.001 m, tolerance ±0.002 m.
    The ruler (0,0)-(0,436) is 436 px = 0.436 m, which the ground truth writes "0.44 m". The exact "43.6 cm" is
    off by 0 (not -0.004 m), and "0.44 m" is off by +0.004 m, outside ±0.002 m."""
    from fieldstudio.annotations import annotation_records as ann
    from fieldstudio.annotations import calibrations
    from fieldstudio.compare.answer_table import load_answers
    from fieldstudio.scoring import service
    from fieldstudio.store.models import Task
    from fieldstudio.tasks import ground_truth as gt
    from tests.support.annotation_fixtures import PHOTO_ID
    from tests.support.scoring_fixtures import add_run

    p = media_project
    calibrations.save_calibration(p, "scale", [(0, 0), (1000, 0)], media_id=PHOTO_ID, length_m=1.0,
                                  check=[(0, 0), (0, 1001), 1.0])
    ruler = ann.add_ruler(p, PHOTO_ID, (0, 0), (0, 436))
    fields = gt.link_fields(p, None, gt.GroundTruthLink("ruler_distance", annotation_id=ruler))
    assert fields["ground_truth"] == "0.44 m"
    with p.write() as s:
        tasks = [Task(external_id=ext, query="?", source="manual", **fields) for ext in ("exact", "text")]
        s.add_all(tasks)
        s.flush()
        ids = [t.id for t in tasks]
    add_run(p, "m", {ids[0]: "43.6 cm", ids[1]: "0.44 m"})
    service.score_answers(p, "fs-distance")
    d = load_answers(p, "fs-distance").set_index("external_id")
    assert (d.loc["exact", "value"], d.loc["text", "value"]) == (1.0, 0.0)
    assert d.loc["text", "explanation"].startswith("0.4400 m vs 0.4360 m (")
    assert d.loc["text", "explanation"].endswith("check error 0.001 m → tolerance ±0.002 m): wrong, off by +0.0040 m")


def test_a_broken_ruler_link_leaves_its_distance_unscored_and_a_changed_calibration_is_pending(media_project):
    """As fs-area for a polygon: 1.00 m over 1000 px, the ruler (0,0)-(0,436) is 0.436 m, "0.44 m". The calibration
    re-saved as 1.001 m over 1000 px gives 0.436436 m, still "0.44 m" to the centimetre, yet a pending change (the
    calibration's lengths changed); the calibration deleted, the ruler reads pixels only and the answer that matched
    is left unscored; the ruler deleted, likewise."""
    from fieldstudio.annotations import annotation_records as ann
    from fieldstudio.annotations import calibrations
    from fieldstudio.compare.answer_table import load_answers
    from fieldstudio.scoring import service
    from fieldstudio.tasks import ground_truth as gt
    from tests.support.annotation_fixtures import PHOTO_ID
    from tests.support.scoring_fixtures import add_run, add_task

    p = media_project
    calibrations.save_calibration(p, "scale", [(0, 0), (1000, 0)], media_id=PHOTO_ID, length_m=1.0)
    ruler = ann.add_ruler(p, PHOTO_ID, (0, 0), (0, 436))
    fields = gt.link_fields(p, None, gt.GroundTruthLink("ruler_distance", annotation_id=ruler))
    basis = fields["ground_truth_extra"][gt.BASIS_KEY]
    assert fields["ground_truth"] == "0.44 m" and basis["ruler"] == ruler and basis["length_m"] == pytest.approx(0.436)
    task_id = add_task(p, "gap", source="manual", query="How wide is the gap?", **fields)
    add_run(p, "m", {task_id: "0.436 m"})
    assert gt.pending_changes(p) == []
    calibrations.save_calibration(p, "scale", [(0, 0), (1000, 0)], media_id=PHOTO_ID, length_m=1.001)
    (change,) = gt.pending_changes(p)
    assert change.ok and change.old == change.new == "0.44 m"
    assert change.explanation.endswith("the calibration's points or lengths changed (0.4360 → 0.4364 m, the same to "
                                       "1 cm)")
    calibrations.delete_calibration(p, calibrations.calibration_for(p, PHOTO_ID, "scale").id)
    (change,) = gt.pending_changes(p)
    assert not change.ok and change.new == change.old == "0.44 m"
    assert change.explanation.startswith("the ruler reads 436.0 px only")
    service.score_answers(p, "fs-distance")
    d = load_answers(p, "fs-distance").set_index("external_id")
    assert d.loc["gap", "value"] is None or d.loc["gap", "value"] != d.loc["gap", "value"]   # NaN: unscored
    assert d.loc["gap", "explanation"].startswith("the ground truth cannot be measured: the ruler reads 436.0 px only")
    calibrations.save_calibration(p, "scale", [(0, 0), (1000, 0)], media_id=PHOTO_ID, length_m=1.0)
    ann.delete(p, ruler)
    (change,) = gt.pending_changes(p)
    assert not change.ok and change.explanation == "the linked ruler was deleted; undo the delete or unlink"
