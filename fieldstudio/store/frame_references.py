"""The rows that name a video frame by its index, and the one operation that moves them with their pictures.

An annotation names its frame by ``frame_index`` and ``pts`` (a segment its end by ``end_frame_index`` and
``end_pts``); a rating item by ``frame_index``. The index counts the media's frame table (``frame_index``
rows), so when ``media/video_index.py`` replaces that table with one that numbers the frames differently
(the decoded index verifying the packet index), every such row must follow its picture in the same
transaction, as a foreign key's ``ON UPDATE CASCADE`` follows a changed key. The rule of where each old
frame goes (the frame with its PTS) is the frame index's; this module holds what the schema says (which
columns name a frame) and applies the mapping it is given, with no rule of its own. Every other write to
annotations and rating items belongs to ``annotations/`` and ``ratings/``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from fieldstudio.store.models import Annotation, Base, RatingItem


@dataclass(frozen=True)
class FrameReference:
    """Columns of ``table`` that name a frame of the row's ``media_id``: the frame ``index`` column and, when
    the table keeps it, the ``pts`` column (the frame's PTS in the media's time base) that goes with it."""

    table: type[Base]
    index: str
    pts: str | None


#: Every column pair of the schema that names a video frame by its index.
FRAME_REFERENCES = (
    FrameReference(Annotation, "frame_index", "pts"),
    FrameReference(Annotation, "end_frame_index", "end_pts"),
    FrameReference(RatingItem, "frame_index", None),
)


def move_frame_references(session: Session, media_id: str, frame_of: Callable[[int], tuple[int, int]]) -> int:
    """Point every row of ``media_id`` that names a frame (``FRAME_REFERENCES``) at the frame ``frame_of`` gives.

    ``frame_of(old index) -> (new index, its PTS)`` is the caller's mapping from the replaced frame table to
    the new one. A reference with no frame (None) is left alone. A row changes when an index moves or, where
    the table keeps the PTS, when the PTS stored with it is not the new frame's. Runs in ``session``'s
    transaction (the one that replaces the frame table); the change log records the annotations as any edit's.
    Returns how many rows changed (a row counts once, however many of its references moved).
    """
    moved = 0
    tables = dict.fromkeys(ref.table for ref in FRAME_REFERENCES)
    for table in tables:
        refs = [ref for ref in FRAME_REFERENCES if ref.table is table]
        for row in session.scalars(select(table).where(table.media_id == media_id)):
            changed = False
            for ref in refs:
                index = getattr(row, ref.index)
                if index is None:
                    continue
                target, pts = frame_of(index)
                if target != index or (ref.pts is not None and getattr(row, ref.pts) != pts):
                    setattr(row, ref.index, target)
                    if ref.pts is not None:
                        setattr(row, ref.pts, pts)
                    changed = True
            moved += changed
    return moved
