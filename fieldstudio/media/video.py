"""Video probing, the frame table (frame index -> PTS) and exact random frame access, with PyAV.

The frame table built by decoding the stream is the only truth about frames (DESIGN.md, pitfalls.md
§1-§2); the packet table (``build_packet_table``, demuxing only) stands in for it until it is built: a frame is identified by its index in presentation order (the order ffmpeg's
``select=eq(n,N)`` counts) and its PTS in the stream's time base; seconds are ``pts * time_base``,
never ``index / fps``. Several frames may share one PTS, so a decoded frame is named by its position
in the decoder's output, with its PTS as the check. ``FrameReader.get(n)`` seeks to the keyframe at or
before frame n, decodes forward counting frames until it reaches frame n, and keeps the frames it
decoded on the way in a byte-bounded cache, so stepping back is as cheap as stepping forward.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

from fieldstudio.core.errors import MediaError

VIDEO_SUFFIXES = {".mp4", ".mov", ".m4v", ".avi", ".mkv", ".webm", ".mpg", ".mpeg", ".ts", ".gif"}
DEFAULT_CACHE_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class VideoProbe:
    """Container and stream facts of a video, read without decoding the whole stream.

    ``width`` x ``height`` are upright pixels (rotation applied); ``rotation`` is the display
    rotation in degrees counter-clockwise (0, 90, 180, 270); ``frame_count_estimate`` comes from the
    container and is only a hint for progress bars.
    """

    width: int
    height: int
    codec: str
    format: str
    duration_s: float | None
    time_base: Fraction
    rotation: int
    has_audio: bool
    avg_fps: float | None
    frame_count_estimate: int | None


def _open(path: Path) -> av.container.InputContainer:
    path = Path(path)
    try:
        if path.stat().st_size == 0:
            raise MediaError(path, "is empty (0 bytes)")
        container = av.open(str(path), metadata_errors="ignore")
    except MediaError:
        raise
    except FileNotFoundError as exc:
        raise MediaError(path, "no longer exists") from exc
    except (av.error.FFmpegError, OSError, ValueError) as exc:
        raise MediaError(path, f"is not a readable video ({_reason(exc)})") from exc
    if not container.streams.video:
        container.close()
        raise MediaError(path, "has no video stream")
    return container


def _reason(exc: BaseException) -> str:
    text = getattr(exc, "strerror", None) or str(exc)
    return text.split(": '")[0].strip()


def frame_pts(frame: av.VideoFrame) -> int | None:
    """A decoded frame's presentation timestamp in its stream's time base: the PTS, else the DTS, else None."""
    value = frame.pts if frame.pts is not None else frame.dts
    return int(value) if value is not None else None


@dataclass
class _DecodeLog:
    """What ``_decoded_frames`` met: video packets with data, and the text of each decoding error."""

    packets: int = 0
    errors: list[str] = field(default_factory=list)


def _decoded_frames(container: av.container.InputContainer, stream: av.video.stream.VideoStream,
                    log: _DecodeLog | None = None,
                    until: Callable[[av.Packet], bool] | None = None) -> Iterator[av.VideoFrame]:
    """Decode ``stream`` packet by packet as the ffmpeg CLI does: a packet that fails to decode (the cut
    last packet of a truncated file) is skipped, and the decoder is always flushed, so the frames it still
    holds (B-frame reordering) come out. ``until(packet)`` true stops demuxing before that packet."""
    log = log if log is not None else _DecodeLog()
    flushed = False
    try:
        for packet in container.demux(stream):
            if until is not None and until(packet):
                break
            flushed = packet.size == 0  # the demuxer's last, empty packet flushes the decoder
            log.packets += not flushed
            try:
                yield from stream.decode(packet)
            except av.error.FFmpegError as exc:
                log.errors.append(_reason(exc))
    except av.error.FFmpegError as exc:  # the demuxer itself gave up
        log.errors.append(_reason(exc))
    if not flushed:
        try:
            yield from stream.decode(None)
        except av.error.FFmpegError as exc:
            log.errors.append(_reason(exc))


def _rotation_of(frame: av.VideoFrame) -> int:
    return int(round((frame.rotation or 0) / 90.0)) * 90 % 360


def probe_video(path: Path) -> VideoProbe:
    """Read a video's stream facts and decode its first frame to prove it is readable.

    Raises MediaError naming the file when it is empty, not a video, has no video stream, or its
    first frame cannot be decoded.
    """
    path = Path(path)
    container = _open(path)
    try:
        stream = container.streams.video[0]
        try:
            first = next(container.decode(stream))
        except (StopIteration, av.error.FFmpegError) as exc:
            raise MediaError(path, "no frame can be decoded (damaged or truncated video)") from exc
        rotation = _rotation_of(first)
        w, h = first.width, first.height
        if rotation in (90, 270):
            w, h = h, w
        duration = None
        if stream.duration is not None and stream.time_base:
            duration = float(stream.duration * stream.time_base)
        elif container.duration:
            duration = container.duration / av.time_base
        rate = stream.average_rate or stream.guessed_rate
        return VideoProbe(
            width=w,
            height=h,
            codec=stream.codec_context.name,
            format=container.format.name,
            duration_s=duration,
            time_base=Fraction(stream.time_base) if stream.time_base else Fraction(1, 1000),
            rotation=rotation,
            has_audio=bool(container.streams.audio),
            avg_fps=float(rate) if rate else None,
            frame_count_estimate=stream.frames or None,
        )
    finally:
        container.close()


@dataclass
class FrameTable:
    """Frame index -> PTS of every decodable frame, in presentation order.

    ``pts``: int64 array of shape (N,) in units of ``time_base`` seconds; ``keyframe``: bool array (N,).
    """

    pts: np.ndarray
    keyframe: np.ndarray
    time_base: Fraction

    def __len__(self) -> int:
        return int(self.pts.shape[0])

    @property
    def start_pts(self) -> int:
        return int(self.pts[0]) if len(self) else 0

    def seconds(self, index: int) -> float:
        """PTS of frame ``index`` in seconds (``pts * time_base``). Raises IndexError outside the table."""
        if not 0 <= index < len(self):
            raise IndexError(f"frame {index} is outside 0..{len(self) - 1}")
        return float(int(self.pts[index]) * self.time_base)

    def seconds_array(self) -> np.ndarray:
        """PTS of every frame in seconds, float64 array of shape (N,)."""
        return self.pts.astype(np.float64) * float(self.time_base)

    def index_at(self, seconds: float) -> int:
        """Index of the frame shown at time ``seconds``: the last frame whose PTS is <= that time."""
        target = seconds / float(self.time_base)
        i = int(np.searchsorted(self.pts, target + 1e-6, side="right")) - 1
        return min(max(i, 0), len(self) - 1)

    def keyframe_at_or_before(self, index: int) -> int:
        """Index of the nearest keyframe at or before ``index`` (0 if none is flagged)."""
        keys = np.flatnonzero(self.keyframe[: index + 1])
        return int(keys[-1]) if keys.size else 0

    def is_vfr(self, tolerance: float = 0.02) -> bool:
        """True when frame durations differ by more than ``tolerance`` (relative) from their median."""
        if len(self) < 3:
            return False
        d = np.diff(self.pts).astype(np.float64)
        med = float(np.median(d))
        if med <= 0:
            return True
        return bool(np.any(np.abs(d - med) > tolerance * med + 1))

    def avg_fps(self) -> float | None:
        """Mean frame rate over the table (frames per second), for display only."""
        if len(self) < 2:
            return None
        span = (int(self.pts[-1]) - int(self.pts[0])) * float(self.time_base)
        return (len(self) - 1) / span if span > 0 else None


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


def build_packet_table(
    path: Path,
    *,
    progress: Callable[[int, int], None] = lambda done, total: None,
    cancelled: Callable[[], bool] = lambda: False,
) -> FrameTable:
    """A first frame table from the container's packets alone (demuxing, no decoding): fast enough to
    open hours of footage at once.

    Each video packet with data and a PTS stands for one frame: its PTS and keyframe flag, sorted into
    presentation order. Packets the container marks as discarded (before an edit list's start) are left
    out, as the decoder leaves out their frames. An MP4/MOV is read from its sample tables, confirmed on its
    first packets, without a pass over the data. This is what ffmpeg decodes for an intact file; where it
    is not (frames that do not decode, packets without PTS, duplicated timestamps that the decoder
    resolves otherwise) the decoded table of ``build_frame_table`` differs, and it replaces this one
    once built (``library.verify_frame_tables``). Raises MediaError if no packet has a PTS,
    InterruptedError if ``cancelled()`` turns true.
    """
    path = Path(path)
    container = _open(path)
    try:
        stream = container.streams.video[0]
        fast = _packet_table_from_sample_tables(path, container, stream)
        if fast is not None:
            progress(len(fast), len(fast))
            return fast
        estimate = stream.frames or 0
        pts: list[int] = []
        keys: list[bool] = []
        try:
            for packet in container.demux(stream):
                if not packet.size or packet.pts is None or packet.is_discard:
                    continue
                pts.append(packet.pts)
                keys.append(packet.is_keyframe)
                if len(pts) % 4096 == 0:
                    progress(len(pts), max(estimate, len(pts)))
                    if cancelled():
                        raise InterruptedError("packet indexing cancelled")
        except av.error.FFmpegError:  # a cut file: the packets read so far are the index
            pass
        time_base = Fraction(stream.time_base) if stream.time_base else Fraction(1, 1000)
    finally:
        container.close()
    if not pts:
        raise MediaError(path, "has no video packet with a timestamp (damaged or truncated video)")
    p = np.asarray(pts, dtype=np.int64)
    order = np.argsort(p, kind="stable")
    table = FrameTable(pts=p[order], keyframe=np.asarray(keys, dtype=bool)[order], time_base=time_base)
    progress(len(table), len(table))
    return table


_CHECKED_PACKETS = 240  # packets demuxed to confirm the timestamps read from an MP4's sample tables


def _packet_table_from_sample_tables(path: Path, container: av.container.InputContainer,
                                     stream: av.video.stream.VideoStream) -> FrameTable | None:
    """The packet table of an MP4/MOV from its sample tables alone, without reading the media data: the
    demuxer's index (DTS, keyframe and discard flags) plus the ``ctts`` composition offsets
    (``mp4_boxes``), shifted as the demuxer shifts them. The first packets are demuxed to confirm every
    field; None (demux everything instead) for other containers or when anything disagrees."""
    if "mp4" not in container.format.name.split(","):
        return None
    from fieldstudio.media import mp4_boxes

    try:
        entries = stream.index_entries
        n = len(entries)
        if n == 0:
            return None
        fields = np.fromiter((v for e in entries for v in (e.timestamp, e.flags, e.size, e.pos)), dtype=np.int64,
                             count=4 * n).reshape(n, 4)
    except (AttributeError, av.error.FFmpegError):  # an older PyAV without index entries
        return None
    offsets = mp4_boxes.composition_offsets(path, n)
    if offsets is None:
        return None
    dts, key, discard = fields[:, 0], (fields[:, 1] & 1) != 0, (fields[:, 1] & 2) != 0
    shift = None
    k = 0
    try:
        for packet in container.demux(stream):
            if packet.size == 0:
                continue
            if k >= n or packet.pts is None or packet.dts != dts[k] or packet.is_keyframe != key[k] \
                    or packet.is_discard != discard[k]:
                return None
            if shift is None:
                shift = packet.pts - int(dts[k]) - int(offsets[k])
            if packet.pts != int(dts[k]) + int(offsets[k]) + shift:
                return None
            k += 1
            if k >= min(n, _CHECKED_PACKETS):
                break
    except av.error.FFmpegError:
        return None
    if shift is None:
        return None
    # a sample whose data is not in the file (a cut file whose moov came first) has no packet
    keep = ~discard & (fields[:, 2] > 0) & (fields[:, 3] + fields[:, 2] <= path.stat().st_size)
    pts = (dts + offsets + shift)[keep]
    order = np.argsort(pts, kind="stable")
    time_base = Fraction(stream.time_base) if stream.time_base else Fraction(1, 1000)
    return FrameTable(pts=pts[order], keyframe=key[keep][order], time_base=time_base)


def same_frames(a: FrameTable, b: FrameTable) -> bool:
    """True when two frame tables name the same frames: same length, PTS, keyframes and time base."""
    return (a.time_base == b.time_base and len(a) == len(b) and bool(np.array_equal(a.pts, b.pts))
            and bool(np.array_equal(a.keyframe, b.keyframe)))


def remap_indices(old: FrameTable, new: FrameTable, indices: np.ndarray) -> np.ndarray:
    """Where frames ``indices`` of table ``old`` are in table ``new``, found by their PTS.

    A frame keeps its PTS; among frames sharing a PTS, the k-th of them in ``old`` maps to the k-th in
    ``new`` (the last one there when ``new`` has fewer). A PTS missing from ``new`` (a frame that does
    not decode) maps to the frame shown at that time: the last one whose PTS is at or before it (frame
    0 if none). Both tables must share one time base. Returns an int64 array shaped like ``indices``.
    """
    if old.time_base != new.time_base:
        raise ValueError(f"time bases differ ({old.time_base} vs {new.time_base})")
    idx = np.asarray(indices, dtype=np.int64)
    pts = old.pts[idx]
    rank = idx - np.searchsorted(old.pts, pts, side="left")
    first = np.searchsorted(new.pts, pts, side="left")
    end = np.searchsorted(new.pts, pts, side="right")
    found = np.minimum(first + rank, end - 1)
    shown = np.maximum(np.searchsorted(new.pts, pts, side="right") - 1, 0)
    return np.where(end > first, found, shown).astype(np.int64)


def _timestamps_only(stream: av.video.stream.VideoStream) -> None:
    """Set ``stream``'s decoder for timestamps alone: every frame decoded, the loop filter skipped (it changes
    pixels, not timestamps)."""
    stream.codec_context.skip_frame = "DEFAULT"
    try:
        stream.codec_context.options = {"skip_loop_filter": "all"}
    except (AttributeError, ValueError):  # older PyAV: the filter just runs
        pass


def _decode_timestamps(path: Path, *, threads: bool, progress: Callable[[int, int], None],
                       cancelled: Callable[[], bool]) -> tuple[list[int], list[bool], _DecodeLog, Fraction]:
    """(PTS, keyframe flag) of every decoded frame in decode output order, what decoding met, the time base."""
    container = _open(path)
    try:
        stream = container.streams.video[0]
        if threads:
            stream.thread_type = "AUTO"
        _timestamps_only(stream)
        estimate = stream.frames or 0
        pts: list[int] = []
        keys: list[bool] = []
        log = _DecodeLog()
        for frame in _decoded_frames(container, stream, log):
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
                  ) -> tuple[list[int], list[bool], _DecodeLog, Fraction]:
    """(PTS, keyframe flag) of the decoded frames whose PTS is in [lo, hi) (None: unbounded), on one thread.

    Decoding starts at the keyframe ``lo`` (the file's start when None) and runs one keyframe past ``hi``,
    so the leading pictures of an open GOP, which follow ``hi`` in decode order but are shown before it, are
    decoded here with their references. ``done[0]`` counts frames for progress; ``stop`` set ends early.
    """
    container = _open(path)
    try:
        stream = container.streams.video[0]
        stream.codec_context.thread_count = 1
        _timestamps_only(stream)
        if lo is not None:
            container.seek(lo, stream=stream, backward=True)
        log = _DecodeLog()
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
        for frame in _decoded_frames(container, stream, log, until=until):
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
                                 ) -> tuple[list[int], list[bool], _DecodeLog, Fraction] | None:
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
    container = _open(path)
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
    log = _DecodeLog()
    for r in results:
        pts += r[0]
        keys += r[1]
        log.errors += r[2].errors
    log.packets = frames
    return pts, keys, log, results[0][3]


class FrameReader:
    """Exact random access to the frames of one video, for one thread at a time.

    ``get(index)`` returns the upright RGB frame (H, W, 3) uint8 that ffmpeg decodes as frame
    ``index``. Decoded frames are cached (as decoder frames, converted on demand) up to
    ``cache_bytes``; the decoder stays open so the next frame costs one decode.
    Raises MediaError when the file changed or the frame cannot be decoded.
    """

    def __init__(self, path: Path, table: FrameTable, *, rotation: int = 0, cache_bytes: int = DEFAULT_CACHE_BYTES):
        self.path = Path(path)
        self.table = table
        self.rotation = rotation % 360
        self._cache: OrderedDict[int, av.VideoFrame] = OrderedDict()
        self._rgb: OrderedDict[int, np.ndarray] = OrderedDict()
        self._cache_bytes = cache_bytes
        self._frame_bytes = 0
        self._container: av.container.InputContainer | None = None
        self._decoder = None
        self._next_index: int | None = None  # index the open decoder will yield next
        self._threads = True  # frame threading, until a frame is lost to it (see _frame)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.table)

    def close(self) -> None:
        """Close the decoder and drop the cache."""
        with self._lock:
            self._cache.clear()
            self._rgb.clear()
            self._reset_decoder()

    def _reset_decoder(self) -> None:
        if self._container is not None:
            self._container.close()
        self._container = None
        self._decoder = None
        self._next_index = None

    def _ensure_open(self) -> None:
        if self._container is None:
            self._container = _open(self.path)
            self._stream = self._container.streams.video[0]
            if self._threads:
                self._stream.thread_type = "AUTO"

    def _remember(self, index: int, frame: av.VideoFrame) -> None:
        if not self._frame_bytes:
            self._frame_bytes = max(1, sum(p.buffer_size for p in frame.planes))
        self._cache[index] = frame
        self._cache.move_to_end(index)
        limit = max(8, self._cache_bytes // self._frame_bytes)
        while len(self._cache) > limit:
            self._cache.popitem(last=False)

    def _index_of(self, frame: av.VideoFrame, after: int | None, hint: int | None = None) -> int | None:
        """Table index of a decoded ``frame``: its position in the decoder's output, checked by its PTS.

        ``after`` is the index of the frame this decoder gave just before (None right after a seek, when
        ``hint`` is the keyframe sought). Several frames may share one PTS (variable frame rate clips,
        edited timestamps), so the PTS alone does not name a frame: among the table's frames with this
        PTS the answer is the one right after ``after`` (else the sought keyframe, else the first).
        None when no frame of the table has this PTS.
        """
        pts = frame_pts(frame)
        if pts is None:
            return None
        first = int(np.searchsorted(self.table.pts, pts, side="left"))
        end = int(np.searchsorted(self.table.pts, pts, side="right"))
        if first == end:
            return None
        if after is not None and first <= after + 1 < end:
            return after + 1
        if hint is not None and first <= hint < end:
            return hint
        return first

    def _decode_next(self) -> av.VideoFrame | None:
        try:
            return next(self._decoder)
        except StopIteration:
            return None
        except av.error.FFmpegError as exc:
            raise MediaError(self.path, f"frame cannot be decoded ({_reason(exc)})") from exc

    def _seek_and_decode(self, index: int) -> None:
        """Decode from the keyframe at or before ``index`` up to ``index``, caching every frame."""
        target = int(self.table.pts[index])
        key = self.table.keyframe_at_or_before(index)
        for attempt in range(4):
            if key == 0:
                # From the first frame: a freshly opened file, not a seek. MPEG-TS and MPEG-PS seek by DTS,
                # which B-frames put before the keyframe's PTS, so a seek to the first keyframe lands past it.
                self._reset_decoder()
                self._ensure_open()
            else:
                self._ensure_open()
                self._container.seek(int(self.table.pts[key]), stream=self._stream, backward=True, any_frame=False)
            self._decoder = _decoded_frames(self._container, self._stream)
            self._next_index = None  # a new decoder: nothing decoded yet
            frame = self._decode_next()
            first_pts = frame_pts(frame) if frame is not None else None
            if key > 0 and (frame is None or (first_pts is not None and first_pts > target)):
                # The demuxer landed after the wanted frame (edit lists, B-frames, seeking by DTS), or past
                # every frame: go one keyframe back.
                key = self.table.keyframe_at_or_before(key - 1)
                continue
            if frame is None:
                break
            last = None  # index of the last frame this decoder gave since the seek
            while frame is not None:
                i = self._index_of(frame, last, hint=key if last is None else None)
                if i is not None:
                    last = i
                    self._remember(i, frame)
                    self._next_index = i + 1
                    if i == index:
                        return
                    if i > index:
                        break
                frame = self._decode_next()
            if attempt == 0 and key > 0:
                key = self.table.keyframe_at_or_before(key - 1)
        self._reset_decoder()
        raise MediaError(self.path, f"frame {index} (PTS {target}) could not be decoded exactly")

    def _frame(self, index: int) -> av.VideoFrame:
        if not 0 <= index < len(self.table):
            raise IndexError(f"{self.path.name}: frame {index} is outside 0..{len(self.table) - 1}")
        cached = self._cache.get(index)
        if cached is not None:
            self._cache.move_to_end(index)
            return cached
        if self._decoder is not None and self._next_index is not None and 0 <= index - self._next_index < 8:
            # Close ahead of the decoder: decode forward instead of seeking.
            while True:
                frame = self._decode_next()
                if frame is None:
                    break
                i = self._index_of(frame, self._next_index - 1)
                if i is None:
                    continue
                self._remember(i, frame)
                self._next_index = i + 1
                if i >= index:
                    break
            if index in self._cache:
                return self._cache[index]
        try:
            self._seek_and_decode(index)
        except MediaError:
            if not self._threads:
                raise
            # Frame threading drops the frames in flight at a packet that fails to decode (the end of a
            # truncated file); one thread keeps them, as the frame table was built.
            self._threads = False
            self._reset_decoder()
            self._seek_and_decode(index)
        return self._cache[index]

    def get(self, index: int) -> np.ndarray:
        """Upright RGB frame ``index`` as a (H, W, 3) uint8 array (read-only; copy before editing)."""
        with self._lock:
            rgb = self._rgb.get(index)
            if rgb is not None:
                self._rgb.move_to_end(index)
                return rgb
            frame = self._frame(index)
            rgb = frame.to_ndarray(format="rgb24")
            if self.rotation:
                rgb = np.ascontiguousarray(np.rot90(rgb, k=self.rotation // 90))
            rgb.setflags(write=False)
            self._rgb[index] = rgb
            while len(self._rgb) > 4:
                self._rgb.popitem(last=False)
            return rgb

    def get_scaled(self, index: int, scale: float, *, fmt: str = "bgr24") -> np.ndarray:
        """Upright frame ``index`` resized by ``scale`` in one swscale pass, as a (h, w, 3) uint8 array.

        ``w = max(1, round(W * scale))`` and ``h = max(1, round(H * scale))`` for the upright size W x H
        (the rotation is applied after scaling). ``fmt`` is a PyAV packed format ("bgr24" for OpenCV,
        "rgb24"). Scaling the decoder's frame directly skips the full-resolution RGB conversion that
        ``get`` makes, which is what the box tracker needs per frame. Not cached. Raises as ``get``.
        """
        with self._lock:
            frame = self._frame(index)
            w, h = max(1, round(frame.width * scale)), max(1, round(frame.height * scale))
            out = frame.reformat(width=w, height=h, format=fmt, interpolation="AREA").to_ndarray()
        if self.rotation:
            out = np.ascontiguousarray(np.rot90(out, k=self.rotation // 90))
        return out

    def seconds(self, index: int) -> float:
        """PTS of frame ``index`` in seconds."""
        return self.table.seconds(index)
