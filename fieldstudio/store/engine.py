"""SQLite engines with WAL, foreign keys, a busy timeout and ``BEGIN IMMEDIATE`` write transactions.

The recipe follows SQLAlchemy's documented pysqlite set-up for serialisable SQLite transactions; see
``../shared/reference/pitfalls.md`` §13 for why the default set-up loses updates.
"""

from __future__ import annotations

import logging

import sqlite3
import threading
from pathlib import Path

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool

from fieldstudio.store.schema_revisions import sqlite_uri

BUSY_TIMEOUT_MS = 5000


def make_engine(path: Path, *, read_only: bool = False, for_reads: bool = False) -> Engine:
    """Return an engine on the SQLite file ``path``.

    Every connection gets ``journal_mode=WAL`` (unless read-only), ``foreign_keys=ON`` and
    ``busy_timeout=5000`` ms. Every transaction starts with ``BEGIN IMMEDIATE`` so a read-then-write
    unit of work holds the write lock from its first statement. An engine ``for_reads`` uses a plain
    deferred ``BEGIN`` (in WAL mode readers never wait for the writer); a ``read_only`` one also
    opens the file with ``mode=ro``.
    """
    uri = sqlite_uri(path, read_only=read_only)
    deferred = read_only or for_reads
    # The file is opened by our own creator with the percent-encoded URI: written into an SQLAlchemy URL,
    # a name with "#", "?" or "%20" is decoded on the way and SQLite opens (and creates) another file.
    # NullPool: one short-lived connection per unit of work, so no connection outlives its thread, but for the main
    # thread's kept read connection (``Project._kept_read``). That one is closed by whichever thread closes the project
    # (a worker, once the project's indexer has let go of it): read connections are not bound to their thread.
    engine = create_engine("sqlite://", creator=lambda: sqlite3.connect(uri, uri=True, check_same_thread=not deferred),
                           poolclass=NullPool)

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn, _record):  # noqa: ANN001 - DB-API objects
        dbapi_conn.isolation_level = None  # SQLAlchemy's "begin" event issues BEGIN itself
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA foreign_keys=ON")
        if not read_only:
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn):  # noqa: ANN001
        conn.exec_driver_sql("BEGIN" if deferred else "BEGIN IMMEDIATE")

    return engine


WRITE_LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtext('fieldstudio-write:' || current_database()))"
"""Taken first in every PostgreSQL write transaction: writers of one project go one at a time, as SQLite's
``BEGIN IMMEDIATE`` makes them, so a read-then-write unit of work (next track id, next position) sees the
rows of every transaction committed before it. Readers never wait for it (MVCC). The lock ends with the
transaction (https://www.postgresql.org/docs/15/explicit-locking.html#ADVISORY-LOCKS)."""


_PG_ENGINES: dict[str, tuple[Engine, Engine]] = {}
_PG_LOCK = threading.Lock()


# psycopg logs "error ignored terminating <Copy>: the connection is lost" when a server stops in the middle of a
# COPY; with no handler of its own it reached a command's stderr through logging's last resort, beside the one
# line the CLI prints for that failure. A NullHandler keeps it to the log file (when one is set up), like any record.
logging.getLogger("psycopg").addHandler(logging.NullHandler())


def make_pg_engines(url) -> tuple[Engine, Engine]:  # noqa: ANN001 - sqlalchemy.engine.URL
    """(write engine, read engine) on a PostgreSQL database, sharing one small connection pool.

    Write transactions begin with ``WRITE_LOCK_SQL``; reads are plain READ COMMITTED transactions.
    One pool per database URL serves the whole process (the project, the library's reads, a project opened
    again), so a connection's set-up (TCP, the password exchange, the dialect's first queries) is paid once:
    it costs more than opening a project file. Connections are checked before use (``pool_pre_ping``) so a
    restarted server costs one reconnect; every connection has ``application_name=fieldstudio`` so
    administrators can see who is connected, and the session time zone UTC, as fieldstudio stores every time.
    Raises nothing itself: a bad URL or an unreachable server fails on the first connection.
    """
    key = url.render_as_string(hide_password=False)
    with _PG_LOCK:
        engines = _PG_ENGINES.get(key)
        if engines is None:
            engines = _PG_ENGINES[key] = _new_pg_engines(url)
        return engines


def _new_pg_engines(url) -> tuple[Engine, Engine]:  # noqa: ANN001
    engine = create_engine(url, pool_size=2, max_overflow=6, pool_pre_ping=True, pool_recycle=1800,
                           connect_args={"application_name": "fieldstudio", "connect_timeout": 10,
                                         "options": "-c timezone=UTC"})
    writes = engine.execution_options(fieldstudio_write=True)

    @event.listens_for(engine, "begin")
    def _begin(conn):  # noqa: ANN001
        if conn.get_execution_options().get("fieldstudio_write"):
            conn.exec_driver_sql(WRITE_LOCK_SQL)

    return writes, engine


def release_pg_engines(url=None) -> None:  # noqa: ANN001
    """Close the pooled connections to ``url``'s database (all databases when None): before the database is
    dropped, or when the process is done with a server."""
    def public(text: str) -> str:
        from sqlalchemy.engine import make_url

        return make_url(text)._replace(password=None).render_as_string(hide_password=False)

    key = None if url is None else public(url.render_as_string(hide_password=False))
    with _PG_LOCK:
        for k in [k for k in _PG_ENGINES if key is None or public(k) == key]:
            _PG_ENGINES.pop(k)[1].dispose()
