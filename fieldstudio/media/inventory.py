"""What a project's media are, read for the fronts: names, counts, the videos and documents ``fieldstudio info`` lists,
the choices of the task editor and the media roots a shared project uses.

Each function is one short read (``project.read()``) and returns plain values, so neither the command line nor the
window reads the media table itself. Counts per kind are ``library.media_counts``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from sqlalchemy import func, select

from fieldstudio.store.models import DocumentPage, Media, Thumbnail
from fieldstudio.store.project import Project


def media_names(project: Project) -> dict[str, str]:
    """``{media id: file name}`` of every media of the project (unreadable ones too)."""
    with project.read() as s:
        return dict(s.execute(select(Media.id, Media.file_name)).all())


class MediaChoice(NamedTuple):
    """One media a task input can name: its id, file name, kind (image, video, document) and decoded frame count
    (None until a video is indexed, and for images and documents)."""

    id: str
    file_name: str
    kind: str
    frame_count: int | None


def media_choices(project: Project) -> list[MediaChoice]:
    """Every media of the project (unreadable ones too) as a task input can name it, by file name."""
    with project.read() as s:
        return [MediaChoice(*row) for row in s.execute(
            select(Media.id, Media.file_name, Media.kind, Media.frame_count).order_by(Media.file_name))]


def unreadable_count(project: Project) -> int:
    """Number of media stored with status ``unreadable`` (files that could not be read when added)."""
    with project.read() as s:
        return s.scalar(select(func.count()).select_from(Media).where(Media.status == "unreadable")) or 0


@dataclass
class VideoSummary:
    """One readable video as ``fieldstudio info`` lists it: ``frames`` decoded (None until indexed), ``duration_s``
    seconds, ``vfr`` whether its frame rate varies, ``rotation`` counter-clockwise degrees applied for display,
    ``damaged`` what is wrong with a partial file (None when whole)."""

    file_name: str
    frames: int | None
    duration_s: float | None
    vfr: bool | None
    rotation: int | None
    damaged: str | None = None  # what the container promises beyond what decodes (media/damage.py), else None


def damaged_media(project: Project, media_ids: Sequence[str]) -> list[tuple[str, str]]:
    """(file name, what is wrong) of the media among ``media_ids`` that are readable but damaged: only part of
    them decodes (media/damage.py; a video's is known once its frame index is built)."""
    with project.read() as s:
        return [(name, error) for name, error in s.execute(
            select(Media.file_name, Media.error).where(Media.id.in_(list(media_ids)), Media.status == "ok",
                                                       Media.error.is_not(None)))]


def video_summaries(project: Project) -> list[VideoSummary]:
    """The project's readable videos (status ``ok``) by file name, then path, then id: one order on every back end
    and in every copy of the project (a copy keeps the ids)."""
    with project.read() as s:
        return [VideoSummary(*row) for row in s.execute(
            select(Media.file_name, Media.frame_count, Media.duration_s, Media.is_vfr, Media.rotation, Media.error)
            .where(Media.kind == "video", Media.status == "ok").order_by(Media.file_name, Media.path, Media.id))]


@dataclass
class DocumentSummary:
    """One readable document as ``fieldstudio info`` lists it: ``pages`` (None when unknown), the pages, from 1,
    that hold no text layer and wait for OCR, and those whose text OCR has read."""

    file_name: str
    pages: int | None
    needs_ocr_pages: list[int]
    ocr_read_pages: list[int] = field(default_factory=list)  # from 1: scanned pages whose text OCR has read


def document_summaries(project: Project) -> list[DocumentSummary]:
    """The project's readable documents (status ``ok``) by file name, then path, then id, each with its pages that
    need OCR (ascending)."""
    with project.read() as s:
        documents = s.execute(select(Media.id, Media.file_name, Media.page_count)
                              .where(Media.kind == "document", Media.status == "ok")
                              .order_by(Media.file_name, Media.path, Media.id)).all()
        scanned: dict[str, list[int]] = {}
        read: dict[str, list[int]] = {}
        for media_id, page, engine in s.execute(select(DocumentPage.media_id, DocumentPage.page_number,
                                                       DocumentPage.ocr_engine)
                                                .where(DocumentPage.needs_ocr.is_(True))
                                                .order_by(DocumentPage.page_number)):
            (scanned if engine is None else read).setdefault(media_id, []).append(page + 1)
    return [DocumentSummary(f, n, scanned.get(i, []), read.get(i, [])) for i, f, n in documents]


def media_roots_in_use(project: Project) -> list[str]:
    """The names of the media roots the project's media paths are relative to (``core.media_roots``), sorted."""
    with project.read() as s:
        return sorted(set(s.scalars(select(Media.media_root).where(Media.media_root.is_not(None)).distinct())))


__all__ = ["media_names", "MediaChoice", "media_choices", "unreadable_count", "VideoSummary", "video_summaries",
           "DocumentSummary", "document_summaries", "media_roots_in_use", "Unfinished", "unfinished_media"]


@dataclass(frozen=True)
class Unfinished:
    """What an interrupted ``add`` may have left undone: readable videos whose frame index is still pending (or
    only from packets), and readable media without a thumbnail; ids in file-name order."""

    videos_to_index: list[str]
    without_thumbnail: list[str]

    @property
    def ids(self) -> list[str]:
        """Every media concerned, once, videos to index first."""
        return list(dict.fromkeys(self.videos_to_index + self.without_thumbnail))


def unfinished_media(project: Project) -> Unfinished:
    """The media of the project whose adding was not finished (see `Unfinished`); a video whose index failed is
    not counted (it is listed as failed, and building it again would fail again)."""
    with project.read() as s:
        videos = list(s.scalars(select(Media.id).where(
            Media.kind == "video", Media.status == "ok",
            Media.index_status.is_(None) | Media.index_status.in_(["pending", "packets"])).order_by(Media.file_name)))
        bare = list(s.scalars(select(Media.id).where(Media.status == "ok", ~Media.id.in_(select(Thumbnail.media_id)))
                              .order_by(Media.file_name)))
    return Unfinished(videos, bare)
