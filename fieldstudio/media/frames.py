"""Exact frames of a project's media: the one entry point every feature uses to get pixels.

``FrameSource`` keeps a few open ``FrameReader``s (one per video, least recently used closed first)
so that stepping through a video keeps its decoder and cache warm. ``get_frame`` is the simple form.
A photo is frame 0 of itself. The viewer's scrubbing previews (keyframes) come from a second reader of the same
file (``FrameSource.preview_bgra``), so that a preview never moves, or holds, the decoder of the exact frames.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fieldstudio.core.errors import MediaError
from fieldstudio.media import decoded_table, frame_reader, frame_table, images, library, packet_table, video_index
from fieldstudio.store.models import Media
from fieldstudio.store.project import Project


@dataclass(frozen=True)
class Frame:
    """One upright RGB frame (H, W, 3) uint8 with its index and PTS (None for photos)."""

    rgb: np.ndarray
    media_id: str
    frame_index: int
    pts: int | None
    pts_seconds: float | None


PREVIEW_CACHE_BYTES = 32 * 1024 * 1024
"""Keyframes a video's preview reader keeps (never fewer than 2): dragging back over a keyframe shows it again
without a decode; 10 at 1080p, 2 at 4K."""


class FrameSource:
    """Exact frames of one project's media, with open decoders kept for up to ``max_readers`` videos."""

    def __init__(self, project: Project, *, max_readers: int = 4, cache_bytes: int = frame_reader.DEFAULT_CACHE_BYTES):
        self.project = project
        self._readers: OrderedDict[str, frame_reader.FrameReader] = OrderedDict()
        # media id -> (the exact reader it was made beside, the preview reader): made again when that reader goes
        self._previews: dict[str, tuple[frame_reader.FrameReader, frame_reader.FrameReader]] = {}
        self._max = max_readers
        self._cache_bytes = cache_bytes
        self._lock = threading.Lock()
        self._building = threading.Lock()  # two threads opening one video build its reader once

    def reader(self, media: Media) -> frame_reader.FrameReader:
        """The open reader of a video, building and storing its packet frame index first if it has none.

        Raises MediaError when the file is missing or cannot be decoded.
        """
        with self._lock:
            r = self._readers.get(media.id)
            if r is not None:
                self._readers.move_to_end(media.id)
                return r
        with self._building:
            with self._lock:
                r = self._readers.get(media.id)
                if r is not None:
                    return r
            return self._build_reader(media)

    def _build_reader(self, media: Media) -> frame_reader.FrameReader:
        path = library.require_file(self.project, media)
        table = video_index.load_frame_table(self.project, media)
        if table is None:
            # the packet index opens a long video at once; the decoded index verifies it later
            # (video_index.index_next_video), and ``forget`` then drops this reader
            try:
                table, status = packet_table.build_packet_table(path), video_index.INDEX_PACKETS
            except MediaError:
                table, status = decoded_table.build_frame_table(path), video_index.INDEX_READY
            if not self.project.read_only:
                video_index.store_frame_table(self.project, media.id, table, status=status)
        r = frame_reader.FrameReader(path, table, rotation=media.rotation or 0, cache_bytes=self._cache_bytes)
        with self._lock:
            self._readers[media.id] = r
            self._close_the_oldest()
        return r

    def _close_the_oldest(self) -> None:
        """Close readers beyond ``max_readers``, least recently used first, with their preview readers. Called with
        ``_lock`` held."""
        while len(self._readers) > self._max:
            media_id, old = self._readers.popitem(last=False)
            old.close()
            _, preview = self._previews.pop(media_id, (None, None))
            if preview is not None:
                preview.close()

    def adopt(self, media: Media, table: frame_table.FrameTable) -> None:
        """Read ``media`` through ``table`` (an index built but perhaps not stored yet), unless it is open already."""
        path = library.require_file(self.project, media)
        with self._lock:
            if media.id in self._readers:
                return
            self._readers[media.id] = frame_reader.FrameReader(path, table, rotation=media.rotation or 0,
                                                               cache_bytes=self._cache_bytes)
            self._close_the_oldest()

    def forget(self, media_id: str) -> None:
        """Drop the reader of a video whose frame index was replaced; the next ``reader`` loads the new one.

        The reader is not closed here (it may be decoding on another thread): it closes when unreferenced.
        """
        with self._lock:
            self._readers.pop(media_id, None)
            self._previews.pop(media_id, None)

    def get(self, media: Media | str, index: int = 0) -> Frame:
        """Frame ``index`` of a media (a Media row, or a file name or id), upright RGB.

        Raises NotFound for an unknown media, IndexError for an index outside the video, MediaError
        when the file is missing or unreadable.
        """
        if isinstance(media, str):
            media = library.find_media(self.project, media)
        _check_readable(self.project, media)
        if media.kind == "image":
            if index != 0:
                raise IndexError(f"{media.file_name}: a photo has only frame 0")
            rgb = images.read_image(library.require_file(self.project, media))
            return Frame(rgb, media.id, 0, None, None)
        r = self.reader(media)
        rgb = r.get(index)
        return Frame(rgb, media.id, index, int(r.table.pts[index]), r.seconds(index))

    def get_bgra(self, media: Media, index: int, within: tuple[int, int] | None = None) -> np.ndarray:
        """Frame ``index`` of a video, upright, as (H, W, 4) uint8 B, G, R, 255 for the screen
        (``FrameReader.get_bgra``), scaled down to fit ``within`` (W, H) upright pixels when given and smaller,
        aspect kept, never enlarged; a size within a pixel of ``within`` on both sides is made ``within`` exactly (the
        size the picture covers on screen, ``FrameReader.get_scaled``'s ``fit``). Raises as ``get``; MediaError for
        a photo too."""
        _check_readable_video(self.project, media)
        return _screen_bgra(self.reader(media), media, index, within)

    def preview_bgra(self, media: Media, index: int, within: tuple[int, int] | None,
                     stop: Callable[[], bool]) -> tuple[int, np.ndarray] | None:
        """The scrubbing preview of frame ``index`` of a video: ``(key, picture)``, the keyframe at or before it
        and that frame as ``get_bgra`` makes it, or None when ``stop()`` said so first (asked between two packets).

        Decoded by the video's preview reader, a second ``FrameReader`` of the same file and frame table (its own
        demuxer and decoder, ``PREVIEW_CACHE_BYTES`` of keyframes): a preview in progress when the playhead is
        released holds nothing the exact frame's decode needs. With one decoder for both, the release of a quick
        drag first waited for the preview of a place the playhead had left to stop (1-7 ms), then for the seek's
        flush of the frames that preview had in flight (1-6 ms): issue 37 item 6. Raises as ``get_bgra``.
        """
        if stop():  # superseded before it began: open nothing (the readers may just have been closed)
            return None
        _check_readable_video(self.project, media)
        exact = self.reader(media)
        with self._lock:
            made = self._previews.get(media.id)
            if made is None or made[0] is not exact:
                made = (exact, frame_reader.FrameReader(exact.path, exact.table, rotation=exact.rotation,
                                                        cache_bytes=PREVIEW_CACHE_BYTES, min_frames=2))
                self._previews[media.id] = made
        preview = made[1]
        key = exact.table.keyframe_at_or_before(index)
        if not preview.decode(key, stop):
            return None
        return key, _screen_bgra(preview, media, key, within)

    def decode(self, media: Media, index: int, stop: Callable[[], bool]) -> bool:
        """Decode frame ``index`` of a video into its reader's cache, stopping early when ``stop()`` says so
        (``FrameReader.decode``): True once it is cached. Raises as ``get_bgra``."""
        _check_readable_video(self.project, media)
        return self.reader(media).decode(index, stop)

    def close(self) -> None:
        """Close every open decoder."""
        with self._lock:
            for r in self._readers.values():
                r.close()
            for _, preview in self._previews.values():
                preview.close()
            self._readers.clear()
            self._previews.clear()


