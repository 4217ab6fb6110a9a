"""Faces made unrecognisable in a copy of an RGB picture: each box, widened by a margin, is replaced by a coarse
mosaic of itself smoothed by a Gaussian blur, so neither the features nor the mosaic's block edges remain."""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np

from fieldstudio.privacy.faces import FaceBox

#: Each side of a box is widened by this fraction of the box's size (hair, ears and the chin the box may miss).
MARGIN = 0.25
#: The mosaic keeps this many blocks across a face's longest side: too few for eyes, nose and mouth.
BLOCKS = 5


def widened(box: FaceBox, width: int, height: int, margin: float = MARGIN) -> tuple[int, int, int, int]:
    """The pixel rectangle (x0, y0, x1, y1; x1 and y1 exclusive) blurred for `box` in a `width` x `height` picture."""
    dx, dy = (box.x1 - box.x0) * margin, (box.y1 - box.y0) * margin
    x0, y0 = max(0, int(box.x0 - dx)), max(0, int(box.y0 - dy))
    x1, y1 = min(width, int(np.ceil(box.x1 + dx))), min(height, int(np.ceil(box.y1 + dy)))
    return x0, y0, x1, y1


def blur_faces(rgb: np.ndarray, boxes: Iterable[FaceBox], *, margin: float = MARGIN) -> np.ndarray:
    """A copy of the RGB uint8 picture (H x W x 3) with every box (widened by `margin`) blurred; the picture given
    is never changed. A box is anything with ``x0, y0, x1, y1`` in pixels (a face, or a person of ``media.people``). With no boxes the copy equals the picture."""
    out = rgb.copy()
    height, width = rgb.shape[:2]
    for box in boxes:
        x0, y0, x1, y1 = widened(box, width, height, margin)
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        region = out[y0:y1, x0:x1]
        step = max(1, max(x1 - x0, y1 - y0) // BLOCKS)
        small = cv2.resize(region, (max(1, (x1 - x0) // step), max(1, (y1 - y0) // step)),
                           interpolation=cv2.INTER_AREA)
        coarse = cv2.resize(small, (x1 - x0, y1 - y0), interpolation=cv2.INTER_NEAREST)
        kernel = step | 1                              # odd, about one block wide: the block edges melt
        out[y0:y1, x0:x1] = cv2.GaussianBlur(coarse, (kernel, kernel), 0)
    return out
