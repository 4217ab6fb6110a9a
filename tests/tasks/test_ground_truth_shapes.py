"""Ground truth from shapes (issue 32 item 1): a polygon's area in m² on a calibrated floor (checked against OpenCV's
perspectiveTransform and contourArea), "is a point inside the zone" on the zone's frame, and the count of
skeletons; each kept linked as the ruler links are (a change waits for Accept)."""

from __future__ import annotations

import cv2
import numpy as np

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import calibrations as cal
from fieldstudio.annotations import labels as lab
from fieldstudio.core.calibration import order_floor_corners
from fieldstudio.tasks import ground_truth as gt
from tests.support.annotation_fixtures import PHOTO_ID, VIDEO_ID

ZONE = [[100, 300], [400, 290], [420, 420], [90, 430]]


def test_polygon_area_in_square_metres_through_the_floor(media_project):
    p = media_project
    quad = [(120, 460), (560, 450), (470, 250), (200, 255)]
    cal.save_calibration(p, "floor", quad, media_id=VIDEO_ID, width_m=4.0, depth_m=6.0)
    zone = ann.add_shape(p, VIDEO_ID, "polygon", ZONE, frame_index=2)
    value = gt.compute(p, gt.GroundTruthLink("polygon_area", annotation_id=zone))
    stored = cal.calibration_for(p, VIDEO_ID, "floor")
    h = cv2.getPerspectiveTransform(np.float32(order_floor_corners(stored.points)),
                                    np.float32([(0, 0), (4, 0), (4, 6), (0, 6)]))
    expected = cv2.contourArea(cv2.perspectiveTransform(np.float32([ZONE]), h)[0])
    assert value.ok and value.text == f"{expected:.2f} m²" and abs(value.value - expected) < 1e-3
    assert "floor plane" in value.explanation
    photo_zone = ann.add_shape(p, PHOTO_ID, "polygon", [[0, 0], [10, 0], [10, 10]])
    assert not gt.compute(p, gt.GroundTruthLink("polygon_area", annotation_id=photo_zone)).ok


def test_inside_the_zone_on_the_zones_frame_and_the_count_of_skeletons(media_project):
    p = media_project
    worker = lab.create_label(p, "worker feet")
    zone = ann.add_shape(p, VIDEO_ID, "polygon", ZONE, frame_index=2)
    link = gt.GroundTruthLink("inside_zone", annotation_id=zone, label_id=worker)
    assert not gt.compute(p, link).ok  # no points yet
    ann.add_shape(p, VIDEO_ID, "points", [[50, 50]], frame_index=2, label_id=worker)
    ann.add_shape(p, VIDEO_ID, "points", [[200, 350]], frame_index=3, label_id=worker)  # inside, but frame 3
    value = gt.compute(p, link)
    assert value.ok and value.text == "no" and "on 0 of 1 frame(s) where seen (0 of 1 point(s) inside; frame 2" in value.explanation
    ann.add_shape(p, VIDEO_ID, "points", [[400, 290]], frame_index=2, label_id=worker)  # on a corner: inside
    assert gt.compute(p, link).text == "yes"
    fields = gt.link_fields(p, None, link)
    assert fields["ground_truth"] == "yes" and fields["answer_type"] == "yes_no"
    pose = [[300 + i, 200 + 5 * i] for i in range(17)]
    for frame in (2, 2, 5):
        ann.add_skeleton(p, VIDEO_ID, pose, frame_index=frame)
    count = gt.GroundTruthLink("count", media_id=VIDEO_ID, start_frame=2, end_frame=2, mode="skeletons")
    assert gt.compute(p, count).text == "2"
    assert gt.compute(p, gt.GroundTruthLink("count", media_id=VIDEO_ID, mode="skeletons")).text == "3"
