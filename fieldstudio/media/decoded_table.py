"""The decoded frame table: every frame's PTS and keyframe flag, read by decoding the stream (not its pixels).

What ffmpeg decodes is the truth about a video's frames (``frame_table``). ``build_frame_table`` decodes the
timestamps only (no pixel conversion, the loop filter skipped), cut at keyframes into one range per core, each
on its own thread with a decoder of its own; a damaged or truncated file is decoded again on one thread, so it
keeps every frame ffmpeg keeps.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

from fieldstudio.core.errors import MediaError
from fieldstudio.media.frame_table import FrameTable
from fieldstudio.media.packet_table import build_packet_table
from fieldstudio.media.video import DecodeLog, decoded_frames, frame_pts, open_video


def build_frame_table(
    path: Path,
    *,
    progress: Callable[[int, int], None] = lambda done, total: None,
    cancelled: Callable[[], bool] = lambda: False,
) -> FrameTable:
    """Decode every frame of the first video stream and record its PTS and keyframe flag.

    Pixels are not converted, and the loop filter is skipped (it changes pixels, not timestamps). The
    stream is cut at keyframes into one range per core, each decoded on its own thread by a decoder of
    its own (``_decode_timestamps_in_ranges``): on two cores that is faster than FFmpeg's frame threading,
    which waits on reference frames. A packet that fails to decode is skipped and the
    decoder is flushed, as ffmpeg does, so a tail-truncated file keeps every frame ffmpeg decodes from it
    (a file with errors, or fewer frames than packets, is decoded again on one thread: frame threading
    silently drops the frames in flight at a bad packet). Raises MediaError if no frame decodes,
    InterruptedError if ``cancelled()`` turns true.
    """
    path = Path(path)
    split = _decode_timestamps_in_ranges(path, progress=progress, cancelled=cancelled)
    if split is not None:
        pts, keys, log, time_base = split
    else:
        pts, keys, log, time_base = _decode_timestamps(path, threads=True, progress=progress, cancelled=cancelled)
    if log.errors or len(pts) < log.packets:
        # Frame threading silently loses the frames in flight when a packet fails to decode (a truncated or
        # damaged file): decode once more on one thread, which keeps every frame ffmpeg keeps.
        again, again_keys, _, _ = _decode_timestamps(path, threads=False, progress=progress, cancelled=cancelled)
        if len(again) > len(pts):
            pts, keys = again, again_keys
    if not pts:
        raise MediaError(path, "no frame can be decoded (damaged or truncated video)")
    order = np.argsort(np.asarray(pts, dtype=np.int64), kind="stable")
    table = FrameTable(pts=np.asarray(pts, dtype=np.int64)[order], keyframe=np.asarray(keys, dtype=bool)[order],
                       time_base=time_base)
    progress(len(table), len(table))
    return table


def _timestamps_only(stream: av.video.stream.VideoStream) -> None:
    """Set ``stream``'s decoder for timestamps alone: every frame decoded, the loop filter skipped (it changes
    pixels, not timestamps)."""
    stream.codec_context.skip_frame = "DEFAULT"
    try:
        stream.codec_context.options = {"skip_loop_filter": "all"}
    except (AttributeError, ValueError):  # older PyAV: the filter just runs
        pass


def _decode_timestamps(path: Path, *, threads: bool, progress: Callable[[int, int], None],
                       cancelled: Callable[[], bool]) -> tuple[list[int], list[bool], DecodeLog, Fraction]:
    """(PTS, keyframe flag) of every decoded frame in decode output order, what decoding met, the time base."""
    container = open_video(path)
    try:
        stream = container.streams.video[0]
        if threads:
            stream.thread_type = "AUTO"
        _timestamps_only(stream)
        estimate = stream.frames or 0
        pts: list[int] = []
        keys: list[bool] = []
        log = DecodeLog()
        for frame in decoded_frames(container, stream, log):
            value = frame_pts(frame)
            if value is None:
                continue
            pts.append(value)
            keys.append(bool(frame.key_frame))
            if len(pts) % 64 == 0:
                progress(len(pts), max(estimate, len(pts)))
                if cancelled():
                    raise InterruptedError("frame indexing cancelled")
        return pts, keys, log, Fraction(stream.time_base)
    finally:
        container.close()


_MIN_RANGE_FRAMES = 240  # below this many frames per range, one decoder with frame threading is as fast
_MAX_RANGES = 8
# Below this many pixels a frame decodes in tens of microseconds, and range threads spend their time taking
# turns at the GIL (each decode call releases and retakes it): a 160x90 clip took 0.3 s or 3 s by luck of
# the convoy, and the window's thread waited with them. FFmpeg's own threads do not need the GIL.
_MIN_RANGE_PIXELS = 1280 * 720


def _range_starts(path: Path, ranges: int) -> tuple[list[int], int] | None:
    """(PTS of the keyframes where ranges 2..n start, about equal in frames; frames in the packet index),
    or None when the file cannot be cut (too short, one keyframe, packets without timestamps)."""
    try:
        table = build_packet_table(path)
    except MediaError:
        return None
    ranges = min(ranges, len(table) // _MIN_RANGE_FRAMES)
    key_pts = table.pts[table.keyframe]
    if ranges < 2 or len(key_pts) < ranges:
        return None
    starts: list[int] = []
    for k in range(1, ranges):
        target = int(table.pts[len(table) * k // ranges])
        at = int(np.searchsorted(key_pts, target, side="left"))
        value = int(key_pts[min(at, len(key_pts) - 1)])
        if value > int(table.pts[0]) and (not starts or value > starts[-1]):
            starts.append(value)
    return (starts, len(table)) if starts else None


class _RangeUnusable(Exception):
    """A range cannot stand for its part of the stream (the seek landed past its keyframe, a packet had no
    PTS): the caller decodes the stream in one piece instead."""


def _decode_range(path: Path, lo: int | None, hi: int | None, done: list[int], stop: threading.Event,
                  ) -> tuple[list[int], list[bool], DecodeLog, Fraction]:
    """(PTS, keyframe flag) of the decoded frames whose PTS is in [lo, hi) (None: unbounded), on one thread.

    Decoding starts at the keyframe ``lo`` (the file's start when None) and runs one keyframe past ``hi``,
    so the leading pictures of an open GOP, which follow ``hi`` in decode order but are shown before it, are
    decoded here with their references. ``done[0]`` counts frames for progress; ``stop`` set ends early.
    """
    container = open_video(path)
    try:
        stream = container.streams.video[0]
        stream.codec_context.thread_count = 1
        _timestamps_only(stream)
        if lo is not None:
            container.seek(lo, stream=stream, backward=True)
        log = DecodeLog()
        state = {"first": True}

        def until(packet: av.Packet) -> bool:
            if stop.is_set():
                return True
            if packet.size and packet.pts is None:
                raise _RangeUnusable("a packet has no PTS")
            if state["first"] and packet.size:
                state["first"] = False
                if lo is not None and packet.pts > lo:
                    raise _RangeUnusable("the seek landed after the range's keyframe")
            if hi is not None and packet.is_keyframe and packet.pts is not None and packet.pts > hi:
                return True  # the keyframe after hi: every frame shown before hi is decoded by now
            return False

        pts: list[int] = []
        keys: list[bool] = []
        for frame in decoded_frames(container, stream, log, until=until):
            value = frame_pts(frame)
            if value is None or (lo is not None and value < lo) or (hi is not None and value >= hi):
                continue
            pts.append(value)
            keys.append(bool(frame.key_frame))
            done[0] += 1
        return pts, keys, log, Fraction(stream.time_base)
    finally:
        container.close()


def _decode_timestamps_in_ranges(path: Path, *, progress: Callable[[int, int], None],
                                 cancelled: Callable[[], bool],
                                 ) -> tuple[list[int], list[bool], DecodeLog, Fraction] | None:
    """What ``_decode_timestamps`` returns, decoded as keyframe-bounded ranges on one thread per core.

    Returns None when the file cannot be cut that way (one core, a short clip, frames under 1280x720 pixels,
    a seek that misses), and the caller decodes it in one piece. The log holds every range's errors, and as
    packets the frames the packet index names, so a range that loses frames is caught as a whole-file decode
    would be.
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    ranges = min(cores, _MAX_RANGES)
    if ranges < 2:
        return None
    container = open_video(path)
    try:
        context = container.streams.video[0].codec_context
        pixels = (context.width or 0) * (context.height or 0)
    finally:
        container.close()
    if pixels < _MIN_RANGE_PIXELS:
        return None
    cut = _range_starts(path, ranges)
    if cut is None:
        return None
    starts, frames = cut
    bounds = list(zip([None, *starts], [*starts, None]))
    stop = threading.Event()
    counters = [[0] for _ in bounds]
    results: list[tuple | BaseException | None] = [None] * len(bounds)

    def work(i: int) -> None:
        try:
            results[i] = _decode_range(path, *bounds[i], counters[i], stop)
        except BaseException as exc:  # handed to the calling thread
            results[i] = exc
            stop.set()

    threads = [threading.Thread(target=work, args=(i,), name=f"index-range-{i}", daemon=True)
               for i in range(len(bounds))]
    for t in threads:
        t.start()
    try:
        while any(t.is_alive() for t in threads):
            threads[0].join(0.1)
            if cancelled():
                raise InterruptedError("frame indexing cancelled")
            done = sum(c[0] for c in counters)
            progress(done, max(frames, done))
    finally:
        stop.set()  # a cancel or an error ends the other ranges too
        for t in threads:
            t.join()
    if any(isinstance(r, _RangeUnusable) for r in results):
        return None
    for r in results:
        if isinstance(r, BaseException):
            raise r
    pts: list[int] = []
    keys: list[bool] = []
    log = DecodeLog()
    for r in results:
        pts += r[0]
        keys += r[1]
        log.errors += r[2].errors
    log.packets = frames
    return pts, keys, log, results[0][3]
