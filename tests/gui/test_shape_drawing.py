"""Polygons, polylines and points in the real window (issue 32 item 1): drawn by clicks (P, Shift+P, D), closed by
Enter or a double-click, Backspace takes a vertex back, Esc drops the mark; vertices dragged, inserted, deleted;
the whole mark moved, copied to the next frame (Ctrl+D), deleted; each edit one undo step; Properties shows the
vertex count, the pixel area and, on the demo's calibrated floor, the area in m² (checked against OpenCV).

Positions are image pixels mapped to the screen with Qt's scene mapping; stored rows are read through the store.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import calibrations
from fieldstudio.core.calibration import order_floor_corners
from tests.support.gui_support import wait_idle
from tests.support.shape_window import _at, click, near, photo_window, shapes_of  # noqa: F401 - fixture

pytestmark = pytest.mark.gui
ZONE = [(60.0, 50.0), (200.0, 60.0), (220.0, 180.0), (80.0, 200.0)]


def undo(window, qtbot) -> None:  # noqa: ANN001
    qtbot.keyClick(window.view.canvas, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)


def test_a_polygon_is_clicked_closed_by_enter_and_undone_in_one_step(photo_window, qtbot):
    w = photo_window
    w.behaviour.dock.raise_()  # the Behaviour dock in front: Properties, tabbed behind it, is hidden
    qtbot.waitUntil(lambda: w.properties_dock.visibleRegion().isEmpty())
    w.actions["polygon_tool"].trigger()
    assert w.state.tool == "polygon" and w.state.mark_kind == "polygon"
    for x, y in ZONE:
        click(w, x, y)
    click(w, 150.0, 150.0)
    qtbot.keyClick(w.view.canvas, Qt.Key.Key_Backspace)  # the stray corner is taken back
    qtbot.keyClick(w.view.canvas, Qt.Key.Key_Return)
    (poly,) = shapes_of(w, "polygon")
    assert near(poly.geometry, ZONE, 0.51)  # a screen pixel is 0.5 px at 2x
    assert w.state.selection == (poly.id,)
    assert not w.properties_dock.visibleRegion().isEmpty()  # the new mark's Properties came to the front
    assert w.properties.mark.isVisible() and w.properties.mark.kind.text() == "polygon"
    area = cv2.contourArea(np.float32(poly.geometry))
    assert w.properties.mark.geometry.text().startswith(f"4 vertices, area {area:,.0f} px²")
    undo(w, qtbot)
    assert shapes_of(w, "polygon") == []


def test_a_polyline_ends_on_a_double_click_and_points_on_enter_and_esc_drops_a_mark(photo_window, qtbot):
    w = photo_window
    w.actions["polyline_tool"].trigger()
    click(w, 40.0, 220.0)
    click(w, 120.0, 230.0)
    vp = w.view.canvas.viewport()
    QTest.mouseClick(vp, Qt.MouseButton.LeftButton, pos=_at(w, 240.0, 200.0))
    QTest.mouseDClick(vp, Qt.MouseButton.LeftButton, pos=_at(w, 240.0, 200.0))
    (line,) = shapes_of(w, "polyline")
    assert near(line.geometry, [[40, 220], [120, 230], [240, 200]], 0.51)
    w.actions["points_tool"].trigger()
    for x, y in ((30.0, 30.0), (60.0, 40.0), (90.0, 35.0)):
        click(w, x, y)
    qtbot.keyClick(w.view.canvas, Qt.Key.Key_Return)
    (dots,) = shapes_of(w, "points")
    assert len(dots.geometry) == 3
    click(w, 100.0, 100.0)
    click(w, 120.0, 110.0)
    w.actions["select_tool"].trigger()  # Esc
    assert len(shapes_of(w, "points")) == 1 and not w.annotator.drawing.shape.drawing


def test_vertices_are_dragged_inserted_deleted_and_the_mark_moved_each_one_undo(photo_window, qtbot):
    w = photo_window
    pid = ann.add_shape(w.state.project, w.state.media.id, "polygon", ZONE)
    w.annotator.marks.select_on_refresh(pid)
    w.annotator.refresh()
    w.actions["select_tool"].trigger()
    qtbot.waitUntil(lambda: w.state.selection == (pid,), timeout=5000)
    vp = w.view.canvas.viewport()
    stored = lambda: ann.get_annotation(w.state.project, pid).geometry  # noqa: E731
    # drag the third vertex
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, pos=_at(w, 220.0, 180.0))
    QTest.mouseMove(vp, _at(w, 230.0, 190.0))
    QTest.mouseMove(vp, _at(w, 240.0, 200.0))
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=_at(w, 240.0, 200.0))
    assert stored()[2] == pytest.approx([240.0, 200.0], abs=0.51) and stored()[0] == [60.0, 50.0]
    # double-click the middle of the first edge: a vertex there
    QTest.mouseDClick(vp, Qt.MouseButton.LeftButton, pos=_at(w, 130.0, 55.0))
    assert len(stored()) == 5 and stored()[1] == pytest.approx([130.0, 55.0], abs=0.6)
    # Alt+click the first vertex: deleted
    QTest.mouseClick(vp, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.AltModifier, _at(w, 60.0, 50.0))
    assert len(stored()) == 4 and stored()[0] == pytest.approx([130.0, 55.0], abs=0.6)
    # drag inside: the whole polygon moves
    before = stored()
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, pos=_at(w, 150.0, 130.0))
    QTest.mouseMove(vp, _at(w, 155.0, 135.0))
    QTest.mouseMove(vp, _at(w, 160.0, 140.0))
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=_at(w, 160.0, 140.0))
    assert near(stored(), [[x + 10, y + 10] for x, y in before], 0.01)
    texts = [w.annotator.undo_stack.text(i) for i in range(w.annotator.undo_stack.count())]
    assert texts[-4:] == ["Move vertex", "Insert vertex", "Delete vertex", "Move polygon"]
    for _ in range(4):
        undo(w, qtbot)
    assert stored() == [list(p) for p in ZONE]
    qtbot.keyClick(w.view.canvas, Qt.Key.Key_Delete)
    assert shapes_of(w, "polygon") == []


def test_ctrl_d_copies_a_polygon_to_the_next_frame_and_properties_give_its_floor_area(demo_window, qtbot):
    w = demo_window
    p = w.state.project
    rec = next(r for r in ann.list_annotations(p, kinds=["box"])
               if r.frame_index is not None and calibrations.calibration_for(p, r.media_id, "floor") is not None)
    w.state.request_frame(rec.media_id, rec.frame_index)
    qtbot.waitUntil(lambda: w.state.media is not None and w.state.frame_index == rec.frame_index, timeout=10000)
    wait_idle(w, qtbot)
    x1, y1, x2, y2 = rec.geometry
    mid = (y1 + y2) / 2  # the lower half of a box standing on the calibrated floor, as a spill's outline
    spill = [[x1 + 5, mid], [x2, mid + 5], [x2 - 3, y2], [x1, y2 - 2]]
    pid = ann.add_shape(p, rec.media_id, "polygon", spill, frame_index=rec.frame_index)
    w.annotator.marks.select_on_refresh(pid)
    w.annotator.refresh()
    qtbot.waitUntil(lambda: w.state.selection == (pid,), timeout=5000)
    cal = calibrations.calibration_for(p, rec.media_id, "floor")
    h = cv2.getPerspectiveTransform(np.float32(order_floor_corners(cal.points)),
                                    np.float32([(0, 0), (cal.width_m, 0), (cal.width_m, cal.depth_m),
                                                (0, cal.depth_m)]))
    stored = ann.get_annotation(p, pid).geometry
    floor = cv2.perspectiveTransform(np.float64([stored]), h)[0]
    expected = cv2.contourArea(floor.astype(np.float32))
    panel = w.properties.mark
    assert panel.metres_caption.text() == "Area"
    assert panel.metres.text().startswith(f"{expected:.3f} m² (floor plane: ")
    w.actions["copy_next"].trigger()
    qtbot.waitUntil(lambda: w.state.frame_index == rec.frame_index + 1, timeout=10000)
    copies = [r for r in ann.list_annotations(p, media_id=rec.media_id, kinds=["polygon"])
              if r.frame_index == rec.frame_index + 1]
    assert len(copies) == 1 and copies[0].geometry == stored


def test_a_skeleton_is_placed_point_by_point_with_s_skipping_hidden_ones(photo_window, qtbot):
    w = photo_window
    w.actions["skeleton_tool"].trigger()
    assert w.state.tool == "skeleton"
    placed = {}
    for i in range(17):
        if i in (3, 4):  # the ears are hidden: S skips them
            qtbot.keyClick(w.view.canvas, Qt.Key.Key_S)
            continue
        x, y = 100.0 + (i % 4) * 12, 40.0 + i * 11
        click(w, x, y)
        placed[i] = (x, y)
        if i == 5:
            assert "left elbow (8 of 17)" not in w.statusBar().currentMessage()
            assert "right shoulder (7 of 17)" in w.statusBar().currentMessage()
    (sk,) = shapes_of(w, "skeleton")  # the 17th point kept it
    assert sk.geometry[3] is None and sk.geometry[4] is None
    assert near([sk.geometry[i] for i in placed], list(placed.values()), 0.51)
    assert w.state.selection == (sk.id,)
    assert w.properties.mark.geometry.text() == "15 of 17 points placed (coco-person-17)"
    # drag the nose: one edit
    vp = w.view.canvas.viewport()
    w.actions["select_tool"].trigger()
    QTest.mousePress(vp, Qt.MouseButton.LeftButton, pos=_at(w, 100.0, 40.0))
    QTest.mouseMove(vp, _at(w, 95.0, 35.0))
    QTest.mouseMove(vp, _at(w, 90.0, 30.0))
    QTest.mouseRelease(vp, Qt.MouseButton.LeftButton, pos=_at(w, 90.0, 30.0))
    assert near([ann.get_annotation(w.state.project, sk.id).geometry[0]], [(90.0, 30.0)], 0.51)
    assert w.annotator.undo_stack.text(w.annotator.undo_stack.count() - 1) == "Move nose"
    undo(w, qtbot)
    assert ann.get_annotation(w.state.project, sk.id).geometry == sk.geometry
