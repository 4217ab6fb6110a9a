"""The few statements SQLite and PostgreSQL spell differently, in one place (issue 22).

``insert_ignoring_duplicates`` is ``INSERT ... ON CONFLICT DO NOTHING`` in each dialect's construct;
``plain_rows`` runs a Core ``select`` (compiled by SQLAlchemy for the session's database, so no SQL is written
by hand) on the session's DB-API connection and returns plain tuples that look the same on both: JSON columns as
their text (psycopg would decode them; sqlite3 hands the text), so callers decode them once, the same way.
``raw_rows`` does the same for hand-written SQL (``?`` placeholders, as sqlite3 takes them), and ``raw_row_batches``
gives its rows a batch at a time. ``copy_rows`` writes
new rows with PostgreSQL's ``COPY ... FROM STDIN`` (an import's bulk insert there: ``bulk_insert.insert_rows``).
``in_chunks`` cuts a list of values for ``IN (...)`` to what both accept (SQLite's and PostgreSQL's limits on
bound parameters: 32,766 and 65,535).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from sqlalchemy import JSON, Table

from sqlalchemy.orm import Session
from sqlalchemy.sql import Select


def in_chunks(values: Iterable[Any], size: int = 500) -> Iterator[list[Any]]:
    """``values`` as lists of at most ``size`` (≤ 32,766) for one ``IN (...)`` each, in their order."""
    values = list(values)
    return (values[i:i + size] for i in range(0, len(values), size))


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


def raw_row_batches(session: Session, sql: str, params: Sequence[Any] = (), size: int = 10_000) -> Iterator[list[tuple]]:
    """``raw_rows`` of ``sql`` given ``size`` rows at a time, in the order the database returns them: a reader that
    keeps a few columns of each row never holds every row's tuple (100,000 answers: ~40 MB of tuples at once)."""
    if session.get_bind().dialect.name == "postgresql":
        sql = sql.replace("?", "%s")
    cursor = _cursor(session)
    try:
        cursor.execute(sql, tuple(params))
        while rows := cursor.fetchmany(size):
            yield rows
    finally:
        cursor.close()


def _cursor(session: Session) -> Any:
    """A cursor of the session's DB-API connection (inside its transaction); on PostgreSQL ``json``/``jsonb``
    values come back as text, as sqlite3 gives them."""
    cursor = session.connection().connection.cursor()
    if session.get_bind().dialect.name == "postgresql":
        from psycopg.types.string import TextLoader

        cursor.adapters.register_loader("json", TextLoader)
        cursor.adapters.register_loader("jsonb", TextLoader)
    return cursor


def _fetch(session: Session, sql: str, params: Sequence[Any] | dict[str, Any]) -> list[tuple]:
    """Run ``sql`` on the session's DB-API connection (inside its transaction) and fetch every row."""
    cursor = _cursor(session)
    try:
        cursor.execute(sql, params)
        return cursor.fetchall()
    finally:
        cursor.close()


def copy_rows(session: Session, table: Table, rows: Sequence[dict[str, Any]]) -> None:
    """Write ``rows`` (dicts naming the same columns of ``table``) with ``COPY ... FROM STDIN`` on the session's
    PostgreSQL connection, inside its transaction: one stream where an ``executemany`` sends one INSERT per row
    (a 100,000-task import took 20x ``COPY`` that way). JSON values are written as their text, None as SQL NULL
    (as ``bulk_insert.insert_rows`` stores a None JSON value); a column no row names gets its Python-side
    default (a scalar or a function) when it has one and no server default. The table is analysed again
    (``ANALYZE``) when the rows written are more than half of what the planner thinks it holds. Raises psycopg's
    errors."""
    preparer = session.get_bind().dialect.identifier_preparer
    names = list(rows[0])
    missing = [c for c in table.columns if c.name not in names and c.default is not None
               and c.server_default is None and (c.default.is_scalar or c.default.is_callable)]
    json_names = {c.name for c in table.columns if isinstance(c.type, JSON)}
    columns = ", ".join(preparer.quote(n) for n in [*names, *(c.name for c in missing)])
    cursor = session.connection().connection.cursor()
    try:
        with cursor.copy(f"COPY {preparer.format_table(table)} ({columns}) FROM STDIN") as copy:
            for row in rows:
                values = [row[n] if n not in json_names or row[n] is None else json.dumps(row[n]) for n in names]
                values += [c.default.arg if c.default.is_scalar else c.default.arg(None) for c in missing]
                copy.write_row(values)
        # The planner's row estimate of a table an import is filling stays at what it was (autovacuum's
        # ANALYZE comes a minute later), so the next batch's lookups by id scanned the whole growing table:
        # a 100,000-task import was 18x COPY against 3x at 30,000. Analysed again whenever it grew by half.
        cursor.execute("SELECT reltuples FROM pg_class WHERE oid = %s::regclass", (preparer.format_table(table),))
        estimate = cursor.fetchone()[0]
        if len(rows) >= 1000 and len(rows) > 0.5 * max(estimate, 0):
            cursor.execute(f"ANALYZE {preparer.format_table(table)}")
    finally:
        cursor.close()
