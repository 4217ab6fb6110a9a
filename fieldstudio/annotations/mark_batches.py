"""Several annotations in one transaction (a tracked stretch, an import): :class:`NewMark` and :func:`add_many`.

Each mark is validated as its ``annotation_records.add_*`` function does; what validation reads (media, labels,
frame-table rows, the keyframes of the tracks named) is read up front in a few queries, and the rows are written
by the one flush at the commit (issue 37: an import of 9,000 boxes took 2 ms a box, now 0.38 ms).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from fieldstudio.annotations.annotation_records import KINDS, TRACK_KINDS, AnnotationError, insert_row
from fieldstudio.store.models import Annotation, FrameIndexRow, Label, Media
from fieldstudio.store import changes
from fieldstudio.store.portable import in_chunks
from fieldstudio.store.project import Project

__all__ = ["NewMark", "PackedIds", "add_many", "insert_boxes"]

#: Rows per INSERT batch of :func:`insert_boxes` (bounds the memory of one batch: its dicts and bound parameters).
BOX_BATCH = 10_000


@dataclass(frozen=True)
class NewMark:
    """One annotation for :func:`add_many`: the arguments ``add_box`` / ``add_segment`` ... take, as fields.

    ``geometry`` is the stored form (box ``[x1, y1, x2, y2]``, ruler ``[[x1, y1], [x2, y2]]``);
    ``frame_index`` None for a photo or a media-level tag.
    """

    media_id: str
    kind: str
    frame_index: int | None = None
    geometry: Any = None
    label_id: str | None = None
    end_frame_index: int | None = None
    track_id: int | None = None
    is_keyframe: bool = True
    attributes: dict[str, Any] | None = None
    text: str | None = None
    on_floor: bool = False
    author: str | None = None


def add_many(project: Project, marks: Iterable[NewMark]) -> list[str]:
    """Insert several annotations in one transaction (a tracked stretch, an import); returns their ids in order.

    Each is validated as its ``add_*`` function does; the first bad one raises AnnotationError (naming
    its position) and nothing is stored. The media, labels, frame-table rows and track keyframes the marks
    name are read up front in a few queries, and the rows (ids made here) are written by the one flush at the
    commit, not one at a time (issue 37: an import of 9,000 boxes took 2 ms a box).
    """
    marks = list(marks)
    ids: list[str] = []
    with project.write() as s:
        taken, _loaded = _read_ahead(s, marks)   # _loaded keeps them in the session's (weak) identity map
        with s.no_autoflush:
            for n, m in enumerate(marks):
                if m.kind not in KINDS:
                    raise AnnotationError(f"mark {n + 1}: unknown kind {m.kind!r}; one of {', '.join(KINDS)}")
                try:
                    ids.append(insert_row(
                        s, m.media_id, m.kind, frame_index=m.frame_index, frame_required=m.kind != "tag",
                        end_frame_index=m.end_frame_index, geometry=m.geometry, taken=taken, label_id=m.label_id,
                        track_id=m.track_id, is_keyframe=bool(m.is_keyframe), attributes=m.attributes or None,
                        text=m.text, on_floor=bool(m.on_floor), author=m.author))
                except AnnotationError as exc:
                    raise AnnotationError(f"mark {n + 1} ({m.kind} on frame {m.frame_index}): {exc}") from None
    return ids


class _Cancelled(Exception):
    """Raised inside the write transaction of :func:`insert_boxes` to roll it back."""


def insert_boxes(project: Project, rows: Iterable[dict[str, Any]], total: int, *,
                 progress: Callable[[int, int], None] = lambda done, total: None,
                 cancelled: Callable[[], bool] = lambda: False) -> PackedIds | None:
    """Insert plain boxes (no track) that an import has validated, in one write transaction, a batch at a time.

    ``rows`` are ``annotation`` column dicts with their ids (``PlainBoxes.rows``): the media matched, the frame
    checked against its frame table (PTS from it), the pixels clipped, the labels existing (a media or label that
    is not there fails the foreign key and nothing is stored). They are read and written ``BOX_BATCH`` at a time
    (``changes.insert_tracked``: stamped and logged), so 10^6 boxes never stand in memory as rows at once (the
    ORM's flush of :func:`add_many` keeps every row object until the commit). ``progress(done, total)`` after each
    batch; ``cancelled()`` true rolls everything back and returns None. Returns the ids in order (``PackedIds``: the
    undo record of an import of 10^6 boxes held them as 90 MB of strings).
    """
    ids = PackedIds()
    try:
        with project.write() as s:
            batch: list[dict[str, Any]] = []
            for row in rows:
                batch.append(row)
                if len(batch) == BOX_BATCH:
                    _insert_batch(s, batch, ids, total, progress, cancelled)
                    batch = []
            _insert_batch(s, batch, ids, total, progress, cancelled)
    except _Cancelled:
        return None
    return ids


def _insert_batch(s: Session, batch: list[dict[str, Any]], ids: PackedIds, total: int,
                  progress: Callable[[int, int], None], cancelled: Callable[[], bool]) -> None:
    if cancelled():
        raise _Cancelled
    changes.insert_tracked(s, Annotation, batch)
    ids.extend(row["id"] for row in batch)
    progress(len(ids), total)


class PackedIds(Sequence[str]):
    """Ids of ``models.new_id`` (32 hex characters) kept as their 16 bytes each, read back as the same strings:
    a sequence of str, 16 bytes an id where a list of str takes about 90."""

    def __init__(self) -> None:
        self._bytes = bytearray()

    def extend(self, ids: Iterable[str]) -> None:
        """Append ``ids``. Raises ValueError for one that is not 32 hex digits (lowercase, as new_id makes them)."""
        for i in ids:
            packed = bytes.fromhex(i)
            if len(packed) != 16 or packed.hex() != i:
                raise ValueError(f"{i!r} is not an id of 32 lowercase hex digits")
            self._bytes += packed

    def __len__(self) -> int:
        return len(self._bytes) // 16

    def __getitem__(self, i):  # noqa: ANN001, ANN204 - Sequence's int | slice
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        n = len(self)
        if not -n <= i < n:
            raise IndexError(i)
        i %= n
        return self._bytes[16 * i:16 * i + 16].hex()

    def __iter__(self) -> Iterator[str]:
        data = self._bytes
        return (data[k:k + 16].hex() for k in range(0, len(data), 16))


_CHUNK = 5000
"""Ids per ``IN (...)`` list of a read-ahead query (SQLite allows 32,766 parameters)."""


def _read_ahead(s: Session, marks: Sequence[NewMark]) -> tuple[set[tuple], list[Any]]:
    """Load into the session what validating ``marks`` reads (their media, labels and frame-table rows), so
    ``s.get`` finds them without a query each while the caller holds them; returns (the (media, track, frame)
    of the live keyframe boxes already stored on the tracks the marks name: ``_check_track_frame``'s
    ``taken``, the rows loaded)."""
    loaded: list[Any] = []
    for part in in_chunks({m.media_id for m in marks}, _CHUNK):
        loaded += s.scalars(select(Media).where(Media.id.in_(part))).all()
    for part in in_chunks({m.label_id for m in marks if m.label_id is not None}, _CHUNK):
        loaded += s.scalars(select(Label).where(Label.id.in_(part))).all()
    frames: dict[str, set[int]] = defaultdict(set)
    for m in marks:
        for f in (m.frame_index, m.end_frame_index):
            if isinstance(f, int) and not isinstance(f, bool):
                frames[m.media_id].add(f)
    for media_id, wanted in frames.items():
        for part in in_chunks(wanted, _CHUNK):
            loaded += s.scalars(select(FrameIndexRow).where(FrameIndexRow.media_id == media_id,
                                                            FrameIndexRow.frame_index.in_(part))).all()
    tracked = {(m.media_id, m.track_id) for m in marks if m.kind in TRACK_KINDS and m.track_id is not None}
    taken: set[tuple] = set()
    for media_id in {media for media, _ in tracked}:
        track_ids = [t for media, t in tracked if media == media_id]
        for part in in_chunks(track_ids, _CHUNK):
            taken.update(s.execute(select(Annotation.media_id, Annotation.track_id, Annotation.frame_index).where(
                Annotation.media_id == media_id, Annotation.kind.in_(TRACK_KINDS), Annotation.track_id.in_(part),
                Annotation.deleted.is_(False), Annotation.is_keyframe.is_(True))).all())
    return taken, loaded
