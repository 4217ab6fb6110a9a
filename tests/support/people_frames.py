"""People marked by hand in frames of the shared data's videos (`tests.support.shared_data.SHARED_DATA`, Intel sample
videos, CC BY 4.0: see its README), for the people detector's tests and benchmark.

Each box is the visible extent of one person (an arm held out counts; a part hidden behind another person does not),
read off a 20-px grid drawn over the frame at 2x (1.25x for the 768 x 432 office clip); (x0, y0, x1, y1) in the
frame's pixels. 14 people in 9 frames: shoppers seen from behind and in profile, partly hidden by each other; a
worker walking away from the camera, whole and cut by the frame's edge; one person per frame in the office clip; and a
cyclist about 40 px tall, cut by the top edge (smaller than the detector's window: a person it should miss).
"""

from __future__ import annotations

#: (video path under ``media/``, frame index in decode order) -> people (x0, y0, x1, y1).
MARKED_PEOPLE: dict[tuple[str, int], list[tuple[int, int, int, int]]] = {
    ("videos/store_aisle_shoppers_from_gif.mp4", 0): [(244, 62, 320, 270), (347, 88, 416, 270)],
    ("videos/store_aisle_shoppers_from_gif.mp4", 30): [(267, 64, 328, 230), (345, 52, 400, 225),
                                                       (334, 155, 440, 270)],
    ("videos/store_aisle_shoppers_from_gif.mp4", 45): [(270, 62, 340, 238), (347, 47, 395, 165),
                                                       (320, 117, 398, 270)],
    ("videos/worker_zone_hardhat_vest_from_gif.mp4", 0): [(245, 141, 340, 270)],
    ("videos/worker_zone_hardhat_vest_from_gif.mp4", 20): [(142, 84, 215, 265)],
    ("videos/worker_zone_hardhat_vest_from_gif.mp4", 45): [(100, 57, 160, 222)],
    ("videos/office_people_walking_one_by_one_first40s.mp4", 100): [(384, 14, 512, 394)],
    ("videos/office_people_walking_one_by_one_first40s.mp4", 250): [(390, 4, 550, 384)],
    ("videos/parking_lot_car_bicycle_from_gif.mp4", 15): [(327, 0, 357, 40)],
}


def hog_available() -> bool:
    """Whether the OpenCV installed carries the HOG people detector (objdetect; xobjdetect from OpenCV 5)."""
    from fieldstudio.media import people

    return people.available()


#: Skip marker for tests that run the detector: the minimal OpenCV built before issue 34's people detection has no
#: HOG; `.ci/run` rebuilds it with xobjdetect (installers/linux/opencv_minimal.sh).
NO_HOG_REASON = "this OpenCV has no HOG people detector (rebuild it with installers/linux/opencv_minimal.sh)"


def worker_photo(folder, index: int = 45):  # noqa: ANN001, ANN201 - Path in, Path out
    """Frame ``index`` of the shared data's worker clip written as ``worker_<index>.png`` in ``folder`` (a photo
    with one person, marked in `MARKED_PEOPLE`)."""
    from fieldstudio.media.images import write_image
    from tests.support.face_photos import shared_data_frame
    from tests.support.shared_data import SHARED_DATA

    path = folder / f"worker_{index}.png"
    write_image(path, shared_data_frame(SHARED_DATA / "media" / WORKER_CLIP, index))
    return path


WORKER_CLIP = "videos/worker_zone_hardhat_vest_from_gif.mp4"
