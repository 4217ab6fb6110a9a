"""The few statements SQLite and PostgreSQL spell differently, in one place (issue 22).

``insert_ignoring_duplicates`` is ``INSERT ... ON CONFLICT DO NOTHING`` in each dialect's construct;
``raw_rows`` runs hand-written SQL (``?`` placeholders, as sqlite3 takes them) on the session's DB-API
connection and returns plain tuples that look the same on both: JSON columns as their text (psycopg would
decode them; sqlite3 hands the text), so callers decode them once, the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session


def insert_ignoring_duplicates(model: Any, dialect_name: str):  # noqa: ANN201 - an Insert construct
    """``INSERT INTO <model's table> ... ON CONFLICT DO NOTHING`` for ``dialect_name`` ("sqlite" or "postgresql")."""
    if dialect_name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert(model).on_conflict_do_nothing()


def raw_rows(session: Session, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
    """``sql`` (with ``?`` placeholders and no ``?`` or ``%`` inside literals) run on the session's DB-API
    connection: plain tuples, without SQLAlchemy's Row objects (a third of the time of reading 100,000 rows).

    On PostgreSQL the placeholders become psycopg's ``%s`` and ``json``/``jsonb`` values come back as text.
    """
    dbapi = session.connection().connection
    if session.get_bind().dialect.name == "postgresql":
        from psycopg.types.string import TextLoader

        cursor = dbapi.cursor()
        cursor.adapters.register_loader("json", TextLoader)
        cursor.adapters.register_loader("jsonb", TextLoader)
        sql = sql.replace("?", "%s")
    else:
        cursor = dbapi.cursor()
    try:
        cursor.execute(sql, tuple(params))
        return cursor.fetchall()
    finally:
        cursor.close()
