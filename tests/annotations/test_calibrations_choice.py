"""Which calibration applies when a camera group has both a scale and a floor (issue 32 item 3).

Hand-made numbers: the floor rectangle's corners are an axis-aligned 400 x 300 px rectangle of 4 m x 3 m, so the
floor maps 100 px to 1 m in both directions; the scale line is 50 px for 1 m. A 300 px horizontal ruler is
3.00 m on the floor and 6.00 m by the scale.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations import edits
from fieldstudio.annotations.mark_facts import mark_facts
from fieldstudio.cli.app import app
from tests.support.annotation_fixtures import UNINDEXED_ID, VIDEO_ID
from tests.support.undo_stack import UndoStack

FLOOR = [(100, 400), (500, 400), (500, 100), (100, 100)]


@pytest.fixture
def dock(media_project):
    """media_project with its two 640x480 videos in camera group 'dock', which has a floor and a scale."""
    cal.set_camera_group(media_project, [VIDEO_ID, UNINDEXED_ID], "dock")
    floor = cal.save_calibration(media_project, "floor", FLOOR, camera_group="dock", width_m=4.0, depth_m=3.0)
    scale = cal.save_calibration(media_project, "scale", [(0, 0), (50, 0)], camera_group="dock", length_m=1.0)
    return media_project, floor, scale


def test_floor_applies_until_the_scale_is_chosen_and_undo_brings_it_back(dock):
    project, floor, scale = dock
    ruler = ann.add_ruler(project, VIDEO_ID, (100, 200), (400, 200), frame_index=0)
    m = cal.measure_ruler(project, ruler)
    assert (m.metres, m.kind) == (pytest.approx(3.0), "floor")
    assert "floor plane" in m.how and "camera group 'dock'" in m.how
    statuses = {r.kind: cal.in_use_status(project, r) for r in cal.list_calibrations(project)}
    assert statuses == {"floor": "in use", "scale": "not in use (the floor calibration applies)"}

    stack = UndoStack()
    stack.push(edits.ChooseCalibration(project, "scale", camera_group="dock"))
    m = cal.measure_ruler(project, ruler)
    assert (m.metres, m.kind) == (pytest.approx(6.0), "scale")
    assert cal.calibration_in_use(project, UNINDEXED_ID).id == scale
    statuses = {r.kind: cal.in_use_status(project, r) for r in cal.list_calibrations(project)}
    assert statuses == {"scale": "in use", "floor": "not in use (the scale calibration applies)"}
    # a box's width at its foot follows the choice too: 200 px wide
    box = ann.add_box(project, VIDEO_ID, (150, 100, 200, 250), frame_index=0)
    facts = mark_facts(project, box)
    assert facts.metres == pytest.approx(4.0) and facts.how.startswith("scale")

    stack.undo()
    assert cal.measure_ruler(project, ruler).metres == pytest.approx(3.0)
    assert cal.chosen_kinds(project) == {}
    assert mark_facts(project, box).metres == pytest.approx(2.0)


def test_a_media_choice_wins_over_its_group_and_one_calibration_is_always_in_use(dock):
    project, floor, scale = dock
    cal.choose_calibration(project, "scale", camera_group="dock")
    cal.choose_calibration(project, "floor", media_id=UNINDEXED_ID)
    assert cal.calibration_in_use(project, VIDEO_ID).id == scale
    assert cal.calibration_in_use(project, UNINDEXED_ID).id == floor
    cal.delete_calibration(project, scale)        # the floor alone: in use whatever the group chose
    assert cal.calibration_in_use(project, VIDEO_ID).id == floor
    ruler = ann.add_ruler(project, VIDEO_ID, (100, 200), (400, 200), frame_index=0)
    assert cal.measure_ruler(project, ruler).metres == pytest.approx(3.0)
    with pytest.raises(cal.CalibrationError):
        cal.choose_calibration(project, "plane", camera_group="dock")


def test_cli_lists_which_is_in_use_and_chooses(dock, tmp_path):
    project, floor, scale = dock
    ref = str(project.path)
    runner = CliRunner()
    listed = json.loads(runner.invoke(app, ["calibrations", "list", ref, "--json"]).stdout)
    assert {r["kind"]: r["status"] for r in listed} == {"floor": "in use",
                                                       "scale": "not in use (the floor calibration applies)"}
    done = runner.invoke(app, ["calibrations", "use", ref, "scale", "--group", "dock"])
    assert done.exit_code == 0 and "camera group 'dock': the scale calibration is in use" in done.stdout
    assert cal.calibration_in_use(project, VIDEO_ID).id == scale
    text = runner.invoke(app, ["calibrations", "list", ref]).stdout
    assert f"{floor}  camera group dock  floor  not in use (the scale calibration applies)" in text
    assert runner.invoke(app, ["calibrations", "use", ref, "plane", "--group", "dock"]).exit_code == 2
    assert runner.invoke(app, ["calibrations", "use", ref, "scale", "--group", "nowhere"]).exit_code == 2
