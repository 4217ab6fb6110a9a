"""Which frame a picture shows: the exact frames around an estimate compared with a picture on screen.

libVLC 3 gives the window its pictures without a time stamp, so while a video plays the frame on show is only
estimated from the playback clock (off by up to about 9 frames on a loaded machine). The picture itself is in
hand, though: ``match_picture`` decodes the exact frames ``estimate - radius .. estimate + radius`` (the
project's :class:`~fieldstudio.media.frame_reader.FrameReader`) and compares each with the picture on a
``THUMB`` x ``THUMB`` thumbnail (mean absolute difference over the RGB levels, 0-255; a thumbnail because libVLC
scales and converts colours slightly differently from ffmpeg's swscale).

A frame is the match only when it can be told apart:

* the best difference is at most ``MATCH_BELOW`` levels, and
* the best frame's run of identical frames (consecutive frames within ``SAME_BELOW`` levels of it: a static scene,
  a duplicated frame) is set aside, and the second best of the others is at least ``CLEAR_FACTOR`` times the best
  and ``CLEAR_GAP`` levels above it;
* the run does not reach back past the window (its first frame, the one first shown, would be unknown).

The frame found is the earliest of the best frame's identical run: the frame first shown with that picture.
Otherwise the estimate stands, found by ``"clock"``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

RADIUS = 12
"""Frames decoded on each side of the estimate: above the clock's error measured by bench_behaviour (-9..+5)."""
THUMB = 64
# On the barcode clip (tests/media/test_picture_match.py) a frame scaled bilinearly to another size and blurred
# 3x3 differs from its own frame by 0.4-0.8 levels and from the nearest other frame by 6.4-8.9; identical frames
# of a static run decode within 0.12 of each other. libVLC's pictures on the canvas (bench_behaviour, 60 key
# presses) matched their frame at 0.0 levels, the next best at 5.9-8.5.
MATCH_BELOW = 10.0
SAME_BELOW = 0.5
CLEAR_FACTOR = 2.0
CLEAR_GAP = 1.0
PICTURE = "picture"
CLOCK = "clock"


@dataclass(frozen=True)
class PictureMatch:
    """The frame a picture shows. ``found``: ``"picture"`` (a unique match; ``frame_index`` is that frame) or
    ``"clock"`` (none; ``frame_index`` is the estimate). ``best`` / ``second``: the differences (levels 0-255) of
    the best frame and of the best frame outside its identical run (None when there is none); ``why``: one line."""

    frame_index: int
    found: str
    best: float | None
    second: float | None
    why: str


def thumbnail(rgb: np.ndarray) -> np.ndarray:
    """A (THUMB, THUMB, 3) float32 thumbnail of an (H, W, 3) uint8 RGB picture (area averaging)."""
    return cv2.resize(np.ascontiguousarray(rgb), (THUMB, THUMB), interpolation=cv2.INTER_AREA).astype(np.float32)


def difference(a: np.ndarray, b: np.ndarray) -> float:
    """Mean absolute difference of two thumbnails, in levels (0-255)."""
    return float(np.abs(a - b).mean())


def match_picture(picture: np.ndarray, frame: Callable[[int], np.ndarray], estimate: int, frame_count: int, *,
                  radius: int = RADIUS) -> PictureMatch:
    """The frame among ``estimate - radius .. estimate + radius`` (clipped to ``0 .. frame_count - 1``) whose
    pixels the RGB ``picture`` (H', W', 3 uint8, any size of the same aspect) shows, by the module's rule.
    ``frame(i)`` gives the exact upright RGB frame i (``FrameReader.get``). Raises what ``frame`` raises
    (MediaError), ValueError for an estimate outside the video."""
    if not 0 <= estimate < frame_count:
        raise ValueError(f"frame {estimate} is outside the video's {frame_count} frames")
    lo, hi = max(0, estimate - radius), min(frame_count - 1, estimate + radius)
    target = thumbnail(picture)
    thumbs = [thumbnail(frame(i)) for i in range(lo, hi + 1)]
    d = [difference(target, t) for t in thumbs]
    b = int(np.argmin(d))
    first, last = b, b
    while first > 0 and difference(thumbs[first - 1], thumbs[b]) <= SAME_BELOW:
        first -= 1
    while last < len(thumbs) - 1 and difference(thumbs[last + 1], thumbs[b]) <= SAME_BELOW:
        last += 1
    others = d[:first] + d[last + 1:]
    best, second = d[b], (min(others) if others else None)
    if best > MATCH_BELOW:
        return PictureMatch(estimate, CLOCK, best, second,
                            f"no frame within {radius} of {estimate} shows the picture (best differs by "
                            f"{best:.1f} levels, above {MATCH_BELOW})")
    if first == 0 and lo > 0:
        return PictureMatch(estimate, CLOCK, best, second,
                            f"frames {lo}..{lo + last} are identical and the run may start before frame {lo}")
    if second is not None and (second < CLEAR_FACTOR * best or second - best < CLEAR_GAP):
        return PictureMatch(estimate, CLOCK, best, second,
                            f"frames {lo + b} and another differ from the picture alike ({best:.1f} and "
                            f"{second:.1f} levels)")
    next_best = "none" if second is None else f"{second:.1f}"
    return PictureMatch(lo + first, PICTURE, best, second,
                        f"frame {lo + first} shows the picture ({best:.1f} levels; the next best {next_best})")
