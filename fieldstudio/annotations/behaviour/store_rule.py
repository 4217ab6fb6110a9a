"""The state-overlap rule (:mod:`state_overlap`) kept by the store itself: every transaction that stores or changes
a behaviour event is checked when it commits, whatever wrote it (coding by key, an import, the dock's Edit…, an
undo or redo, a raw ``annotation_records`` call, a batch of ``mark_batches.add_many``).

Each flush notes the behaviour rows it wrote (``after_flush``); before the transaction commits, those rows are read
again as they now stand, with the same coder's state events around their frames, and the commit is refused
(AnnotationError naming the interval in the way, the transaction rolled back) when a state would overlap another
of the same behaviour or exclusive group for the same subject. The rows are checked at the commit, not per
statement, so the steps of one unit of work (a stop then a start moved together) are judged by where they end.
Overlaps already stored before this rule existed refuse only an edit that touches one of the two rows.

Registered once for every SQLAlchemy session (:func:`register`, called when ``annotation_records`` is imported);
the rows are read only when a behaviour row was written.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from sqlalchemy import event, select
from sqlalchemy.orm import Session

from fieldstudio.annotations.annotation_errors import AnnotationError
from fieldstudio.annotations.behaviour.ethogram import SETTING_KEY, Ethogram, EthogramError
from fieldstudio.store.models import Annotation, ProjectSetting

KIND = "behaviour"  # the annotation kind of behaviour events (``behaviour_events.KIND``)
_NOTED = "behaviour_rows_written"  # Session.info key: ids of the behaviour rows flushed in this transaction


def _note(session: Session, _context: object) -> None:
    for row in (*session.new, *session.dirty):
        if isinstance(row, Annotation) and row.kind == KIND:
            session.info.setdefault(_NOTED, set()).add(row.id)


def _check(session: Session) -> None:
    if session.in_nested_transaction():  # a savepoint released inside a unit of work: judged when the unit commits
        return
    if session.dirty or session.new:
        session.flush()  # the commit's own flush comes after this event: its rows are noted now
    ids = session.info.pop(_NOTED, None)
    if ids:
        check_stored(session, ids)


def _forget(session: Session) -> None:
    session.info.pop(_NOTED, None)


def register() -> None:
    """Listen to every session's flushes, commits and rollbacks (once; again is a no-op)."""
    for name, fn in (("after_flush", _note), ("before_commit", _check), ("after_rollback", _forget)):
        if not event.contains(Session, name, fn):
            event.listen(Session, name, fn)


def describe(e: StoredState) -> str:
    """The interval in the way, as a refusal names it: "A is already standing from frame 20 to 40"; ``e`` is a
    ``StoredState`` or a ``behaviour_events.BehaviourEvent`` (the same fields)."""
    who = e.subject or "the record"
    until = "on (still running)" if e.end_frame_index is None else f"to {e.end_frame_index}"
    return f"{who} is already {e.behaviour} from frame {e.frame_index} {until} (coded by {e.coder})"



class StoredState(NamedTuple):
    """A state event's row as the store check reads it (frames only: no seconds are needed to refuse)."""

    id: str
    media_id: str
    coder: str
    behaviour: str
    subject: str
    frame_index: int
    end_frame_index: int | None


def _states(session: Session, where: list) -> list[StoredState]:
    rows = session.execute(select(Annotation.id, Annotation.media_id, Annotation.author, Annotation.attributes,
                                  Annotation.frame_index, Annotation.end_frame_index).where(
        Annotation.kind == KIND, Annotation.deleted.is_(False), *where)).all()
    return [StoredState(id_, media, author or "", str((attrs or {}).get("behaviour", "")),
                        str((attrs or {}).get("subject", "")), int(frame or 0), end)
            for id_, media, author, attrs, frame, end in rows if (attrs or {}).get("type", "state") != "point"]


