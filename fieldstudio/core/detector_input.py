"""What a detector (faces, people) accepts as a picture: an RGB array H x W x 3 under a pixel cap.

A detector run on a picture of hundreds of megapixels reads it for minutes; both detectors refuse such a picture
up front with their own error type, naming its size and the cap, so the caller can tell the user what to shrink.
"""
from __future__ import annotations

import numpy as np


def checked_size(rgb: np.ndarray, *, max_pixels: int, too_large: type[Exception], reader: str,
                 advice: str = "") -> tuple[int, int]:
    """The (height, width) in pixels of an RGB picture a detector may read.

    Args:
        rgb: the picture, an array H x W x 3.
        max_pixels: the most pixels (H * W) the detector reads.
        too_large: the error raised above the cap (the detector's own type).
        reader: what reads it, for the message ("the face detector").
        advice: appended to the message after "; " when given ("shrink the picture first").

    Raises:
        ValueError: the array is not H x W x 3.
        too_large: H * W is more than `max_pixels`.
    """
    if rgb.ndim != 3 or rgb.shape[2] != 3:
        raise ValueError(f"an RGB picture is H x W x 3, not {rgb.shape}")
    height, width = rgb.shape[:2]
    if height * width > max_pixels:
        tail = f"; {advice}" if advice else ""
        raise too_large(f"{width} x {height} pixels is more than {reader} reads "
                        f"({max_pixels // 1_000_000} MP){tail}")
    return height, width
