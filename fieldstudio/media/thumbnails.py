"""Thumbnails: small JPEG previews of media, made in the background and cached in the project."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlalchemy import select

from fieldstudio.core.errors import MediaError
from fieldstudio.media import images, library
from fieldstudio.media.frames import FrameSource
from fieldstudio.store.models import Media, Thumbnail
from fieldstudio.store.project import Project

THUMB_SIDE = 256


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
    """Make and store the missing thumbnails of readable media (or of ``media_ids``); returns how many."""
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
