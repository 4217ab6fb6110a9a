"""Angles (issue 32 item 3): three points, the vertex in the middle, in the image plane or on the floor.

By hand: (10, 0), (0, 0), (0, 10) is 90 degrees and (10, 0), (0, 0), (10, 10) is 45 in the image plane. On a
floor seen in perspective, the corner of the calibration rectangle (near-left, with its near and left edges) is 90
degrees on the floor but not in the image; the floor angle is checked against OpenCV's perspectiveTransform.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from fieldstudio.annotations import angles
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations import edits
from fieldstudio.annotations.annotation_records import AnnotationError
from tests.support.annotation_fixtures import PHOTO_ID, VIDEO_ID
from tests.support.undo_stack import UndoStack

QUAD = [(120, 430), (520, 420), (430, 170), (210, 180)]     # near-left, near-right, far-right, far-left


def test_image_plane_angles_by_hand(media_project):
    assert angles.angle_degrees((10, 0), (0, 0), (0, 10)) == pytest.approx(90.0)
    assert angles.angle_degrees((10, 0), (0, 0), (10, 10)) == pytest.approx(45.0)
    assert angles.angle_degrees((10, 0), (0, 0), (-10, 0)) == pytest.approx(180.0)
    stack = UndoStack()
    edit = edits.AddAngle(media_project, PHOTO_ID, (110, 100), (100, 100), (110, 110))
    stack.push(edit)
    m = angles.measure_angle(media_project, edit.annotation_id)
    assert (m.degrees, m.on_floor) == (pytest.approx(45.0), False) and m.text() == "45.0° (image plane)"
    assert "no floor calibration in use" in m.how
    stack.push(edits.MoveAngle(media_project, edit.annotation_id, [(110, 100), (100, 100), (100, 120)]))
    assert angles.measure_angle(media_project, edit.annotation_id).degrees == pytest.approx(90.0)
    stack.undo()
    assert angles.measure_angle(media_project, edit.annotation_id).degrees == pytest.approx(45.0)
    stack.undo()
    assert ann.list_annotations(media_project, kinds=["angle"]) == []
    with pytest.raises(AnnotationError, match="no length"):
        angles.add_angle(media_project, PHOTO_ID, (1, 1), (1, 1), (5, 5))
    with pytest.raises(AnnotationError, match="frame"):
        angles.add_angle(media_project, VIDEO_ID, (1, 1), (2, 2), (5, 5))          # a video needs a frame


def test_on_the_floor_when_the_floor_calibration_is_in_use(media_project):
    cal.save_calibration(media_project, "floor", QUAD, media_id=VIDEO_ID, width_m=4.0, depth_m=6.0)
    corner = angles.add_angle(media_project, VIDEO_ID, QUAD[1], QUAD[0], QUAD[3], frame_index=0)
    m = angles.measure_angle(media_project, corner)
    assert m.on_floor and m.degrees == pytest.approx(90.0, abs=1e-6) and "floor plane" in m.how
    u, w = np.subtract(QUAD[1], QUAD[0]), np.subtract(QUAD[3], QUAD[0])          # the corner in the image
    image = math.degrees(math.acos(np.dot(u, w) / (np.linalg.norm(u) * np.linalg.norm(w))))
    assert m.image_degrees == pytest.approx(image) and abs(m.image_degrees - 90.0) > 5
    # another angle, against OpenCV: three image points mapped by the homography cv2 solves from the corners
    pts = [(300, 300), (250, 380), (420, 360)]
    h = cv2.getPerspectiveTransform(np.float32(QUAD), np.float32([[0, 0], [4, 0], [4, 6], [0, 6]]))
    a, v, b = cv2.perspectiveTransform(np.float64([pts]), h)[0]
    u, w = a - v, b - v
    expected = math.degrees(math.acos(np.dot(u, w) / (np.linalg.norm(u) * np.linalg.norm(w))))
    assert angles.measure_points(media_project, VIDEO_ID, pts).degrees == pytest.approx(expected, abs=1e-6)
    # the scale chosen instead: back to the image plane, and it says why
    cal.save_calibration(media_project, "scale", [(0, 0), (50, 0)], media_id=VIDEO_ID, length_m=1.0)
    cal.choose_calibration(media_project, "scale", media_id=VIDEO_ID)
    m = angles.measure_angle(media_project, corner)
    assert not m.on_floor and m.degrees == pytest.approx(image) and "scale calibration keeps image angles" in m.how
