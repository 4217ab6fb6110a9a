"""Polygons, polylines and points marks (issue 32 item 1): stored, validated, edited with undo, copied to the next
frame, and measured in m² / m. The floor area is checked against OpenCV: its own homography of the stored corners
(getPerspectiveTransform), the vertices mapped with perspectiveTransform and the area from contourArea; "inside the
zone" against pointPolygonTest."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations import edits, shape_marks
from fieldstudio.annotations.mark_facts import mark_facts
from fieldstudio.core import shapes
from fieldstudio.core.calibration import order_floor_corners
from tests.support.annotation_fixtures import PHOTO_ID, VIDEO_ID
from tests.support.undo_stack import UndoStack

SPILL = [[100, 300], [260, 280], [300, 380], [180, 440], [90, 400]]


def test_a_polygon_polyline_and_points_are_stored_as_their_vertices(media_project):
    p = media_project
    poly = ann.add_shape(p, VIDEO_ID, "polygon", SPILL + [SPILL[0]], frame_index=3)  # closing vertex dropped
    line = ann.add_shape(p, VIDEO_ID, "polyline", [[0, 0], [50, 20], [700, 20]], frame_index=3)  # clipped
    dots = ann.add_shape(p, PHOTO_ID, "points", [[10, 10], [10, 10], [20, 30]])  # points may repeat
    assert ann.get_annotation(p, poly).geometry == [[float(x), float(y)] for x, y in SPILL]
    assert ann.get_annotation(p, line).geometry == [[0.0, 0.0], [50.0, 20.0], [640.0, 20.0]]
    assert ann.get_annotation(p, dots).geometry == [[10.0, 10.0], [10.0, 10.0], [20.0, 30.0]]
    assert ann.count_annotations(p)["polygon"] == 1 and ann.count_annotations(p)["points"] == 1
    assert [r.id for r in ann.list_annotations(p, frame_index=3, kinds=["polygon", "polyline"])] == [poly, line]


@pytest.mark.parametrize("kind, vertices, says", [
    ("polygon", [[0, 0], [10, 0]], "at least 3"),
    ("polygon", [[0, 0], [10, 10], [20, 20]], "one line"),
    ("polyline", [[5, 5], [5, 5]], "at least 2"),
    ("points", [], "at least 1"),
    ("polygon", [[0, 0], [10, "x"], [3, 9]], r"list of \(x, y\)"),
    ("polygon", [[0, 0], [float("nan"), 1], [3, 9]], "finite"),
])
def test_a_shape_that_cannot_be_is_refused_with_why(media_project, kind, vertices, says):
    with pytest.raises(ann.AnnotationError, match=says):
        ann.add_shape(media_project, PHOTO_ID, kind, vertices)
    assert ann.count_annotations(media_project)[kind] == 0


def test_vertex_edits_insert_delete_move_and_copy_are_one_undo_step_each(media_project):
    p, stack = media_project, UndoStack()
    add = stack.push(edits.AddShape(p, VIDEO_ID, "polygon", SPILL, frame_index=3))
    pid = add.annotation_id
    edge, dist, q = shapes.nearest_edge("polygon", SPILL, (180, 290))
    assert edge == 0 and dist < 10
    inserted = shapes.insert_vertex("polygon", SPILL, edge, q)
    stack.push(edits.MoveShape(p, pid, inserted, "Insert vertex"))
    assert len(ann.get_annotation(p, pid).geometry) == 6
    fewer = shapes.remove_vertex("polygon", inserted, 3)
    stack.push(edits.MoveShape(p, pid, fewer, "Delete vertex"))
    moved = [[x + 5, y - 5] for x, y in fewer]
    stack.push(edits.MoveShape(p, pid, moved))
    copy = stack.push(edits.CopyShape(p, pid))
    assert ann.get_annotation(p, copy.annotation_id).frame_index == 4
    assert ann.get_annotation(p, copy.annotation_id).geometry == ann.get_annotation(p, pid).geometry
    stack.undo()
    assert ann.get_annotation(p, copy.annotation_id).deleted
    stack.undo()
    assert ann.get_annotation(p, pid).geometry == fewer
    stack.undo()
    assert ann.get_annotation(p, pid).geometry == inserted
    stack.undo()
    assert ann.get_annotation(p, pid).geometry == [[float(x), float(y)] for x, y in SPILL]
    with pytest.raises(shapes.ShapeError, match="at least 3"):
        shapes.remove_vertex("polygon", [[0, 0], [4, 0], [4, 3]], 0)


def test_the_polygon_area_on_a_calibrated_floor_matches_opencv(media_project):
    p = media_project
    quad = [(120, 460), (560, 450), (470, 250), (200, 255)]
    cal.save_calibration(p, "floor", quad, media_id=VIDEO_ID, width_m=4.0, depth_m=6.0)
    pid = ann.add_shape(p, VIDEO_ID, "polygon", SPILL, frame_index=0)
    facts = mark_facts(p, pid)
    # independent: OpenCV's homography of the stored corners, its mapping and its polygon area
    stored = cal.calibration_for(p, VIDEO_ID, "floor")
    h = cv2.getPerspectiveTransform(np.float32(order_floor_corners(stored.points)),
                                    np.float32([(0, 0), (4, 0), (4, 6), (0, 6)]))
    floor = cv2.perspectiveTransform(np.float64([SPILL]), h)[0]
    expected = cv2.contourArea(floor.astype(np.float32))
    assert facts.shape.area_m2 == pytest.approx(expected, rel=1e-4)
    assert facts.metres == facts.shape.area_m2 and facts.how.startswith("floor plane: 4.00 m x 6.00 m")
    assert facts.shape.area_px == pytest.approx(cv2.contourArea(np.float32(SPILL)))
    assert facts.shape.vertices == 5
    assert facts.pixels == (90.0, 280.0, 210.0, 160.0)
    line = ann.add_shape(p, VIDEO_ID, "polyline", [SPILL[0], SPILL[1], SPILL[2]], frame_index=0)
    walked = float(sum(np.hypot(*(floor[i + 1] - floor[i])) for i in range(2)))
    assert mark_facts(p, line).metres == pytest.approx(walked, rel=1e-4)


def test_scale_calibration_area_and_no_calibration_say_how(media_project):
    p = media_project
    pid = ann.add_shape(p, PHOTO_ID, "polygon", [[0, 0], [80, 0], [80, 160], [0, 160]])
    m = shape_marks.measure_shape(p, pid)
    assert m.area_px == 12800 and m.area_m2 is None and "no calibration" in m.how
    cal.save_calibration(p, "scale", [(0, 0), (0, 80)], media_id=PHOTO_ID, length_m=1.0)  # 80 px = 1 m
    m = shape_marks.measure_shape(p, pid)
    assert m.area_m2 == pytest.approx(2.0) and m.length_m == pytest.approx(6.0) and m.how.startswith("scale")


@pytest.mark.parametrize("point", [(150, 350), (95, 300), (300, 300), (100, 300), (180, 440), (275, 330), (0, 0)])
def test_inside_the_zone_agrees_with_opencv(point):
    got = shapes.contains(SPILL, point)
    assert got == (cv2.pointPolygonTest(np.float32(SPILL), point, False) >= 0)


def test_the_annotation_list_gives_a_polygon_its_area(media_project):
    from fieldstudio.annotations.rows import annotation_rows

    p = media_project
    ann.add_shape(p, PHOTO_ID, "polygon", [[0, 0], [80, 0], [80, 160], [0, 160]])
    (row,) = annotation_rows(p, PHOTO_ID)
    assert row.measurement_text == "12,800 px²"
    cal.save_calibration(p, "scale", [(0, 0), (0, 80)], media_id=PHOTO_ID, length_m=1.0)
    assert annotation_rows(p, PHOTO_ID)[0].measurement_text == "2.00 m²"


def test_a_polygon_of_no_area_is_refused_with_its_true_reason():
    # found by a fresh-eyes review: a bowtie (two lobes whose signed areas cancel) was called "on one line"
    with pytest.raises(shapes.ShapeError, match="lie on one line"):
        shapes.as_vertices("polygon", [[0, 0], [10, 10], [20, 20]], (100, 100))
    with pytest.raises(shapes.ShapeError, match="crosses itself"):
        shapes.as_vertices("polygon", [[10, 10], [50, 50], [50, 10], [10, 50]], (100, 100))
    assert shapes.as_vertices("polygon", [[10, 10], [50, 10], [50, 50], [10, 50]], (100, 100)) == \
        [[10, 10], [50, 10], [50, 50], [10, 50]]
