"""New rows written in bulk: one executemany per table instead of the ORM's flush of one INSERT per row.

An import makes thousands of rows whose ids it can make itself (``models.new_id``): with the ids made before
the insert nothing has to be flushed to learn one, and the rows go to the database as a few ``executemany``
calls inside the caller's write transaction on SQLite (SQLAlchemy Core compiles the statement), and as one
``COPY ... FROM STDIN`` per table on PostgreSQL (``portable.copy_rows``), where psycopg's executemany sends one
INSERT per row. The owning package decides what to insert; tracked tables (tasks,
annotations) go through ``changes.insert_tracked``, which stamps and logs them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import JSON, bindparam
from sqlalchemy.orm import Session

from fieldstudio.store.content_hashes import fill_rows
from fieldstudio.store.portable import copy_rows


def insert_rows(session: Session, model: type, rows: Sequence[dict[str, Any]]) -> None:
    """INSERT ``rows`` (one dict of column values each) into ``model``'s table in the session's transaction.

    Every dict names the same columns; a column named by none of them gets its default (``id`` included: give
    it when the caller needs the ids). A JSON value None is stored as SQL NULL, as the ORM stores an unset JSON
    attribute (Core would write the JSON text ``null``). The rows go in the order given (SQLite's rowid keeps
    it: the task list's file order). Answers and tasks get their content hash (``content_hashes.fill_rows``), as
    the ORM's flush gives them. Raises SQLAlchemy's errors (a duplicate key, a foreign key that names
    nothing); the caller's transaction then rolls back.
    """
    if not rows:
        return
    table = model.__table__
    rows = fill_rows(table, rows)
    if session.get_bind().dialect.name == "postgresql":
        copy_rows(session, table, rows)     # executemany there sends one INSERT per row
        return
    as_null = {c.name: bindparam(c.name, type_=JSON(none_as_null=True))
               for c in table.columns if isinstance(c.type, JSON) and c.name in rows[0]}
    session.execute(table.insert().values(as_null) if as_null else table.insert(), list(rows))

__all__ = ["insert_rows"]
