"""The HOG people detector (media/people.py, issue 34 item 3) on people marked by hand in the shared data's frames
(tests/support/people_frames.py): the worker and the office walkers are found where they were marked; nothing in a
flat picture; bad pictures refused with the reason."""

from __future__ import annotations

import numpy as np
import pytest

from fieldstudio.core.box_overlap import box_iou
from fieldstudio.media import people
from tests.support.face_photos import shared_data_frame
from tests.support.people_frames import MARKED_PEOPLE, NO_HOG_REASON, WORKER_CLIP, hog_available
from tests.support.shared_data import SHARED_DATA

pytestmark = pytest.mark.skipif(not hog_available(), reason=NO_HOG_REASON)

OFFICE = "videos/office_people_walking_one_by_one_first40s.mp4"


@pytest.mark.parametrize("clip, index", [(WORKER_CLIP, 45), (OFFICE, 100), (OFFICE, 250)])
def test_a_whole_person_is_found_where_marked(clip, index):
    rgb = shared_data_frame(SHARED_DATA / "media" / clip, index)
    found = people.detect_people(rgb)
    (marked,) = MARKED_PEOPLE[(clip, index)]
    assert found, "nobody found"
    assert box_iou(found[0].xyxy, marked) >= 0.5, (found[0], marked)
    assert found == sorted(found, key=lambda b: -b.score)
    assert all(0 <= b.x0 < b.x1 <= rgb.shape[1] and 0 <= b.y0 < b.y1 <= rgb.shape[0] for b in found)


def test_a_large_frame_is_shrunk_and_boxes_scaled_back():
    import cv2

    rgb = shared_data_frame(SHARED_DATA / "media" / OFFICE, 100)          # 768 x 432
    big = cv2.resize(rgb, (2304, 1296), interpolation=cv2.INTER_CUBIC)    # 3x: read at 1280 x 720
    (marked,) = MARKED_PEOPLE[(OFFICE, 100)]
    found = people.detect_people(big)
    assert found and box_iou(found[0].xyxy, [3 * v for v in marked]) >= 0.5


def test_flat_and_bad_pictures():
    assert people.detect_people(np.full((480, 640, 3), 127, np.uint8)) == []
    assert people.detect_people(np.zeros((100, 50, 3), np.uint8)) == []           # smaller than the window
    with pytest.raises(ValueError, match="H x W x 3"):
        people.detect_people(np.zeros((100, 100), np.uint8))
    with pytest.raises(people.PeopleImageTooLarge, match="120 MP"):
        people.detect_people(np.lib.stride_tricks.as_strided(np.zeros(3, np.uint8), (11000, 11000, 3), (0, 0, 1)))
    assert people.detector_version().startswith("opencv-hog ")
