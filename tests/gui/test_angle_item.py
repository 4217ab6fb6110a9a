"""The angle tool in the real window (issue 32 item 3): A, three clicks, the angle kept and drawn with its degrees,
a point dragged (one undoable edit), Properties naming the plane; on the demo photo whose camera group has a floor
calibration in use, so the degrees are on the floor. The floor angle is checked against the three stored points put
on the floor with OpenCV's getPerspectiveTransform / perspectiveTransform from the stored corners.
"""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt

from fieldstudio.annotations import angles, calibrations
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.gui.viewer.angle_item import AngleItem
from tests.support import demo_data as demo
from tests.support.gui_support import open_media

pytestmark = pytest.mark.gui
SHOTS = Path("/tmp/shots/kinematics")


def floor_angle(project, media_id: str, points) -> float:
    rec = calibrations.calibration_in_use(project, media_id)
    rect = np.float32([[0, 0], [rec.width_m, 0], [rec.width_m, rec.depth_m], [0, rec.depth_m]])
    h = cv2.getPerspectiveTransform(np.float32(rec.points), rect)
    a, v, b = cv2.perspectiveTransform(np.float64([points]), h)[0]
    u, w = a - v, b - v
    return math.degrees(math.acos(float(np.dot(u, w) / (np.linalg.norm(u) * np.linalg.norm(w)))))


def test_angle_tool_three_clicks_drag_and_undo(demo_window, qtbot):
    w = demo_window
    open_media(w, qtbot, demo.WORKER_PHOTO)
    project, media_id = w.state.project, w.state.media.id
    vp = w.view.canvas.viewport()
    at = lambda x, y: w.view.canvas.mapFromScene(QPointF(x, y))  # noqa: E731
    # a right angle on the floor, (2.5, 1.5), (1.5, 1.5), (1.5, 3.0) m, seen through the inverse homography
    rec = calibrations.calibration_in_use(project, media_id)
    rect = np.float32([[0, 0], [rec.width_m, 0], [rec.width_m, rec.depth_m], [0, rec.depth_m]])
    h = cv2.getPerspectiveTransform(np.float32(rec.points), rect)
    corner = cv2.perspectiveTransform(np.float64([[(2.5, 1.5), (1.5, 1.5), (1.5, 3.0)]]), np.linalg.inv(h))[0]
    w.actions["angle_tool"].trigger()
    assert w.state.tool == "angle"
    for p in corner:                                           # an arm, the vertex, the other arm
        qtbot.mouseClick(vp, Qt.MouseButton.LeftButton, pos=at(*p))
    (rec,) = ann.list_annotations(project, media_id=media_id, kinds=["angle"])
    m = angles.measure_angle(project, rec.id)
    assert m.on_floor and m.degrees == pytest.approx(floor_angle(project, media_id, rec.geometry), abs=1e-6)
    assert m.degrees == pytest.approx(90.0, abs=3.0)               # clicked to the nearest screen pixel
    assert abs(m.image_degrees - m.degrees) > 5                     # the image shows it in perspective
    assert w.statusBar().currentMessage().startswith(f"angle {m.degrees:.1f}° on the floor")
    item = next(i for i in w.annotator.marks.items if isinstance(i, AngleItem))
    assert item.text.text() == f"{m.degrees:.1f}° on the floor"
    # Properties names the angle and its plane
    w.actions["select_tool"].trigger()
    item.setSelected(True)
    panel = w.properties.mark
    qtbot.waitUntil(panel.isVisible, timeout=3000)
    assert panel.metres_caption.text() == "Angle" and "on the floor plane" in panel.metres.text()
    SHOTS.mkdir(parents=True, exist_ok=True)
    w.grab().save(str(SHOTS / "angle_tool.png"))
    # the vertex dragged 20 px right: one edit, measured again; one undo puts it back
    before = [list(p) for p in rec.geometry]
    a, b = at(*rec.geometry[1]), at(rec.geometry[1][0] + 20, rec.geometry[1][1])
    qtbot.mousePress(vp, Qt.MouseButton.LeftButton, pos=a)
    for t in (0.3, 0.6, 1.0):
        qtbot.mouseMove(vp, QPoint(round(a.x() + (b.x() - a.x()) * t), round(a.y() + (b.y() - a.y()) * t)))
    qtbot.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=b)
    moved = ann.get_annotation(project, rec.id).geometry
    assert moved[0] == before[0] and moved[2] == before[2] and moved[1][0] > before[1][0] + 10
    moved_m = angles.measure_angle(project, rec.id)
    assert moved_m.degrees == pytest.approx(floor_angle(project, media_id, moved), abs=1e-6)
    w.actions["undo"].trigger()
    assert ann.get_annotation(project, rec.id).geometry == before
    w.actions["undo"].trigger()
    assert ann.list_annotations(project, media_id=media_id, kinds=["angle"]) == []
