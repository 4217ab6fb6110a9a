"""Soft deletes, restores and label changes of many annotations in a few statements: an import's undo and redo.

``annotation_records``' per-row path loads each annotation as an ORM object, checks it and flushes one UPDATE (and
one change-log row) per object; for the 10^5 boxes of an import its undo took 58 s and its redo 274 s. Here the
rows are read a chunk at a time as plain columns and changed by ``changes.update_tracked`` (stamped, versioned and
logged as the flush would). A restore of tracks' keyframes (one live keyframe per frame and track) is checked once
for all of them by one grouped query; a restore of a behaviour event (``store_rule``) is left to the caller's
per-row path, as is an edit that carries the versions a window read.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from fieldstudio.annotations.annotation_errors import keyframe_taken
from fieldstudio.annotations.behaviour import store_rule
from fieldstudio.core.errors import NotFound
from fieldstudio.store import changes
from fieldstudio.store.models import Annotation, Label

MAX_LISTED = 10_000
"""Most media or track ids the keyframe check names in its query."""

READ_CHUNK = changes.UPDATE_CHUNK
"""Ids read (and then changed) at a time: memory stays bounded by a chunk, whatever the number of ids."""


def soft_delete(s: Session, annotation_ids: Iterable[str], deleted: bool, track_kinds: Sequence[str]) -> list[str]:
    """Soft-delete (``deleted`` True) or restore the annotations ``annotation_ids`` in the session's transaction.

    Rows already deleted (restored) are left as they are. ``track_kinds``: the kinds whose rows with a track id are
    keyframes of a track, at most one live per frame and track (``annotation_records.TRACK_KINDS``). Returns the ids
    of the restores left to the caller, in their order: behaviour events, which ``store_rule`` judges one at a time.
    Raises NotFound naming the first id that is not in the project, AnnotationError when a restored keyframe would
    share its frame with another live keyframe of its track; the caller's transaction then rolls back, so nothing
    is kept.
    """
    left: list[str] = []
    tracks: set[tuple[str, int]] = set()   # (media id, track id) of the keyframes restored
    chunk: list[str] = []
    for annotation_id in annotation_ids:
        chunk.append(annotation_id)
        if len(chunk) == READ_CHUNK:
            left += _soft_delete_chunk(s, chunk, deleted, tracks)
            chunk = []
    left += _soft_delete_chunk(s, chunk, deleted, tracks)
    if tracks:
        _refuse_two_keyframes_on_a_frame(s, tracks, track_kinds)
    return left


def _soft_delete_chunk(s: Session, chunk: list[str], deleted: bool, tracks: set[tuple[str, int]]) -> list[str]:
    found = {r.id: r for r in s.execute(select(
        Annotation.id, Annotation.media_id, Annotation.kind, Annotation.track_id, Annotation.deleted,
    ).where(Annotation.id.in_(chunk)))}
    left, plain = [], []
    for annotation_id in dict.fromkeys(chunk):
        row = found.get(annotation_id)
        if row is None:
            raise NotFound(f"no annotation with id {annotation_id!r} in the project")
        if bool(row.deleted) == deleted:
            continue
        if not deleted and row.kind == store_rule.KIND:
            left.append(annotation_id)
            continue
        if not deleted and row.track_id is not None:
            tracks.add((row.media_id, row.track_id))
        plain.append((annotation_id, row.media_id))
    changes.update_tracked(s, Annotation, plain, {"deleted": deleted})
    return left


def _refuse_two_keyframes_on_a_frame(s: Session, tracks: set[tuple[str, int]], track_kinds: Sequence[str]) -> None:
    # one grouped scan over the media and track ids named (a superset of the pairs, narrowed to them below); a list
    # too long to bind (SQLite takes 32,766 parameters) is left out, the scan then wider
    where = [Annotation.kind.in_(track_kinds), Annotation.deleted.is_(False), Annotation.is_keyframe.is_(True),
             Annotation.track_id.is_not(None)]
    for column, values in ((Annotation.media_id, {m for m, _ in tracks}), (Annotation.track_id, {t for _, t in tracks})):
        if len(values) <= MAX_LISTED:
            where.append(column.in_(values))
    clash = s.execute(select(Annotation.media_id, Annotation.track_id, Annotation.frame_index,
                             func.min(Annotation.kind)).where(*where)
                      .group_by(Annotation.media_id, Annotation.track_id, Annotation.frame_index)
                      .having(func.count() > 1))
    clash = next((c for c in clash if (c[0], c[1]) in tracks), None)
    if clash is not None:
        raise keyframe_taken(clash[1], clash[2], clash[3])


def set_labels(s: Session, labels_of: dict[str, str | None]) -> None:
    """Give each annotation id its label id (None: no label) in the session's transaction, a chunk per UPDATE.

    Raises NotFound for a label or an annotation that is not in the project (the caller's transaction then rolls
    back, so nothing is changed)."""
    wanted = {label_id for label_id in labels_of.values() if label_id is not None}
    known = set(s.scalars(select(Label.id).where(Label.id.in_(wanted)))) if wanted else set()
    for label_id in wanted - known:
        raise NotFound(f"no label with id {label_id!r} in the project")
    ids = list(labels_of)
    for start in range(0, len(ids), READ_CHUNK):
        chunk = ids[start:start + READ_CHUNK]
        media_of = dict(s.execute(select(Annotation.id, Annotation.media_id).where(Annotation.id.in_(chunk))).all())
        by_label: dict[str | None, list[tuple[str, str | None]]] = defaultdict(list)
        for annotation_id in chunk:
            if annotation_id not in media_of:
                raise NotFound(f"no annotation with id {annotation_id!r} in the project")
            by_label[labels_of[annotation_id]].append((annotation_id, media_of[annotation_id]))
        for label_id, rows in by_label.items():
            changes.update_tracked(s, Annotation, rows, {"label_id": label_id})
