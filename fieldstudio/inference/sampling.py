"""Which frames of a video a prompt strategy sends: pure functions over decoded timestamps.

fieldstudio samples by the frame table (decoded PTS in seconds), never by ``index / fps``
(pitfalls.md §1-2). The FieldWorkArena rule of one frame per second up to about 30 frames is
reproduced on those timestamps (`fwa_indices`); the original metadata computation, which trusts the
container's frame count and fps, is available for exact reproduction (`fwa_metadata_indices`).
Sources: benchmarks.md §1.8 (FieldWorkArena), §2.3 (IndustryEQA), §1.8 "Other paths" (chunks).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Methods recorded with each frame set.
SAMPLING_PTS = "pts"
SAMPLING_FWA_METADATA = "fwa-metadata"
SAMPLING_UNIFORM = "uniform"


@dataclass(frozen=True)
class SampledFrame:
    """One chosen frame: ``frame_index`` in the decoded table and the time shown to the model.

    ``label_s`` is the timestamp written before the frame (video time, seconds; None: no timestamp).
    """

    frame_index: int
    label_s: float | None


def hhmmss(seconds: float) -> str:
    """``HH:MM:SS`` with the seconds truncated, as FieldWorkArena writes them (59.9 s -> 00:00:59)."""
    total = max(0, int(math.floor(seconds + 1e-9)))
    return f"{total // 3600:02d}:{total % 3600 // 60:02d}:{total % 60:02d}"


def span_of(seconds: np.ndarray, start_s: float | None = None, end_s: float | None = None) -> tuple[int, int, float, float]:
    """The frames inside a time range and the range's length.

    Args:
        seconds: PTS of every frame in seconds, ascending, shape (N,).
        start_s, end_s: the range in video time (seconds from the first frame's PTS); None = the video's
            start or end. A frame belongs to the range when start_s <= t < end_s.
    Returns:
        (first index, last index, range start in video time, range length in seconds). The length of a
        whole video is the last PTS minus the first plus the last frame's duration.
    Raises:
        ValueError: when the video has no frame or no frame lies in the range.
    """
    n = int(seconds.shape[0])
    if n == 0:
        raise ValueError("the video has no decoded frame")
    t = seconds - seconds[0]
    last_duration = float(t[-1] - t[-2]) if n > 1 else 0.0
    video_end = float(t[-1]) + last_duration
    lo = 0.0 if start_s is None else max(0.0, float(start_s))
    hi = video_end if end_s is None else min(video_end, float(end_s))
    first = int(np.searchsorted(t, lo - 1e-9, side="left"))
    last = int(np.searchsorted(t, hi - 1e-9, side="left")) - 1
    if end_s is None:
        last = n - 1
    if first > last or first >= n:
        raise ValueError(f"no frame lies between {lo:.3f} s and {hi:.3f} s (the video lasts {video_end:.3f} s)")
    return first, last, lo, max(hi - lo, 0.0)


def _index_at(t: np.ndarray, when: float, first: int, last: int) -> int:
    """The frame shown at video time ``when``: the last frame whose PTS is <= when, within [first, last]."""
    i = int(np.searchsorted(t, when + 1e-6, side="right")) - 1
    return min(max(i, first), last)


def fwa_indices(seconds: np.ndarray, *, start_s: float | None = None, end_s: float | None = None,
                seconds_per_frame: float = 1.0, max_frames: int = 30) -> list[SampledFrame]:
    """FieldWorkArena sampling on decoded timestamps: one frame per second, at most `max_frames` evenly spaced.

    The interval is ``max(seconds_per_frame, length / max_frames)``; frames are taken at range start +
    k * interval for every such time inside the range, each being the frame shown at that time. So a clip
    of 29 s or less gives one frame per second, and longer clips give `max_frames` frames (benchmarks.md
    §1.8: the 60 s example is 30 frames about 2 s apart). Each frame is labelled with its own PTS in
    video time. Raises ValueError as `span_of` does.
    """
    if seconds_per_frame <= 0 or max_frames < 1:
        raise ValueError("seconds_per_frame must be > 0 and max_frames >= 1")
    first, last, lo, length = span_of(seconds, start_s, end_s)
    t = seconds - seconds[0]
    interval = max(seconds_per_frame, length / max_frames) if length > 0 else seconds_per_frame
    count = max(1, min(max_frames, int(math.ceil(length / interval - 1e-9)))) if length > 0 else 1
    out: list[SampledFrame] = []
    for k in range(count):
        index = _index_at(t, lo + k * interval, first, last)
        if out and out[-1].frame_index == index:
            continue
        out.append(SampledFrame(index, float(t[index])))
    return out


def fwa_metadata_indices(frame_count: int, fps: float, *, seconds_per_frame: float = 1.0, max_frames: int = 30,
                         cap: bool = False) -> list[SampledFrame]:
    """FieldWorkArena's own computation from container metadata, reproduced exactly (benchmarks.md §1.8).

    skip = floor(fps * seconds_per_frame); if skip < N / (max_frames - 1), skip = floor(N / (max_frames - 1));
    indices 0, skip, 2*skip, ... < N; label of the i-th frame floor(i * skip / fps) seconds. `cap` stops
    after `max_frames` frames (the GreenAgent purple agent); V2 and icpr2026 have no cap.
    Raises ValueError for fps <= 0 (the original divides by zero) or N < 1.
    """
    if fps <= 0:
        raise ValueError("the video reports 0 frames per second; FieldWorkArena's sampling is undefined for it")
    if frame_count < 1:
        raise ValueError("the video reports no frames")
    skip = int(math.floor(fps * seconds_per_frame))
    if skip < frame_count / (max_frames - 1):
        skip = int(math.floor(frame_count / (max_frames - 1)))
    skip = max(skip, 1)
    out = [SampledFrame(i * skip, float(math.floor(i * skip / fps))) for i in range((frame_count + skip - 1) // skip)]
    return out[:max_frames] if cap else out


def uniform_indices(first: int, last: int, n: int) -> list[int]:
    """IndustryEQA's uniform sampling over frames first..last: first + floor(i * (last - first) / (n - 1)).

    For n = 1 the middle frame. N = 300, n = 10 gives 0, 33, 66, 99, 132, 166, 199, 232, 265, 299
    (benchmarks.md §2.3). Fewer distinct frames than n are returned when the range is shorter.
    """
    if n < 1:
        raise ValueError("at least one frame must be sampled")
    span = last - first
    if n == 1:
        return [first + span // 2]
    out: list[int] = []
    for i in range(n):
        index = first + (i * span) // (n - 1)
        if not out or out[-1] != index:
            out.append(index)
    return out


def uniform_frames(seconds: np.ndarray, n: int, *, start_s: float | None = None, end_s: float | None = None
                   ) -> list[SampledFrame]:
    """`uniform_indices` over the frames of a time range (`span_of`), each labelled with its PTS in video time.

    The frame budget of a sampling sweep's ``uniform:N`` arm. Raises ValueError as `span_of` does."""
    first, last, _lo, _length = span_of(seconds, start_s, end_s)
    t = seconds - seconds[0]
    return [SampledFrame(i, float(t[i])) for i in uniform_indices(first, last, n)]


def chunks(seconds: np.ndarray, *, start_s: float | None = None, end_s: float | None = None,
           chunk_s: float = 30.0, seconds_per_frame: float = 1.0) -> list[tuple[float, float, list[SampledFrame]]]:
    """Cut a range into `chunk_s` second chunks with one frame per `seconds_per_frame` in each.

    Returns (chunk start, chunk end, frames) in video time; frames are labelled with their PTS. The
    icpr2026 long-video path uses 30 s chunks at 1 fps (benchmarks.md §1.8). Raises ValueError as `span_of`.
    """
    first, last, lo, length = span_of(seconds, start_s, end_s)
    t = seconds - seconds[0]
    out = []
    chunk_start = lo
    end = lo + length
    while chunk_start < end - 1e-9 or not out:
        chunk_end = min(chunk_start + chunk_s, end)
        frames: list[SampledFrame] = []
        when = chunk_start
        while when < chunk_end - 1e-9 or not frames:
            index = _index_at(t, when, first, last)
            if not frames or frames[-1].frame_index != index:
                frames.append(SampledFrame(index, float(t[index])))
            when += seconds_per_frame
        out.append((chunk_start, chunk_end, frames))
        chunk_start = chunk_end
        if length <= 0:
            break
    return out
