"""Exact random access to the frames of one video: ``FrameReader.get(n)`` is the picture ffmpeg decodes as frame n.

``get`` seeks to the keyframe at or before frame n (``FrameTable.keyframe_at_or_before``), decodes forward
counting frames until it reaches frame n, and keeps the frames it decoded on the way in a byte-bounded cache,
so stepping back is as cheap as stepping forward. Several frames may share one PTS, so a decoded frame is
named by its position in the decoder's output, with its PTS as the check.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

import av
import numpy as np
from av.video.reformatter import VideoReformatter

from fieldstudio.core.errors import MediaError
from fieldstudio.media.frame_table import FrameTable
from fieldstudio.media.video import decoded_frames, error_reason, frame_pts, open_video

DEFAULT_CACHE_BYTES = 256 * 1024 * 1024
RGB_CACHE_BYTES = 32 * 1024 * 1024
"""Converted RGB frames kept beside the decoder frames: the last 4 of a 1080p video (6 MB each), the last one of
a 4K video (25 MB): a count of 4 kept 100 MB of 4K pictures resident."""
CONVERT_THREADS = min(4, os.cpu_count() or 1)
"""swscale's slice threads for a conversion (more gain little on a frame that takes 1-2 ms). With a converter kept
for each kind of conversion, which keeps its context (and that context's threads) from one frame to the next, a
1080p frame scaled to the screen took 0.9-1.1 ms on two cores where a converter made for each frame (``VideoFrame.reformat``) took
2.0-2.7 ms: most of that was building the area-averaging filters again (issue 37 item 6)."""
KEPT_CONVERTERS = 3
"""Converters a reader keeps, one per (size, format, interpolation), the least recently used let go: the viewer
alternates two (the picture at the size shown, then the full-resolution one), and one converter switching between
them would build its filters again every time."""


class _Stopped(Exception):
    """Raised inside ``decoded_frames`` (its ``until``) to leave a decode that ``stop()`` ended between packets."""


class FrameReader:
    """Exact random access to the frames of one video, for one thread at a time.

    ``get(index)`` returns the upright RGB frame (H, W, 3) uint8 that ffmpeg decodes as frame
    ``index``. Decoded frames are cached (as decoder frames, converted on demand) up to
    ``cache_bytes`` (never fewer than ``min_frames``); the decoder stays open so the next frame costs one decode.
    Raises MediaError when the file changed or the frame cannot be decoded.
    """

    def __init__(self, path: Path, table: FrameTable, *, rotation: int = 0, cache_bytes: int = DEFAULT_CACHE_BYTES,
                 min_frames: int = 8):
        self.path = Path(path)
        self.table = table
        self.rotation = rotation % 360
        self._cache: OrderedDict[int, av.VideoFrame] = OrderedDict()
        self._rgb: OrderedDict[int, np.ndarray] = OrderedDict()
        self._cache_bytes = cache_bytes
        self._min_frames = min_frames
        self._frame_bytes = 0
        self._container: av.container.InputContainer | None = None
        self._stream: av.video.stream.VideoStream | None = None
        self._decoder = None
        self._next_index: int | None = None  # index the open decoder will yield next
        self._threads = True  # frame threading, until a frame is lost to it (see _frame)
        self._start_by_reopening = False  # a seek to the first keyframe landed past it once (see _seek_and_decode)
        self._converters: OrderedDict[tuple, VideoReformatter] = OrderedDict()  # used under _lock (see _convert)
        self._stop: Callable[[], bool] | None = None  # the running decode's stop(), asked between packets too
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.table)

    def close(self) -> None:
        """Close the decoder and drop the cache."""
        with self._lock:
            self._cache.clear()
            self._rgb.clear()
            self._reset_decoder()
            self._converters.clear()  # their contexts' buffers and threads go with them

    def _reset_decoder(self) -> None:
        if self._container is not None:
            self._container.close()
        # the stream holds the codec context and its frame pools: 150-250 MB resident at 4K until it goes
        self._container = self._stream = None
        self._decoder = None
        self._next_index = None

    def _ensure_open(self) -> None:
        if self._container is None:
            self._container = open_video(self.path)
            self._stream = self._container.streams.video[0]
            if self._threads:
                self._stream.thread_type = "AUTO"

    def _remember(self, index: int, frame: av.VideoFrame) -> None:
        if not self._frame_bytes:
            self._frame_bytes = max(1, sum(p.buffer_size for p in frame.planes))
        self._cache[index] = frame
        self._cache.move_to_end(index)
        limit = max(self._min_frames, self._cache_bytes // self._frame_bytes)
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
        except _Stopped:
            # stopped before its first frame: nothing to go on from, the next request seeks (the container stays open)
            self._decoder = None
            self._next_index = None
            raise
        except av.error.FFmpegError as exc:
            raise MediaError(self.path, f"frame cannot be decoded ({error_reason(exc)})") from exc

    def _stopped_before(self, _packet: av.Packet) -> bool:
        """``decoded_frames``'s ``until``: raises _Stopped before a packet when ``stop()`` says so while no frame has
        come out of this decoder since its seek. A keyframe after a seek costs several packets before its first
        frame (frame threading holds one per thread), so stopping between frames alone could not stop it; once
        frames come out, the stop between frames keeps the decoder where it got to, to go on from there."""
        if self._stop is not None and self._next_index is None and self._stop():
            raise _Stopped
        return False

    def _seek_and_decode(self, index: int, stop: Callable[[], bool] | None = None) -> bool:
        """Decode from the keyframe at or before ``index`` up to ``index``, caching every frame. True once it is
        cached; False when ``stop()`` said so between two frames first (the decoder stays where it got to)."""
        target = int(self.table.pts[index])
        key = self.table.keyframe_at_or_before(index)
        rewind = self._start_by_reopening  # read the file from its start: a seek to its first keyframe landed past it
        for attempt in range(5):
            if key == 0 and (rewind or self._container is None):
                rewind = True  # (a file not open yet is read from its start)
                self._reset_decoder()
                self._ensure_open()
            else:
                # The first keyframe is sought as any other: reopening the file and its decoder to read it made the
                # next decode 1.5x slower (the new decoder's threads and frame buffers, 3 MB each at 1080p, are made
                # and faulted in again), which every release after Home or a reopen paid (issue 37 item 6)
                self._ensure_open()
                try:
                    self._container.seek(int(self.table.pts[key]), stream=self._stream, backward=True,
                                         any_frame=False)
                except av.error.FFmpegError:
                    if key > 0:
                        raise
                    rewind = self._start_by_reopening = True  # a stream that cannot seek: reopened to read its start
                    continue
            self._decoder = decoded_frames(self._container, self._stream, until=self._stopped_before)
            self._next_index = None  # a new decoder: nothing decoded yet
            frame = self._decode_next()
            first_pts = frame_pts(frame) if frame is not None else None
            if frame is None or (first_pts is not None and first_pts > target):
                # The demuxer landed after the wanted frame (edit lists, B-frames, seeking by DTS), or past
                # every frame: go one keyframe back, or read the file from its start. MPEG-TS and MPEG-PS seek by
                # DTS, which B-frames put before the keyframe's PTS, so a seek to the first keyframe lands past it.
                if key > 0:
                    key = self.table.keyframe_at_or_before(key - 1)
                    continue
                if not rewind:
                    rewind = self._start_by_reopening = True
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
                        return True
                    if i > index:
                        break
                if stop is not None and stop():
                    return False
                frame = self._decode_next()
            if attempt == 0 and key > 0:
                key = self.table.keyframe_at_or_before(key - 1)
        self._reset_decoder()
        raise MediaError(self.path, f"frame {index} (PTS {target}) could not be decoded exactly")

    def _frame(self, index: int, stop: Callable[[], bool] | None = None) -> av.VideoFrame | None:
        """The decoder frame ``index`` (cached, or decoded); None only when ``stop()`` said so before it was reached."""
        if not 0 <= index < len(self.table):
            raise IndexError(f"{self.path.name}: frame {index} is outside 0..{len(self.table) - 1}")
        cached = self._cache.get(index)
        if cached is not None:
            self._cache.move_to_end(index)
            return cached
        if self._decoder is not None and self._next_index is not None and (
                0 <= index - self._next_index < 8
                or self.table.keyframe_at_or_before(index) <= self._next_index <= index):
            # Close ahead of the decoder, or the decoder already past the keyframe a seek would go back to (the
            # timeline's preview decoded that keyframe; a decode stopped short got this far): decode forward, as a
            # seek would decode those frames again.
            while True:
                if stop is not None and stop():
                    return None
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
            found = self._seek_and_decode(index, stop)
        except MediaError:
            if not self._threads:
                raise
            # Frame threading drops the frames in flight at a packet that fails to decode (the end of a
            # truncated file); one thread keeps them, as the frame table was built.
            self._threads = False
            self._reset_decoder()
            found = self._seek_and_decode(index, stop)
        return self._cache[index] if found else None

    def decode(self, index: int, stop: Callable[[], bool]) -> bool:
        """Decode frame ``index`` into the cache without converting it, asking ``stop()`` between two frames, and
        between two packets until the first frame after a seek.

        True once the frame is cached (a later ``get``/``get_bgra`` of it costs only its conversion); False when
        ``stop()`` returned True first: the decoder is left where it got to, so a later request of a frame of the
        same group of pictures goes on from there instead of seeking back to its keyframe (stopped before the first
        frame after a seek, there is nothing to go on from: the next request seeks; the file stays open). For a
        decode that may be superseded (the viewer's keyframe previews while the playhead is dragged, and the frame
        under it before the release asks for it). Raises as ``get``.
        """
        with self._lock:
            self._stop = stop
            try:
                return self._frame(index, stop) is not None
            except _Stopped:
                return False
            finally:
                self._stop = None

    def get(self, index: int) -> np.ndarray:
        """Upright RGB frame ``index`` as a (H, W, 3) uint8 array (read-only; copy before editing)."""
        with self._lock:
            rgb = self._rgb.get(index)
            if rgb is not None:
                self._rgb.move_to_end(index)
                return rgb
            rgb = self._convert(self._frame(index), format="rgb24")
            if self.rotation:
                rgb = np.ascontiguousarray(np.rot90(rgb, k=self.rotation // 90))
            rgb.setflags(write=False)
            self._rgb[index] = rgb
            while len(self._rgb) > max(1, min(4, RGB_CACHE_BYTES // rgb.nbytes)):
                self._rgb.popitem(last=False)
            return rgb

    def get_bgra(self, index: int) -> np.ndarray:
        """Upright frame ``index`` as a (H, W, 4) uint8 array of B, G, R, 255: the bytes of Qt's opaque
        ``Format_RGB32`` on a little-endian machine, made by swscale in the pass that ``get`` spends on RGB.

        For the screen: wrapping it needs no conversion, where converting ``get``'s RGB to RGB32 is a second
        pass over the picture that Qt splits across its thread pool (3-30 ms for 1080p on a loaded machine, 0.7
        ms quiet). Not kept in the RGB cache (the decoder frames are cached). Raises as ``get``.
        """
        with self._lock:
            bgra = self._convert(self._frame(index), format="bgra")
        if self.rotation:
            bgra = np.ascontiguousarray(np.rot90(bgra, k=self.rotation // 90))
        return bgra

    def get_scaled(self, index: int, scale: float, *, fmt: str = "bgr24",
                   fit: tuple[int, int] | None = None) -> np.ndarray:
        """Upright frame ``index`` resized by ``scale`` in one swscale pass (area averaging), as a (h, w, 3) uint8
        array, (h, w, 4) for "bgra".

        ``w = max(1, round(W * scale))`` and ``h = max(1, round(H * scale))`` for the upright size W x H
        (the rotation is applied after scaling); with ``fit`` (w, h) upright pixels within one pixel of that on both
        sides, that size exactly: the size a picture covers on screen (``Canvas.render_size``), which a picture one
        pixel short of it, drawn as a blit, left a column of background beside. ``fmt`` is a PyAV packed format
        ("bgr24" for OpenCV, "rgb24", "bgra" for the screen as ``get_bgra``). Scaling the decoder's frame directly skips the full-resolution RGB conversion that
        ``get`` makes, which is what the box tracker needs per frame. Not cached. Raises as ``get``.
        """
        with self._lock:
            frame = self._frame(index)
            w, h = max(1, round(frame.width * scale)), max(1, round(frame.height * scale))
            if fit is not None:
                fw, fh = fit if self.rotation % 180 == 0 else fit[::-1]  # the decoder's frame is not turned yet
                if abs(fw - w) <= 1 and abs(fh - h) <= 1:
                    w, h = max(1, fw), max(1, fh)
            out = self._convert(frame, width=w, height=h, format=fmt, interpolation="AREA")
        if self.rotation:
            out = np.ascontiguousarray(np.rot90(out, k=self.rotation // 90))
        return out

    def _convert(self, frame: av.VideoFrame, **how: object) -> np.ndarray:
        """``frame`` converted by ``VideoReformatter.reformat(frame, threads=CONVERT_THREADS, **how)`` (swscale's
        threaded conversion), by the converter this reader keeps for that conversion (called under ``_lock``), as an
        array of that format's shape."""
        key = (frame.width, frame.height, frame.format.name, *sorted(how.items()))
        converter = self._converters.get(key)
        if converter is None:
            converter = self._converters[key] = VideoReformatter()
            while len(self._converters) > KEPT_CONVERTERS:
                self._converters.popitem(last=False)
        self._converters.move_to_end(key)
        return converter.reformat(frame, threads=CONVERT_THREADS, **how).to_ndarray()

    def seconds(self, index: int) -> float:
        """PTS of frame ``index`` in seconds."""
        return self.table.seconds(index)

