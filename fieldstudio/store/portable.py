"""The few statements SQLite and PostgreSQL spell differently, in one place (issue 22).

``insert_ignoring_duplicates`` is ``INSERT ... ON CONFLICT DO NOTHING`` in each dialect's construct;
``plain_rows`` runs a Core ``select`` (compiled by SQLAlchemy for the session's database, so no SQL is written
by hand) on the session's DB-API connection and returns plain tuples that look the same on both: JSON columns as
their text (psycopg would decode them; sqlite3 hands the text), so callers decode them once, the same way.
``raw_rows`` does the same for hand-written SQL (``?`` placeholders, as sqlite3 takes them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session
from sqlalchemy.sql import Select


def insert_ignoring_duplicates(model: Any, dialect_name: str):  # noqa: ANN201 - an Insert construct
    """``INSERT INTO <model's table> ... ON CONFLICT DO NOTHING`` for ``dialect_name`` ("sqlite" or "postgresql")."""
    if dialect_name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert(model).on_conflict_do_nothing()


def plain_rows(session: Session, statement: Select) -> list[tuple]:
    """``statement`` (a Core ``select``) compiled for the session's database and run on its DB-API connection:
    plain tuples, without SQLAlchemy's Row objects and result processing (a third of the time of reading 100,000
    rows through ``Session.execute``). Values come as the driver gives them: JSON as text, booleans as 0/1 on
    SQLite, ``DateTime`` columns as stored text on SQLite; callers convert what they use."""
    dialect = session.get_bind().dialect
    compiled = statement.compile(dialect=dialect, compile_kwargs={"render_postcompile": True})
    params = compiled.params
    if compiled.positiontup is not None:   # qmark (sqlite3): the values in placeholder order
        return _fetch(session, compiled.string, tuple(params[name] for name in compiled.positiontup))
    return _fetch(session, compiled.string, params)


def raw_rows(session: Session, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
    """``sql`` (with ``?`` placeholders and no ``?`` or ``%`` inside literals) run on the session's DB-API
    connection: plain tuples, as ``plain_rows`` gives them. Prefer ``plain_rows`` (a Core statement, checked
    against the models); on PostgreSQL the placeholders become psycopg's ``%s``.
    """
    if session.get_bind().dialect.name == "postgresql":
        sql = sql.replace("?", "%s")
    return _fetch(session, sql, tuple(params))


def _fetch(session: Session, sql: str, params: Sequence[Any] | dict[str, Any]) -> list[tuple]:
    """Run ``sql`` on the session's DB-API connection (inside its transaction) and fetch every row; on PostgreSQL
    ``json``/``jsonb`` values come back as text, as sqlite3 gives them."""
    dbapi = session.connection().connection
    cursor = dbapi.cursor()
    if session.get_bind().dialect.name == "postgresql":
        from psycopg.types.string import TextLoader

        cursor.adapters.register_loader("json", TextLoader)
        cursor.adapters.register_loader("jsonb", TextLoader)
    try:
        cursor.execute(sql, params)
        return cursor.fetchall()
    finally:
        cursor.close()
