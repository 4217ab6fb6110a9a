"""Thumbnails: small JPEG previews of media, made in the background and cached in the project."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import cv2
import numpy as np
from sqlalchemy import select

from fieldstudio.core.errors import MediaError
from fieldstudio.media import images, library
from fieldstudio.media.frames import FrameSource
from fieldstudio.store.models import Media, Thumbnail
from fieldstudio.store.project import Project

THUMB_SIDE = 256
log = logging.getLogger(__name__)


def make_thumbnail(source: FrameSource, media: Media) -> tuple[bytes, int, int]:
    """JPEG bytes, width and height (pixels) of a media's preview (first frame, photo or first page).

    The longest side is at most 256 px.
    """
    if media.kind == "image":
        rgb = images.read_image(library.require_file(source.project, media), max_side=THUMB_SIDE)
    elif media.kind == "video":
        rgb = source.get(media, 0).rgb
    else:
        path = library.require_file(source.project, media)
        if media.format != "pdf":
            raise MediaError(path, "text documents have no picture preview")
        from fieldstudio.media import documents

        rgb = documents.render_page(path, 0, zoom=0.5)
    small = images.fit_within(rgb, THUMB_SIDE)
    return images.encode_jpeg(small, quality=80), small.shape[1], small.shape[0]


def make_thumbnails(
    project: Project,
    media_ids: Sequence[str] | None = None,
    *,
    progress: Callable[[int, int], None] = lambda done, total: None,
    cancelled: Callable[[], bool] = lambda: False,
) -> int:
    """Make and store the missing thumbnails of readable media (or of ``media_ids``); returns how many.

    A media whose preview cannot be made is left without one (logged); it never stops the others.
    """
    with project.read() as s:
        have = set(s.scalars(select(Thumbnail.media_id)))
        q = select(Media).where(Media.status == "ok")
        if media_ids is not None:
            q = q.where(Media.id.in_(list(media_ids)))
        todo = [m for m in s.scalars(q) if m.id not in have]
    source = FrameSource(project, max_readers=1)
    made = 0
    try:
        for i, m in enumerate(todo):
            if cancelled():
                break
            try:
                jpeg, w, h = make_thumbnail(source, m)
            except (MediaError, IndexError):
                continue
            except Exception:  # one file never stops the batch (a decoder's own error, e.g. cv2.error)
                log.exception("thumbnail of media %s (%s) failed", m.id, m.file_name)
                continue
            with project.write() as s:
                s.merge(Thumbnail(media_id=m.id, frame_index=0, width=w, height=h, jpeg=jpeg))
            made += 1
            progress(i + 1, len(todo))
    finally:
        source.close()
    return made


def thumbnail_jpeg(project: Project, media_id: str) -> bytes | None:
    """The stored thumbnail JPEG of a media, or None."""
    with project.read() as s:
        row = s.get(Thumbnail, {"media_id": media_id, "frame_index": 0})
        return row.jpeg if row else None


STRIP_CACHE_BYTES = 32 * 1024 * 1024


def timeline_strip(
    project: Project,
    media_id: str,
    count: int = 24,
    height: int = 64,
    *,
    progress: Callable[[int, int], None] = lambda done, total: None,
    cancelled: Callable[[], bool] = lambda: False,
) -> list[tuple[int, np.ndarray]]:
    """Small frames for a video's timeline: the frames shown at ``count`` uniform PTS times.

    The times increase, so the reader decodes forward and seeks only across long gaps.
    Returns (frame index, RGB array (height, W, 3) uint8) pairs in time order, without repeats.
    Raises MediaError when the video cannot be read; NotFound for an unknown media.
    """
    # the times only increase, so a few decoded frames are all the cache ever serves
    source = FrameSource(project, max_readers=1, cache_bytes=STRIP_CACHE_BYTES)
    try:
        media = library.find_media(project, media_id)
        table = source.reader(media).table
        n = len(table)
        seconds = table.seconds_array()
        wanted = [table.index_at(t)
                  for t in np.linspace(seconds[0], seconds[-1], num=max(1, min(count, n)))]
        out: list[tuple[int, np.ndarray]] = []
        unique = sorted(set(wanted))
        for i, index in enumerate(unique):
            if cancelled():
                break
            rgb = source.get(media, index).rgb
            scale = height / rgb.shape[0]
            small = cv2.resize(rgb, (max(1, round(rgb.shape[1] * scale)), height), interpolation=cv2.INTER_AREA)
            out.append((index, small))
            progress(i + 1, len(unique))
        return out
    finally:
        source.close()
