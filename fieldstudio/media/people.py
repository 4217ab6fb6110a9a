"""People found in an RGB picture by OpenCV's HOG people detector (Dalal and Triggs' histogram-of-oriented-gradients
features with the linear SVM OpenCV carries; no model file, nothing downloaded).

Qt-free. "Detect people" (``annotations.people_proposals``), the agent's ``detect_people`` tool and the privacy
gate's "also blur whole people" call :func:`detect_people`.

The detector (the parameters stated, so a result can be made again):

- window 64 x 128 px (the default people detector: a standing person about 96 px tall inside it);
- ``winStride`` (8, 8), ``padding`` (8, 8), pyramid ``scale`` 1.1 (1.05 found the same people here in twice the
  time), ``hitThreshold`` 0 (the SVM margin from which a window counts), OpenCV's grouping of overlapping windows
  (``groupThreshold`` 2: at least three windows), then our greedy non-maximum suppression at IoU `NMS_IOU` (the
  grouping keeps boxes nested in others);
- the box given is the window less the margin the detector was trained with (16 px of the 64 x 128 window on each
  side: the person stands in the middle 32 x 96 px), so that it is the person's box, as one is marked by hand;
- a box's score is the SVM margin OpenCV gives the group (about 0-3; higher is surer); boxes below ``min_score``
  (default `MIN_SCORE`) are dropped;
- the picture is framed by a border of `BORDER` x its height on every side, its edge pixels repeated, before it is
  read: a person cut by the frame's edge, or as tall as the frame, needs the window (a third larger than the person)
  to reach past the edge. On the 14 people marked by hand in the shared data's frames
  (``tests/support/people_frames.py``) the border took recall at IoU 0.5 from 1 to 6 and precision from 1/5 to 6/8;
- a picture whose longest side is above `WORK_SIDE` px is shrunk to it first (area interpolation) and the boxes are
  scaled back: HOG's cost grows with the pixels (a 1080p frame read at 960 x 540 took 2.6 s at load 15 on two
  cores, 8.8 s at 1280 x 720 with scale 1.05); a person shorter than about 100 px at that size (about 200 px in a
  1080p frame) is missed. Smaller pictures are read as they are (people shorter than about 100 px are missed:
  enlarging them gave no more people on the shared data's 480 x 270 frames, and more false alarms).
- a picture above `MAX_PIXELS` is refused (`PeopleImageTooLarge`), one smaller than the window (`MIN_SIDE`) gives
  no box.

Coordinates are pixels of the picture given, ``(x0, y0, x1, y1)``, origin top left, y down (as annotations are).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from fieldstudio.core.box_overlap import suppress
from fieldstudio.core.detector_input import checked_size
from fieldstudio.core.errors import FieldstudioError

WIN_STRIDE = (8, 8)
PADDING = (8, 8)
SCALE = 1.1
HIT_THRESHOLD = 0.0
GROUP_THRESHOLD = 2
#: The border added on every side before reading, as a fraction of the (shrunk) picture's height.
BORDER = 0.3
#: The training margin taken off each side of a window, as fractions of its width and height (16 / 64, 16 / 128).
MARGIN = (0.25, 0.125)
#: Boxes overlapping a better one by more than this (intersection over union) are dropped.
NMS_IOU = 0.45
#: Boxes whose SVM margin is below this are not proposed (the grouping's margins run about 0-3).
MIN_SCORE = 0.3
#: Longest side, in pixels, the detector reads; larger pictures are shrunk to it.
WORK_SIDE = 960
#: The detector's window; a picture narrower or lower than this holds no person the detector can see.
MIN_SIDE = (64, 128)
#: Pictures larger than this are refused rather than shrunk (a decode of that size is already a mistake).
MAX_PIXELS = 120_000_000


class PeopleDetectorUnavailable(FieldstudioError):
    """This OpenCV has no HOG people detector (a build without objdetect / xobjdetect); the message says so."""


class PeopleImageTooLarge(FieldstudioError):
    """A picture larger than `MAX_PIXELS`; the message gives its size and the limit."""


@dataclass(frozen=True)
class PersonBox:
    """One person: the box in pixels of the picture given (x0, y0 top left, x1, y1 bottom right) and the detector's
    score (the SVM margin, higher is surer)."""

    x0: float
    y0: float
    x1: float
    y1: float
    score: float

    @property
    def xyxy(self) -> tuple[float, float, float, float]:
        """``(x0, y0, x1, y1)``."""
        return (self.x0, self.y0, self.x1, self.y1)

    @property
    def xywh(self) -> tuple[float, float, float, float]:
        """``(x, y, width, height)``, as boxes are drawn and stored."""
        return (self.x0, self.y0, self.x1 - self.x0, self.y1 - self.y0)

    def as_list(self) -> list[float]:
        """``[x0, y0, x1, y1, score]`` rounded to 0.1 px and 0.001, as the request log and JSON keep it."""
        return [round(self.x0, 1), round(self.y0, 1), round(self.x1, 1), round(self.y1, 1), round(self.score, 3)]


_hog = None
_lock = threading.Lock()


def available() -> bool:
    """Whether this OpenCV carries the HOG people detector."""
    import cv2

    return hasattr(cv2, "HOGDescriptor")


def detector_version() -> str:
    """``opencv-hog <cv2 version> default-people winStride=8 scale=1.1 group=2 nms=0.45 border=0.3 side<=960``:
    what made the boxes (the parameters that change them)."""
    import cv2

    return (f"opencv-hog {cv2.__version__} default-people winStride={WIN_STRIDE[0]} scale={SCALE} "
            f"group={GROUP_THRESHOLD} nms={NMS_IOU} border={BORDER} side<={WORK_SIDE}")


def _descriptor():
    global _hog
    import cv2

    if not available():
        raise PeopleDetectorUnavailable(
            f"this OpenCV ({cv2.__version__}) has no HOG people detector: it was built without objdetect "
            "(xobjdetect from OpenCV 5); installers/linux/opencv_minimal.sh builds it in")
    with _lock:
        if _hog is None:
            hog = cv2.HOGDescriptor()
            hog.setSVMDetector(cv2.HOGDescriptor.getDefaultPeopleDetector())  # the form both 4.x and 5.x bind
            _hog = hog
        return _hog


def detect_people(rgb: np.ndarray, *, min_score: float = MIN_SCORE) -> list[PersonBox]:
    """The people in an RGB uint8 picture (H x W x 3), best first.

    Raises:
        ValueError: the array is not H x W x 3.
        PeopleImageTooLarge: more than `MAX_PIXELS` pixels.
        PeopleDetectorUnavailable: this OpenCV has no HOG detector.
    """
    import cv2

    height, width = checked_size(rgb, max_pixels=MAX_PIXELS, too_large=PeopleImageTooLarge,
                                 reader="the people detector")
    hog = _descriptor()
    factor = min(1.0, WORK_SIDE / max(height, width))
    picture = rgb if factor == 1.0 else cv2.resize(
        rgb, (max(1, round(width * factor)), max(1, round(height * factor))), interpolation=cv2.INTER_AREA)
    if picture.shape[1] < MIN_SIDE[0] or picture.shape[0] < MIN_SIDE[1]:
        return []
    edge = round(BORDER * picture.shape[0])
    framed = cv2.copyMakeBorder(np.ascontiguousarray(picture), edge, edge, edge, edge, cv2.BORDER_REPLICATE)
    # HOG reads gradients of whichever channel is strongest, so the channel order does not change the result
    rects, weights = hog.detectMultiScale(framed, hitThreshold=HIT_THRESHOLD,
                                          winStride=WIN_STRIDE, padding=PADDING, scale=SCALE,
                                          groupThreshold=GROUP_THRESHOLD)
    boxes = []
    for (x, y, w, h), score in zip(np.asarray(rects).reshape(-1, 4).tolist(), np.ravel(weights).tolist()):
        if score < min_score:
            continue
        x, y = x - edge + MARGIN[0] * w, y - edge + MARGIN[1] * h
        w, h = w * (1 - 2 * MARGIN[0]), h * (1 - 2 * MARGIN[1])
        x0, y0 = max(0.0, x / factor), max(0.0, y / factor)
        x1, y1 = min(float(width), (x + w) / factor), min(float(height), (y + h) / factor)
        if x1 > x0 and y1 > y0:
            boxes.append(PersonBox(x0, y0, x1, y1, float(score)))
    return suppress(boxes, NMS_IOU, lambda b: b.xyxy, lambda b: b.score)
