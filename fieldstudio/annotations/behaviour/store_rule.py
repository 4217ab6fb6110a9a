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
the checks import the ethogram only when a behaviour row was written.
"""

from __future__ import annotations

from sqlalchemy import event
from sqlalchemy.orm import Session

_NOTED = "behaviour_rows_written"  # Session.info key: ids of the behaviour rows flushed in this transaction


def _note(session: Session, _context: object) -> None:
    from fieldstudio.store.models import Annotation

    for row in (*session.new, *session.dirty):
        if isinstance(row, Annotation) and row.kind == "behaviour":
            session.info.setdefault(_NOTED, set()).add(row.id)


def _check(session: Session) -> None:
    if session.in_nested_transaction():  # a savepoint released inside a unit of work: judged when the unit commits
        return
    if session.dirty or session.new:
        session.flush()  # the commit's own flush comes after this event: its rows are noted now
    ids = session.info.pop(_NOTED, None)
    if ids:
        from fieldstudio.annotations.behaviour import state_overlap

        state_overlap.check_stored(session, ids)


def _forget(session: Session) -> None:
    session.info.pop(_NOTED, None)


def register() -> None:
    """Listen to every session's flushes, commits and rollbacks (once; again is a no-op)."""
    for name, fn in (("after_flush", _note), ("before_commit", _check), ("after_rollback", _forget)):
        if not event.contains(Session, name, fn):
            event.listen(Session, name, fn)
