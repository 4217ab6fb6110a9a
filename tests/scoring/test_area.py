"""fs-area (fieldstudio.scoring.scorers.area) and its grammar (core.area_units): values by hand, the strict whole-answer
grammar (a wrong answer is never read as an area), and scoring in a project whose ground truth is linked to a
polygon on a floor calibration, compared unrounded while the ground truth is the polygon's current value."""

from __future__ import annotations

import pytest

from fieldstudio.core.area_units import parse_area
from fieldstudio.scoring.scorers import REGISTRY, AnswerInputs, TaskInputs
from fieldstudio.scoring.scorers import area


@pytest.mark.parametrize("text, m2", [
    ("0.78 m2", 0.78), ("0.78 m²", 0.78), ("0.78m^2", 0.78), ("7800 cm²", 0.78), ("7800 CM2", 0.78),
    ("0.78 square metres", 0.78), ("1 square meter.", 1.0), ("2 sq m", 2.0), ("2 sqm", 2.0),
    ("780000 mm2", 0.78), ("10 sq ft", 10 * 0.3048 ** 2), ("1 square foot", 0.09290304),
])
def test_reads_one_area_in_square_metres(text, m2):
    assert parse_area(text)[0] == pytest.approx(m2, rel=1e-12)


@pytest.mark.parametrize("text", [
    "0.78", "0.78 m", "about 0.78 m²", "0.78 m² or 0.8 m²", "3 x 4 m", "-0.78 m²", "0,78 m²", "０.78 m²",
    "٠.78 m²", "0.78 m³", "0.78 km²", "0.12345 m²", "1234567890 m²", "m² 0.78", "", None, "0.78 square",
])
def test_anything_but_one_area_is_not_read(text):
    assert parse_area(text) is None
    result = area.score("0.78 m²", text)
    assert result.value is None and result.explanation.startswith("needs a judge")


@pytest.mark.parametrize("answer, correct, error", [
    ("0.82 m²", True, 0.02), ("0.76 m2", True, -0.04),        # 5 % of 0.80 = 0.04: the edge is inside
    ("0.7599 m²", False, -0.0401), ("8000 cm²", True, 0.0), ("0.84 m^2", True, 0.04),
])
def test_relative_tolerance_by_hand(answer, correct, error):
    """Ground truth 0.80 m²: 5 % is 0.04 m², larger than 0.01 m², so ±0.04 m²."""
    result = area.score("0.80 m²", answer)
    assert result.correct is correct and result.value == (1.0 if correct else 0.0)
    assert result.details["error_m2"] == pytest.approx(error, abs=1e-12)
    assert result.details["tolerance_m2"] == pytest.approx(0.04)


def test_the_absolute_tolerance_when_it_is_larger_and_the_explanation():
    """Ground truth 0.10 m²: 5 % is 0.005 m², the absolute 0.01 m² is larger."""
    assert area.score("0.10 m²", "0.11 m²").correct is True
    assert area.score("0.10 m²", "0.1101 m²").correct is False
    result = area.score("0.10 m²", "1000 cm²", derived_from="polygon spill: 0.1000 m² (floor plane)")
    assert result.explanation == (
        "0.1000 m² vs 0.1000 m² (polygon spill: 0.1000 m² (floor plane); tolerance ±0.0100 m² = the larger of 5 % "
        "(0.0050 m²) and 0.01 m²): correct, off by +0.0000 m² (answer written '1000 cm²')")
    strict = area.score("0.10 m²", "0.104 m²", tolerance_pct=1.0, tolerance_m2=0.0)
    assert strict.correct is False and strict.details["tolerance_m2"] == pytest.approx(0.001)
    vague_truth = area.score("about one", "0.1 m²")
    assert vague_truth.value is None and "the ground truth 'about one' is not one area" in vague_truth.explanation


def test_it_applies_to_area_tasks_only():
    text = TaskInputs("t", "e", "manual", "How big?", "free_text", "0.78 m²", None, None, None, None)
    answer = AnswerInputs("a", "r", "t", "0.78 m²", None, None)
    result = REGISTRY["fs-area"].score(text, answer)
    assert result.value is None and result.details == {"not_applicable": True}