def _screen_bgra(reader: frame_reader.FrameReader, media: Media, index: int,
                 within: tuple[int, int] | None) -> np.ndarray:
    scale = min(within[0] / media.width, within[1] / media.height) \
        if within is not None and media.width and media.height else 1.0
    # one uniform scale, the same for the upright frame and the decoder's (a rotation turns both sides)
    return reader.get_bgra(index) if scale >= 1.0 else reader.get_scaled(index, scale, fmt="bgra", fit=within)


def _check_readable_video(project: Project, media: Media) -> None:
    """Raises MediaError unless ``media`` is a readable video."""
    _check_readable(project, media)
    if media.kind != "video":
        raise MediaError(library.media_path(project, media), "is not a video")


def _check_readable(project: Project, media: Media) -> None:
    """Raises MediaError unless ``media`` is a readable photo or video."""
    if media.status != "ok":
        raise MediaError(library.media_path(project, media), media.error or "is unreadable")
    if media.kind not in ("image", "video"):
        raise MediaError(library.media_path(project, media), "is a document, not an image or video")


def get_frame(project: Project, media: Media | str, index: int = 0) -> Frame:
    """Frame ``index`` of ``media`` (row, file name or id), decoded exactly; see ``FrameSource.get``."""
    source = FrameSource(project, max_readers=1)
    try:
        return source.get(media, index)
    finally:
        source.close()
