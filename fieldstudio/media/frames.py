"""Exact frames of a project's media: the one entry point every feature uses to get pixels.

``FrameSource`` keeps a few open ``FrameReader``s (one per video, least recently used closed first)
so that stepping through a video keeps its decoder and cache warm. ``get_frame`` is the simple form.
A photo is frame 0 of itself.
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


class FrameSource:
    """Exact frames of one project's media, with open decoders kept for up to ``max_readers`` videos."""

    def __init__(self, project: Project, *, max_readers: int = 4, cache_bytes: int = frame_reader.DEFAULT_CACHE_BYTES):
        self.project = project
        self._readers: OrderedDict[str, frame_reader.FrameReader] = OrderedDict()
        self._max = max_readers
        self._cache_bytes = cache_bytes
        self._lock = threading.Lock()

    def reader(self, media: Media) -> frame_reader.FrameReader:
        """The open reader of a video, building and storing its packet frame index first if it has none.

        Raises MediaError when the file is missing or cannot be decoded.
        """
        with self._lock:
            r = self._readers.get(media.id)
            if r is not None:
                self._readers.move_to_end(media.id)
                return r
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
            while len(self._readers) > self._max:
                _, old = self._readers.popitem(last=False)
                old.close()
        return r

    def adopt(self, media: Media, table: frame_table.FrameTable) -> None:
        """Read ``media`` through ``table`` (an index built but perhaps not stored yet), unless it is open already."""
        path = library.require_file(self.project, media)
        with self._lock:
            if media.id in self._readers:
                return
            self._readers[media.id] = frame_reader.FrameReader(path, table, rotation=media.rotation or 0,
                                                               cache_bytes=self._cache_bytes)
            while len(self._readers) > self._max:
                _, old = self._readers.popitem(last=False)
                old.close()

    def forget(self, media_id: str) -> None:
        """Drop the reader of a video whose frame index was replaced; the next ``reader`` loads the new one.

        The reader is not closed here (it may be decoding on another thread): it closes when unreferenced.
        """
        with self._lock:
            self._readers.pop(media_id, None)

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
        aspect kept, never enlarged (``FrameReader.get_scaled``). Raises as ``get``; MediaError for a photo too."""
        _check_readable(self.project, media)
        if media.kind != "video":
            raise MediaError(library.media_path(self.project, media), "is not a video")
        reader = self.reader(media)
        scale = min(within[0] / media.width, within[1] / media.height) \
            if within is not None and media.width and media.height else 1.0
        # one uniform scale, the same for the upright frame and the decoder's (a rotation turns both sides)
        return reader.get_bgra(index) if scale >= 1.0 else reader.get_scaled(index, scale, fmt="bgra")

    def decode(self, media: Media, index: int, stop: Callable[[], bool]) -> bool:
        """Decode frame ``index`` of a video into its reader's cache, stopping early when ``stop()`` says so
        (``FrameReader.decode``): True once it is cached. Raises as ``get_bgra``."""
        _check_readable(self.project, media)
        if media.kind != "video":
            raise MediaError(library.media_path(self.project, media), "is not a video")
        return self.reader(media).decode(index, stop)

    def close(self) -> None:
        """Close every open decoder."""
        with self._lock:
            for r in self._readers.values():
                r.close()
            self._readers.clear()


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