def test_scored_in_a_project_against_the_linked_polygon_unrounded(media_project):
    """A scale calibration of 1.00 m over 100 px on the photo: the triangle (0,0) (100,0) (0,113) is 5650 px² =
    0.565 m², written "0.56 m²" or "0.57 m²" by rounding; the ground truth compares with 0.565. A 1 % tolerance and
    no absolute one: ±0.00565 m². "0.5706 m²" is off by +0.0056 (correct), "0.5710 m²" by +0.006 (wrong)."""
    from fieldstudio.annotations import annotation_records as ann
    from fieldstudio.annotations import calibrations
    from fieldstudio.compare.answer_table import load_answers
    from fieldstudio.scoring import service
    from fieldstudio.store.models import Task
    from fieldstudio.tasks import ground_truth as gt
    from tests.support.annotation_fixtures import PHOTO_ID
    from tests.support.scoring_fixtures import add_run

    p = media_project
    calibrations.save_calibration(p, "scale", [(0, 0), (100, 0)], media_id=PHOTO_ID, length_m=1.0)
    spill = ann.add_shape(p, PHOTO_ID, "polygon", [[0, 0], [100, 0], [0, 113]])
    fields = gt.link_fields(p, None, gt.GroundTruthLink("polygon_area", annotation_id=spill))
    assert fields["answer_type"] == "area" and fields["ground_truth"] in ("0.56 m²", "0.57 m²")
    basis = fields["ground_truth_extra"][gt.BASIS_KEY]
    assert basis["polygon"] == spill and basis["area_m2"] == pytest.approx(0.565)
    assert basis["calibration"] == calibrations.calibration_for(p, PHOTO_ID, "scale").id
    with p.write() as s:
        tasks = [Task(external_id=ext, query="How large is the spill?", source="manual", **fields)
                 for ext in ("near", "far", "vague")]
        s.add_all(tasks)
        s.flush()
        ids = [t.id for t in tasks]
    add_run(p, "m", {ids[0]: "0.5706 m²", ids[1]: "5710 cm2", ids[2]: "about half a square metre"})
    service.score_answers(p, "fs-area", params={"tolerance_pct": 1.0, "tolerance_m2": 0.0})
    d = load_answers(p, "fs-area").set_index("external_id")
    assert (d.loc["near", "value"], d.loc["far", "value"]) == (1.0, 0.0)
    assert pd_isna(d.loc["vague", "value"])
    assert d.loc["near", "explanation"].startswith("0.5706 m² vs 0.5650 m² (polygon: 0.5650 m² (scale: 1.00 m")


def test_a_polygon_whose_edges_now_cross_leaves_its_area_unscored_and_pending(media_project):
    """The linked triangle made to cross itself (a vertex moved over the opposite edge): the ground truth "0.56 m²"
    can no longer be measured, so the refresh keeps it and says why once (no doubled "no area: no area:"), and
    fs-area leaves the answer that matched the old area unscored instead of marking it correct."""
    from fieldstudio.annotations import annotation_records as ann
    from fieldstudio.annotations import calibrations
    from fieldstudio.compare.answer_table import load_answers
    from fieldstudio.scoring import service
    from fieldstudio.store.models import Task
    from fieldstudio.tasks import ground_truth as gt
    from tests.support.annotation_fixtures import PHOTO_ID
    from tests.support.scoring_fixtures import add_run

    p = media_project
    calibrations.save_calibration(p, "scale", [(0, 0), (100, 0)], media_id=PHOTO_ID, length_m=1.0)
    spill = ann.add_shape(p, PHOTO_ID, "polygon", [[0, 0], [100, 0], [0, 113]])
    fields = gt.link_fields(p, None, gt.GroundTruthLink("polygon_area", annotation_id=spill))
    with p.write() as s:
        task = Task(external_id="spill", query="How large is the spill?", source="manual", **fields)
        s.add(task)
        s.flush()
        task_id = task.id
    add_run(p, "m", {task_id: "0.565 m²"})
    # (100,0)-(0,113) and (60,113)-(0,0) cross: the net shoelace area (2260 px²) is not the ground covered
    ann.update_geometry(p, spill, [[0, 0], [100, 0], [0, 113], [60, 113]])
    (change,) = gt.pending_changes(p)
    assert not change.ok and change.new == change.old == fields["ground_truth"]
    assert change.explanation.startswith("the area can no longer be measured: the polygon has no area: edges cross")
    assert "no area: no area" not in change.text
    from typer.testing import CliRunner

    from fieldstudio.cli.app import app

    listed = CliRunner().invoke(app, ["refresh-ground-truth", str(p.path)], env={"COLUMNS": "400"})
    assert listed.exit_code == 0, listed.output
    assert listed.output.startswith("0 pending ground-truth change(s) from annotations; 1 kept as stored")
    assert f"spill: keeps {fields['ground_truth']!r}: the area can no longer be measured" in listed.output
    service.score_answers(p, "fs-area")
    d = load_answers(p, "fs-area").set_index("external_id")
    assert pd_isna(d.loc["spill", "value"])
    assert d.loc["spill", "explanation"].startswith("the ground truth cannot be measured: the area can no longer")


def pd_isna(value) -> bool:
    return value is None or value != value
