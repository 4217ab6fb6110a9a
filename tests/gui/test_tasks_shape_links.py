"""The task editor's links to shapes (issue 32 item 1): a polygon's area in m² as an area ground truth (checked
against OpenCV), a change of the polygon that keeps the rounded text still pending, and a zone check over the
chosen input's frames for a tracked box's ground point."""

from __future__ import annotations

import os

import cv2
import numpy as np
from PySide6.QtCore import Qt

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import calibrations as cal
from fieldstudio.core.calibration import order_floor_corners
from fieldstudio.tasks import ground_truth as gt
from fieldstudio.tasks import task_records as ts
from tests.support.annotation_fixtures import VIDEO_ID
from tests.support.task_editor import choose, panel, rows  # noqa: F401 - panel is the fixture

ZONE = [[100, 300], [400, 290], [420, 420], [90, 430]]
QUAD = [(120, 460), (560, 450), (470, 250), (200, 255)]


def _shot(qtbot, panel, name: str) -> None:
    shots = os.environ.get("FIELDSTUDIO_SHOTS")
    if shots:
        qtbot.wait(100)
        panel.grab().save(os.path.join(shots, name))


def test_area_ground_truth_from_a_polygon_on_the_floor(qtbot, panel, project):
    cal.save_calibration(project, "floor", QUAD, media_id=VIDEO_ID, width_m=4.0, depth_m=6.0)
    spill = ann.add_shape(project, VIDEO_ID, "polygon", ZONE, frame_index=2)
    tid = ts.create_task(project, query="What area does the spill cover, in m²?", inputs=[{"media_id": VIDEO_ID}])
    panel.reload(select_id=tid)
    choose(panel.link_kind, "polygon_area")
    assert panel.link_target.currentData() == spill
    qtbot.mouseClick(panel.link_button, Qt.MouseButton.LeftButton)
    stored = cal.calibration_for(project, VIDEO_ID, "floor")
    h = cv2.getPerspectiveTransform(np.float32(order_floor_corners(stored.points)),
                                    np.float32([(0, 0), (4, 0), (4, 6), (0, 6)]))
    expected = cv2.contourArea(cv2.perspectiveTransform(np.float32([ZONE]), h)[0])
    task = rows(project)[0]
    assert (task.ground_truth, task.answer_type) == (f"{expected:.2f} m²", "area")
    assert abs(task.ground_truth_extra[gt.BASIS_KEY]["area_m2"] - expected) < 1e-3
    assert f"→ {expected:.2f} m²" in panel.link_label.text() and "floor plane" in panel.link_label.text()
    _shot(qtbot, panel, "task_editor_area_from_polygon.png")
    ann.update_geometry(project, spill, [[100, 300], [400, 290], [420, 420.05], [90, 430]])
    panel.refresh_ground_truths()
    assert "the polygon's vertices changed" in panel.pending_label.text()
    qtbot.mouseClick(panel.accept_button, Qt.MouseButton.LeftButton)
    task = rows(project)[0]
    assert task.ground_truth_extra[gt.BASIS_KEY]["polygon_sha256"] == gt.compute(
        project, gt.GroundTruthLink("polygon_area", annotation_id=spill)).basis["polygon_sha256"]
    assert not panel.pending


def test_a_zone_check_over_the_inputs_frames(qtbot, panel, project):
    """The track's ground point goes (30, 280) on frame 10 -> (330, 380) on frame 20: in the zone by frame 20."""
    zone = ann.add_shape(project, VIDEO_ID, "polygon", ZONE, frame_index=10)
    ann.add_box(project, VIDEO_ID, (0, 180, 60, 100), frame_index=10, track_id=1)
    ann.add_box(project, VIDEO_ID, (300, 280, 60, 100), frame_index=20, track_id=1)
    tid = ts.create_task(project, query="Was anyone inside the restricted zone between frames 12 and 25?",
                         inputs=[{"media_id": VIDEO_ID, "start_s": None, "end_s": None}])
    panel.reload(select_id=tid)
    panel.start_frame.setValue(12)
    panel.end_frame.setValue(25)
    assert panel.save()
    for data, answer in (("inside_zone/box/any", "yes"), ("inside_zone/box/all", "no")):
        choose(panel.link_kind, data)
        assert panel.link_target.currentData() == zone
        qtbot.mouseClick(panel.link_button, Qt.MouseButton.LeftButton)
        task = rows(project)[0]
        assert (task.ground_truth, task.answer_type) == (answer, "yes_no"), data
        link = gt.link_of(task.ground_truth_extra)
        assert (link.subject, link.start_frame, link.end_frame) == ("box", 12, 25)
    assert "box ground points inside polygon on" in panel.link_label.text()
    assert "of 9 frame(s) where seen" in panel.link_label.text()
    _shot(qtbot, panel, "task_editor_zone_check.png")
