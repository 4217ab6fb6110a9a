"""Thumbnails: small JPEG previews of media, made in the background and cached in the project.

The ``thumbnail`` table holds a media's preview at ``frame_index`` 0 and, for videos, the thumbnails of single
frames the filmstrip of Compare's evidence pane shows (``frame_thumbnails``): keyed by the frame's index in the
stored frame table, and dropped when that table is replaced by one that numbers the frames differently
(``media.video_index``)."""

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
        have = set(s.scalars(select(Thumbnail.media_id).where(Thumbnail.frame_index == 0)))
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


FrameKey = tuple[str, int]
"""(media id, frame index in the stored frame table) of one video frame."""


def frame_thumbnails(
    project: Project,
    frames: Sequence[FrameKey],
    *,
    progress: Callable[[int, int], None] = lambda done, total: None,
    cancelled: Callable[[], bool] = lambda: False,
) -> dict[FrameKey, bytes]:
    """JPEG thumbnails (longest side ``THUMB_SIDE`` px) of video frames, read from the project's thumbnail cache;
    the missing ones are decoded (exact frame access), stored in one write and returned too. A photo's or
    document's key (media id, 0) gives its preview, made first when it has none.

    Returns {(media id, frame index): JPEG bytes}; a frame that cannot be read (unknown or missing media, an index
    beyond the frame table, a decoder error) is left out, never stopping the others; after ``cancelled()`` the
    ones found so far. ``progress(done, total)`` counts the frames to decode.
    """
    wanted = sorted({(str(m), int(i)) for m, i in frames})
    out: dict[FrameKey, bytes] = {}
    with project.read() as s:
        for media_id in {m for m, _ in wanted}:
            indices = [i for m, i in wanted if m == media_id]
            for index, jpeg in s.execute(select(Thumbnail.frame_index, Thumbnail.jpeg).where(
                    Thumbnail.media_id == media_id, Thumbnail.frame_index.in_(indices))):
                out[(media_id, index)] = jpeg
        medias = {m.id: m for m in s.scalars(select(Media).where(Media.id.in_({m for m, _ in wanted}),
                                                                 Media.kind == "video"))}
    # a photo or document sent is shown by its preview, made here when the import made none (the CLI's)
    stills = sorted({m for m, i in wanted if (m, i) not in out and m not in medias and i == 0})
    if stills and make_thumbnails(project, stills):
        for media_id in stills:
            if (jpeg := thumbnail_jpeg(project, media_id)) is not None:
                out[(media_id, 0)] = jpeg
    todo = [k for k in wanted if k not in out and k[0] in medias]
    if not todo:
        return out
    made: list[Thumbnail] = []
    source = FrameSource(project, max_readers=1, cache_bytes=STRIP_CACHE_BYTES)
    try:
        for n, (media_id, index) in enumerate(todo):      # sorted: each video is decoded forward
            if cancelled():
                break
            try:
                small = images.fit_within(source.get(medias[media_id], index).rgb, THUMB_SIDE)
            except (MediaError, IndexError):
                continue
            except Exception:  # one frame never stops the strip (a decoder's own error)
                log.exception("thumbnail of frame %d of media %s failed", index, media_id)
                continue
            jpeg = images.encode_jpeg(small, quality=80)
            out[(media_id, index)] = jpeg
            made.append(Thumbnail(media_id=media_id, frame_index=index, width=small.shape[1],
                                  height=small.shape[0], jpeg=jpeg))
            progress(n + 1, len(todo))
    finally:
        source.close()
    if made:
        with project.write() as s:
            for row in made:
                s.merge(row)
    return out


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