def check_stored(session: Session, ids: Iterable[str]) -> None:
    """The store's own check, in the transaction about to commit: AnnotationError ("walk from frame 4 to 9 refused:
    A is already lift from frame 2 to 6 (coded by ann)") when a live state event among ``ids`` now overlaps another
    state event of the same video, coder and subject whose behaviour is the same or of its exclusive group (the
    project's ethogram); nothing otherwise. One read of the rows ``ids`` and one of their coders' states over the
    frames they span."""
    written = _states(session, [Annotation.id.in_(list(ids))])
    if not written:
        return
    setting = session.get(ProjectSetting, SETTING_KEY)
    try:
        ethogram = Ethogram.from_json(setting.value if setting is not None else None)
    except EthogramError:
        ethogram = Ethogram()
    groups: dict[tuple[str, str], list[StoredState]] = {}
    for row in written:
        groups.setdefault((row.media_id, row.coder), []).append(row)
    for (media_id, coder), mine in groups.items():
        low = min(r.frame_index for r in mine)
        high = None if any(r.end_frame_index is None for r in mine) else max(r.end_frame_index for r in mine)
        where = [Annotation.media_id == media_id, Annotation.author == coder,
                 Annotation.end_frame_index.is_(None) | (Annotation.end_frame_index > low)]
        if high is not None:
            where.append(Annotation.frame_index < high)
        if (clash := first_overlap(ethogram, mine, _states(session, where))) is not None:
            row, other = clash
            span = f"from frame {row.frame_index}" + ("" if row.end_frame_index is None else
                                                      f" to {row.end_frame_index}")
            raise AnnotationError(f"{row.behaviour} {span} refused: {describe(other)}")


def first_overlap(ethogram: Ethogram, rows: Sequence[StoredState],
                  stored: Iterable[StoredState]) -> tuple[StoredState, StoredState] | None:
    """The first of ``rows`` (by start frame) whose state interval overlaps another of ``stored`` (which holds
    ``rows`` as stored, and the states around them) of the same subject and of its behaviour or exclusive group,
    with that other one; None when none does. Intervals ``[start, stop)`` only touching do not overlap; a running
    state reaches the end of the video. Sorted once per subject and group: a batch of thousands is checked in
    O(n log n), not pair by pair."""
    named = {b.name: b for b in ethogram.behaviours}

    def share(r: StoredState) -> tuple[str, str]:
        b = named.get(r.behaviour)
        return r.subject, (f"group {b.group}" if b is not None and b.group and b.is_state else r.behaviour)

    wanted = {r.id for r in rows}
    by_share: dict[tuple[str, str], list[StoredState]] = {}
    for r in {r.id: r for r in (*stored, *rows)}.values():
        by_share.setdefault(share(r), []).append(r)
    found: list[tuple[StoredState, StoredState]] = []
    for states in by_share.values():
        if not wanted.intersection(r.id for r in states):
            continue
        states.sort(key=lambda r: (r.frame_index, r.id))
        starts = [r.frame_index for r in states]
        # per prefix, the two states reaching furthest (one of them is not the row asked about)
        best: list[tuple[StoredState, StoredState | None]] = []
        for r in states:
            first, second = best[-1] if best else (r, None)
            if best:
                if _end(r) > _end(first):
                    first, second = r, first
                elif second is None or _end(r) > _end(second):
                    second = r
            best.append((first, second))
        for r in states:
            if r.id not in wanted:
                continue
            k = bisect.bisect_left(starts, _end(r)) if r.end_frame_index is not None else len(states)
            if k == 0:
                continue
            first, second = best[k - 1]
            other = second if first.id == r.id else first
            if other is not None and _end(other) > r.frame_index:
                found.append((r, other))
    return min(found, key=lambda pair: (pair[0].frame_index, pair[0].id)) if found else None


def _end(r: StoredState) -> float:
    return float("inf") if r.end_frame_index is None else r.end_frame_index
