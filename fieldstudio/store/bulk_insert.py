"""New rows written in bulk: one executemany per table instead of the ORM's flush of one INSERT per row.

An import makes thousands of rows whose ids it can make itself (``models.new_id``): with the ids made before
the insert nothing has to be flushed to learn one, and the rows go to the database inside the caller's write
transaction as one ``executemany`` of a plain ``INSERT ... VALUES (?, ...)`` on SQLite, the values converted
here by each column type's own bind processor (SQLAlchemy's, so the stored text is what the ORM and Core store),
and as one ``COPY ... FROM STDIN`` per table on PostgreSQL (``portable.copy_rows``), where psycopg's executemany
sends one INSERT per row. Core's compiled executemany cost two thirds of a 100,000-polygon import's insert in
building and processing one parameter dict per row (issue 32); the tuples here are made in one pass, and a value
repeated from the row before (an import's one timestamp, its user) is converted once. The owning package decides
what to insert; tracked tables (tasks, annotations) go through ``changes.insert_tracked``, which stamps and logs
them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import JSON, Table
from sqlalchemy.orm import Session

from fieldstudio.store.content_hashes import fill_rows
from fieldstudio.store.portable import copy_rows

__all__ = ["insert_rows"]


def insert_rows(session: Session, model: type, rows: Sequence[dict[str, Any]]) -> None:
    """INSERT ``rows`` (one dict of column values each) into ``model``'s table in the session's transaction.

    Every dict names the same columns; a column named by none of them gets its Python-side default (a scalar, or
    a function called per row, as Core calls it; ``id`` included: give it when the caller needs the ids), else
    the database's. A JSON value None is stored as SQL NULL, as the ORM stores an unset JSON attribute (Core would
    write the JSON text ``null``). The rows go in the order given (SQLite's rowid keeps it: the task list's file
    order). Answers and tasks get their content hash (``content_hashes.fill_rows``), as the ORM's flush gives
    them. Raises SQLAlchemy's errors (a duplicate key, a foreign key that names nothing: ``IntegrityError``); the
    caller's transaction then rolls back.
    """
    if not rows:
        return
    table = model.__table__
    rows = fill_rows(table, rows)
    if session.get_bind().dialect.name == "postgresql":
        copy_rows(session, table, rows)     # executemany there sends one INSERT per row
        return
    connection = session.connection()
    dialect = connection.dialect
    names = list(rows[0])
    missing = [c for c in table.columns if c.name not in names and c.default is not None
               and (c.default.is_scalar or c.default.is_callable)]
    preparer = dialect.identifier_preparer
    columns = [*names, *(c.name for c in missing)]
    sql = (f"INSERT INTO {preparer.format_table(table)} ({', '.join(preparer.quote(n) for n in columns)}) "
           f"VALUES ({', '.join('?' * len(columns))})")
    # column by column: each column's values converted in one map (a value every row shares, the same object,
    # converted once: an import's timestamp and user), then zipped into the rows' tuples
    values = []
    for name, column in zip(names, (table.c[name] for name in names)):
        process = _processor(column, dialect)
        given = [row[name] for row in rows]
        if process is None:
            values.append(given)
        elif len(set(map(id, given))) == 1:
            values.append([process(given[0])] * len(given))
        else:
            values.append(list(map(process, given)))
    for column in missing:
        process = _processor(column, dialect) or (lambda value: value)
        if column.default.is_scalar:
            values.append([process(column.default.arg)] * len(rows))
        else:    # a function (a new id, the time): called per row, as Core calls it
            values.append([process(column.default.arg(None)) for _ in rows])
    connection.exec_driver_sql(sql, list(zip(*values)))   # tuples: one executemany, errors wrapped by SQLAlchemy


def _processor(column: Any, dialect: Any) -> Callable[[Any], Any] | None:
    """The column's bind processor (its dialect type's, as Core uses; a JSON column's storing None as SQL NULL),
    or None when values go to the driver as they are."""
    if isinstance(column.type, JSON):
        return JSON(none_as_null=True).dialect_impl(dialect).bind_processor(dialect)
    return column.type.dialect_impl(dialect).bind_processor(dialect)
