"""Who changed what: row versions, refused stale edits and the change log other windows poll (issue 22).

Every write session of a project runs :func:`stamp_changes` before it flushes: each new, changed or
deleted annotation, task or rating gets ``updated_by`` (the project's user) and ``updated_at``, and one
``ChangeLog`` row in the same transaction. SQLAlchemy's version counter (``version_id_col``) raises
``version`` on every UPDATE and adds ``WHERE version = <read>`` to it. An edit made from what a window read
earlier passes that version as ``expected``; :func:`check_version` refuses it when the row moved on, naming
who changed it and when. Other windows call :func:`changes_since` about once a second (polling the
counter works the same on SQLite and PostgreSQL, where a notification channel would not). An import inserts
its new tracked rows in bulk with :func:`insert_tracked`, which stamps them and logs them as the flush would.
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from fieldstudio.core.errors import FieldstudioError
from fieldstudio.store.bulk_insert import insert_rows
from fieldstudio.store.models import Annotation, ChangeLog, Rating, RatingItem, Task, new_id, utcnow

TRACKED = {Annotation: "annotation", Task: "task", Rating: "rating"}
"""The tables whose changes are logged and versioned, by their ``change_log.table_name``."""


class EditConflict(FieldstudioError):
    """An edit was made from a stale read: someone else changed the row since. Nothing was changed.

    ``who`` and ``when`` (UTC) name the change that came first; ``table`` and ``row_id`` the row."""

    def __init__(self, table: str, row_id: str, who: str | None, when: datetime | None, version: int):
        self.table, self.row_id, self.who, self.when, self.version = table, row_id, who, when, version
        stamp = when.strftime("%Y-%m-%d %H:%M:%S UTC") if when else "an unknown time"
        super().__init__(f"this {table} was changed by {who or 'someone'} at {stamp} since you read it; "
                         f"your change was not saved and the {table} was reloaded")


def current_user() -> str:
    """The name edits are recorded under: ``$FIELDSTUDIO_USER``, else the login name."""
    name = os.environ.get("FIELDSTUDIO_USER")
    if name:
        return name
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (containers)
        return "unknown"


def check_version(row: Annotation | Task | Rating, expected: int | None) -> None:
    """Raise EditConflict when ``expected`` (the version the caller read) is not the row's version now.

    ``expected`` None skips the check (a command-line edit that read the row in the same transaction).
    """
    if expected is not None and row.version != expected:
        raise EditConflict(TRACKED[type(row)], row.id, row.updated_by,
                           _aware(row.updated_at), row.version)


def _aware(when: datetime | None) -> datetime | None:
    # SQLite hands naive datetimes back for DateTime(timezone=True); they were written in UTC
    if when is not None and when.tzinfo is None:
        from datetime import timezone

        return when.replace(tzinfo=timezone.utc)
    return when


def stamp_changes(session: Session, user: str) -> None:
    """Before a flush: stamp the changed tracked rows and add their ``ChangeLog`` rows (see module doc)."""
    now = utcnow()
    entries = []
    with session.no_autoflush:
        for action, objs in (("insert", session.new), ("update", session.dirty), ("delete", session.deleted)):
            for obj in objs:
                table = TRACKED.get(type(obj))
                if table is None or (action == "update" and not session.is_modified(obj, include_collections=False)):
                    continue
                if obj.id is None:
                    obj.id = new_id()  # the column default would come only with the INSERT
                if action != "delete":
                    obj.updated_by = user
                    obj.updated_at = now
                entries.append(ChangeLog(table_name=table, row_id=obj.id or "", action=action, changed_by=user,
                                         changed_at=now, media_id=getattr(obj, "media_id", None),
                                         rating_set_id=_rating_set(session, obj)))
    for entry in entries:
        session.add(entry)


def session_user(session: Session) -> str:
    """The name a write session's changes are recorded under (``Project.write`` puts the project's ``user`` in
    ``session.info``; ``current_user()`` for any other session)."""
    return session.info.get("user") or current_user()


def insert_tracked(session: Session, model: type[Annotation] | type[Task], rows: Sequence[dict[str, Any]]) -> None:
    """Insert new annotations or tasks in bulk, stamped and logged as :func:`stamp_changes` does an ORM insert.

    ``rows``: one dict of column values per new row, every dict with the same keys, each with its ``id`` made
    beforehand (``models.new_id``), so nothing has to be flushed to learn an id. Each row gets ``updated_by``
    (``session_user``), ``updated_at`` (now, UTC) and ``version`` 1, and one ``ChangeLog`` "insert" row; one
    executemany per table (``bulk_insert.insert_rows``), in the session's transaction (a few SQL statements
    for thousands of rows, where the ORM's flush issues one INSERT per row). Raises ValueError for another
    model (a rating's log row names its rating set, which the ORM path looks up) or a row without an id.
    """
    table = TRACKED.get(model)
    if table is None or model is Rating:
        raise ValueError(f"insert_tracked takes annotations or tasks, not {model.__name__}")
    if not rows:
        return
    user, now = session_user(session), utcnow()
    stamped, log = [], []
    for row in rows:
        if not row.get("id"):
            raise ValueError(f"a new {table} row needs its id made before the insert")
        stamped.append({**row, "updated_by": user, "updated_at": now, "version": 1})
        log.append({"table_name": table, "row_id": row["id"], "media_id": row.get("media_id"),
                    "rating_set_id": None, "action": "insert", "changed_by": user, "changed_at": now})
    insert_rows(session, model, stamped)
    insert_rows(session, ChangeLog, log)


def update_tracked(session: Session, model: type[Annotation] | type[Task], rows: Sequence[tuple[str, str | None]],
                   values: dict[str, Any]) -> None:
    """Set ``values`` (column name -> value) on existing annotations or tasks in bulk, stamped, versioned and logged
    as :func:`stamp_changes` and the version counter do an ORM update.

    ``rows``: (id, media id or None) of each row to change, every one known to exist (read in the same transaction);
    one UPDATE per ``UPDATE_CHUNK`` ids raises ``version`` by one and sets ``updated_by`` and ``updated_at``, and one
    ``ChangeLog`` "update" row each is inserted: a few statements for thousands of rows, where the ORM loads and
    flushes one row object at a time (an undo of an import of 10^5 boxes took 58 s so, its redo 274 s). Objects of
    those rows already in the session are updated as well. No version is compared: a caller with versions it read
    (``check_version``) uses the ORM. Raises ValueError for another model.
    """
    table = TRACKED.get(model)
    if table is None or model is Rating:
        raise ValueError(f"update_tracked takes annotations or tasks, not {model.__name__}")
    user, now = session_user(session), utcnow()
    for start in range(0, len(rows), UPDATE_CHUNK):
        chunk = rows[start:start + UPDATE_CHUNK]
        session.execute(update(model).where(model.id.in_([row_id for row_id, _ in chunk])).values(
            **values, updated_by=user, updated_at=now, version=model.version + 1))
        insert_rows(session, ChangeLog, [{"table_name": table, "row_id": row_id, "media_id": media_id,
                                          "rating_set_id": None, "action": "update", "changed_by": user,
                                          "changed_at": now} for row_id, media_id in chunk])


UPDATE_CHUNK = 1000
"""Ids per UPDATE of :func:`update_tracked` (within SQLite's 32,766 bound parameters, a short statement on
PostgreSQL)."""


def _rating_set(session: Session, obj: object) -> str | None:
    if not isinstance(obj, Rating):
        return None
    item = session.get(RatingItem, obj.item_id)
    return item.rating_set_id if item else None


@dataclass(frozen=True)
class Change:
    """One logged change: ``seq`` (commit order), ``table`` (annotation | task | rating), ``row_id``,
    ``media_id`` (annotations), ``rating_set_id`` (ratings), ``action``, ``by``, ``at``."""

    seq: int
    table: str
    row_id: str
    media_id: str | None
    rating_set_id: str | None
    action: str
    by: str | None
    at: datetime


def last_seq(session: Session) -> int:
    """The highest change number committed so far (0 when none)."""
    return session.scalar(select(func.max(ChangeLog.seq))) or 0


def changes_since(session: Session, seq: int, *, limit: int = 10_000) -> list[Change]:
    """The changes committed after change number ``seq``, oldest first (at most ``limit``)."""
    rows = session.scalars(select(ChangeLog).where(ChangeLog.seq > seq).order_by(ChangeLog.seq).limit(limit))
    return [Change(r.seq, r.table_name, r.row_id, r.media_id, r.rating_set_id, r.action, r.changed_by,
                   _aware(r.changed_at)) for r in rows]
