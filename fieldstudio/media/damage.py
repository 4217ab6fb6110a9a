"""Damaged media: a video whose container promises more than decodes (a partial or cut-off file).

A truncated MP4 whose index (``moov``) survived says 30 s and 900 frames while only the first seconds of
picture data are in the file; ffprobe calls it a partial file. Such a video stays usable (the frames that
exist are exact and annotations attach to them), but it must never read as "ok, 6.7 s": the library and
Properties name it damaged with what the container says and what decodes. The container's facts are kept
from the probe (``media.extra``: ``container_duration_s``, ``frame_count_estimate``); the decodable ones
are the frame table's.
"""

from __future__ import annotations

#: A decodable span shorter than the container's by more than this many frame durations, and by more than
#: :data:`SHORT_FRACTION` of it, is damage (the last frame's duration, rounding or an edit list are not).
SHORT_FRAMES = 3
SHORT_FRACTION = 0.02
#: The frame duration assumed when the frame rate is unknown, in seconds.
UNKNOWN_FRAME_S = 0.1


def video_damage(container_duration_s: float | None, container_frames: int | None, frames: int,
                 duration_s: float | None, fps: float | None) -> str | None:
    """What is wrong with a video, in one line, or None when what decodes covers what the container says.

    ``container_duration_s`` and ``container_frames`` as the container states them (None when it does not);
    ``frames`` decodable (or demuxable) frames, their span ``duration_s`` in seconds and mean rate ``fps``.
    Only a time shortfall counts: a container's frame count also holds pictures an edit list hides, so
    fewer frames alone is not damage.
    """
    if not container_duration_s or duration_s is None:
        return None
    missing = container_duration_s - duration_s
    frame_s = 1.0 / fps if fps else UNKNOWN_FRAME_S
    if missing <= max(SHORT_FRAMES * frame_s, SHORT_FRACTION * container_duration_s):
        return None
    promised = f"{container_duration_s:.3f} s" + (f", {container_frames} frames" if container_frames else "")
    return (f"partial or damaged file: the container says {promised}; {frames} frame(s) decode, "
            f"{duration_s:.3f} s ({missing:.3f} s missing)")
